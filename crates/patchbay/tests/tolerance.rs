//! What the matcher's tolerance may and may not do to the file: a tolerated
//! difference in the quoted text (trailing spaces, look-alike quotes, a lost
//! diff marker) finds the place, but the lines the edit leaves unchanged are
//! written as the file has them, and added lines are never re-indented by a
//! shift that only the damaged quote suggested.

use patchbay::{ApplyOptions, Report, Status};
use std::collections::BTreeMap;

fn apply(format: &str, reply: &str, path: &str, before: &str) -> Report {
    let files: BTreeMap<String, String> = [(path.to_string(), before.to_string())].into();
    let opt = ApplyOptions {
        format: format.parse().unwrap(),
        ..Default::default()
    };
    patchbay::apply(reply, &files, &opt)
}

fn after(r: &Report, path: &str) -> String {
    assert_eq!(r.status, Status::Applied, "{}", r.feedback);
    let f = r.files.iter().find(|f| f.path == path).expect("file");
    f.content.clone().expect("content")
}

const FILE: &str = "def f(x):\n    y = \"a\"  \n    return y\n";

#[test]
fn search_replace_keeps_the_files_unchanged_lines() {
    // The model dropped the trailing spaces of line 2 in SEARCH and REPLACE.
    let reply = "a.py\n<<<<<<< SEARCH\ndef f(x):\n    y = \"a\"\n    return y\n=======\ndef f(x):\n    y = \"a\"\n    return y + 1\n>>>>>>> REPLACE\n";
    let out = after(&apply("search-replace", reply, "a.py", FILE), "a.py");
    assert_eq!(out, "def f(x):\n    y = \"a\"  \n    return y + 1\n");
}

#[test]
fn udiff_context_with_look_alikes_is_not_written() {
    let file = "def f(x):\n    y = \"a\"\n    return y\n";
    let reply = "--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,4 @@\n def f(x):\n     y = \u{201c}a\u{201d}\n+    z = 2\n     return y\n";
    let out = after(&apply("udiff", reply, "a.py", file), "a.py");
    assert_eq!(out, "def f(x):\n    y = \"a\"\n    z = 2\n    return y\n");
}

#[test]
fn apply_patch_context_with_trailing_spaces_is_not_written() {
    let file = "def f(x):\n    y = 1\n    return y\n";
    let reply = "*** Begin Patch\n*** Update File: a.py\n@@\n def f(x):   \n     y = 1   \n+    z = 2\n     return y\n*** End Patch\n";
    let out = after(&apply("apply-patch", reply, "a.py", file), "a.py");
    assert_eq!(out, "def f(x):\n    y = 1\n    z = 2\n    return y\n");
}

#[test]
fn apply_patch_context_that_lost_its_marker_does_not_shift_added_lines() {
    // `    return y` written without its leading space reads as context
    // `   return y` (three spaces); the added line must keep its four.
    let file = "def f(x):\n    y = 1\n\n    return y\n";
    let reply = "*** Begin Patch\n*** Update File: a.py\n@@\n     y = 1\n\n+    z = 2\n    return y\n*** End Patch\n";
    let out = after(&apply("apply-patch", reply, "a.py", file), "a.py");
    assert_eq!(out, "def f(x):\n    y = 1\n\n    z = 2\n    return y\n");
}

#[test]
fn apply_patch_lost_marker_readings_that_disagree_are_refused() {
    // Read as written, the context `   x()` (3 spaces) is found only at
    // the indent level; read whole, `    x()` (4 spaces) is found exactly:
    // the exact reading wins, but when both readings are exact at
    // different places nothing is applied.
    let file = "a:\n   x()\nb:\n    x()\n";
    let reply = "*** Begin Patch\n*** Update File: t.txt\n@@\n    x()\n+y\n*** End Patch\n";
    let r = apply("apply-patch", reply, "t.txt", file);
    assert_ne!(r.status, Status::Applied, "{:?}", r.files);
}

#[test]
fn tabs_in_the_file_do_not_turn_added_spaces_into_tabs() {
    // The file mixes a tab-indented line with space-indented ones; the
    // model copied the indentation and typeset the quotes.
    let file = "{\n\t    a(\"x\");\n        b(\"y\");\n        c();\n}\n";
    let reply = "--- a/t.c\n+++ b/t.c\n@@ -2,3 +2,4 @@\n \t    a(\u{201c}x\u{201d});\n         b(\u{201c}y\u{201d});\n+        d(\"z\");\n         c();\n";
    let out = after(&apply("udiff", reply, "t.c", file), "t.c");
    assert_eq!(
        out,
        "{\n\t    a(\"x\");\n        b(\"y\");\n        d(\"z\");\n        c();\n}\n"
    );
}

#[test]
fn str_replace_keeps_the_files_unchanged_lines() {
    // old_str lacks the file's trailing spaces on line 2, so it is found by
    // the ladder; new_str repeats that line unchanged.
    let reply = r#"{"command": "str_replace", "path": "a.py", "old_str": "def f(x):\n    y = \"a\"\n    return y", "new_str": "def f(x):\n    y = \"a\"\n    return y + 1"}"#;
    let r = apply("tool-call", reply, "a.py", FILE);
    assert_eq!(
        after(&r, "a.py"),
        "def f(x):\n    y = \"a\"  \n    return y + 1\n"
    );
    // And a miss speaks of old_str, not of SEARCH.
    let reply = r#"{"command": "str_replace", "path": "a.py", "old_str": "def g(x):\n    z = 1", "new_str": "x"}"#;
    let r = apply("tool-call", reply, "a.py", FILE);
    assert_ne!(r.status, Status::Applied);
    assert!(
        r.feedback
            .contains("old_str (2 lines) was not found in a.py"),
        "{}",
        r.feedback
    );
    assert!(!r.feedback.contains("SEARCH"), "{}", r.feedback);
}
