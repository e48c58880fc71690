//! docs/contracts.md against the code: the format names, every failure
//! code with its exit code, the hashline tag example and the report example
//! are read from the page and checked here, so the page cannot drift.

use patchbay::{apply, ApplyOptions, Code, Report};
use std::collections::BTreeMap;

fn page() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/contracts.md");
    std::fs::read_to_string(path).expect("docs/contracts.md")
}

/// The lines between `<!-- contract:NAME -->` and `<!-- /contract:NAME -->`.
fn section<'a>(page: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("<!-- contract:{name} -->");
    let close = format!("<!-- /contract:{name} -->");
    page.lines()
        .skip_while(|l| *l != open)
        .skip(1)
        .take_while(|l| *l != close)
        .collect()
}

/// The text of the first fenced block after `<!-- contract:NAME... -->`
/// (a fence of three or more backticks, closed by the same run).
fn block(page: &str, name: &str) -> String {
    let marker = format!("<!-- contract:{name}");
    let mut lines = page.lines().skip_while(|l| !l.starts_with(&marker)).skip(1);
    let fence: String = lines
        .next()
        .map(|l| l.chars().take_while(|c| *c == '`').collect())
        .unwrap_or_default();
    assert!(fence.len() >= 3, "no fenced block after {marker}");
    lines
        .take_while(|l| *l != fence)
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The first column of a table's rows, without its backticks.
fn first_column(rows: &[&str]) -> Vec<String> {
    rows.iter()
        .filter(|r| r.starts_with("| `"))
        .map(|r| {
            r.split('|')
                .nth(1)
                .unwrap_or("")
                .trim()
                .trim_matches('`')
                .to_owned()
        })
        .collect()
}

#[test]
fn the_format_names_are_the_registry() {
    let documented = first_column(&section(&page(), "formats"));
    assert_eq!(documented, patchbay::formats::names());
}

/// Every code, kept complete by the compiler: `exit_code` matches without a
/// wildcard, so a new variant does not build until it is listed here too.
const ALL: [Code; 18] = [
    Code::NotFound,
    Code::Ambiguous,
    Code::StaleTag,
    Code::OutOfRange,
    Code::Overlap,
    Code::Malformed,
    Code::Truncated,
    Code::Elided,
    Code::PathEscape,
    Code::FileMissing,
    Code::FileExists,
    Code::NoEdits,
    Code::AlreadyApplied,
    Code::HeldBack,
    Code::NotShown,
    Code::SyntaxError,
    Code::PathUnclear,
    Code::FileChanged,
];

/// The CLI's exit code for a report that holds `code` (see `apply.rs`: a
/// truncated report exits 3, a failed one 1).
fn exit_code(code: Code) -> &'static str {
    match code {
        Code::Truncated => "3",
        Code::NotFound
        | Code::Ambiguous
        | Code::StaleTag
        | Code::OutOfRange
        | Code::Overlap
        | Code::Malformed
        | Code::Elided
        | Code::PathEscape
        | Code::FileMissing
        | Code::FileExists
        | Code::NoEdits
        | Code::AlreadyApplied
        | Code::HeldBack
        | Code::NotShown
        | Code::SyntaxError
        | Code::PathUnclear
        | Code::FileChanged => "1",
    }
}

#[test]
fn every_code_is_documented_with_its_exit_code() {
    let page = page();
    let rows = section(&page, "codes");
    let documented = first_column(&rows);
    let names: Vec<&str> = ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(documented, names, "the table lists every code, in order");
    for (row, code) in rows.iter().filter(|r| r.starts_with("| `")).zip(ALL) {
        let last = row
            .trim_end_matches('|')
            .rsplit('|')
            .next()
            .unwrap_or("")
            .trim();
        assert_eq!(last, exit_code(code), "{row}");
        // The name is the one the JSON carries.
        let json = serde_json::to_string(&code).unwrap();
        assert_eq!(json, format!("\"{}\"", code.as_str()));
    }
}

#[test]
fn the_tag_example_is_what_the_view_shows() {
    let view = block(&page(), "tag-example");
    let text: String = view
        .lines()
        .map(|l| format!("{}\n", l.split_once(' ').map_or("", |(_, rest)| rest)))
        .collect();
    assert_eq!(
        patchbay::formats::hashline::tags::view(&text, Default::default()),
        view
    );
}

#[test]
fn the_report_example_is_what_apply_returns() {
    let page = page();
    let files = BTreeMap::from([("calc.py".to_owned(), block(&page, "example-file"))]);
    let reply = block(&page, "example-reply");
    let report: Report = apply(&reply, &files, &ApplyOptions::default());
    let got = serde_json::to_value(report.without_content()).unwrap();
    let want: serde_json::Value = serde_json::from_str(&block(&page, "example-report")).unwrap();
    assert_eq!(got, want);
}
