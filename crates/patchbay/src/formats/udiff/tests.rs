//! End-to-end unit tests of the format: parse, apply through the shared
//! transaction, diagnose, repair, simulate.

use super::*;
use crate::edit::{Code, Op};
use crate::test_support::{apply_in, files};
use crate::Status;
use std::collections::BTreeMap;

const PY: &str = "import os\n\n\ndef total(items):\n    subtotal = sum(i.price for i in items)\n    tax = subtotal * RATE\n    return subtotal + tax\n\n\ndef count(items):\n    return len(items)\n";

fn run(out: &str, fs: &BTreeMap<String, String>, strict: bool) -> crate::Report {
    apply_in("udiff", out, fs, strict)
}

fn content(r: &crate::Report) -> &str {
    r.files[0].content.as_deref().unwrap_or("<none>")
}

fn first_code(r: &crate::Report) -> Option<Code> {
    r.receipts().iter().find_map(|x| x.code)
}

const GOOD: &str = "--- a/app.py\n+++ b/app.py\n@@ -5,3 +5,4 @@ def total(items):\n     subtotal = sum(i.price for i in items)\n-    tax = subtotal * RATE\n+    tax = subtotal * rate(items)\n+    log(tax)\n     return subtotal + tax\n";

fn good_after() -> String {
    PY.replace(
        "    tax = subtotal * RATE\n",
        "    tax = subtotal * rate(items)\n    log(tax)\n",
    )
}

#[test]
fn clean_diff_applies_in_both_modes() {
    for strict in [false, true] {
        let r = run(GOOD, &files(&[("app.py", PY)]), strict);
        assert_eq!(r.status, Status::Applied, "{}", r.feedback);
        assert_eq!(content(&r), good_after());
    }
}

#[test]
fn wrong_numbers_and_counts_are_ignored_when_lenient() {
    // Fenced, so the short count is a miscount, not a cut-off reply.
    let out = GOOD.replace("@@ -5,3 +5,4 @@", "@@ -40,2 +41,9 @@");
    let out = format!("```diff\n{out}```\n");
    let r = run(&out, &files(&[("app.py", PY)]), false);
    assert_eq!(r.status, Status::Applied, "{}", r.feedback);
    assert_eq!(content(&r), good_after());
    let r = run(&out, &files(&[("app.py", PY)]), true);
    assert_eq!(first_code(&r), Some(Code::Malformed));
    assert!(
        r.feedback
            .contains("header says 2 old lines but the body has 3"),
        "{}",
        r.feedback
    );
}

#[test]
fn strict_reports_the_offset() {
    let out = GOOD.replace("@@ -5,3 +5,4 @@", "@@ -2,3 +2,4 @@");
    let r = run(&out, &files(&[("app.py", PY)]), true);
    assert_eq!(r.status, Status::Applied, "{}", r.feedback);
    let m = r.receipts()[0].message.clone().unwrap_or_default();
    assert!(
        m.contains("found at line 5; the stated line was 2 (offset +3)"),
        "{m}"
    );
}

#[test]
fn lost_prefixes_and_missing_plus_are_recovered() {
    // Every unchanged line lost its one-space marker (so indented ones
    // look one column short), and the second added line lost its `+`.
    let out = "--- a/app.py\n+++ b/app.py\n@@ @@\ndef total(items):\n    subtotal = sum(i.price for i in items)\n-    tax = subtotal * RATE\n+    tax = subtotal * rate(items)\n    log(tax)\n+    # logged\n    return subtotal + tax\n";
    let r = run(out, &files(&[("app.py", PY)]), false);
    assert_eq!(r.status, Status::Applied, "{}", r.feedback);
    let want = PY.replace(
        "    tax = subtotal * RATE\n",
        "    tax = subtotal * rate(items)\n    log(tax)\n    # logged\n",
    );
    assert_eq!(content(&r), want);
    let r = run(out, &files(&[("app.py", PY)]), true);
    assert_eq!(first_code(&r), Some(Code::Malformed));
}

