//! Streaming gives the same answers whatever the chunking: every corpus
//! reply, split at random places, emits the same early receipts as when it
//! arrives at once, and finishes with the same report as `apply`.

use patchbay::reply::stream::Stream;
use patchbay::{apply, EditStatus, Status};
use patchbay_tests::{case_dirs, corpus_root, load};

/// A small deterministic generator (xorshift), so no dependency is needed.
fn splits(text: &str, seed: u64) -> Vec<&str> {
    let mut x = seed | 1;
    let mut out = vec![];
    let mut at = 0;
    while at < text.len() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut end = (at + 1 + (x % 40) as usize).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[at..end]);
        at = end;
    }
    out
}

#[test]
fn any_chunking_gives_the_same_receipts() {
    let mut early = 0;
    for dir in case_dirs(&corpus_root()) {
        let c = load(&dir);
        let (files, output) = (&c.before, &c.output);
        let opt = c.options(&c.case.format);
        let whole_report = apply(output, files, &opt).unwrap();
        let mut at_once = Stream::new(files.clone(), opt.clone());
        let events_once = at_once.push(output);
        assert_eq!(at_once.finish(), whole_report, "{}", dir.display());
        early += events_once.len();
        for seed in [1u64, 7, 99] {
            let mut s = Stream::new(files.clone(), opt.clone());
            let mut events = vec![];
            for chunk in splits(output, seed) {
                events.extend(s.push(chunk));
            }
            assert_eq!(events, events_once, "{} seed {seed}", dir.display());
            assert_eq!(s.finish(), whole_report, "{} seed {seed}", dir.display());
        }
        // An early receipt agrees with the final one, except that the final
        // transaction may hold a located edit back or find an overlap.
        for e in &events_once {
            let fin = whole_report
                .receipts()
                .into_iter()
                .find(|r| r.index == e.receipt.index)
                .cloned()
                .unwrap();
            match e.receipt.status {
                EditStatus::Applied => {
                    assert!(
                        fin.status != EditStatus::Failed
                            || fin.code == Some(patchbay::Code::Overlap),
                        "{}",
                        dir.display()
                    );
                    assert_eq!(fin.lines, e.receipt.lines, "{}", dir.display());
                }
                _ => assert_eq!(
                    (fin.status, fin.code),
                    (e.receipt.status, e.receipt.code),
                    "{}",
                    dir.display()
                ),
            }
            if whole_report.status == Status::Applied {
                assert_eq!(e.receipt.status, EditStatus::Applied);
            }
        }
    }
    assert!(early > 50, "only {early} edits were judged early");
}
