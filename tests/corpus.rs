//! Runs every case in `tests/corpus` and prints the conformance table: per
//! format and fault, applied correctly / refused right / refused wrong /
//! misapplied. Any case that does not pass fails the test; misapplied must
//! be zero. `PATCHBAY_BLESS=1 cargo test -p patchbay-tests --test corpus`
//! rewrites the expectations from the current behaviour.

use patchbay_tests::{case_dirs, check, Verdict};
use std::collections::BTreeMap;
use std::path::Path;

#[test]
fn corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let bless = std::env::var_os("PATCHBAY_BLESS").is_some();
    let dirs = case_dirs(&root);
    assert!(dirs.len() >= 60, "the corpus has only {} cases", dirs.len());
    let mut table: BTreeMap<(String, String), [usize; 4]> = BTreeMap::new();
    let mut problems = Vec::new();
    for d in &dirs {
        let o = check(d, bless);
        let row = table
            .entry((o.case.format.clone(), o.case.fault.clone()))
            .or_default();
        row[o.verdict as usize] += 1;
        if !o.problem.is_empty() {
            let name = d.strip_prefix(&root).unwrap().display().to_string();
            problems.push(format!("{name} [{:?}]: {}", o.verdict, o.problem));
        }
    }
    println!(
        "{:<16} {:<18} {:>8} {:>8} {:>8} {:>11}",
        "format", "fault", "correct", "refused", "wrong", "misapplied"
    );
    let mut total = [0usize; 4];
    for ((f, fault), r) in &table {
        println!(
            "{f:<16} {fault:<18} {:>8} {:>8} {:>8} {:>11}",
            r[0], r[1], r[2], r[3]
        );
        for i in 0..4 {
            total[i] += r[i];
        }
    }
    println!(
        "{:<35} {:>8} {:>8} {:>8} {:>11}",
        "total", total[0], total[1], total[2], total[3]
    );
    assert_eq!(
        total[Verdict::Misapplied as usize],
        0,
        "misapplied cases:\n{}",
        problems.join("\n")
    );
    assert!(
        problems.is_empty(),
        "{} of {} cases fail:\n{}",
        problems.len(),
        dirs.len(),
        problems.join("\n\n")
    );
}
