//! The text syntax of the `lines` format: block headers (`@@ PATH N:M
//! crc32=...`, `after N`, `before N`, `delete N:M`, `@@ end`), line ranges,
//! and the `# file: PATH crc32=...` view header a model may copy. Each
//! function reads one line or token, `O(len)`.

use crate::apply::text::parse_crc;
use crate::formats::LineOp;

/// A parsed `@@` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Header {
    End,
    Block {
        path: Option<String>,
        kind: LineOp,
        first: usize,
        last: usize,
        crc: Option<u32>,
    },
}

/// A `crc32=...` token.
fn crc_token(t: &str) -> Option<Option<u32>> {
    let l = t.to_ascii_lowercase();
    ["crc32=", "crc=", "crc32:"]
        .iter()
        .find_map(|p| l.strip_prefix(p))
        .map(parse_crc)
}

/// A range `N`, `N:M`, `N-M`, `N..M` or `N,N+1,...` (1-based, inclusive);
/// `None` when the token is not a range at all.
pub(super) fn range(t: &str) -> Option<Result<(usize, usize), String>> {
    let t = t.trim_matches(|c| c == '[' || c == ']');
    if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit() || ":-.,".contains(c)) {
        return None;
    }
    if !t.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let nums =
        |sep: &str| -> Option<Vec<usize>> { t.split(sep).map(|x| x.trim().parse().ok()).collect() };
    let r = if t.contains(',') {
        nums(",").map(|v| list(&v))
    } else if let Some((a, b)) = t
        .split_once("..")
        .or_else(|| t.split_once(':'))
        .or_else(|| t.split_once('-'))
    {
        match (a.parse::<usize>(), b.parse::<usize>()) {
            (Ok(a), Ok(b)) if a <= b => Some(Ok((a, b))),
            (Ok(a), Ok(b)) => Some(Err(format!(
                "the range {a}:{b} runs backwards; write the first line first"
            ))),
            _ => None,
        }
    } else {
        t.parse().ok().map(|n| Ok((n, n)))
    };
    Some(r.unwrap_or_else(|| {
        Err(format!(
            "`{t}` is not a line range; write `N`, `N:M` or `N,N+1,...`"
        ))
    }))
}

/// A list of line numbers that must be contiguous.
pub(super) fn list(v: &[usize]) -> Result<(usize, usize), String> {
    let mut s = v.to_vec();
    crate::order::sort(&mut s[..]);
    s.dedup();
    for w in s.windows(2) {
        if w[1] != w[0] + 1 {
            return Err(format!(
                "lines {} and {} are not contiguous (line {} is missing); write one range per block",
                w[0],
                w[1],
                w[0] + 1
            ));
        }
    }
    match (s.first(), s.last()) {
        (Some(&a), Some(&b)) => Ok((a, b)),
        _ => Err("no line numbers given".into()),
    }
}

pub(super) fn verb(t: &str) -> Option<LineOp> {
    Some(match t.to_ascii_lowercase().trim_end_matches(':') {
        "after" | "insert" | "insert-after" | "insert_after" | "append" => LineOp::After,
        "before" | "insert-before" | "insert_before" => LineOp::Before,
        "delete" | "remove" => LineOp::Delete,
        "replace" | "lines" | "line" | "edit" => LineOp::Replace,
        _ => return None,
    })
}

/// Parses a line starting with `@@`: `None` when it does not, an error when
/// it is not a valid header.
pub(super) fn header(line: &str) -> Option<Result<Header, String>> {
    let rest = line.strip_prefix("@@")?;
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return None;
    }
    // A path with spaces is written in backticks or double quotes.
    let (quoted, rest) = match quoted_path(rest) {
        Some((p, after)) => (Some(p), after),
        None => (None, rest),
    };
    let mut toks: Vec<&str> = rest.split_whitespace().collect();
    if toks.last() == Some(&"@@") {
        toks.pop();
    }
    if toks.len() == 1 && toks[0].eq_ignore_ascii_case("end") {
        return Some(Ok(Header::End));
    }
    let bad = |why: &str| {
        Err(format!(
            "`{}` is not a block header ({why}); write `@@ PATH N:M`, `@@ PATH after N`, `@@ PATH delete N:M`, or `@@ end` after the last block",
            line.trim()
        ))
    };
    let mut crc = None;
    let mut words = vec![];
    for t in toks {
        match crc_token(t) {
            Some(Some(c)) => crc = Some(c),
            Some(None) => return Some(bad("the CRC-32 is 8 hex digits")),
            None => words.push(t),
        }
    }
    let Some(last) = words.pop() else {
        return Some(bad("no line range"));
    };
    let (first, last) = match range(last) {
        Some(Ok(r)) => r,
        Some(Err(e)) => return Some(Err(e)),
        None => return Some(bad("it ends with no line range")),
    };
    let mut kind = LineOp::Replace;
    while let Some(k) = words.last().and_then(|w| verb(w)) {
        if k != LineOp::Replace || kind == LineOp::Replace {
            kind = k;
        }
        words.pop();
    }
    if words.len() + usize::from(quoted.is_some()) > 1 {
        return Some(bad("more than one path"));
    }
    let path = quoted.or_else(|| words.pop().map(|p| p.trim_matches('`').to_owned()));
    if kind != LineOp::After && first == 0 {
        return Some(Err(
            "line numbers start at 1 (`after 0` inserts at the top)".into(),
        ));
    }
    if matches!(kind, LineOp::After | LineOp::Before) && first != last {
        return Some(bad("an insert names one line"));
    }
    Some(Ok(Header::Block {
        path,
        kind,
        first,
        last,
        crc,
    }))
}

