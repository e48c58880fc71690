//! What the core's integration tests share: one-file trees, the line
//! vocabulary of the property tests, the format names, deterministic
//! generators ([`rng`]), and the invariants every report holds whatever the
//! reply. Each test binary uses a part.
#![allow(dead_code)]

pub mod rng;

use patchbay::{
    apply, parse_reply, ApplyOptions, EditStatus, FileStatus, Op, Receipt, Report, Status,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The path of the one file most properties edit.
pub const PATH: &str = "src/f.txt";

/// A tree of one file.
pub fn files(path: &str, text: &str) -> BTreeMap<String, String> {
    BTreeMap::from([(path.to_owned(), text.to_owned())])
}

/// A tree of one file at [`PATH`].
pub fn one_file(text: &str) -> BTreeMap<String, String> {
    files(PATH, text)
}

/// Options for `format`, everything else the default.
pub fn opts(format: &str) -> ApplyOptions {
    ApplyOptions {
        format: format.parse().unwrap(),
        ..Default::default()
    }
}

/// Every format the core reads (without `auto`), from its registry, so a
/// new format is covered without editing the tests.
pub fn formats() -> Vec<&'static str> {
    patchbay::formats::all().iter().map(|f| f.name()).collect()
}

/// Lines from a small vocabulary, so that repetition (and thus ambiguity)
/// is common, with varied indentation.
pub fn line() -> impl Strategy<Value = String> {
    line_of(
        &["", "  ", "    ", "\t", "        "],
        &[
            "x = 1",
            "y = 2",
            "return x",
            "}",
            "{",
            "if a:",
            "fn f() {",
            "call(1, 2)",
            "// note",
            "é = \"ü\"",
            "",
            "pass",
            "end",
        ],
    )
}

/// A file and an edited version of it (one to three changed regions).
pub fn file_pair() -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    prop::collection::vec(line(), 1..40).prop_flat_map(|before| {
        let n = before.len();
        let edits = prop::collection::vec(
            (0..=n, 0..4usize, prop::collection::vec(line(), 0..4)),
            1..4,
        );
        (Just(before), edits).prop_map(|(before, mut edits)| {
            edits.sort_by_key(|e| std::cmp::Reverse(e.0));
            let mut after = before.clone();
            for (at, del, ins) in edits {
                let at = at.min(after.len());
                let del = del.min(after.len() - at);
                after.splice(at..at + del, ins);
            }
            (before, after)
        })
    })
}

/// A line of one of `words` after one of `indents` (an empty word stays an
/// empty line).
pub fn line_of(indents: &[&'static str], words: &[&'static str]) -> impl Strategy<Value = String> {
    (
        prop::sample::select(indents.to_vec()),
        prop::sample::select(words.to_vec()),
    )
        .prop_map(|(i, t)| {
            if t.is_empty() {
                String::new()
            } else {
                format!("{i}{t}")
            }
        })
}

/// Applies `reply` and checks what holds for any reply, however broken:
/// every edit the reading of the reply found (`parse_reply`, what `apply`
/// reads) gets exactly one receipt; a file the report says was applied or
/// created has its new text (unless all it got was a read-only `view`); and a report that did not
/// apply (without `partial`) leaves every input text as it was. Returns the
/// report for further checks.
pub fn apply_checked(
    reply: &str,
    before: &BTreeMap<String, String>,
    opt: &ApplyOptions,
) -> Result<Report, TestCaseError> {
    let report = apply(reply, before, opt);
    let (_, parsed) = parse_reply(reply, opt);
    let indices: Vec<usize> = report.receipts().iter().map(|r| r.index).collect();
    let expected: Vec<usize> = (1..=parsed.edits.len()).collect();
    prop_assert_eq!(&indices, &expected, "one receipt an edit\n{}", reply);
    for f in &report.files {
        let only_views = f.edits.iter().all(|r| {
            matches!(
                parsed.edits.get(r.index - 1).map(|e| &e.op),
                Some(Op::View { .. })
            )
        });
        if matches!(f.status, FileStatus::Applied | FileStatus::Created) && !only_views {
            prop_assert!(f.content.is_some(), "{} {:?} has no text", f.path, f.status);
        }
        for r in &f.edits {
            receipt_holds_its_status(r)?;
        }
        if report.status != Status::Applied && !opt.transaction.partial {
            let unchanged = f.content.is_none() || f.content.as_ref() == before.get(&f.path);
            prop_assert!(
                unchanged,
                "{} changed by a {:?} report",
                f.path,
                report.status
            );
        }
    }
    Ok(report)
}

/// What the package's `Receipt` union promises for each status: an applied
/// receipt has its range in the original and in the new text, a failed or
/// held-back one a code and a message.
pub fn receipt_holds_its_status(r: &Receipt) -> Result<(), TestCaseError> {
    match r.status {
        EditStatus::Applied => {
            let range = [r.from, r.to, r.result_from, r.result_to];
            let at = [r.from_pos, r.to_pos, r.result_from_pos, r.result_to_pos];
            prop_assert!(range.iter().all(Option::is_some), "{:?}", r);
            prop_assert!(at.iter().all(Option::is_some), "{:?}", r);
        }
        EditStatus::Failed | EditStatus::Skipped => {
            prop_assert!(r.code.is_some() && r.message.is_some(), "{:?}", r);
            prop_assert!(
                r.result_from.is_none() && r.result_from_pos.is_none(),
                "{:?}",
                r
            );
        }
    }
    Ok(())
}
