//! Splicing: an edited slice goes back where it was cut from, re-indented,
//! and an edit against a slice becomes an edit against the file.
//!
//! The edited text may come back dedented (as the slice was shown) or
//! already indented; its own common indentation is taken off and the
//! original one put back on. Lines the edit did not change are restored
//! byte for byte from the file (a line diff against the slice finds them),
//! so blank lines with trailing whitespace, line endings and lines inside
//! multi-line strings survive; changed lines get the original indentation
//! and the line ending of the lines they replace. A file whose CRC-32
//! differs from the slice's is refused ([`Error::StaleSlice`]).
//!
//! Cost: one pass over the file, `O(N)`, plus a line diff of the slice
//! linear in its lines (`patchbay::apply::diff::changes_linear`: plain Myers made
//! a 15k-line slice with every line edited take 52 s, 30k lines 238 s).

use crate::slice::{check_fresh, check_lines, common_indent, dedent, validate, Slice};
use crate::Error;
use patchbay::apply::report::{FileStatus, Report};
use patchbay::apply::text::Text;
use patchbay::ApplyOptions;
use std::collections::BTreeMap;

/// Puts `edited` (the slice's text after an edit) back into `current`,
/// which must be the file the slice was cut from. Returns the new file.
pub fn splice(current: &str, slice: &Slice, edited: &str) -> Result<String, Error> {
    validate(slice)?;
    check_fresh(current, slice)?;
    let t = Text::new(current);
    let [a, b] = check_lines(slice.lines, t.len())?;
    let range = t.byte_range(a - 1..b);
    let originals: Vec<(&str, &str)> = (a - 1..b).map(|i| (t.line(i), t.eol(i))).collect();
    let shown: Vec<&str> = originals
        .iter()
        .map(|(c, _)| dedent(c, &slice.indent))
        .collect();
    let e = Text::new(edited);
    let mut e_lines = e.lines().to_vec();
    // A slice's text is the middle of a file: a U+FEFF at its start is the
    // symbol's own character (the file's BOM is never in a slice), which
    // `Text` would take for a byte-order mark and drop.
    let first = edited.strip_prefix('\u{feff}').map(|rest| {
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        &edited[..'\u{feff}'.len_utf8() + end]
    });
    if let (Some(line), Some(slot)) = (first, e_lines.first_mut()) {
        *slot = line;
    }
    let own = common_indent(&e_lines);
    let new: Vec<&str> = e_lines.iter().map(|l| dedent(l, own)).collect();

    let default_eol = t.dominant_eol();
    let mut out = String::with_capacity(range.len() + edited.len());
    let mut i = 0;
    let keep = |out: &mut String, k: usize| {
        out.push_str(originals[k].0);
        out.push_str(originals[k].1);
    };
    for c in patchbay::apply::diff::changes_linear(&shown, &new) {
        while i < c.old.start {
            keep(&mut out, i);
            i += 1;
        }
        let eol = originals
            .get(c.old.start)
            .map(|o| o.1)
            .filter(|e| !e.is_empty())
            .unwrap_or(default_eol);
        for line in &new[c.new.clone()] {
            if !line.trim().is_empty() {
                out.push_str(&slice.indent);
                out.push_str(line);
            }
            out.push_str(eol);
        }
        i = c.old.end;
    }
    while i < originals.len() {
        keep(&mut out, i);
        i += 1;
    }
    let mut head = &current[..range.start];
    // The slice ran to the end of a file without a final newline: so does
    // the result (an edit cannot add or remove the final newline).
    if originals.last().is_some_and(|o| o.1.is_empty()) {
        if let Some(cut) = out.strip_suffix('\n') {
            out.truncate(cut.strip_suffix('\r').unwrap_or(cut).len());
        } else if out.is_empty() {
            head = head.strip_suffix('\n').unwrap_or(head);
            head = head.strip_suffix('\r').unwrap_or(head);
        }
    }
    Ok(format!("{head}{out}{}", &current[range.end..]))
}

/// The name of the virtual file a slice is applied as: its path when the
/// core accepts it as a relative path, else the file name alone.
fn virtual_path(path: &str) -> String {
    patchbay::apply::paths::normalize(path).unwrap_or_else(|_| {
        path.rsplit(['/', '\\'])
            .find(|p| !p.is_empty() && *p != "..")
            .unwrap_or("slice")
            .to_owned()
    })
}

/// Applies a model's reply to a slice as if it were a file of its own,
/// with any patchbay edit format, and splices the result into `original`.
///
/// Returns the report, with the slice file's receipts' `lines` moved to
/// the original file and its `content` the whole new file, and the new
/// text of the file (`original` unchanged when nothing applied). Messages
/// and feedback keep the slice's line numbers: they speak to the model,
/// which saw the slice. Edits of other paths in the reply are reported as
/// the core reports them (they do not exist here) and change nothing.
/// Deleting the slice's file deletes the symbol.
pub fn apply_to_slice(
    original: &str,
    slice: &Slice,
    output: &str,
    opt: &ApplyOptions,
) -> Result<(Report, String), Error> {
    let input = slice_input(original, slice)?;
    let mut opt = opt.clone();
    if opt.transaction.default_path.is_none() {
        opt.transaction.default_path = Some(input.path.clone());
    }
    let report = patchbay::apply(output, &input.files, &opt);
    splice_report(original, slice, report)
}