#[test]
fn readings_that_disagree_are_ambiguous() {
    // `b` without a marker: unchanged (place 1) or added (place 2).
    let file = "a\nb\nc\nx\na\nc\n";
    let out = "--- a/f\n+++ b/f\n@@ @@\n a\nb\n+n\n c\n";
    let p = Udiff.parse_default(out);
    assert!(matches!(p.edits[0].op, Op::OneOf(_)));
    let r = run(out, &files(&[("f", file)]), false);
    assert_eq!(first_code(&r), Some(Code::Ambiguous), "{}", r.feedback);
    assert_eq!(r.status, Status::Failed);
}

#[test]
fn look_alike_context_is_not_found_never_applied_elsewhere() {
    let out = GOOD.replace("     return subtotal + tax", "     return subtotal - tax");
    let r = run(&out, &files(&[("app.py", PY)]), false);
    assert_eq!(first_code(&r), Some(Code::NotFound));
    assert!(r.files[0].content.is_none());
}

#[test]
fn create_delete_rename_and_escape() {
    let out = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n";
    let r = run(out, &BTreeMap::new(), false);
    assert_eq!((r.status, content(&r)), (Status::Applied, "a = 1\nb = 2\n"));
    let gone: String = PY.lines().map(|l| format!("-{l}\n")).collect();
    let out = format!("--- a/app.py\n+++ /dev/null\n@@ -1,11 +0,0 @@\n{gone}");
    let r = run(&out, &files(&[("app.py", PY)]), false);
    assert_eq!(r.files[0].status, crate::FileStatus::Deleted);
    let out = "diff --git a/app.py b/lib/app.py\nrename from app.py\nrename to lib/app.py\n";
    let r = run(out, &files(&[("app.py", PY)]), false);
    assert_eq!(r.status, Status::Applied, "{}", r.feedback);
    assert!(r
        .files
        .iter()
        .any(|f| f.path == "lib/app.py" && f.content.as_deref() == Some(PY)));
    let r = run(
        &GOOD.replace("a/app.py", "a/../../etc/app.py"),
        &files(&[("app.py", PY)]),
        false,
    );
    assert_eq!(first_code(&r), Some(Code::PathEscape));
}

#[test]
fn truncated_hunk() {
    let cut = &GOOD[..GOOD.len() - 30];
    let r = run(cut, &files(&[("app.py", PY)]), false);
    assert_eq!(r.status, Status::Truncated);
    assert_eq!(first_code(&r), Some(Code::Truncated));
}

#[test]
fn no_final_newline_is_kept() {
    let file = "a\nb\nc";
    let out = "--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n b\n-c\n\\ No newline at end of file\n+C\n\\ No newline at end of file\n";
    let r = run(out, &files(&[("f", file)]), true);
    assert_eq!(content(&r), "a\nb\nC");
}

fn diag(out: &str, file: &str) -> HunkDiagnosis {
    diagnose(out, &files(&[("app.py", file)])).remove(0)
}

fn has(d: &HunkDiagnosis, kind: FindingKind, text: &str) -> bool {
    d.findings
        .iter()
        .any(|f| f.kind == kind && f.message.contains(text))
}

#[test]
fn diagnosis_of_a_hunk_found_as_stated_or_offset() {
    let d = diag(GOOD, PY);
    assert!(
        d.strict_ok
            && has(
                &d,
                FindingKind::Found,
                "context found at line 5, as the header says"
            ),
        "{d:#?}"
    );
    assert_eq!(d.lenient_lines, Some([5, 7]));

    let d = diag(&GOOD.replace("@@ -5,3 +5,4 @@", "@@ -48,3 +48,4 @@"), PY);
    assert!(
        d.strict_ok
            && has(
                &d,
                FindingKind::Offset,
                "context found at line 5, header says 48"
            ),
        "{d:#?}"
    );
}

#[test]
fn diagnosis_of_wrong_counts() {
    let d = diag(&GOOD.replace("@@ -5,3 +5,4 @@", "@@ -5,4 +5,4 @@"), PY);
    assert!(!d.strict_ok);
    assert!(
        has(
            &d,
            FindingKind::OldCount,
            "header says 4 old lines but the body has 3"
        ),
        "{d:#?}"
    );
    assert!(!has(
        &d,
        FindingKind::NewCount,
        "header says 4 new lines but the body has 4"
    ));
}

