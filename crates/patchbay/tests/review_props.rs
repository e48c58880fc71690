//! A review of a result, edit by edit: setting edits aside (`skip`) gives
//! the text that the reply without them gives, and each applied edit's
//! `resultFrom..resultTo` is where its lines are in the new text. The
//! oracle is the engine run on a reply written without the skipped blocks,
//! and the new text rebuilt from the receipts' ranges alone.

use patchbay::{apply, ApplyOptions, Code, EditStatus, Receipt, Report};
use proptest::prelude::*;

mod support;
use support::{one_file as files, PATH};

/// Distinct lines (each block's SEARCH is unique), some with characters
/// that are two UTF-16 units or none of ASCII.
fn file_lines(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| match i % 4 {
            0 => format!("line {i}"),
            1 => format!("    é {i} = \"ü\""),
            2 => format!("emoji 😀 {i}"),
            _ => format!("\tcall({i})"),
        })
        .collect()
}

/// Disjoint, ordered regions `(start, deleted)` of a file of `n` lines,
/// each with the lines that replace it.
fn regions(n: usize) -> impl Strategy<Value = Vec<(usize, usize, Vec<String>)>> {
    let edit = (
        0..n,
        1..4usize,
        prop::collection::vec("[a-z😀é ]{0,6}", 0..3),
    );
    prop::collection::vec(edit, 1..6).prop_map(move |mut v| {
        v.sort_by_key(|e| e.0);
        let mut out: Vec<(usize, usize, Vec<String>)> = vec![];
        let mut free = 0;
        for (start, del, new) in v {
            if start < free {
                continue;
            }
            let del = del.min(n - start);
            out.push((start, del, new.iter().map(|s| format!("new {s}")).collect()));
            free = start + del;
        }
        out
    })
}

fn block(lines: &[String], (start, del, new): &(usize, usize, Vec<String>)) -> String {
    let old = lines[*start..start + del].join("\n");
    let new = new.join("\n");
    let new = if new.is_empty() {
        new
    } else {
        format!("{new}\n")
    };
    format!("{PATH}\n<<<<<<< SEARCH\n{old}\n=======\n{new}>>>>>>> REPLACE\n")
}

fn run(text: &str, reply: &str, skip: Vec<usize>) -> Report {
    let opt = ApplyOptions {
        format: patchbay::FormatName::SearchReplace,
        transaction: patchbay::Options {
            skip,
            ..Default::default()
        },
        ..Default::default()
    };
    apply(reply, &files(text), &opt)
}

/// `s` as UTF-16, the units receipts count in.
fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// The new text from the original and the receipts alone: each applied
/// edit's `from..to` replaced by the new text's `resultFrom..resultTo`,
/// then the original's final-newline presence.
fn rebuilt(original: &str, result: &str, receipts: &[Receipt]) -> String {
    let (old, new) = (units(original), units(result));
    let mut out = vec![];
    let mut at = 0;
    for r in receipts.iter().filter(|r| r.status == EditStatus::Applied) {
        let (from, to) = (r.from.unwrap(), r.to.unwrap());
        out.extend_from_slice(&old[at..from]);
        out.extend_from_slice(&new[r.result_from.unwrap()..r.result_to.unwrap()]);
        at = to;
    }
    out.extend_from_slice(&old[at..]);
    let text = String::from_utf16(&out).unwrap();
    if original.ends_with('\n') || original.is_empty() {
        return text;
    }
    let trimmed = text.strip_suffix('\n').unwrap_or(&text);
    trimmed.strip_suffix('\r').unwrap_or(trimmed).to_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn skipping_edits_is_the_reply_without_them(
        (n, regions) in (1..30usize).prop_flat_map(|n| (Just(n), regions(n))),
        picks in prop::collection::vec(any::<bool>(), 6),
        crlf in any::<bool>(),
        final_nl in any::<bool>(),
    ) {
        let lines = file_lines(n);
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut text = lines.join(eol);
        if final_nl {
            text.push_str(eol);
        }
        let blocks: Vec<String> = regions.iter().map(|r| block(&lines, r)).collect();
        let skip: Vec<usize> = (1..=blocks.len()).filter(|&k| picks[k - 1]).collect();
        let whole = run(&text, &blocks.concat(), skip.clone());
        let kept: String = (blocks.iter().enumerate())
            .filter(|(k, _)| !skip.contains(&(k + 1)))
            .map(|(_, b)| b.as_str())
            .collect();
        let receipts = &whole.files[0].edits;
        prop_assert_eq!(whole.status, patchbay::Status::Applied, "{}", whole.feedback);
        for r in receipts {
            if skip.contains(&r.index) {
                prop_assert_eq!(r.status, EditStatus::Skipped);
                prop_assert_eq!(r.code, Some(Code::HeldBack));
                prop_assert!(r.lines.is_some() && r.result_from.is_none());
            } else {
                prop_assert_eq!(r.status, EditStatus::Applied);
            }
        }
        let got = whole.files[0].content.clone().unwrap_or_else(|| text.clone());
        let expected = if kept.is_empty() {
            text.clone()
        } else {
            let without = run(&text, &kept, vec![]);
            prop_assert_eq!(without.status, patchbay::Status::Applied);
            without.files[0].content.clone().unwrap()
        };
        prop_assert_eq!(&got, &expected);
        prop_assert_eq!(rebuilt(&text, &got, receipts), got);
    }
}

/// A skipped edit that does not locate is still a failure: `skip` sets
/// aside what the caller reviewed, not what the model got wrong.
#[test]
fn a_skipped_edit_that_fails_still_fails() {
    let reply = format!("{PATH}\n<<<<<<< SEARCH\nnot there\n=======\nx\n>>>>>>> REPLACE\n");
    let r = run("a\nb\n", &reply, vec![1]);
    assert_eq!(r.files[0].edits[0].status, EditStatus::Failed);
    assert_eq!(r.files[0].edits[0].code, Some(Code::NotFound));
}
