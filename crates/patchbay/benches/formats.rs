//! Every format on the same change, and the tagged view's throughput.
//!
//! A deterministic 100,000-line file gets 50 scattered changes; each format
//! renders the canonical edit for them (`patchbay::render`), which must apply
//! back to the exact expected file before anything is timed. The table gives
//! each format's apply time with the ratio against `search-replace`, the
//! peer run in the same process. Then the tagged view of a 10 MB file, in
//! MB/s, against a plain numbered view (the same formatting without the
//! CRC) as the peer. `cargo bench -p patchbay --bench formats`; without
//! `--bench` (as `cargo test --benches` runs it) each case is checked once.

use patchbay::{ApplyOptions, Status, TagOptions};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "../tests/support/rng.rs"]
#[allow(dead_code)]
mod rng;
use rng::XorShift;

const PATH: &str = "src/big.go";

/// About `lines` lines of Go-like code with repeated boilerplate, and the
/// same file with one line changed in 50 functions spread over it.
fn fixture(lines: usize) -> (String, String) {
    let mut rng = XorShift(0x6672_6d74_7321);
    let mut before = Vec::with_capacity(lines + 16);
    let mut funcs = vec![];
    let mut i = 0;
    while before.len() < lines {
        funcs.push(before.len());
        before.push(format!("func handler{i}(w Writer, r *Request) error {{"));
        before.push(format!("\tv, err := load{}(r)", rng.next() % 97));
        before.push("\tif err != nil {".to_string());
        before.push("\t\treturn err".to_string());
        before.push("\t}".to_string());
        before.push(format!("\tw.Write(render(v, {}))", rng.next() % 13));
        before.push("\treturn nil".to_string());
        before.push("}".to_string());
        before.push(String::new());
        i += 1;
    }
    let mut after = before.clone();
    let step = funcs.len() / 50;
    for k in 0..50 {
        let f = funcs[k * step + (rng.next() as usize % step.max(1))];
        after[f + 5] = format!("\tw.Write(renderV2(v, {k}))");
    }
    (before.join("\n") + "\n", after.join("\n") + "\n")
}

fn median(mut f: impl FnMut(), runs: usize) -> Duration {
    for _ in 0..3 {
        f();
    }
    let mut ts: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    ts.sort();
    ts[ts.len() / 2]
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let runs = if bench { 21 } else { 1 };
    // `--view`: only the tagged view and its peers (for a profiler, or a
    // quicker run).
    if std::env::args().any(|a| a == "--view") {
        return view_bench(bench, runs);
    }
    let (before, after) = fixture(100_000);
    let mut files = BTreeMap::new();
    files.insert(PATH.to_string(), before.clone());

    let mut rows = vec![];
    for f in patchbay::formats::all() {
        let reply = patchbay::render(f.id(), PATH, &before, &after).expect("registered");
        let opt = ApplyOptions {
            format: f.id(),
            ..Default::default()
        };
        let r = patchbay::apply(&reply, &files, &opt);
        assert_eq!(r.status, Status::Applied, "{}: {}", f.name(), r.feedback);
        assert!(
            r.files[0].content.as_deref() == Some(after.as_str()),
            "{}: the result differs from the expected file",
            f.name()
        );
        let t = median(
            || {
                black_box(patchbay::apply(black_box(&reply), &files, &opt));
            },
            runs,
        );
        let parse = median(
            || {
                black_box(patchbay::parse(black_box(&reply), f.id()));
            },
            runs,
        );
        rows.push((f.name(), reply.len(), t, parse));
    }

    if !bench {
        println!(
            "bench formats: {} formats checked (pass --bench to time)",
            rows.len()
        );
        view_bench(bench, runs);
        return;
    }
    let sr = rows
        .iter()
        .find(|r| r.0 == "search-replace")
        .map(|r| r.2)
        .unwrap_or(Duration::from_nanos(1));
    println!(
        "file: 100,000 lines, {} bytes; 50 changed lines spread over it; {runs} runs, median\n",
        before.len()
    );
    println!("| format | reply bytes | apply median | of which parsing | vs search-replace |");
    println!("|---|---:|---:|---:|---:|");
    for (name, bytes, t, parse) in &rows {
        println!(
            "| {name} | {bytes} | {:.2} ms | {:.2} ms | {:.2}x |",
            t.as_secs_f64() * 1e3,
            parse.as_secs_f64() * 1e3,
            t.as_secs_f64() / sr.as_secs_f64()
        );
    }
    view_bench(bench, runs);
}

