//! What single lines of the patch text say to GNU `patch` (`pch.c` and
//! `util.c`): header names, git's hashes, ed and normal diff commands.

/// Columns of indentation, tabs to the next multiple of 8.
pub(super) fn indent_of(ws: &str) -> usize {
    ws.bytes().fold(
        0,
        |col, c| if c == b'\t' { (col + 8) & !7 } else { col + 1 },
    )
}

/// Skips RFC 934 `- ` quoting before a `---` line.
pub(super) fn dashes(mut s: &str) -> &str {
    while let Some(rest) = s.strip_prefix("- ") {
        s = rest;
    }
    s
}

/// Git's all-zero hash says the side does not exist, the empty blob's
/// that it is empty.
pub(super) fn sha_nonexistent(h: &str) -> u8 {
    if h.bytes().all(|c| c == b'0') {
        2
    } else {
        u8::from("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391".starts_with(h))
    }
}

/// `fetchname`: the name up to the first blank (up to a tab when a tab
/// separates it from a date), `/dev/null` marked, `-p1` stripped.
pub(super) fn fetch_name(at: &str, name: &mut Option<String>, dev_null: &mut bool) {
    let at = at.trim_start();
    let end = if at.contains('\t') {
        at.find('\t')
    } else {
        at.find(char::is_whitespace)
    };
    let n = &at[..end.unwrap_or(at.len())];
    if n == "/dev/null" {
        *dev_null = true;
        return;
    }
    if let Some(n) = strip1(n) {
        *name = Some(n);
    }
}

/// `diff --git a/x b/y`: both names, or neither.
pub(super) fn git_names(rest: &str, names: &mut [Option<String>; 3]) {
    let mut w = rest.split_whitespace();
    let (a, b) = (w.next().and_then(strip1), w.next().and_then(strip1));
    let ok = a.is_some() && b.is_some() && w.next().is_none();
    names[0] = if ok { a } else { None };
    names[1] = if ok { b } else { None };
}

/// `strip_leading_slashes(name, 1)`: drops the first directory; a name
/// without one is not usable.
fn strip1(n: &str) -> Option<String> {
    let i = n.find('/')?;
    let rest = n[i..].trim_start_matches('/');
    (!rest.is_empty()).then(|| rest.to_owned())
}

/// `get_ed_command_letter`: `[N[,M]]a`, `i`, `c`, `d` or `s/.//`, alone
/// on the line.
pub(super) fn ed_letter(s: &str) -> Option<u8> {
    let b = s.as_bytes();
    let digits = |i: usize| i + b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = digits(0);
    let mut pair = false;
    if i > 0 && b.get(i) == Some(&b',') {
        let j = digits(i + 1);
        if j == i + 1 {
            return None;
        }
        (i, pair) = (j, true);
    }
    let letter = *b.get(i)?;
    i += 1;
    match letter {
        b'a' | b'i' if pair => return None,
        b'a' | b'i' | b'c' | b'd' => {}
        b's' if b[i..].starts_with(b"/.//") => i += 4,
        _ => return None,
    }
    let rest = &b[i..];
    let blank = rest
        .iter()
        .take_while(|c| **c == b' ' || **c == b'\t')
        .count();
    (&rest[blank..] == b"\n").then_some(letter)
}

/// Whether a line starting `N[,M]` followed by `a`, `c` or `d` is a normal
/// diff's command (`5c5`); `None` for other lines, which leave `patch`'s
/// flag as it was.
pub(super) fn normal_command(s: &str) -> Option<bool> {
    if !s.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let t = s.trim_start_matches(|c: char| c.is_ascii_digit() || c == ',');
    let t = t.strip_prefix(['a', 'c', 'd'])?;
    let t = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == ',');
    let t = t.trim_start_matches([' ', '\t']);
    Some(t.strip_prefix('\r').unwrap_or(t) == "\n")
}
