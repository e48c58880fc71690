//! Large hostile inputs for the syntax entry points: nesting 32,769 deep, and slices of up to 480,000 lines with every
//! line edited. Heavy, so they run in release (`scripts/test.sh`); each checks
//! its answer and that time grows linearly over a doubling series: the
//! largest size (8 times the smallest) may take at most 1.6 times its
//! share, less than 12.8 times the time, or 1.6 times what a plain linear
//! pass over the same inputs takes on this machine if that is more (see
//! `assert_linear`). No absolute time is asserted.

use patchbay_syntax::slice::slice;
use patchbay_syntax::splice::splice;
use patchbay_syntax::{outline, Language, MAX_DEPTH};
use std::time::{Duration, Instant};

/// A linear pass over `text` that touches memory as a splice must: the
/// lines indexed and the text copied. The yardstick of [`assert_linear`].
fn linear_pass(text: &str) {
    let lines = patchbay::apply::text::Text::new(text).lines().len();
    let copy = text.to_owned();
    assert!(copy.len() >= lines);
}

/// Times `prepare(n)` for n, 2n, 4n, 8n (it returns the work to time and
/// its input) and asserts `t(8n) / t(n) < 12.8`, 1.6 times what linear
/// growth allows. On a machine whose memory makes even a linear pass grow
/// faster (a busy one can give a plain pass over the same inputs a ratio
/// of 11), the bound is 1.6 times that pass's own ratio instead.
/// Each size keeps its fastest of five runs, taken in interleaved rounds,
/// so that a burst of other work slows every size alike.
fn assert_linear<F: FnMut()>(what: &str, n: usize, mut prepare: impl FnMut(usize) -> (F, String)) {
    let mut runs: Vec<(F, String)> = (0..4).map(|k| prepare(n << k)).collect();
    let mut best = [Duration::MAX; 4];
    let mut base = [Duration::MAX; 4];
    for _ in 0..5 {
        for (k, (run, input)) in runs.iter_mut().enumerate() {
            let t = Instant::now();
            run();
            best[k] = best[k].min(t.elapsed());
            let t = Instant::now();
            linear_pass(input);
            base[k] = base[k].min(t.elapsed());
        }
    }
    let growth = |d: &[Duration; 4]| d[3].as_secs_f64() / d[0].as_secs_f64().max(1e-6);
    let (ratio, yardstick) = (growth(&best), growth(&base));
    eprintln!(
        "{what}: {best:?}, t(8n)/t(n) = {ratio:.2} (a linear pass over the input: {yardstick:.2})"
    );
    assert!(
        ratio < 1.6 * yardstick.max(8.0),
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
        let input = text.clone();
        let run = move || {
            outline(&text, Language::Rust).unwrap().render();
        };
        (run, input)
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
    // Every line edited: the case where Myers' diff is quadratic.
    // From 60,000 lines (a 2 MB slice, the diff's table past the caches)
    // to 480,000, so that the ratio measures the algorithm, not the memory
    // hierarchy (from 15,000, a linear algorithm's ratio reaches 14).
    assert_linear("splice, every line edited", 60_000, |n| {
        let file = long_method(n);
        let s = slice("g.rs", &file, Language::Rust, "G::hello").unwrap();
        let edited = s.text.replace(" = ", " =  ");
        let want = file.replace(" = ", " =  ");
        let input = file.clone();
        (
            move || assert!(splice(&file, &s, &edited).unwrap() == want),
            input,
        )
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
        let input = file.clone();
        let run = move || {
            let new = splice(&file, &s, &edited).unwrap();
            assert!(new.contains("        let mid = 0;\n"));
        };
        (run, input)
    });
}