#[test]
fn diagnosis_of_lines_without_their_prefix() {
    // An indented added line without its `+` reads as unchanged, one
    // column short: the counts give it away, a re-reading finds it.
    let d = diag(&GOOD.replace("+    log(tax)", "    log(tax)"), PY);
    assert!(!d.findings.iter().any(|f| f.kind == FindingKind::NewCount));
    assert!(
        has(
            &d,
            FindingKind::OldCount,
            "header says 3 old lines but the body has 4"
        ),
        "{d:#?}"
    );
    assert!(
        has(&d, FindingKind::Reread, "line 4 of the hunk read as added"),
        "{d:#?}"
    );
    assert_eq!(d.lenient_lines, Some([5, 7]));

    // A line with no marker at all.
    let out = "--- a/app.py\n+++ b/app.py\n@@ -10,2 +10,2 @@\ndef count(items):\n-    return len(items)\n+    return len(list(items))\n";
    let d = diag(out, PY);
    let want = "line 1 of the hunk lacks its prefix (output line 4: `def count(items):`)";
    assert!(has(&d, FindingKind::MissingPrefix, want), "{d:#?}");
    assert!(!d.strict_ok && d.lenient_lines == Some([10, 11]), "{d:#?}");
}

#[test]
fn diagnosis_of_context_not_found() {
    let d = diag(
        &GOOD.replace("     return subtotal + tax", "     return subtotal - tax"),
        PY,
    );
    assert!(
        has(
            &d,
            FindingKind::NotFound,
            "context not found; closest region lines 5-7"
        ),
        "{d:#?}"
    );
    assert!(
        has(&d, FindingKind::NotFound, "first difference at line 7"),
        "{d:#?}"
    );
    assert_eq!(d.lenient_lines, None);
}

#[test]
fn diagnosis_of_a_lost_space_and_a_header_without_numbers() {
    let d = diag(
        &GOOD.replace("     subtotal = sum", "    subtotal = sum"),
        PY,
    );
    assert!(
        has(
            &d,
            FindingKind::Reread,
            "line 1 of the hunk lost its one-space prefix"
        ),
        "{d:#?}"
    );

    let d = diag(&GOOD.replace("@@ -5,3 +5,4 @@", "@@ @@"), PY);
    assert!(
        has(&d, FindingKind::NoNumbers, "has no line numbers"),
        "{d:#?}"
    );
}

#[test]
fn diagnosis_of_tolerance_ambiguity_and_files() {
    let spaced = PY.replace(
        "    return subtotal + tax\n",
        "    return subtotal + tax  \n",
    );
    let d = diag(GOOD, &spaced);
    assert!(
        has(
            &d,
            FindingKind::Tolerated,
            "only at the `trailing_ws` level"
        ),
        "{d:#?}"
    );
    assert_eq!(d.lenient_lines, Some([5, 7]));
    let twice = format!("{PY}{}", "def other(items):\n    subtotal = sum(i.price for i in items)\n    tax = subtotal * RATE\n    return subtotal + tax\n");
    let d = diag(&GOOD.replace("@@ -5,3 +5,4 @@", "@@ @@"), &twice);
    assert!(
        has(
            &d,
            FindingKind::Ambiguous,
            "context occurs at 2 places (lines 5-7, 13-15)"
        ),
        "{d:#?}"
    );
    let d = diagnose(GOOD, &BTreeMap::new()).remove(0);
    assert!(has(&d, FindingKind::FileMissing, "app.py does not exist"));
    let d = diag(&GOOD[..GOOD.len() - 30], PY);
    assert!(
        has(
            &d,
            FindingKind::Truncated,
            "before its header's counts are met"
        ),
        "{d:#?}"
    );
    let json = serde_json::to_string(&d).unwrap();
    assert!(json.contains("\"kind\":\"truncated\""), "{json}");
}

