//! Cut real replies at every byte offset: with the edit count declared first
//! (`EDITS: N`), a cut reply is never judged complete, so nothing half-done
//! is ever applied. Every corpus case that applies is used, in every format.

use patchbay::{apply, parse_with, ApplyOptions, Status};
use patchbay_tests::{case_dirs, load_tree, result_tree, Case};
use std::path::Path;

#[test]
fn a_cut_reply_never_claims_complete() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let (mut cases, mut cuts) = (0, 0);
    for dir in case_dirs(&root) {
        let case: Case =
            serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
        if case.expect.status != "applied" {
            continue;
        }
        let before = load_tree(&dir.join("before"));
        let after = load_tree(&dir.join("after"));
        let output = std::fs::read_to_string(dir.join("output.txt")).unwrap();
        let mut opt: ApplyOptions = if case.options.is_null() {
            ApplyOptions::default()
        } else {
            serde_json::from_value(case.options.clone()).unwrap()
        };
        opt.format = case.format.clone();
        let n = parse_with(&output, &opt.format, &opt.parse_options())
            .unwrap()
            .1
            .edits
            .len();
        // Replies that already declare a count keep theirs.
        let reply = if output.contains("EDITS:") {
            output.clone()
        } else {
            format!("EDITS: {n}\n{output}")
        };
        cases += 1;
        // Long replies: every offset near the edges, a stride in between.
        let len = reply.len();
        let step = (len / 400).max(1);
        for at in (0..len)
            .filter(|&i| reply.is_char_boundary(i) && (i < 200 || i + 200 > len || i % step == 0))
        {
            let r = apply(&reply[..at], &before, &opt).unwrap();
            cuts += 1;
            if r.status == Status::Applied {
                // Only a cut that lost nothing of the edits (trailing prose or
                // a closing fence) may apply, and then to the exact result.
                assert_eq!(
                    result_tree(&before, &r),
                    after,
                    "{} cut at {at} of {len} applied wrongly",
                    dir.display()
                );
            }
        }
    }
    assert!(cases >= 100 && cuts > 10_000, "{cases} cases, {cuts} cuts");
}
