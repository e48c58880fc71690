//! The edit loop's cost per streamed chunk: a 5,000-line file, the
//! canonical reply of each format for 20 edits spread over it, fed in
//! 100-byte chunks through `EditLoop::push` (the stream parser, early
//! judging and the early-stop check), then `end`. The peer is the bare
//! `stream::Stream` on the same chunks in the same run, so the loop's own
//! overhead shows as a ratio; the first request (plan and view of the file)
//! is timed on its own, in the 131,072-token window the whole file needs
//! and in the default 8,192 one (sections). No timed assertions: it prints. Each run's result
//! is checked against the expected file (built by string replacement)
//! before anything is timed.
//!
//! ```text
//! cargo bench -p patchbay --bench edit_loop
//! ```
//! Without `--bench` (as under `cargo test --benches`) each case runs once.

use patchbay::edit_loop::wire::Ending;
use patchbay::edit_loop::{Decision, EditLoop, LoopConfig};
use patchbay::reply::stream::Stream;
use patchbay::ApplyOptions;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

const PATH: &str = "src/app.py";
const LINES: usize = 5_000;
const EDITS: usize = 20;
const CHUNK: usize = 100;

/// 1,250 four-line functions; edits change the body of every 60th.
fn fixture() -> (String, String) {
    let mut before = String::new();
    let mut after = String::new();
    for i in 0..LINES / 4 {
        let body = format!("    y = x * {i}\n");
        let new = if i % 60 == 30 && i / 60 < EDITS {
            format!("    y = x * {i} + 1\n")
        } else {
            body.clone()
        };
        for (out, b) in [(&mut before, &body), (&mut after, &new)] {
            out.push_str(&format!("def f{i}(x):\n{b}    return y + {i}\n\n"));
        }
    }
    (before, after)
}

fn chunks(text: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut i = 0;
    while i < text.len() {
        let mut j = (i + CHUNK).min(text.len());
        while !text.is_char_boundary(j) {
            j += 1;
        }
        out.push(&text[i..j]);
        i = j;
    }
    out
}

fn config(format: &str) -> LoopConfig {
    LoopConfig {
        task: "Add 1 to y in every 60th function.".into(),
        format: format.parse().unwrap(),
        context_length: 131_072,
        reply_limit: 8192,
        early_stop: false,
        ..LoopConfig::default()
    }
}

/// One loop over the reply: (time of the first request, of all pushes,
/// the slowest push, of `end`).
fn run_loop(
    format: &str,
    files: &BTreeMap<String, String>,
    parts: &[&str],
    after: &str,
) -> [Duration; 4] {
    let t = Instant::now();
    let mut lp = EditLoop::new(config(format), files.clone()).unwrap();
    black_box(lp.next_request());
    let first = t.elapsed();
    let (mut all, mut worst) = (Duration::ZERO, Duration::ZERO);
    for p in parts {
        let t = Instant::now();
        black_box(lp.push(p));
        let d = t.elapsed();
        all += d;
        worst = worst.max(d);
    }
    let t = Instant::now();
    let o = lp.end(&Ending::finished_with("stop"));
    let end = t.elapsed();
    assert_eq!(
        o.decision,
        Decision::Done,
        "{format}: {:?}",
        o.record.report.map(|r| r.feedback)
    );
    assert!(lp.files()[PATH] == after, "{format}: not the expected file");
    [first, all, worst, end]
}

fn run_stream(format: &str, files: &BTreeMap<String, String>, parts: &[&str]) -> Duration {
    let opt = ApplyOptions {
        format: format.parse().unwrap(),
        ..ApplyOptions::default()
    };
    let mut s = Stream::new(files.clone(), opt);
    let t = Instant::now();
    for p in parts {
        black_box(s.push(p));
    }
    t.elapsed()
}

/// The first request alone in the default window (the file in sections).
fn first_request_default(format: &str, files: &BTreeMap<String, String>) -> Duration {
    let cfg = LoopConfig {
        context_length: 8192,
        reply_limit: 2048,
        ..config(format)
    };
    let t = Instant::now();
    let mut lp = EditLoop::new(cfg, files.clone()).unwrap();
    let r = lp.next_request().unwrap();
    let d = t.elapsed();
    assert_eq!(
        r.plan.as_ref().map(|p| p.files[0].mode),
        Some(patchbay::budget::FileMode::Sections)
    );
    d
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let runs = if bench { 9 } else { 1 };
    let (before, after) = fixture();
    let files = BTreeMap::from([(PATH.to_string(), before.clone())]);
    println!("edit loop, {LINES}-line file, {EDITS} edits, {CHUNK}-byte chunks, median of {runs}");
    println!("| format | reply bytes | chunks | first request ms (131k / 8k window) | per chunk ms (loop) | slowest chunk ms | per chunk ms (Stream alone) | loop / Stream | end ms |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for f in [
        "search-replace",
        "tool-call",
        "hashline",
        "lines",
        "udiff",
        "apply-patch",
        "whole",
    ] {
        let reply = patchbay::render(f.parse().unwrap(), PATH, &before, &after).unwrap();
        let parts = chunks(&reply);
        let mut loops = vec![];
        let mut streams = vec![];
        let mut small = vec![];
        for _ in 0..runs {
            loops.push(run_loop(f, &files, &parts, &after));
            streams.push(run_stream(f, &files, &parts));
            small.push(first_request_default(f, &files));
        }
        let col = |k: usize| median(loops.iter().map(|l| l[k]).collect());
        let n = parts.len() as u32;
        let (per, alone) = (col(1) / n, median(streams) / n);
        println!(
            "| {f} | {} | {n} | {} / {} | {} | {} | {} | {:.2} | {} |",
            reply.len(),
            ms(col(0)),
            ms(median(small)),
            ms(per),
            ms(col(2)),
            ms(alone),
            per.as_secs_f64() / alone.as_secs_f64().max(1e-12),
            ms(col(3))
        );
    }
}