/// A numbered view without tags: `N text` a line.
fn numbered_view(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for (i, l) in text.lines().enumerate() {
        out.push_str(&(i + 1).to_string());
        out.push(' ');
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The tagged view with the tag through the crates (crc32fast::hash,
/// base64's URL-safe engine) and the numbered view's formatting.
fn crates_view(text: &str) -> String {
    use base64::Engine;
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut tag = [0u8; 8];
    for (i, l) in text.lines().enumerate() {
        let crc = crc32fast::hash(l.trim_end().as_bytes());
        let n = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode_slice(crc.to_be_bytes(), &mut tag)
            .expect("6 bytes");
        out.push_str(&(i + 1).to_string());
        out.push(':');
        out.push_str(std::str::from_utf8(&tag[..n.min(4)]).expect("base64"));
        out.push(' ');
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The tagged view of a 10 MB file against a numbered view without tags,
/// and two ceilings measured alongside: a copy of the file into a fresh
/// buffer (what any view must at least do) and a `memchr` line count.
fn view_bench(bench: bool, runs: usize) {
    // The tagged view of a 10 MB file against a numbered view without tags.
    let (big, _) = fixture(650_000);
    assert!(big.len() >= 10_000_000, "{} bytes", big.len());
    let view = patchbay::formats::hashline::tags::view(&big, TagOptions::default());
    assert_eq!(view.lines().count(), big.lines().count());
    let tagged = median(
        || {
            black_box(patchbay::formats::hashline::tags::view(
                black_box(&big),
                TagOptions::default(),
            ));
        },
        runs.min(7),
    );
    let numbered = median(
        || {
            black_box(numbered_view(black_box(&big)));
        },
        runs.min(7),
    );
    assert!(crates_view(&big) == view, "the crates' view differs");
    let crates = median(
        || {
            black_box(crates_view(black_box(&big)));
        },
        runs.min(7),
    );
    let copy = median(
        || {
            black_box(black_box(big.as_bytes()).to_vec());
        },
        runs.min(7),
    );
    let count = median(
        || {
            black_box(memchr::memchr_iter(b'\n', black_box(big.as_bytes())).count());
        },
        runs.min(7),
    );
    if !bench {
        println!("bench formats: the tagged view checked (pass --bench to time)");
        return;
    }
    let mbs = |d: Duration| big.len() as f64 / 1e6 / d.as_secs_f64();
    println!(
        "\ntagged view of {:.1} MB: {:.1} ms = {:.0} MB/s; numbered view without tags: {:.0} MB/s (tags cost {:.2}x)",
        big.len() as f64 / 1e6,
        tagged.as_secs_f64() * 1e3,
        mbs(tagged),
        mbs(numbered),
        tagged.as_secs_f64() / numbered.as_secs_f64()
    );
    println!(
        "same view through crc32fast and base64 (numbered view's formatting): {:.0} MB/s ({:.2}x the tagged view's time)",
        mbs(crates),
        crates.as_secs_f64() / tagged.as_secs_f64()
    );
    println!(
        "ceilings: copy into a fresh buffer {:.0} MB/s, memchr line count {:.0} MB/s (tagged view at {:.2}x of the copy)",
        mbs(copy),
        mbs(count),
        copy.as_secs_f64() / tagged.as_secs_f64()
    );
}
