//! Whether a text cut by the end of the output is the beginning of a JSON
//! value: the question "is this a truncated edit or prose?".
//!
//! An iterative checker, not `serde_json` on the rest of the output: it has
//! no nesting limit (serde's 128 levels make 20,000 levels of `{"a":`
//! "invalid", so every level would be tried again), it reads each byte once, and
//! it names the containers still open where it stopped, whose answer is the
//! same (see `memo`). It accepts what [`super::repair`] mends: raw line
//! breaks and tabs inside strings, trailing commas.

/// What the checker expects next.
#[derive(Clone, Copy, PartialEq)]
enum Want {
    Value,
    /// In an array, after `[` or `,`.
    ValueOrClose,
    /// In an object, after `{` or `,`.
    KeyOrClose,
    Colon,
    CommaOrClose,
}

/// How a token ended.
enum Step {
    /// It ended at this offset.
    At(usize),
    /// The output ended inside it, validly.
    Eof,
    /// It is not JSON.
    Bad,
}

/// Checks the text from `i` to the end: `true` when it is a valid
/// beginning of a value that the end cuts off; with the starts of the
/// containers open where the check stopped (at the end or at the error).
pub(super) fn check(b: &[u8], i: usize) -> (bool, Vec<usize>) {
    // The offsets of the open containers; the byte there says which kind
    // (a second field per level would double what a deep hostile output
    // makes the check write: it is returned as it is).
    let mut stack: Vec<usize> = vec![];
    let mut want = Want::Value;
    let mut k = i;
    loop {
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        let Some(&c) = b.get(k) else {
            return (true, stack);
        };
        let in_obj = stack.last().is_some_and(|&o| b[o] == b'{');
        let step = match (want, c) {
            (Want::Value | Want::ValueOrClose, b'{' | b'[') => {
                stack.push(k);
                want = if c == b'{' {
                    Want::KeyOrClose
                } else {
                    Want::ValueOrClose
                };
                k += 1;
                continue;
            }
            (Want::ValueOrClose | Want::KeyOrClose | Want::CommaOrClose, b'}' | b']')
                if stack.last().is_some_and(|&o| (b[o] == b'{') == (c == b'}')) =>
            {
                stack.pop();
                Step::At(k + 1)
            }
            (Want::KeyOrClose, b'"') => {
                want = Want::Colon;
                match string(b, k) {
                    Step::At(e) => {
                        k = e;
                        continue;
                    }
                    other => other,
                }
            }
            (Want::Colon, b':') => {
                want = Want::Value;
                k += 1;
                continue;
            }
            (Want::CommaOrClose, b',') => {
                want = if in_obj {
                    Want::KeyOrClose
                } else {
                    Want::ValueOrClose
                };
                k += 1;
                continue;
            }
            (Want::Value | Want::ValueOrClose, _) => scalar(b, k),
            _ => Step::Bad,
        };
        match step {
            Step::At(_) if stack.is_empty() => return (false, vec![]),
            Step::At(e) => {
                want = Want::CommaOrClose;
                k = e;
            }
            Step::Eof => return (true, stack),
            Step::Bad => return (false, stack),
        }
    }
}

/// A string, number or literal starting at `k`.
fn scalar(b: &[u8], k: usize) -> Step {
    match b[k] {
        b'"' => string(b, k),
        b'-' | b'0'..=b'9' => {
            let n = b[k..]
                .iter()
                .take_while(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                .count();
            if k + n == b.len() {
                Step::Eof
            } else {
                Step::At(k + n)
            }
        }
        _ => {
            let n = b[k..]
                .iter()
                .take_while(|c| c.is_ascii_alphabetic())
                .count();
            let word = &b[k..k + n];
            let known = [&b"true"[..], b"false", b"null"];
            if k + n == b.len() && known.iter().any(|w| w.starts_with(word)) && n > 0 {
                Step::Eof
            } else if known.contains(&word) {
                Step::At(k + n)
            } else {
                Step::Bad
            }
        }
    }
}

/// A string starting at the quote at `k`.
fn string(b: &[u8], k: usize) -> Step {
    let mut j = k + 1;
    while j < b.len() {
        match b[j] {
            b'"' => return Step::At(j + 1),
            b'\\' => match b.get(j + 1) {
                None => return Step::Eof,
                Some(b'u') => {
                    let hex = b[j + 2..]
                        .iter()
                        .take(4)
                        .take_while(|c| c.is_ascii_hexdigit());
                    let n = hex.count();
                    if j + 2 + n == b.len() {
                        return Step::Eof;
                    }
                    if n < 4 {
                        return Step::Bad;
                    }
                    j += 6;
                    continue;
                }
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => j += 2,
                Some(_) => return Step::Bad,
            },
            b'\n' | b'\r' | b'\t' => j += 1,
            c if c < 0x20 => return Step::Bad,
            _ => j += 1,
        }
    }
    Step::Eof
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> bool {
        check(s.as_bytes(), 0).0
    }

    #[test]
    fn cut_values_are_prefixes() {
        for s in [
            "{",
            "{\"",
            "{\"op",
            "{\"op\": \"rep",
            "{\"a\": [1, 2, {\"b\": tr",
            "{\"a\": -1.",
            "{\"a\": \"x\\",
            "{\"a\": \"\\u00",
            "{\"a\": \"raw\nline\", ",
            "[{\"a\": 1},",
            &"{\"a\":".repeat(1000),
        ] {
            assert!(ok(s), "{s:?}");
        }
    }

    #[test]
    fn prose_and_complete_values_are_not() {
        for s in [
            "{\"a\" x",
            "{\"a\": 1}",
            "{\"a\": 1} more",
            "{\"a\": nope",
            "{\"a\": [1}",
            "{\"a\": \"\\q",
            "{1: 2",
        ] {
            assert!(!ok(s), "{s:?}");
        }
        // The containers open at an error share its verdict.
        let (v, open) = check(b"{\"a\": {\"b\": [x", 0);
        assert!(!v);
        assert_eq!(open, vec![0, 6, 12]);
    }
}
