//! The native side of `scripts/bench-package.mjs`: the same workloads, read
//! from the files the script wrote into DIR, timed here (best of `runs`)
//! and printed as one JSON object of milliseconds.
//!
//! `cargo run --release -p patchbay-tests --bin package-bench DIR`

use patchbay::budget::tokens;
use patchbay::formats::hashline::tags;
use patchbay::reply::stream::Stream;
use patchbay::ApplyOptions;
use std::collections::BTreeMap;
use std::time::Instant;

/// The best of `runs` timings of `f`, in milliseconds, after as many
/// untimed runs (as the package's side warms up).
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    best_of(runs, || {
        let t = Instant::now();
        std::hint::black_box(f());
        t.elapsed().as_secs_f64() * 1e3
    })
}

/// The least of `runs` milliseconds that `f` measures itself, after as
/// many untimed runs.
fn best_of(runs: usize, mut f: impl FnMut() -> f64) -> f64 {
    for _ in 0..runs {
        f();
    }
    (0..runs).map(|_| f()).fold(f64::INFINITY, f64::min)
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: package-bench DIR"));
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect(name);
    let files = BTreeMap::from([("big.rs".to_owned(), read("big.rs"))]);
    let reply = read("reply.txt");
    let ten = read("ten.txt");
    let stream_files = BTreeMap::from([("s.rs".to_owned(), read("s.rs"))]);
    let stream_reply = read("stream.txt");
    let opt = ApplyOptions::default();
    let runs = 5;
    let apply = best(runs, || patchbay::apply(&reply, &files, &opt));
    let tag_view = best(runs, || tags::view(&ten, Default::default()));
    let estimate = best(runs, || tokens::estimate(&ten, Default::default()));
    let stream_apply = best(runs, || patchbay::apply(&stream_reply, &stream_files, &opt));
    // A stream fed the reply in 20-byte chunks, with the events it emitted.
    let pushed = || {
        let mut s = Stream::new(stream_files.clone(), opt.clone());
        let events: usize = chunks(&stream_reply, 20)
            .into_iter()
            .map(|chunk| s.push(chunk).len())
            .sum();
        (s, events)
    };
    let stream = best(runs, || {
        let (s, events) = pushed();
        (events, s.finish())
    });
    // The pushes alone: the bound is on them (`finish` is one apply).
    let stream_pushes = best_of(runs, || {
        let t = Instant::now();
        let (s, events) = pushed();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        std::hint::black_box((events, s.finish()));
        ms
    });
    println!(
        "{}",
        serde_json::json!({
            "apply": apply, "tagView": tag_view, "estimate": estimate,
            "streamApply": stream_apply, "stream": stream, "streamPushes": stream_pushes,
        })
    );
}

/// `text` in pieces of about `n` bytes, cut at char boundaries.
fn chunks(text: &str, n: usize) -> Vec<&str> {
    let mut out = vec![];
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + n).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[at..end]);
        at = end;
    }
    out
}