/// What a transaction on a slice runs on: the slice as a file of its own.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SliceInput {
    /// The slice's path made relative; the default path of its edits.
    pub path: String,
    /// That one file, path -> the slice's text.
    pub files: BTreeMap<String, String>,
}

/// What applying a reply to a slice gives: the report and the new file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SliceResult {
    pub report: Report,
    pub text: String,
}

/// The first half of [`apply_to_slice`]: the slice checked against
/// `original` and turned into files for the core's `apply`. A binding whose
/// core lives in another module runs `apply` there and passes its report to
/// [`splice_report`].
pub fn slice_input(original: &str, slice: &Slice) -> Result<SliceInput, Error> {
    validate(slice)?;
    check_fresh(original, slice)?;
    // A slice made up by hand could claim line 0; check before shifting.
    check_lines(slice.lines, Text::new(original).len())?;
    let path = virtual_path(&slice.path);
    let files = BTreeMap::from([(path.clone(), slice.text.clone())]);
    Ok(SliceInput { path, files })
}

/// The second half of [`apply_to_slice`]: the report of `apply` on the
/// slice's file, with its receipts moved to `original`'s lines, and the
/// new file.
pub fn splice_report(
    original: &str,
    slice: &Slice,
    mut report: Report,
) -> Result<(Report, String), Error> {
    let SliceInput { path, .. } = slice_input(original, slice)?;
    let shift = slice.lines[0] - 1;
    let mut new_text = original.to_owned();
    for f in report.files.iter_mut().filter(|f| f.path == path) {
        for l in f.edits.iter_mut().filter_map(|r| r.lines.as_mut()) {
            l[0] += shift;
            l[1] += shift;
        }
        let edited = match (f.status, &f.content) {
            (FileStatus::Deleted, _) => Some(""),
            (_, Some(c)) => Some(c.as_str()),
            _ => None,
        };
        if let Some(edited) = edited {
            new_text = splice(original, slice, edited)?;
            f.content = Some(new_text.clone());
            f.status = FileStatus::Applied;
        }
    }
    // Receipts' UTF-16 offsets, too, point into the original file.
    let text = patchbay::apply::text::Text::new(original);
    let utf16 = patchbay::apply::text::Utf16Lines::new(&text);
    for f in report.files.iter_mut().filter(|f| f.path == path) {
        utf16.mark(&text, &mut f.edits);
    }
    Ok((report, new_text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slice::slice;
    use crate::Language;

    const SRC: &str = "class A:\n    def f(self):\n        x = 1\n    \n        return x\n";

    #[test]
    fn whitespace_only_lines_survive_a_round_trip() {
        let s = slice("a.py", SRC, Language::Python, "A.f").unwrap();
        // The blank line had exactly the indentation, so it was dedented to "".
        assert_eq!(s.text, "def f(self):\n    x = 1\n\n    return x\n");
        assert_eq!(splice(SRC, &s, &s.text).unwrap(), SRC);
        let edited = s.text.replace("x = 1", "x = 2");
        assert_eq!(
            splice(SRC, &s, &edited).unwrap(),
            SRC.replace("x = 1", "x = 2")
        );
    }

    #[test]
    fn end_of_file_without_newline_stays_so() {
        let src = "x = 0\n\n\ndef f():\n    return 1";
        let s = slice("a.py", src, Language::Python, "f").unwrap();
        assert_eq!(s.text, "def f():\n    return 1");
        let new = splice(src, &s, "def f():\n    return 2\n").unwrap();
        assert_eq!(new, "x = 0\n\n\ndef f():\n    return 2");
        assert_eq!(splice(src, &s, "").unwrap(), "x = 0\n\n");
    }

    #[test]
    fn forged_slices_are_refused_before_anything_is_spliced() {
        let s = slice("a.py", SRC, Language::Python, "A.f").unwrap();
        let forged = Slice {
            indent: "\nimport os\n".into(),
            ..s.clone()
        };
        let e = splice(SRC, &forged, "def f(self):\n    pass\n").unwrap_err();
        assert_eq!(e.code(), "invalid_slice");
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(crate::slice::from_json(&json).unwrap(), s);
        let e = crate::slice::from_json(&json[..json.len() - 9]).unwrap_err();
        assert!(e.to_string().starts_with("not a slice: EOF"), "{e}");
        assert!(crate::slice::looks_like_json("\u{feff}\n  {"));
        assert!(!crate::slice::looks_like_json("fn f() {}"));
    }

    #[test]
    fn virtual_paths_are_relative() {
        assert_eq!(virtual_path("src/a.rs"), "src/a.rs");
        assert_eq!(virtual_path("/abs/dir/a.rs"), "a.rs");
        assert_eq!(virtual_path("../a.rs"), "a.rs");
    }
}