/// A path in backticks or double quotes at the start of `rest` (after
/// `@@`), and the text after it.
fn quoted_path(rest: &str) -> Option<(String, &str)> {
    let t = rest.trim_start();
    let q = t.chars().next().filter(|c| matches!(c, '`' | '"'))?;
    let close = t[1..].find(q)? + 1;
    let p = &t[1..close];
    let after = &t[close + 1..];
    (!p.trim().is_empty() && (after.is_empty() || after.starts_with(char::is_whitespace)))
        .then(|| (p.to_owned(), after))
}

/// How a header writes `path`: as is, or in backticks when it holds
/// whitespace (which would split it into several words).
pub(super) fn header_path(path: &str) -> String {
    if path.contains(char::is_whitespace) {
        format!("`{path}`")
    } else {
        path.to_owned()
    }
}

/// A copied view header `# file: [PATH] [crc32=X] ...`: its path (a view
/// of an unnamed file has none) and CRC.
pub(super) fn view_header(line: &str) -> Option<(Option<String>, Option<u32>)> {
    let rest = line.trim().strip_prefix("# file:")?;
    let toks: Vec<&str> = rest.split_whitespace().collect();
    let path = toks
        .first()
        .filter(|t| crc_token(t).is_none())
        .map(|t| t.to_string());
    let crc = toks.iter().find_map(|t| crc_token(t)).flatten();
    Some((path, crc))
}

/// Whether a line is a `lines` block header (for format detection).
pub fn is_header(line: &str) -> bool {
    matches!(header(line), Some(Ok(Header::Block { .. })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_headers() {
        assert_eq!(range("10:23"), Some(Ok((10, 23))));
        assert_eq!(range("10-23"), Some(Ok((10, 23))));
        assert_eq!(range("10..12"), Some(Ok((10, 12))));
        assert_eq!(range("11,12,13"), Some(Ok((11, 13))));
        assert_eq!(range("7"), Some(Ok((7, 7))));
        assert!(matches!(range("11,13"), Some(Err(_))));
        assert!(matches!(range("23:10"), Some(Err(_))));
        assert_eq!(range("src/a.py"), None);
        assert_eq!(
            header("@@ src/a.py insert after 4 crc32=0000abcd @@"),
            Some(Ok(Header::Block {
                path: Some("src/a.py".into()),
                kind: LineOp::After,
                first: 4,
                last: 4,
                crc: Some(0xabcd)
            }))
        );
        assert_eq!(header("@@ END"), Some(Ok(Header::End)));
        assert!(matches!(header("@@ a.py b.py 3"), Some(Err(_))));
        assert!(matches!(header("@@ a.py after 3:4"), Some(Err(_))));
        assert_eq!(header("@@decorator"), None);
        assert_eq!(
            header("@@ `docs/read me.md` after 1 crc32=0000abcd"),
            Some(Ok(Header::Block {
                path: Some("docs/read me.md".into()),
                kind: LineOp::After,
                first: 1,
                last: 1,
                crc: Some(0xabcd)
            }))
        );
        assert!(matches!(header("@@ \"a b.py\" c.py 3"), Some(Err(_))));
        assert_eq!(
            view_header("# file: a.py crc32=0badcafe lines=9"),
            Some((Some("a.py".into()), Some(0x0bad_cafe)))
        );
        assert_eq!(
            view_header("# file: crc32=0badcafe lines=9"),
            Some((None, Some(0x0bad_cafe)))
        );
    }
}
