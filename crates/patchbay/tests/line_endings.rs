//! One rule for the line endings of written lines, in every format (a
//! mixed file's new lines, and their unchanged context lines, come out the
//! same whichever format wrote the edit). The rule (ARCHITECTURE.md, "Line endings of
//! written lines"): unchanged lines keep their own ending; a changed line
//! takes that of the old line at its place; an inserted line that of the
//! line above it.

use patchbay::{apply, render, ApplyOptions};
use std::collections::BTreeMap;

/// Applies `before` → `after` (rendered in `format`) to `file` and returns
/// the new text.
fn through(format: &str, file: &str, after: &str) -> String {
    let reply = render(format.parse().unwrap(), "f.txt", file, after).unwrap();
    let files = BTreeMap::from([("f.txt".to_string(), file.to_string())]);
    let opt = ApplyOptions {
        format: format.parse().unwrap(),
        ..ApplyOptions::default()
    };
    let r = apply(&reply, &files, &opt);
    let f = &r.files[0];
    f.content
        .clone()
        .unwrap_or_else(|| panic!("{format}: not applied: {r:?}\n{reply}"))
}

#[test]
fn every_format_writes_the_same_line_endings() {
    // (file, new text as the model writes it (LF), expected bytes)
    let cases = [
        // A change in the LF part of a file whose first line is CRLF.
        (
            "a\r\nb\nc\nd\ne\n",
            "a\nb\nC\nX\nd\ne\n",
            "a\r\nb\nC\nX\nd\ne\n",
        ),
        // A change in its CRLF part: the changed line keeps CRLF.
        (
            "a\r\nb\r\nc\r\nd\ne\nf\n",
            "a\nB\nc\nd\ne\nf\n",
            "a\r\nB\r\nc\r\nd\ne\nf\n",
        ),
        // An insertion after a CRLF line, in an LF-dominant file.
        (
            "a\nb\nc\r\nd\ne\nf\n",
            "a\nb\nc\nnew\nd\ne\nf\n",
            "a\nb\nc\r\nnew\r\nd\ne\nf\n",
        ),
    ];
    let formats: Vec<&str> = patchbay::formats::names()
        .into_iter()
        .filter(|f| *f != "auto")
        .collect();
    assert!(formats.len() >= 7, "{formats:?}");
    for (file, after, want) in cases {
        for f in &formats {
            let got = through(f, file, after);
            assert_eq!(got, want, "{f} on {file:?}");
        }
    }
}
