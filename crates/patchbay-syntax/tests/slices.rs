//! Slices and splices over every symbol of every fixture, and edits made
//! against a slice with every edit format the core has.

mod common;

use patchbay::{ApplyOptions, EditStatus, Status};
use patchbay_syntax::slice::{cut, slice};
use patchbay_syntax::splice::splice;
use patchbay_syntax::{apply_to_slice, outline, Error, Language};

/// Prefixes every non-blank line with `indent` (what a model returns when
/// it copies the file's indentation instead of the slice's).
fn indented(text: &str, indent: &str) -> String {
    text.split_inclusive('\n')
        .map(|l| {
            if l.trim().is_empty() {
                l.to_owned()
            } else {
                format!("{indent}{l}")
            }
        })
        .collect()
}

fn comment(lang: Language) -> &'static str {
    match lang {
        Language::Python => "# patched",
        _ => "// patched",
    }
}

#[test]
fn every_symbol_slices_and_splices_back_unchanged() {
    let mut count = 0;
    for f in common::fixtures() {
        let o = outline(&f.text, f.language).unwrap();
        let lines: Vec<&str> = f.text.split_inclusive('\n').collect();
        for sym in &o.symbols {
            let what = format!("{} {}", f.name, sym.qualified);
            let s = cut(&f.name, &f.text, f.language, sym).unwrap();
            assert_eq!(s.lines, sym.lines, "{what}");
            // Each slice line is its original line without the indentation.
            let cut_lines: Vec<&str> = s.text.split_inclusive('\n').collect();
            assert_eq!(cut_lines.len(), s.lines[1] - s.lines[0] + 1, "{what}");
            for (k, l) in cut_lines.iter().enumerate() {
                let orig = lines[s.lines[0] - 1 + k];
                if !l.trim().is_empty() {
                    assert_eq!(format!("{}{l}", s.indent), orig, "{what} line {k}");
                }
            }
            // Unchanged, dedented or re-indented: the file comes back.
            assert_eq!(splice(&f.text, &s, &s.text).unwrap(), f.text, "{what}");
            let re = indented(&s.text, &s.indent);
            assert_eq!(
                splice(&f.text, &s, &re).unwrap(),
                f.text,
                "{what} (indented)"
            );
            count += 1;
        }
    }
    assert!(count > 150, "only {count} symbols");
}

#[test]
fn a_line_added_to_a_slice_lands_after_the_symbol_with_its_indentation() {
    for f in common::fixtures() {
        assert!(f.text.ends_with('\n'), "{}", f.name);
        let o = outline(&f.text, f.language).unwrap();
        let lines: Vec<&str> = f.text.split_inclusive('\n').collect();
        for sym in &o.symbols {
            let what = format!("{} {}", f.name, sym.qualified);
            let s = cut(&f.name, &f.text, f.language, sym).unwrap();
            let note = comment(f.language);
            let edited = format!("{}{note}\n", s.text);
            let mut expected: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            expected.insert(s.lines[1], format!("{}{note}\n", s.indent));
            let expected = expected.concat();
            assert_eq!(splice(&f.text, &s, &edited).unwrap(), expected, "{what}");
            let re = indented(&edited, &s.indent);
            assert_eq!(
                splice(&f.text, &s, &re).unwrap(),
                expected,
                "{what} (indented)"
            );
        }
    }
}

const GREETER: &str = include_str!("fixtures/greeter.rs");
const HANDLERS: &str = include_str!("fixtures/handlers.py");

#[test]
fn a_changed_file_is_refused() {
    let s = slice("src/greeter.rs", GREETER, Language::Rust, "Greeter::word").unwrap();
    let changed = GREETER.replacen("Hello", "Hi", 1);
    let err = splice(&changed, &s, &s.text).unwrap_err();
    assert_eq!(
        err,
        Error::StaleSlice {
            path: "src/greeter.rs".into(),
            expected: patchbay::file_crc(GREETER),
            actual: patchbay::file_crc(&changed),
        }
    );
    assert_eq!(err.code(), "stale_slice");
    let reply = patchbay::render(
        patchbay::FormatName::Whole,
        "src/greeter.rs",
        &s.text,
        &s.text,
    )
    .unwrap();
    assert_eq!(
        apply_to_slice(&changed, &s, &reply, &ApplyOptions::default()).map(|_| ()),
        Err(err)
    );
    // A slice whose lines are not in the file is refused too.
    let mut bad = s.clone();
    bad.lines = [500, 501];
    assert_eq!(
        splice(GREETER, &bad, "x\n").unwrap_err().code(),
        "slice_out_of_range"
    );
    for lines in [[0, 0], [3, 2], [1, usize::MAX]] {
        bad.lines = lines;
        let r = apply_to_slice(GREETER, &bad, &reply, &ApplyOptions::default());
        assert_eq!(r.unwrap_err().code(), "slice_out_of_range", "{lines:?}");
    }
}

/// (fixture, path, symbol, from, to): one edit inside an indented symbol.
const CASES: &[(&str, &str, &str, &str, &str)] = &[
    (
        GREETER,
        "src/greeter.rs",
        "Greeter::word",
        "\"Hallo\"",
        "\"Guten Tag\"",
    ),
    (
        HANDLERS,
        "app/handlers.py",
        "Handlers.add_item",
        "self.store.add(name)",
        "self.store.add(name.strip())",
    ),
];

