//! Token counting speed: the estimator against the exact tokenizers, in the
//! same process on the same text, reported as MB/s and as a ratio (no timed
//! assertions anywhere; speed is read, not tested).
//!
//! The text is the committed samples (tests/tokens/samples and
//! tests/tools/sources: 7 languages and Markdown), repeated to about 4 MB.
//! Each counter runs a warm-up pass (which also decompresses a vocabulary)
//! and then ROUNDS timed passes; the median is reported.
//!
//! Run: `cargo bench -p patchbay --features exact-tokens --bench tokens`

use patchbay::budget::tokens::{estimate, Family, Tokenizer};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

const ROUNDS: usize = 9;
const TARGET_BYTES: usize = 4 << 20;

fn corpus() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![];
    for dir in ["tests/tokens/samples", "tests/tools/sources"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("samples folder")
            .map(|e| e.expect("entry").path())
            .collect();
        paths.sort();
        for p in paths {
            files.push(std::fs::read_to_string(p).expect("sample text"));
        }
    }
    let size: usize = files.iter().map(String::len).sum();
    let times = TARGET_BYTES.div_ceil(size.max(1));
    // Repeating whole files keeps the counters' memo caches honest: each
    // file is still counted as one text, as a caller would.
    (0..times).flat_map(|_| files.clone()).collect()
}

/// Median seconds of `f` over ROUNDS runs after one warm-up run.
fn time(mut f: impl FnMut() -> usize) -> (f64, usize) {
    let n = f();
    let mut secs: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed().as_secs_f64()
        })
        .collect();
    secs.sort_by(f64::total_cmp);
    (secs[ROUNDS / 2], n)
}

fn main() {
    let texts = corpus();
    let bytes: usize = texts.iter().map(String::len).sum();
    let mb = bytes as f64 / 1e6;
    println!(
        "token counting: {} texts, {:.1} MB, median of {ROUNDS} passes\n",
        texts.len(),
        mb
    );
    println!(
        "| {:<22} | {:>10} | {:>10} | {:>12} | {:>22} |",
        "counter", "MB/s", "tokens", "vs estimate", "estimate's count error"
    );
    println!(
        "|{:-<24}|{:-<12}|{:-<12}|{:-<14}|{:-<24}|",
        "", "", "", "", ""
    );
    let (est_s, _) = time(|| {
        texts
            .iter()
            .map(|t| estimate(black_box(t), Family::O200k))
            .sum()
    });
    println!(
        "| {:<22} | {:>10.0} | {:>10} | {:>12} | {:>22} |",
        "estimate:o200k_base",
        mb / est_s,
        "",
        "1.00x",
        ""
    );
    for family in Family::ALL {
        let Ok(exact) = Tokenizer::exact(family) else {
            continue;
        };
        let (s, n) = time(|| texts.iter().map(|t| exact.count(black_box(t))).sum());
        let est: usize = texts.iter().map(|t| estimate(t, family)).sum();
        println!(
            "| {:<22} | {:>10.0} | {:>10} | {:>11.1}x | {:>21.2}% |",
            family.name(),
            mb / s,
            n,
            s / est_s,
            100.0 * (est as f64 - n as f64) / n as f64
        );
    }
    println!("\n`vs estimate`: how many times longer the exact counter takes than the estimator.");
}
