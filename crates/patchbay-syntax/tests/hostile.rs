//! Large hostile inputs for the syntax entry points (issue 12, items 8 and
//! 9): nesting 32,769 deep, and a slice of 120,000 lines with every line
//! edited. Heavy, so they run in release (`scripts/test.sh`); each checks
//! its answer and that time grows linearly over a doubling series: the
//! largest size may take at most 1.6 times its share (8 times the size,
//! less than 12.8 times the time). No absolute time is asserted.

use patchbay_syntax::slice::slice;
use patchbay_syntax::splice::splice;
use patchbay_syntax::{outline, Language, MAX_DEPTH};
use std::time::{Duration, Instant};

/// The fastest of three runs of `f`: the least disturbed by other work.
fn best_of_three(mut f: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

/// Times `run(n)` for n, 2n, 4n, 8n and asserts `t(8n) / t(n) < 12.8`.
fn assert_linear(what: &str, n: usize, mut run: impl FnMut(usize) -> Duration) {
    let times: Vec<Duration> = (0..4).map(|k| run(n << k)).collect();
    let ratio = times[3].as_secs_f64() / times[0].as_secs_f64().max(1e-6);
    eprintln!("{what}: {times:?}, t(8n)/t(n) = {ratio:.2}");
    assert!(
        ratio < 8.0 * 1.6,
        "{what} grows faster than linearly: {times:?}"
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
    assert_linear("outline of nesting", 4_096, |n| {
        let text = nested(n);
        best_of_three(|| {
            outline(&text, Language::Rust).unwrap().render();
        })
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
fn splicing_a_120k_line_slice_is_linear() {
    // Every line edited: Myers' diff was quadratic here (52 s at 15k lines
    // in a debug build, 238 s at 30k).
    assert_linear("splice, every line edited", 15_000, |n| {
        let file = long_method(n);
        let s = slice("g.rs", &file, Language::Rust, "G::hello").unwrap();
        let edited = s.text.replace(" = ", " =  ");
        let want = file.replace(" = ", " =  ");
        best_of_three(|| assert!(splice(&file, &s, &edited).unwrap() == want))
    });
    // One line edited in the middle, and one at each end.
    assert_linear("splice, three lines edited", 15_000, |n| {
        let file = long_method(n);
        let s = slice("g.rs", &file, Language::Rust, "G::hello").unwrap();
        let mid = format!("let x{} = {};", n / 2, n / 2);
        let edited = s
            .text
            .replacen("let x0 = 0;", "let x0 = 1;", 1)
            .replacen(&mid, "let mid = 0;", 1)
            .replacen(&format!("let x{} ", n - 1), "let last ", 1);
        best_of_three(|| {
            let new = splice(&file, &s, &edited).unwrap();
            assert!(new.contains("        let mid = 0;\n"));
        })
    });
}