#[test]
fn repair_restores_numbers_counts_and_prefixes() {
    let out = "```diff\n--- a/app.py\n+++ b/app.py\n@@ -40,1 +40,1 @@\n    subtotal = sum(i.price for i in items)\n-    tax = subtotal * RATE\n+    tax = subtotal * rate(items)\n    log(tax)\n    return subtotal + tax\n```\n";
    let fixed = repair(out, &files(&[("app.py", PY)])).unwrap();
    assert_eq!(
        fixed,
        "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -5,3 +5,4 @@\n     subtotal = sum(i.price for i in items)\n-    tax = subtotal * RATE\n+    tax = subtotal * rate(items)\n+    log(tax)\n     return subtotal + tax\n"
    );
    // The repaired diff applies strictly, to the same result.
    let r = run(&fixed, &files(&[("app.py", PY)]), true);
    assert_eq!(content(&r), good_after());
    let e = repair(
        &GOOD.replace("+ tax", "- tax").replace("RATE", "RAT"),
        &files(&[("app.py", PY)]),
    )
    .unwrap_err();
    assert!(e.problems[0].contains("not found"), "{e}");
}

#[test]
fn repair_adds_trailing_context_and_keeps_tolerated_hunks_exact() {
    // No trailing context: git would anchor the hunk at the end of the file.
    let out = "--- a/app.py\n+++ b/app.py\n@@ -1,1 +1,2 @@\n import os\n+import sys\n";
    let fixed = repair(out, &files(&[("app.py", PY)])).unwrap();
    assert!(
        fixed.contains("@@ -1,4 +1,5 @@\n import os\n+import sys\n \n \n def total(items):\n"),
        "{fixed}"
    );
    // Found only with the indentation shifted: rebuilt from the file.
    let out = "--- a/app.py\n+++ b/app.py\n@@ -5,3 +5,3 @@\n subtotal = sum(i.price for i in items)\n-tax = subtotal * RATE\n+tax = 0\n return subtotal + tax\n";
    let fixed = repair(out, &files(&[("app.py", PY)])).unwrap();
    assert!(
        fixed.contains("-    tax = subtotal * RATE\n+    tax = 0\n"),
        "{fixed}"
    );
}

/// Two look-alike functions; the hunk edits `b` with 3 unchanged lines
/// above its change and 1 below.
const TWINS: &str = "import x\n\ndef a(x):\n    y = x + 1\n    return y\n\ndef b(x):\n    y = x + 1\n    return y\n\ndef c(x):\n    return x\n";
const TWIN_HUNK: &str = "--- a/m.py\n+++ b/m.py\n@@ -6,5 +6,5 @@\n \n def b(x):\n     y = x + 1\n-    return y\n+    return y + 1\n \n";

#[test]
fn fuzz_simulation_flags_a_misapply() {
    // Less context below than above: at fuzz 0 and 1 patch may only match
    // at the end of the file; at fuzz 2 it ignores the top two lines and
    // the stated line 2 lands it in `a`, though the hunk matches only at 6.
    let out = TWIN_HUNK.replace("@@ -6,5 +6,5 @@", "@@ -2,5 +2,5 @@");
    let r = patch_fuzz_simulation(&out, &files(&[("m.py", TWINS)]));
    assert_eq!(r[0].verdict, FuzzVerdict::Misplaced, "{r:#?}");
    assert_eq!(
        (r[0].patch_line, r[0].fuzz, r[0].safe_line),
        (Some(2), 2, Some(6))
    );
    assert!(
        r[0].message.contains("a silent misapply"),
        "{}",
        r[0].message
    );
    // patchbay refuses nothing here: the whole hunk is unique at line 6.
    let a = run(&out, &files(&[("m.py", TWINS)]), false);
    assert_eq!(a.receipts()[0].lines, Some([6, 10]));
    // With the right line, patch agrees (still with fuzz 2).
    let r = patch_fuzz_simulation(TWIN_HUNK, &files(&[("m.py", TWINS)]));
    assert_eq!(
        (r[0].verdict, r[0].patch_line, r[0].fuzz),
        (FuzzVerdict::Agrees, Some(6), 2)
    );
    // A hunk whose first line is wrong matches nowhere in full.
    let out = TWIN_HUNK.replace(" def b(x):", " def bb(x):");
    let r = patch_fuzz_simulation(&out, &files(&[("m.py", TWINS)]));
    assert_eq!(
        (r[0].verdict, r[0].safe_line),
        (FuzzVerdict::NoSafePlace, None)
    );
    let r = patch_fuzz_simulation(
        &TWIN_HUNK.replace("-6,5", "-6,9"),
        &files(&[("m.py", TWINS)]),
    );
    assert_eq!(r[0].verdict, FuzzVerdict::Malformed);
    assert_eq!(
        patch_fuzz_simulation(TWIN_HUNK, &BTreeMap::new())[0].verdict,
        FuzzVerdict::NoFile
    );
}

