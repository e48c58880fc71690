//! Substring replacement (`str_replace`): every occurrence of the old text
//! is found in the file as LF text; exactly one (or one near the line hint)
//! is replaced, the lines it touches rewritten whole. Text made of whole
//! lines that is not found as is goes to the matcher ladder, as a SEARCH
//! block does ([`super::block::on_ladder`]).
//!
//! Cost: one vectorised scan of the file for occurrences, `O(N)`; the file
//! is copied only when it is not already LF text with a final newline.

use super::{Failure, Refusal, Spot};
use crate::apply::feedback;
use crate::apply::matcher::{FindOptions, Haystack, Level, Miss};
use crate::apply::text::{split_lines, Text};
use crate::edit::Code;
use std::cell::OnceCell;

/// Messages about `str_replace` speak of `old_str`, as the tool does.
const TOOL: &feedback::Words = &feedback::STR_REPLACE;

/// Occurrences counted before the edit is refused as ambiguous.
const MAX_HITS: usize = 64;

/// Locates a substring replacement of `old` by `new`.
/// `hay` is the file's matcher index, shared with the transaction's other
/// edits of the file and built only if the ladder is needed. `detailed`:
/// whether a miss gets the closest region (see [`feedback::DETAILED`]).
pub fn str_replace<'a>(
    text: &Text<'a>,
    hay: &OnceCell<Haystack<'a>>,
    path: &str,
    (old, new): (&str, &str),
    hint: Option<usize>,
    fo: FindOptions,
    detailed: bool,
) -> Result<Spot, Refusal> {
    let old = old.replace("\r\n", "\n");
    let new = new.replace("\r\n", "\n");
    if old.is_empty() {
        return Err((
            Code::Malformed,
            "old_str is empty; quote the text to replace".into(),
        )
            .into());
    }
    let flat = Flat::of(text);
    let hits = occurrences(flat.text(), &old);
    match chosen(&flat, &hits, hint, fo.window, path)? {
        Some((b, by_hint)) => Ok(replaced(&flat, b, old.len(), &new, by_hint, text.len())),
        None => on_ladder(
            text,
            hay,
            path,
            (&old, &new),
            FindOptions { hint, ..fo },
            detailed,
        ),
    }
}

/// Every occurrence of `old` in `flat` (up to [`MAX_HITS`]), with a
/// vectorised substring search. Overlapping occurrences count too (`a\na`
/// in `a\na\na` is two places), which `match_indices` would miss.
fn occurrences(flat: &str, old: &str) -> Vec<usize> {
    let finder = memchr::memmem::Finder::new(old.as_bytes());
    let mut hits: Vec<usize> = Vec::new();
    while hits.len() < MAX_HITS {
        let from = hits.last().map_or(0, |&h| {
            h + flat[h..].chars().next().map_or(1, char::len_utf8)
        });
        match finder.find(&flat.as_bytes()[from..]) {
            Some(k) => hits.push(from + k),
            None => break,
        }
    }
    hits
}

/// The occurrence to replace (and whether the hint chose it), none when
/// there is no occurrence, or the refusal when several remain.
fn chosen(
    flat: &Flat,
    hits: &[usize],
    hint: Option<usize>,
    window: usize,
    path: &str,
) -> Result<Option<(usize, bool)>, Failure> {
    match hits {
        [] => return Ok(None),
        [one] => return Ok(Some((*one, false))),
        _ => {}
    }
    let near: Vec<usize> = match hint {
        Some(h) => hits
            .iter()
            .copied()
            .filter(|&b| flat.line_of(b).abs_diff(h) <= window)
            .collect(),
        None => vec![],
    };
    if let [one] = near.as_slice() {
        return Ok(Some((*one, true)));
    }
    let at: Vec<String> = hits
        .iter()
        .map(|&b| (flat.line_of(b) + 1).to_string())
        .collect();
    Err((
        Code::Ambiguous,
        format!(
            "old_str occurs {} times in {path}, starting on lines {}; include more surrounding text so it matches exactly one place, or give a line_hint",
            hits.len(),
            at.join(", ")
        ),
    ))
}

