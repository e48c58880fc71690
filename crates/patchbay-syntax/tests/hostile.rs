//! Large hostile inputs for the syntax entry points (issue 12, items 8 and
//! 9): nesting 32,769 deep, and slices of up to 480,000 lines with every
//! line edited. Heavy, so they run in release (`scripts/test.sh`); each checks
//! its answer and that time grows linearly over a doubling series: the
//! largest size may take at most 1.6 times its share (8 times the size,
//! less than 12.8 times the time). No absolute time is asserted.

use patchbay_syntax::slice::slice;
use patchbay_syntax::splice::splice;
use patchbay_syntax::{outline, Language, MAX_DEPTH};
use std::time::{Duration, Instant};

/// The time this thread spent on a CPU (Linux: `/proc/thread-self/schedstat`),
/// so that waiting for a core on a busy machine is not counted; elsewhere
/// the wall clock.
enum Clock {
    Cpu(u64),
    Wall(Instant),
}

impl Clock {
    fn cpu_ns() -> Option<u64> {
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        s.split_whitespace().next()?.parse().ok()
    }

    fn now() -> Clock {
        Clock::cpu_ns().map_or_else(|| Clock::Wall(Instant::now()), Clock::Cpu)
    }

    fn elapsed(&self) -> Duration {
        match self {
            Clock::Cpu(t) => Duration::from_nanos(Clock::cpu_ns().unwrap_or(*t).saturating_sub(*t)),
            Clock::Wall(t) => t.elapsed(),
        }
    }
}

/// Times `prepare(n)()` for n, 2n, 4n, 8n and asserts `t(8n) / t(n) < 12.8`.
/// Each size keeps its fastest of five runs, taken in interleaved rounds,
/// so that a burst of other work on the machine slows every size alike.
fn assert_linear<F: FnMut()>(what: &str, n: usize, mut prepare: impl FnMut(usize) -> F) {
    let mut runs: Vec<F> = (0..4).map(|k| prepare(n << k)).collect();
    let mut best = [Duration::MAX; 4];
    for _ in 0..5 {
        for (b, run) in best.iter_mut().zip(runs.iter_mut()) {
            let t = Clock::now();
            run();
            *b = (*b).min(t.elapsed());
        }
    }
    let ratio = best[3].as_secs_f64() / best[0].as_secs_f64().max(1e-6);
    eprintln!("{what}: {best:?}, t(8n)/t(n) = {ratio:.2}");
    assert!(
        ratio < 8.0 * 1.6,
        "{what} grows faster than linearly: {best:?}"
    );
}

fn nested(depth: usize) -> String {
    format!(
        "{}fn f() {{}}{}\n",
        "mod m {".repeat(depth),
        "}".repeat(depth)
    )
}

#[test]
#[cfg_attr(debug_assertions, ignore = "heavy: runs in release (scripts/test.sh)")]
fn nesting_32769_deep_is_bounded_and_linear() {
    let text = nested(32_769);
    let o = outline(&text, Language::Rust).unwrap();
    assert_eq!(o.symbols.len(), MAX_DEPTH);
    assert!(o.render().lines().all(|l| l.len() < 4096));
    assert_linear("outline of nesting", 8_192, |n| {
        let text = nested(n);
        move || {
            outline(&text, Language::Rust).unwrap().render();
        }
    });
}

/// A Rust method of `n` lines.
fn long_method(n: usize) -> String {
    let body: String = (0..n)
        .map(|i| format!("        let x{i} = {i};\n"))
        .collect();
    format!("struct G;\nimpl G {{\n    fn hello(&self) {{\n{body}    }}\n}}\n")
}

#[test]
#[cfg_attr(debug_assertions, ignore = "heavy: runs in release (scripts/test.sh)")]
fn splicing_slices_of_60k_to_480k_lines_is_linear() {
    // Every line edited: Myers' diff was quadratic here (52 s at 15k lines
    // in a debug build, 238 s at 30k).
    // From 60,000 lines (a 2 MB slice, the diff's table past the caches)
    // to 480,000, so that the ratio measures the algorithm, not the memory
    // hierarchy: from 15,000 it was up to 14 with a linear algorithm.
    assert_linear("splice, every line edited", 60_000, |n| {
        let file = long_method(n);
        let s = slice("g.rs", &file, Language::Rust, "G::hello").unwrap();
        let edited = s.text.replace(" = ", " =  ");
        let want = file.replace(" = ", " =  ");
        move || assert!(splice(&file, &s, &edited).unwrap() == want)
    });
    // One line edited in the middle, and one at each end.
    assert_linear("splice, three lines edited", 60_000, |n| {
        let file = long_method(n);
        let s = slice("g.rs", &file, Language::Rust, "G::hello").unwrap();
        let mid = format!("let x{} = {};", n / 2, n / 2);
        let edited = s
            .text
            .replacen("let x0 = 0;", "let x0 = 1;", 1)
            .replacen(&mid, "let mid = 0;", 1)
            .replacen(&format!("let x{} ", n - 1), "let last ", 1);
        move || {
            let new = splice(&file, &s, &edited).unwrap();
            assert!(new.contains("        let mid = 0;\n"));
        }
    });
}
