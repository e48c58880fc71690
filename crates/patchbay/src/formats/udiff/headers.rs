//! The header lines of a unified diff, each read on its own: git's
//! `diff --git a/X b/Y` paths, a `---`/`+++` path (timestamps, `/dev/null`,
//! git's C-style quoting) and the `@@ -a,b +c,d @@` hunk header. Each is
//! linear in its line. [`super::parse`] sets what they say on the file part
//! it builds (with git's extended lines: `rename from`, `new file mode`, ...).

/// One side's path: `None` for `/dev/null`.
pub fn side_path(rest: &str) -> Option<String> {
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

/// `@@ -a,b +c,d @@`: each side's (start, count), when written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub old: Option<(usize, usize)>,
    pub new: Option<(usize, usize)>,
    pub text: String,
}
