//! The stream parser in small chunks against one `apply` of the whole
//! reply, in the same run (so the ratio, not the time, is the figure): the
//! package bench's 200 KB SEARCH/REPLACE reply (one-line blocks in fences
//! against a 4,000-line file) and a 20 KB unified diff and V4A patch of
//! the same change, and a 200 KB reply of tool calls (one a line), pushed in 20-, 64- and 256-byte chunks: the pushes
//! alone, and with `finish` (which is one `apply` of the whole reply).
//! Every stream's events are checked to be those of one push of the whole
//! reply, and its final report to be `apply`'s, before anything is timed.
//! No timed assertions: it prints.
//!
//! ```text
//! cargo bench -p patchbay --bench stream
//! ```

use patchbay::reply::stream::{Event, Stream};
use patchbay::{ApplyOptions, Report};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

fn line(i: usize) -> String {
    format!(
        "    let value_{i} = compute({i}, \"item {i}\") * {};\n",
        i % 97
    )
}

fn search_replace(max: usize) -> String {
    let mut out = String::new();
    for i in 0.. {
        if out.len() >= max {
            break;
        }
        let old = line(i);
        let new = old.replacen("compute", "recompute", 1);
        out += &format!("s.rs\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n");
    }
    out
}

fn udiff(max: usize) -> String {
    let mut out = String::from("--- a/s.rs\n+++ b/s.rs\n");
    for i in (0..).step_by(8) {
        if out.len() >= max {
            break;
        }
        let (old, new) = (line(i), line(i).replacen("compute", "recompute", 1));
        out += &format!("@@ -{0},1 +{0},1 @@\n-{old}+{new}", i + 1);
    }
    out
}

fn apply_patch(max: usize) -> String {
    let mut out = String::from("*** Begin Patch\n*** Update File: s.rs\n");
    for i in (0..).step_by(8) {
        if out.len() >= max {
            break;
        }
        let (old, new) = (line(i), line(i).replacen("compute", "recompute", 1));
        out += &format!("@@\n-{old}+{new}");
    }
    out + "*** End Patch\n"
}

fn tool_call(max: usize) -> String {
    let mut out = String::new();
    for i in 0.. {
        if out.len() >= max {
            break;
        }
        let (old, new) = (line(i), line(i).replacen("compute", "recompute", 1));
        let call = serde_json::json!({"command": "str_replace", "path": "s.rs", "old_str": old, "new_str": new});
        out += &format!("{call}\n");
    }
    out
}

fn chunks(text: &str, n: usize) -> impl Iterator<Item = &str> {
    (0..text.len())
        .step_by(n)
        .map(move |a| &text[a..(a + n).min(text.len())])
}

fn pushed(
    files: &BTreeMap<String, String>,
    opt: &ApplyOptions,
    reply: &str,
    n: usize,
) -> (Vec<Event>, Stream) {
    let mut s = Stream::new(files.clone(), opt.clone());
    let events = chunks(reply, n).flat_map(|c| s.push(c)).collect();
    (events, s)
}

fn stream(
    files: &BTreeMap<String, String>,
    opt: &ApplyOptions,
    reply: &str,
    n: usize,
) -> (Vec<Event>, Report) {
    let (events, s) = pushed(files, opt, reply, n);
    (events, s.finish())
}

fn best(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let runs = if bench { 9 } else { 1 };
    let file: String = (0..4000).map(line).collect();
    let files = BTreeMap::from([("s.rs".to_string(), file)]);
    println!("| format | reply bytes | chunk bytes | apply ms | pushes ms | pushes / apply | with finish ms | with finish / apply |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (format, reply) in [
        ("search-replace", search_replace(200_000)),
        ("udiff", udiff(20_000)),
        ("apply-patch", apply_patch(20_000)),
        ("tool-call", tool_call(200_000)),
    ] {
        let opt = ApplyOptions {
            format: format.parse().unwrap(),
            ..Default::default()
        };
        let whole = patchbay::apply(&reply, &files, &opt);
        let once = Stream::new(files.clone(), opt.clone()).push(&reply);
        let apply = best(runs, || {
            black_box(patchbay::apply(&reply, &files, &opt));
        });
        for n in [20, 64, 256] {
            let (events, report) = stream(&files, &opt, &reply, n);
            assert_eq!(events, once, "{format} in {n}-byte chunks");
            assert_eq!(report, whole, "{format} in {n}-byte chunks");
            let p = best(runs, || {
                black_box(pushed(&files, &opt, &reply, n));
            });
            let t = best(runs, || {
                black_box(stream(&files, &opt, &reply, n));
            });
            println!(
                "| {format} | {} | {n} | {apply:.2} | {p:.2} | {:.2}x | {t:.2} | {:.2}x |",
                reply.len(),
                p / apply,
                t / apply
            );
        }
    }
}
