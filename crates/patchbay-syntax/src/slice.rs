//! Slices: one symbol cut out of a file as a virtual file of its own, so a
//! model can read and edit 40 lines instead of 4,000. A slice remembers its
//! origin: the file's path and language, the symbol, the original lines
//! (leading doc comments and attributes included), the indentation every
//! line was cut from (the slice text is dedented), and the CRC-32 of the
//! whole file, so that splicing refuses a file that changed since.
//!
//! Cost: an outline (one parse) to find the symbol, then one pass over the
//! file's lines, `O(N)`.

use crate::outline::{self, Kind, Symbol};
use crate::{Error, Language};
use patchbay::apply::text::Text;
use serde::{Deserialize, Serialize};

/// A symbol cut out of a file. Its JSON is what `patchbay slice --json`
/// prints and `patchbay splice` reads back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Slice {
    /// The file's path as given; the virtual file has the same name.
    pub path: String,
    pub language: Language,
    /// The symbol's qualified name.
    pub symbol: String,
    pub kind: Kind,
    /// 1-based inclusive lines of the original file the slice covers.
    pub lines: [usize; 2],
    /// The indentation removed from every line (blank lines that lack it
    /// are kept as they are).
    pub indent: String,
    /// CRC-32 (IEEE, as `crc32fast`) of the whole original file.
    pub file_crc: u32,
    /// The dedented text, with the file's own line endings.
    pub text: String,
}

/// Cuts the symbol `query` names (see [`outline::Outline::find`]: a
/// qualified name, a name, or a line number) out of `text`.
pub fn slice(path: &str, text: &str, lang: Language, query: &str) -> Result<Slice, Error> {
    let o = outline::outline(text, lang)?;
    let sym = o.find(query)?;
    cut(path, text, lang, sym)
}

/// Cuts a symbol of `text`'s outline.
pub fn cut(path: &str, text: &str, lang: Language, sym: &Symbol) -> Result<Slice, Error> {
    let t = Text::new(text);
    let [a, b] = check_lines(sym.lines, t.len())?;
    let contents: Vec<&str> = (a - 1..b).map(|i| t.line(i)).collect();
    let indent = common_indent(&contents);
    let mut out = String::with_capacity(t.byte_range(a - 1..b).len());
    for (k, c) in contents.iter().enumerate() {
        out.push_str(dedent(c, indent));
        out.push_str(t.eol(a - 1 + k));
    }
    Ok(Slice {
        path: path.to_owned(),
        language: lang,
        symbol: sym.qualified.clone(),
        kind: sym.kind,
        lines: [a, b],
        indent: indent.to_owned(),
        file_crc: patchbay::file_crc(text),
        text: out,
    })
}

/// The lines of a slice, checked against a file of `n` lines.
pub(crate) fn check_lines(lines: [usize; 2], n: usize) -> Result<[usize; 2], Error> {
    let [a, b] = lines;
    if a == 0 || b < a || b > n {
        return Err(Error::SliceOutOfRange {
            lines,
            file_lines: n,
        });
    }
    Ok(lines)
}

/// Refuses a slice no [`cut`] could have made: its `indent` is written
/// before every changed line, so anything but spaces and tabs there (a
/// newline and code, in a forged slice) would inject text into the file.
/// Its lines are checked against the file (`slice_out_of_range`).
pub fn validate(s: &Slice) -> Result<(), Error> {
    if let Some(c) = s.indent.chars().find(|c| !matches!(c, ' ' | '\t')) {
        return Err(Error::InvalidSlice(format!(
            "its indent holds {c:?}; an indentation is spaces and tabs only"
        )));
    }
    Ok(())
}

/// Reads a slice from the JSON of `patchbay slice --json`, validated.
/// Input that starts with `{` is JSON or refused, never taken as code: a
/// cut or damaged slice must not be spliced into the file as its text.
pub fn from_json(json: &str) -> Result<Slice, Error> {
    let s: Slice = serde_json::from_str(json).map_err(|e| Error::InvalidSlice(e.to_string()))?;
    validate(&s)?;
    Ok(s)
}

/// Whether text given as a slice is meant as its JSON (and so must parse).
pub fn looks_like_json(given: &str) -> bool {
    given
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('{')
}

/// Refuses `current` unless it is the file the slice was cut from.
pub(crate) fn check_fresh(current: &str, s: &Slice) -> Result<(), Error> {
    let actual = patchbay::file_crc(current);
    if actual != s.file_crc {
        return Err(Error::StaleSlice {
            path: s.path.clone(),
            expected: s.file_crc,
            actual,
        });
    }
    Ok(())
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// The longest run of leading spaces and tabs that every non-blank line
/// starts with (exactly, character for character).
pub(crate) fn common_indent<'a>(lines: &[&'a str]) -> &'a str {
    let mut best: Option<&str> = None;
    for l in lines.iter().filter(|l| !is_blank(l)) {
        let ws = &l[..l.len() - l.trim_start_matches([' ', '\t']).len()];
        best = Some(match best {
            None => ws,
            Some(b) => {
                let n = b
                    .bytes()
                    .zip(ws.bytes())
                    .take_while(|(x, y)| x == y)
                    .count();
                &b[..n]
            }
        });
    }
    best.unwrap_or("")
}

/// `line` without `indent`; a (blank) line that lacks it stays as it is.
pub(crate) fn dedent<'a>(line: &'a str, indent: &str) -> &'a str {
    line.strip_prefix(indent).unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indent_is_the_exact_common_prefix() {
        assert_eq!(
            common_indent(&["    a", "      b", "", "  ", "    c"]),
            "    "
        );
        assert_eq!(common_indent(&["    a", "  b"]), "  ");
        assert_eq!(common_indent(&["\t\ta", "\t b"]), "\t");
        assert_eq!(common_indent(&["", "   "]), "");
        assert_eq!(dedent("  ", "    "), "  ");
    }

    #[test]
    fn a_method_slice_is_dedented_and_remembers_its_origin() {
        let src = "class A:\r\n    # doc\r\n    def f(self):\r\n\r\n        return 1\r\n";
        let s = slice("a.py", src, Language::Python, "A.f").unwrap();
        assert_eq!(s.text, "# doc\r\ndef f(self):\r\n\r\n    return 1\r\n");
        assert_eq!((s.lines, s.indent.as_str()), ([2, 5], "    "));
        assert_eq!(s.file_crc, crc_of(src));
        assert_eq!(s.kind, Kind::Method);
    }

    fn crc_of(s: &str) -> u32 {
        patchbay::file_crc(s)
    }
}