#[test]
fn fuzz_simulation_reports_what_patch_reads() {
    // Read by its counts, a hunk stated one line short leaves its last
    // line as text after it: without context below the change, patch may
    // only put it at the end of the file, and rejects it.
    let short = TWIN_HUNK.replace("-6,5 +6,5", "-6,4 +6,4");
    let r = patch_fuzz_simulation(&short, &files(&[("m.py", TWINS)]));
    assert_eq!(
        (r[0].verdict, r[0].patch_hunk, r[0].patch_reported_line),
        (FuzzVerdict::Rejected, Some(1), Some(6))
    );
    // No numbers: patch skips the hunk and finds nothing to apply.
    let bare = TWIN_HUNK.replace("@@ -6,5 +6,5 @@", "@@ @@");
    let r = patch_fuzz_simulation(&bare, &files(&[("m.py", TWINS)]));
    assert_eq!(
        (r[0].verdict, r[0].patch_hunk),
        (FuzzVerdict::Skipped, None)
    );
    assert!(r[0].message.contains("Only garbage"), "{}", r[0].message);
    // A second file after a malformed hunk is never reached.
    let two = format!(
        "{}{}",
        TWIN_HUNK.replace("-6,5", "-6,9"),
        TWIN_HUNK.replace("m.py", "n.py")
    );
    let r = patch_fuzz_simulation(&two, &files(&[("m.py", TWINS)]));
    assert_eq!(
        r.iter().map(|r| r.verdict).collect::<Vec<_>>(),
        [FuzzVerdict::Malformed, FuzzVerdict::NotReached]
    );
}

#[test]
fn never_panics_on_marker_soup() {
    let parts = [
        "@@ @@\n",
        "@@ -1,2 +1,2 @@\n",
        "--- a/f\n",
        "+++ b/f\n",
        "diff --git a/f b/f\n",
        "```diff\n",
        "```\n",
        " a\n",
        "-a\n",
        "+b\n",
        "\n",
        "x\n",
        "\\ No newline at end of file\n",
        "--- /dev/null\n",
        "+++ /dev/null\n",
        "rename from f\n",
        "\t\n",
    ];
    let fs = files(&[("f", "a\nb\n")]);
    let mut seed = 7u64;
    for _ in 0..3000 {
        let mut out = String::new();
        for _ in 0..(seed % 12) {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            out.push_str(parts[(seed >> 33) as usize % parts.len()]);
        }
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        let _ = run(&out, &fs, false);
        let _ = run(&out, &fs, true);
        let _ = diagnose(&out, &fs);
        let _ = repair(&out, &fs);
        let _ = patch_fuzz_simulation(&out, &fs);
    }
}

#[test]
fn an_empty_line_between_added_lines_is_added() {
    // The file has no blank line there, so the empty line can only be an
    // added one that lost its `+`.
    let out = "```diff\n--- a/app.py\n+++ b/app.py\n@@ -5,2 +5,5 @@\n     subtotal = sum(i.price for i in items)\n+    a = 1\n\n+    b = 2\n     tax = subtotal * RATE\n```\n";
    let r = run(out, &files(&[("app.py", PY)]), false);
    assert_eq!(r.status, Status::Applied, "{}", r.feedback);
    let want = PY.replace("items)\n    tax", "items)\n    a = 1\n\n    b = 2\n    tax");
    assert_eq!(content(&r), want);
}

#[test]
fn detection_takes_numberless_hunks_but_not_v4a_anchors() {
    let d =
        crate::detect("src/app.py\n```diff\n@@ @@\n def f():\n-    return 1\n+    return 2\n```\n");
    assert_eq!(d.format, "udiff", "{d:?}");
    assert!(!bare_hunk_header("@@ def f():", Some(" x")));
    assert!(!bare_hunk_header("@@ src/app.py 10:23", Some("+x")));
    assert!(bare_hunk_header("@@ ... @@", Some("-x")));
}
