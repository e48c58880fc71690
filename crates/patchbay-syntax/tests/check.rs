//! Parse checks: only the syntax errors an edit introduced are reported,
//! with their lines, and a patchbay report gets them as warnings or as a
//! failure.

use patchbay::{ApplyOptions, Code, EditStatus, FileStatus, Status};
use patchbay_syntax::{check_report, new_issues, Language, Policy};
use std::collections::BTreeMap;

/// (language, before, after, expected new issues as (kind, first line)).
type Case = (
    Language,
    &'static str,
    &'static str,
    &'static [(&'static str, usize)],
);

const CASES: &[Case] = &[
    // Clean before and after.
    (Language::Rust, "fn a() {}\n", "fn a() { b(); }\n", &[]),
    // A dropped closing brace: the unclosed function becomes an ERROR.
    (
        Language::Rust,
        "fn a() {\n    b();\n}\n\nfn c() {}\n",
        "fn a() {\n    b();\n\nfn c() {}\n",
        &[("error", 1)],
    ),
    // A Python def without its colon.
    (
        Language::Python,
        "def f(x):\n    return x\n",
        "def f(x)\n    return x\n",
        &[("error", 1)],
    ),
    // tree-sitter wraps the whole module into the ERROR; the issue starts
    // where the fault does, after the statements that parsed.
    (
        Language::Python,
        "import os\n\n\nclass A:\n    def m(self):\n        return 1\n\n\ndef top(n):\n    return n\n",
        "import os\n\n\nclass A:\n    def m(self):\n        return 1\n\n\ndef top(n)\n    return n\n",
        &[("error", 9)],
    ),
    // An old error elsewhere is not blamed on the edit, even shifted down.
    (
        Language::Python,
        "def f(:\n    pass\n\ndef g():\n    return 1\n",
        "import os\n\ndef f(:\n    pass\n\ndef g():\n    return 2\n",
        &[],
    ),
    // ...but a new one after it is.
    (
        Language::JavaScript,
        "let x = ;\n\nfunction g() {\n  return 1;\n}\n",
        "let x = ;\n\nfunction g() {\n  return 1 +;\n}\n",
        &[("missing", 4)],
    ),
    (
        Language::Go,
        "package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n}\n",
        "package main\n\nfunc main() {\n\tx := \n\t_ = x\n}\n",
        // `x := _` goes on to the next line, where `= x` is the error.
        &[("error", 5)],
    ),
    (
        Language::C,
        "int main(void) {\n    return 0;\n}\n",
        "int main(void) {\n    return 0\n}\n",
        &[("missing", 2)],
    ),
    (
        Language::TypeScript,
        "const x: number = 1;\n",
        "const x: number = ;\n",
        &[("error", 1)],
    ),
    (
        Language::Java,
        "class A {\n    int f() { return 1; }\n}\n",
        "class A {\n    int f() { return 1 }\n}\n",
        &[("missing", 2)],
    ),
];

#[test]
fn only_new_syntax_errors_are_reported_with_their_lines() {
    for (k, &(lang, before, after, expected)) in CASES.iter().enumerate() {
        let got = new_issues(before, after, lang).unwrap();
        let got: Vec<(&str, usize)> = got.iter().map(|i| (i.kind.as_str(), i.lines[0])).collect();
        assert_eq!(got, expected, "case {k} ({lang}): {after:?}");
        // Nothing is new against itself.
        assert!(
            new_issues(after, after, lang).unwrap().is_empty(),
            "case {k}"
        );
    }
}

const FILE: &str = "fn total(xs: &[u32]) -> u32 {\n    let mut t = 0;\n    for x in xs {\n        t += x;\n    }\n    t\n}\n\nfn main() {\n    println!(\"{}\", total(&[1, 2]));\n}\n";

fn run(reply: &str) -> (patchbay::Report, BTreeMap<String, String>) {
    let files = BTreeMap::from([("src/main.rs".to_string(), FILE.to_string())]);
    let report = patchbay::apply(reply, &files, &ApplyOptions::default());
    (report, files)
}

