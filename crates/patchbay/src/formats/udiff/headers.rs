//! The header lines of a unified diff: git's `diff --git a/X b/Y` and its
//! extended lines (`rename from`, `new file mode`, ...), the `---`/`+++`
//! paths (timestamps, `/dev/null`, `a/` and `b/`, git's C-style quoting)
//! and the `@@ -a,b +c,d @@` hunk header. Each is linear in its line.

use super::parse::{FileDiff, Header};
use crate::reply::scan::OutLine;

/// Reads git's extended header lines after `diff --git`; returns the index
/// of the first line that is not one.
pub fn extended_headers(lines: &[OutLine], mut i: usize, f: &mut FileDiff) -> usize {
    let mut from = None;
    while let Some(l) = lines.get(i) {
        let t = l.text;
        if let Some(p) = t.strip_prefix("rename from ") {
            from = Some(unquote(p.trim_end()));
        } else if let Some(p) = t.strip_prefix("rename to ") {
            if let Some(from) = from.take() {
                f.rename = Some((from, unquote(p.trim_end())));
            }
        } else if t.starts_with("new file mode ") {
            f.created = true;
        } else if t.starts_with("deleted file mode ") {
            f.deleted = true;
        } else if t.starts_with("old mode ") || t.starts_with("new mode ") {
            f.mode_only = true;
        } else if t.starts_with("copy from ") || t.starts_with("copy to ") {
            f.unsupported = Some(
                "file copies are not supported; write the new file as a creation (`--- /dev/null`)"
                    .into(),
            );
        } else if t.starts_with("Binary files ") || t.starts_with("GIT binary patch") {
            f.unsupported = Some("binary patches are not supported".into());
        } else if !(t.starts_with("index ")
            || t.starts_with("similarity index ")
            || t.starts_with("dissimilarity index "))
        {
            break;
        }
        f.span.end = l.end;
        i += 1;
    }
    i
}

/// Paths from `--- X` / `+++ Y`: timestamps dropped, `/dev/null` noted,
/// `a/` and `b/` removed when the pair carries them (as git writes it).
pub fn set_side_paths(f: &mut FileDiff, old: &str, new: &str) {
    f.headers = true;
    let (mut o, mut n) = (side_path(old), side_path(new));
    if o.is_none() {
        f.created = true;
    }
    if n.is_none() {
        f.deleted = true;
    }
    let ok_o = o.as_deref().is_none_or(|p| p.starts_with("a/"));
    let ok_n = n.as_deref().is_none_or(|p| p.starts_with("b/"));
    if (ok_o && ok_n) || f.git {
        o = o.map(|p| p.strip_prefix("a/").map(str::to_owned).unwrap_or(p));
        n = n.map(|p| p.strip_prefix("b/").map(str::to_owned).unwrap_or(p));
    } else if let (Some(a), Some(b)) = (&o, &n) {
        // Only one side has its prefix: `--- a/x` with `+++ x`.
        if a.strip_prefix("a/") == Some(b.as_str()) {
            o = n.clone();
        } else if b.strip_prefix("b/") == Some(a.as_str()) {
            n = o.clone();
        }
    }
    if f.git {
        // The `diff --git` names stand for a `/dev/null` side.
        f.old_path = o.or(f.old_path.take());
        f.new_path = n.or(f.new_path.take());
    } else {
        (f.old_path, f.new_path) = (o, n);
    }
}

/// One side's path: `None` for `/dev/null`.
fn side_path(rest: &str) -> Option<String> {
    let p = rest.split('\t').next().unwrap_or("").trim();
    let p = if p.starts_with('"') {
        unquote(p)
    } else {
        // `diff -u` style timestamp or a model's `(original)` after a space.
        match p.split_once(' ') {
            Some((first, tail))
                if tail
                    .trim_start()
                    .starts_with(|c: char| c.is_ascii_digit() || c == '(') =>
            {
                first.to_owned()
            }
            _ => p.to_owned(),
        }
    };
    (p != "/dev/null").then_some(p)
}

/// `a/X b/Y` of a `diff --git` line, split where both halves agree.
pub fn git_paths(rest: &str) -> (Option<String>, Option<String>) {
    let rest = rest.trim_end();
    let strip = |p: String, pre: &str| p.strip_prefix(pre).map(str::to_owned).unwrap_or(p);
    if rest.starts_with('"') {
        let end = quoted_end(rest);
        let (a, b) = rest.split_at(end);
        return (
            Some(strip(unquote(a), "a/")),
            Some(strip(unquote(b.trim()), "b/")),
        );
    }
    let splits: Vec<usize> = rest.match_indices(" b/").map(|(k, _)| k).collect();
    let k = splits
        .iter()
        .copied()
        .find(|&k| rest[..k].strip_prefix("a/") == Some(&rest[k + 3..]))
        .or(splits.first().copied());
    match k {
        Some(k) => (
            Some(strip(rest[..k].to_owned(), "a/")),
            Some(rest[k + 3..].to_owned()),
        ),
        None => (None, None),
    }
}

fn quoted_end(s: &str) -> usize {
    let b = s.as_bytes();
    let mut k = 1;
    while k < b.len() {
        match b[k] {
            b'\\' => k += 2,
            b'"' => return k + 1,
            _ => k += 1,
        }
    }
    s.len()
}

/// Undoes git's C-style quoting (`"a/\303\251 x.txt"`); plain text stays.
pub fn unquote(s: &str) -> String {
    let Some(inner) = s.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else {
        return s.to_owned();
    };
    let b = inner.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut k = 0;
    while k < b.len() {
        if b[k] != b'\\' || k + 1 >= b.len() {
            out.push(b[k]);
            k += 1;
            continue;
        }
        let c = b[k + 1];
        k += 2;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    if let Some(d @ b'0'..=b'7') = b.get(k) {
                        v = v * 8 + u32::from(d - b'0');
                        k += 1;
                    }
                }
                out.push(v as u8);
            }
            other => out.push(other),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `@@ -a,b +c,d @@ section`; a side without numbers is `None`.
pub fn parse_header(t: &str) -> Header {
    let body = t.trim_start_matches('@');
    let ranges = body.find("@@").map_or(body, |k| &body[..k]);
    let range = |s: &str| -> Option<(usize, usize)> {
        let (a, b) = s.split_once(',').unwrap_or((s, "1"));
        Some((a.parse().ok()?, b.parse().ok()?))
    };
    let (mut old, mut new) = (None, None);
    for tok in ranges.split_whitespace() {
        if let Some(r) = tok.strip_prefix('-') {
            old = old.or(range(r));
        } else if let Some(r) = tok.strip_prefix('+') {
            new = new.or(range(r));
        }
    }
    Header {
        old,
        new,
        text: t.to_owned(),
    }
}