/// The lines the occurrence at byte `b` (of `len` bytes) touches,
/// rewritten with `new` in its place.
fn replaced(flat: &Flat, b: usize, len: usize, new: &str, by_hint: bool, n_lines: usize) -> Spot {
    let text = flat.text();
    let e = b + len;
    let first = flat.line_of(b);
    let mut end = flat.line_of(e - 1) + 1;
    let mut joined = format!(
        "{}{new}{}",
        &text[flat.start(first)..b],
        &text[e..flat.start(end)]
    );
    // When the replacement no longer ends a line, the next line joins it.
    // (An empty one deleted whole lines: nothing to join.)
    if !joined.is_empty() && !joined.ends_with('\n') && end < n_lines {
        joined.push_str(&text[flat.start(end)..flat.start(end + 1)]);
        end += 1;
    }
    let body = joined.strip_suffix('\n').unwrap_or(&joined);
    let new_lines = if joined.is_empty() {
        vec![]
    } else {
        body.split('\n').map(str::to_owned).collect()
    };
    let note =
        by_hint.then(|| "several places matched and the line hint chose this one".to_owned());
    Spot {
        level: Some(Level::Exact),
        note,
        ..Spot::at(first, end, new_lines)
    }
}

/// Not found as is: when old_str is whole lines, the ladder absorbs
/// whitespace and look-alike differences, as for a SEARCH block.
fn on_ladder<'a>(
    text: &Text<'a>,
    hay: &OnceCell<Haystack<'a>>,
    path: &str,
    (old, new): (&str, &str),
    fo: FindOptions,
    detailed: bool,
) -> Result<Spot, Refusal> {
    let old_lines = split_lines(old);
    let hay = hay.get_or_init(|| Haystack::new(text.shared_lines()));
    let lines = hay.lines();
    match super::block::on_ladder(hay, &old_lines, &split_lines(new), fo) {
        // Lines new_str leaves as they were stay as the file has them.
        Ok((f, new_lines)) => Ok(Spot {
            level: Some(f.level),
            note: Some(feedback::tolerated(&f)),
            ..Spot::at(f.start, f.end, new_lines)
        }),
        Err(Miss::Ambiguous {
            level,
            candidates,
            len,
        }) => Err((
            Code::Ambiguous,
            feedback::ambiguous(TOOL, path, lines, &candidates, len, level),
        )
            .into()),
        Err(_) if detailed => Err(Refusal::not_found(feedback::not_found(
            TOOL, path, lines, &old_lines,
        ))),
        Err(_) => Err(Refusal::not_found((
            feedback::not_found_brief(TOOL, path, old_lines.len()),
            None,
        ))),
    }
}

/// The file as LF text with every line terminated, and where its lines
/// start: the file itself and its spans when it already is that text, else
/// a copy with its own offsets (`n + 1` of them, the last one the end).
enum Flat<'a> {
    Borrowed(&'a Text<'a>),
    Owned(String, Vec<usize>),
}