/// Two edits to one file: the first breaks the syntax (drops the loop's
/// closing brace), the second is fine.
fn two_edits() -> String {
    "src/main.rs\n<<<<<<< SEARCH\n        t += x;\n    }\n=======\n        t += x * 2;\n>>>>>>> REPLACE\n\nsrc/main.rs\n<<<<<<< SEARCH\n    println!(\"{}\", total(&[1, 2]));\n=======\n    println!(\"{}\", total(&[1, 2, 3]));\n>>>>>>> REPLACE\n".to_string()
}

#[test]
fn warnings_go_to_the_edit_that_caused_them() {
    let (mut report, before) = run(&two_edits());
    assert_eq!(report.status, Status::Applied, "{}", report.feedback);
    let found = check_report(&mut report, &before, Policy::Warn);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].path, "src/main.rs");
    assert_eq!(found[0].edits, vec![Some(1); found[0].issues.len()]);
    assert_eq!(report.status, Status::Applied, "warnings do not fail");
    let edits = &report.files[0].edits;
    let msg = edits[0].message.as_deref().unwrap_or("");
    assert!(msg.contains("warning: syntax:"), "{msg}");
    assert_eq!(edits[1].message, None, "the good edit gets no warning");
    assert!(
        report.feedback.contains("Syntax check"),
        "{}",
        report.feedback
    );
    assert!(report.files[0].content.is_some());
}

#[test]
fn the_fail_policy_fails_the_edit_and_holds_back_the_rest() {
    let (mut report, before) = run(&two_edits());
    check_report(&mut report, &before, Policy::Fail);
    assert_eq!(report.status, Status::Failed);
    let edits = &report.files[0].edits;
    assert_eq!(
        (edits[0].status, edits[0].code),
        (EditStatus::Failed, Some(Code::SyntaxError))
    );
    assert_eq!(
        (edits[1].status, edits[1].code),
        (EditStatus::Skipped, Some(Code::HeldBack))
    );
    assert_eq!(report.files[0].status, FileStatus::Failed);
    assert_eq!(report.files[0].content, None, "nothing to write");
    assert!(
        report.feedback.contains("Nothing was applied"),
        "{}",
        report.feedback
    );
    // Serialised, the code is the contract name.
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["files"][0]["edits"][0]["code"], "syntax_error");
}

#[test]
fn a_clean_edit_and_an_unknown_language_are_left_alone() {
    let (mut report, before) =
        run("src/main.rs\n<<<<<<< SEARCH\n    t\n}\n=======\n    t + 1\n}\n>>>>>>> REPLACE\n");
    let original = report.clone();
    assert!(check_report(&mut report, &before, Policy::Fail).is_empty());
    assert_eq!(report, original);
    let files = BTreeMap::from([("notes.txt".to_string(), "a\n".to_string())]);
    let mut r = patchbay::apply(
        "notes.txt\n<<<<<<< SEARCH\na\n=======\n{{{\n>>>>>>> REPLACE\n",
        &files,
        &ApplyOptions::default(),
    );
    assert!(check_report(&mut r, &files, Policy::Fail).is_empty());
    assert_eq!(r.status, Status::Applied);
}

#[test]
fn in_partial_mode_only_the_broken_file_is_held_back() {
    let files = BTreeMap::from([
        ("src/main.rs".to_string(), FILE.to_string()),
        ("src/ok.rs".to_string(), "fn ok() {}\n".to_string()),
    ]);
    let reply = two_edits()
        + "\nsrc/ok.rs\n<<<<<<< SEARCH\nfn ok() {}\n=======\nfn ok() -> u8 { 1 }\n>>>>>>> REPLACE\n\nsrc/gone.rs\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n";
    let opt = ApplyOptions {
        transaction: patchbay::Options {
            partial: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut report = patchbay::apply(&reply, &files, &opt);
    assert_eq!(report.status, Status::Failed, "src/gone.rs does not exist");
    check_report(&mut report, &files, Policy::Fail);
    let by_path = |p: &str| report.files.iter().find(|f| f.path == p).unwrap();
    assert_eq!(by_path("src/main.rs").content, None);
    assert_eq!(by_path("src/main.rs").status, FileStatus::Failed);
    assert_eq!(
        by_path("src/ok.rs").content.as_deref(),
        Some("fn ok() -> u8 { 1 }\n")
    );
    assert!(
        report.feedback.contains("were not written"),
        "{}",
        report.feedback
    );
}
