//! Runs every case in `tests/corpus` as a test of its own, named
//! `corpus::FORMAT::FOLDER` (so `cargo test -p patchbay-tests --test corpus
//! udiff::` runs the unified-diff cases), then prints the conformance table
//! of the cases that ran: per format and fault, applied correctly / refused
//! right / refused wrong / misapplied. A case that does not reach its one
//! correct outcome fails. `PATCHBAY_BLESS=1` rewrites the expectations of
//! hand-written cases from the current behaviour (see `src/lib.rs`).

use libtest_mimic::{Arguments, Failed, Trial};
use patchbay_tests::{case_dirs, check, corpus_root, generated, read_case, Verdict};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

/// Cases counted by (format, fault): correct, refused right, refused
/// wrong, misapplied (the order of [`Verdict`]).
type Table = BTreeMap<(String, String), [usize; 4]>;

/// The corpus is meant to cover every format with real cases; fewer than
/// this means folders went missing.
const AT_LEAST: usize = 600;

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let bless = std::env::var_os("PATCHBAY_BLESS").is_some();
    let table = Arc::new(Mutex::new(Table::new()));
    let dirs = case_dirs(&corpus_root());
    let count = dirs.len();
    let mut trials: Vec<Trial> = dirs
        .into_iter()
        .map(|d| trial(d, bless, Arc::clone(&table)))
        .collect();
    trials.push(Trial::test("corpus::size", move || {
        if count >= AT_LEAST {
            Ok(())
        } else {
            Err(format!("the corpus has only {count} cases, expected {AT_LEAST} or more").into())
        }
    }));
    let listing = args.list;
    let conclusion = libtest_mimic::run(&args, trials);
    let table = table.lock().map(|t| t.clone()).unwrap_or_default();
    if !listing && !table.is_empty() {
        print_table(&table);
    }
    conclusion.exit_code()
}

/// One case as a test: its verdict goes into the table; anything but the
/// expected outcome fails with the reason.
fn trial(dir: PathBuf, bless: bool, table: Arc<Mutex<Table>>) -> Trial {
    let case = read_case(&dir);
    let folder = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    let name = format!("corpus::{}::{}", case.format, folder.unwrap_or_default());
    Trial::test(name, move || {
        let o = check(&dir, bless);
        if let Ok(mut t) = table.lock() {
            t.entry((o.case.format.clone(), o.case.fault.clone()))
                .or_default()[o.verdict as usize] += 1;
        }
        let note = if bless && generated(&dir) {
            "\n(not blessed: a generator computed this outcome; fix the engine or the generator)"
        } else {
            ""
        };
        if o.problem.is_empty() {
            Ok(())
        } else {
            Err(Failed::from(format!(
                "[{:?}] {}{note}",
                o.verdict, o.problem
            )))
        }
    })
    .with_kind(case.fault)
}

/// The conformance table, one row a (format, fault) and the total.
fn print_table(table: &Table) {
    println!(
        "\n{:<16} {:<18} {:>8} {:>8} {:>8} {:>11}",
        "format", "fault", "correct", "refused", "wrong", "misapplied"
    );
    let mut total = [0usize; 4];
    for ((f, fault), r) in table {
        println!(
            "{f:<16} {fault:<18} {:>8} {:>8} {:>8} {:>11}",
            r[0], r[1], r[2], r[3]
        );
        for (t, n) in total.iter_mut().zip(r) {
            *t += n;
        }
    }
    println!(
        "{:<35} {:>8} {:>8} {:>8} {:>11}",
        "total", total[0], total[1], total[2], total[3]
    );
    println!(
        "applied {}, refused right {}, misapplied {}",
        total[Verdict::Correct as usize],
        total[Verdict::RefusedRight as usize],
        total[Verdict::Misapplied as usize]
    );
}