#[test]
fn every_format_edits_a_slice_as_if_it_were_the_file() {
    let formats: Vec<patchbay::FormatName> =
        patchbay::formats::all().iter().map(|f| f.id()).collect();
    assert!(formats.len() >= 2, "{formats:?}");
    for &(text, path, symbol, from, to) in CASES {
        let lang = Language::from_path(path).unwrap();
        let s = slice(path, text, lang, symbol).unwrap();
        assert!(!s.indent.is_empty(), "the case should be indented");
        let edited = s.text.replacen(from, to, 1);
        let expected = text.replacen(from, to, 1);
        // The changed line, in the original file.
        let line = text[..text.find(from).unwrap()].matches('\n').count() + 1;
        for fmt in &formats {
            let what = format!("{path} {symbol} as {fmt}");
            let reply = patchbay::render(*fmt, path, &s.text, &edited).unwrap();
            let opt = ApplyOptions {
                format: *fmt,
                ..Default::default()
            };
            let (report, new) = apply_to_slice(text, &s, &reply, &opt).unwrap();
            assert_eq!(
                report.status,
                Status::Applied,
                "{what}: {}",
                report.feedback
            );
            assert_eq!(new, expected, "{what}");
            assert_eq!(
                report.files[0].content.as_deref(),
                Some(expected.as_str()),
                "{what}"
            );
            for r in &report.files[0].edits {
                assert_eq!(r.status, EditStatus::Applied, "{what}");
                if let Some([a, b]) = r.lines {
                    assert!(
                        s.lines[0] <= a && b <= s.lines[1],
                        "{what}: {a}-{b} outside {:?}",
                        s.lines
                    );
                    assert!(
                        a <= line && line <= b.max(a),
                        "{what}: {a}-{b} misses line {line}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_search_block_quoting_the_file_s_indentation_still_applies() {
    let s = slice("src/greeter.rs", GREETER, Language::Rust, "Greeter::word").unwrap();
    // The model quoted the lines as they are in the file (12 spaces), not
    // as the slice showed them (8).
    let reply = "src/greeter.rs\n<<<<<<< SEARCH\n            Language::German => \"Hallo\",\n=======\n            Language::German => \"Servus\",\n>>>>>>> REPLACE\n";
    let (report, new) = apply_to_slice(GREETER, &s, reply, &ApplyOptions::default()).unwrap();
    assert_eq!(report.status, Status::Applied, "{}", report.feedback);
    assert_eq!(new, GREETER.replace("\"Hallo\"", "\"Servus\""));
    let line = GREETER
        .lines()
        .position(|l| l.contains("\"Hallo\""))
        .unwrap()
        + 1;
    assert_eq!(report.files[0].edits[0].lines, Some([line, line]));
}

#[test]
fn a_whole_slice_returned_indented_or_not_replaces_the_symbol() {
    let s = slice(
        "app/handlers.py",
        HANDLERS,
        Language::Python,
        "Handlers.stream",
    )
    .unwrap();
    assert_eq!(s.indent, "    ");
    let new_body = "async def stream(self, request):\n    for item in sorted(self.store, reverse=True):\n        yield item\n";
    let expected = HANDLERS.replace(
        "sorted(self.store):\n            yield",
        "sorted(self.store, reverse=True):\n            yield",
    );
    for body in [new_body.to_string(), indented(new_body, "    ")] {
        let reply = format!("app/handlers.py\n```python\n{body}```\n");
        let (report, new) = apply_to_slice(HANDLERS, &s, &reply, &ApplyOptions::default()).unwrap();
        assert_eq!(report.status, Status::Applied, "{}", report.feedback);
        assert_eq!(report.format, "whole");
        assert_eq!(new, expected);
    }
}

#[test]
fn a_failed_edit_changes_nothing_and_keeps_its_feedback() {
    let s = slice("src/greeter.rs", GREETER, Language::Rust, "Greeter::word").unwrap();
    let reply = "src/greeter.rs\n<<<<<<< SEARCH\nLanguage::French => \"Bonjour\",\n=======\nLanguage::French => \"Salut\",\n>>>>>>> REPLACE\n";
    let (report, new) = apply_to_slice(GREETER, &s, reply, &ApplyOptions::default()).unwrap();
    assert_eq!(report.status, Status::Failed);
    assert_eq!(
        report.files[0].edits[0].code,
        Some(patchbay::Code::NotFound)
    );
    assert_eq!(new, GREETER);
    assert_eq!(report.files[0].content, None);
}

#[test]
fn a_reply_without_a_path_goes_to_the_slice() {
    let s = slice(
        "/somewhere/abs/greeter.rs",
        GREETER,
        Language::Rust,
        "Greeter::word",
    )
    .unwrap();
    let reply = "```rust\n<<<<<<< SEARCH\n    Language::German => \"Hallo\",\n=======\n    Language::German => \"Moin\",\n>>>>>>> REPLACE\n```\n";
    let (report, new) = apply_to_slice(GREETER, &s, reply, &ApplyOptions::default()).unwrap();
    assert_eq!(report.status, Status::Applied, "{}", report.feedback);
    assert_eq!(report.files[0].path, "greeter.rs");
    assert_eq!(new, GREETER.replace("\"Hallo\"", "\"Moin\""));
}