impl<'t> Flat<'t> {
    /// Most files already are that text: then it is borrowed, not rebuilt
    /// (a copy of the whole file per edit dominated multi-edit replies), and
    /// the offsets are the spans the text already has.
    fn of(text: &'t Text<'_>) -> Flat<'t> {
        let src = text.src();
        let plain = !text.has_bom()
            && (src.is_empty() || src.ends_with('\n'))
            && memchr::memchr(b'\r', src.as_bytes()).is_none();
        if plain {
            return Flat::Borrowed(text);
        }
        let mut flat = String::with_capacity(src.len() + 1);
        let mut starts = Vec::with_capacity(text.len() + 1);
        for i in 0..text.len() {
            starts.push(flat.len());
            flat.push_str(text.line(i));
            flat.push('\n');
        }
        starts.push(flat.len());
        Flat::Owned(flat, starts)
    }

    fn text(&self) -> &str {
        match self {
            Flat::Borrowed(t) => t.src(),
            Flat::Owned(s, _) => s,
        }
    }

    /// The offset of line `i` (0-based); `i == n` is the end.
    fn start(&self, i: usize) -> usize {
        match self {
            Flat::Borrowed(t) => t.start(i),
            Flat::Owned(_, starts) => starts[i],
        }
    }

    /// The line holding byte `b` (`O(log n)`).
    fn line_of(&self, b: usize) -> usize {
        match self {
            Flat::Borrowed(t) => t.line_of(b),
            Flat::Owned(_, starts) => starts.partition_point(|&s| s <= b).saturating_sub(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sr(file: &str, old: &str, new: &str) -> Result<Spot, Failure> {
        let text = Text::new(file);
        str_replace(
            &text,
            &OnceCell::new(),
            "f",
            (old, new),
            None,
            FindOptions::default(),
            true,
        )
        .map_err(|r| (r.code, r.message))
    }

    #[test]
    fn substring_inside_a_line() {
        let s = sr("let a = 1;\nlet b = 2;\n", "b = 2", "b = 3").unwrap();
        assert_eq!(
            (s.start, s.end, s.new),
            (1, 2, vec!["let b = 3;".to_string()])
        );
    }

    #[test]
    fn substring_across_lines_with_newline() {
        let s = sr("a\nb\nc\n", "a\nb\n", "x\n").unwrap();
        assert_eq!((s.start, s.end), (0, 2));
        assert_eq!(s.new, vec!["x".to_string()]);
        let s = sr("a\nb\nc\n", "b\nc", "y").unwrap();
        assert_eq!((s.start, s.end, s.new), (1, 3, vec!["y".to_string()]));
    }

    #[test]
    fn duplicates_name_their_lines() {
        let e = sr("x = 1\ny\nx = 1\n", "x = 1", "x = 2").unwrap_err();
        assert_eq!(e.0, Code::Ambiguous);
        assert!(e.1.contains("lines 1, 3"), "{}", e.1);
        let text = Text::new("x = 1\ny\nx = 1\n");
        let s = str_replace(
            &text,
            &OnceCell::new(),
            "f",
            ("x = 1", "x = 2"),
            Some(2),
            FindOptions {
                window: 0,
                ..Default::default()
            },
            true,
        )
        .unwrap();
        assert_eq!(s.start, 2);
    }

    #[test]
    fn overlapping_and_unterminated_files_and_crlf() {
        // `a\na` occurs twice in `a\na\na`, overlapping.
        let e = sr("a\na\na\n", "a\na", "b").unwrap_err();
        assert_eq!(e.0, Code::Ambiguous);
        assert!(
            e.1.contains("2 times") && e.1.contains("lines 1, 2"),
            "{}",
            e.1
        );
        // A file without a final newline, CRLF and a BOM take the copy.
        for file in ["x\ny = 1", "x\r\ny = 1\r\n", "\u{feff}x\ny = 1\n"] {
            let s = sr(file, "y = 1", "y = 2").unwrap();
            assert_eq!((s.start, s.end, s.new), (1, 2, vec!["y = 2".to_string()]));
        }
        let s = sr("x\r\ny\r\nz\r\n", "x\r\ny\r\n", "w\n").unwrap();
        assert_eq!((s.start, s.end, s.new), (0, 2, vec!["w".to_string()]));
        // Non-ASCII around the match, and a match at the very end.
        let s = sr("é = 1\nπ = 2\n", "= 2\n", "= 3\n").unwrap();
        assert_eq!((s.start, s.end, s.new), (1, 2, vec!["π = 3".to_string()]));
    }

    proptest::proptest! {
        /// Occurrences as a naive scan counts them (overlapping ones too):
        /// one is located on its line, several are refused with their count
        /// and lines, on LF, CRLF and unterminated files alike.
        #[test]
        fn occurrences_are_counted_as_a_naive_scan_does(
            lines in proptest::collection::vec("[ab é]{0,4}", 1..30),
            crlf in proptest::bool::ANY,
            last in proptest::bool::ANY,
            from in 0usize..200,
            len in 1usize..8,
        ) {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut file = lines.join(eol);
            if last {
                file.push_str(eol);
            }
            let flat: String = Text::new(&file).lines().iter().map(|l| format!("{l}\n")).collect();
            proptest::prop_assume!(!flat.is_empty());
            let chars: Vec<char> = flat.chars().collect();
            let from = from % chars.len();
            let old: String = chars[from..(from + len).min(chars.len())].iter().collect();
            let at: Vec<usize> = (0..flat.len())
                .filter(|&i| flat.is_char_boundary(i) && flat[i..].starts_with(&old))
                .collect();
            let line = |b: usize| flat[..b].matches('\n').count();
            match sr(&file, &old, "X") {
                // None found as is: the ladder may still place whole lines.
                Ok(s) if at.is_empty() => proptest::prop_assert!(s.level != Some(Level::Exact)),
                Ok(s) => {
                    proptest::prop_assert_eq!(at.len(), 1);
                    proptest::prop_assert_eq!(s.start, line(at[0]));
                }
                Err((Code::Ambiguous, msg)) if at.len() > 1 => {
                    let lines: Vec<String> = at.iter().map(|&b| (line(b) + 1).to_string()).collect();
                    let want = format!("occurs {} times in f, starting on lines {};", at.len(), lines.join(", "));
                    proptest::prop_assert!(msg.contains(&want), "{} / {}", msg, want);
                }
                Err(e) => proptest::prop_assert!(at.len() != 1, "{:?} for {} hit(s)", e, at.len()),
            }
        }
    }

    #[test]
    fn whitespace_differences_fall_back_to_the_ladder() {
        let s = sr(
            "    if a:\n        b()\n",
            "if a:\n    b()",
            "if a:\n    c()",
        )
        .unwrap();
        assert_eq!(
            s.new,
            vec!["    if a:".to_string(), "        c()".to_string()]
        );
        assert_eq!(s.level, Some(Level::Indent));
    }
}
