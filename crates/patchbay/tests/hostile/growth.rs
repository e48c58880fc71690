//! Doubling series: every hostile shape below at sizes n, 2n, 4n and
//! 8n. The assertion is on the ratio of the times of the largest and the
//! smallest size, never on a time: linear work gives 8, and the bound
//! (8 × 1.7, an exponent of about 1.25) leaves room for a shared, noisy
//! machine. Each size takes the fastest of five runs (of three, the
//! millisecond runs of the smallest sizes still wandered by 2x). `scripts/bench.sh
//! hostile` runs these and prints the exponents (docs/benchmarks.md).
//! Times are the CPU time of the test's thread (see `cpu_now`).

use patchbay::{ApplyOptions, Report, Status};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The largest ratio time(8n) / time(n) accepted.
const MAX_RATIO: f64 = 8.0 * 1.7;

fn apply_as(format: &str, reply: &str, f: &BTreeMap<String, String>) -> Report {
    let opt = ApplyOptions {
        format: format.parse().unwrap(),
        ..Default::default()
    };
    patchbay::apply(reply, f, &opt)
}

fn one(path: &str, text: String) -> BTreeMap<String, String> {
    [(path.to_string(), text)].into()
}

fn fastest(runs: usize, f: &dyn Fn()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = cpu_now();
            f();
            cpu_now().saturating_sub(t)
        })
        .min()
        .expect("runs > 0")
}

/// The CPU time of this thread: the work the code did, not how long the
/// other builds on a shared machine held the cores (wall time made the
/// ratios of a loaded 2-core machine wander by a factor of 2).
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn cpu_now() -> Duration {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let ok = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    if !ok {
        return wall_now();
    }
    Duration::new(ts.sec as u64, ts.nsec as u32)
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
fn cpu_now() -> Duration {
    wall_now()
}

/// Wall time since the first call, where thread CPU time is not at hand.
fn wall_now() -> Duration {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

/// Times `run` on what `make` builds for n, 2n, 4n and 8n; prints the
/// exponent of each doubling and asserts the overall ratio. A series over
/// the bound is measured again (up to three times, the best one counts):
/// the other tests of this file, or another build, may have taken the
/// cores for one of its sizes.
fn series<T>(name: &str, n: usize, make: impl Fn(usize) -> T, run: impl Fn(&T)) {
    // One series at a time: two would share the cores they measure.
    static SERIAL: Mutex<()> = Mutex::new(());
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    steady_allocator();
    let inputs: Vec<T> = [n, 2 * n, 4 * n, 8 * n].iter().map(|&s| make(s)).collect();
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let times: Vec<f64> = inputs
            .iter()
            .map(|input| fastest(5, &|| run(input)).as_secs_f64().max(1e-6))
            .collect();
        let exps: Vec<String> = times
            .windows(2)
            .map(|w| format!("{:.2}", (w[1] / w[0]).log2()))
            .collect();
        let ratio = times[3] / times[0];
        println!(
            "growth {name:<28} n={n:<7} {:>8.1} ms .. {:>8.1} ms  exponents {}  overall {:.2}",
            times[0] * 1e3,
            times[3] * 1e3,
            exps.join(" "),
            ratio.log2() / 3.0
        );
        best = best.min(ratio);
        if best < MAX_RATIO {
            return;
        }
    }
    panic!(
        "{name}: time(8n)/time(n) = {best:.1} at best (exponent {:.2}), over {MAX_RATIO}",
        best.log2() / 3.0
    );
}

/// Fixes glibc's mmap and trim thresholds, once per process, so that the
/// memory a run frees stays in the heap for the next run. Left dynamic,
/// they let the allocator's history decide whether a size's buffers come
/// back from the kernel as fresh pages on every run: the zeroing and the
/// faults count on the thread's CPU clock, and one size of a series read
/// twice the time per line of its neighbours (44 against 23 ns, depending
/// only on the order the sizes ran in), on this machine and in CI.
/// The engine's own cost is what the series is about; a long-lived
/// process, or a WebAssembly module whose memory never shrinks, reuses
/// its pages the same way.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn steady_allocator() {
    extern "C" {
        fn mallopt(param: i32, value: i32) -> i32;
    }
    const M_TRIM_THRESHOLD: i32 = -1;
    const M_MMAP_THRESHOLD: i32 = -3;
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // 32 MiB is glibc's largest mmap threshold on 64-bit targets.
        for (param, value) in [(M_MMAP_THRESHOLD, 32 << 20), (M_TRIM_THRESHOLD, 1 << 30)] {
            // SAFETY: mallopt only sets an allocator parameter.
            let ok = unsafe { mallopt(param, value) } == 1;
            assert!(ok, "mallopt refused {value} for parameter {param}");
        }
    });
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn steady_allocator() {}

/// Streams `reply` against `f.txt` (holding `file`) in `chunk`-byte
/// pieces: the stream, and how many edits it judged on the way.
fn streamed(
    format: &str,
    file: &str,
    reply: &str,
    chunk: usize,
) -> (patchbay::reply::stream::Stream, usize) {
    let opt = ApplyOptions {
        format: format.parse().unwrap(),
        ..Default::default()
    };
    let mut s = patchbay::reply::stream::Stream::new(one("f.txt", file.to_string()), opt);
    let mut emitted = 0;
    for c in reply.as_bytes().chunks(chunk) {
        emitted += s.push(std::str::from_utf8(c).unwrap()).len();
    }
    (s, emitted)
}

fn lines_file(n: usize) -> String {
    (0..n).map(|i| format!("line {i} of the file\n")).collect()
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_json_openers() {
    let f = one("a.txt", "a\n".into());
    // Lines of an opener never closed, and lines of calls that close but
    // are not JSON (each is a malformed receipt naming its output line).
    // The hashline series stops at 320,000 lines: at 640,000 its buffers
    // pass the allocator's mmap threshold, where a run pays the kernel for
    // fresh pages and the last doubling measures the kernel, not the
    // engine (whose time per line stays flat); `steady_allocator` keeps
    // such pages in the heap.
    let shapes = [
        ("tool-call", "{\"command\":", 80_000),
        ("hashline", "{\"op\":", 40_000),
        (
            "tool-call",
            "{\"command\": \"view\" \"path\": \"a.txt\"}",
            5_000,
        ),
    ];
    for (format, opener, n) in shapes {
        series(
            &format!("{format} lines of {opener}"),
            n,
            |n| format!("{opener}\n").repeat(n),
            |reply| {
                let r = apply_as(format, reply, &f);
                assert_ne!(r.status, Status::Applied);
            },
        );
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_json_nesting_closed() {
    // Deeper than serde's 128 levels: the value never parses, and each
    // level inside it is a candidate of its own.
    let f = one("a.txt", "a\n".into());
    series(
        "closed nesting of {\"a\":",
        16_000,
        |n| format!("{}1{}\n", "{\"a\":".repeat(n), "}".repeat(n)),
        |reply| {
            for name in ["tool-call", "hashline", "lines", "auto"] {
                let r = apply_as(name, reply, &f);
                assert_ne!(r.status, Status::Applied);
            }
        },
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_marker_soup() {
    let f = one("a.txt", "a\n".into());
    let soup = "<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n@@ -1 +1 @@\n*** Begin Patch\n--- a/a.txt\n+++ b/a.txt\n@@ a.txt 1 crc32=00000000\n{\"command\":\n{\"op\":\n```\n";
    series(
        "marker soup, every format",
        2_000,
        |n| soup.repeat(n),
        |reply| {
            for name in patchbay::formats::names() {
                let r = apply_as(name, reply, &f);
                assert_ne!(r.status, Status::Applied, "{name}");
            }
        },
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_hashline_bad_tags() {
    series(
        "hashline edits, bad tag",
        10_000,
        |n| {
            let reply: String = (1..=n)
                .map(|i| format!("{{\"op\": \"replace\", \"line\": {i}, \"tag\": \"ZZZZ\", \"new\": \"x\"}}\n"))
                .collect();
            (reply, one("f.txt", lines_file(n)))
        },
        |(reply, f)| {
            let opt = ApplyOptions {
                format: patchbay::FormatName::Hashline,
                transaction: patchbay::Options {
                    default_path: Some("f.txt".into()),
                    ..Default::default()
                },
                ..Default::default()
            };
            let r = patchbay::apply(reply, f, &opt);
            assert_eq!(r.status, Status::Failed);
        },
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_hashline_same_line_inserts() {
    let f = one("f.txt", "a\nb\n".into());
    let tag = patchbay::formats::hashline::tags::tag("a", 1, Default::default());
    series(
        "hashline inserts, one line",
        10_000,
        |n| {
            (0..n)
                .map(|i| format!("{{\"path\": \"f.txt\", \"op\": \"insert_after\", \"line\": 1, \"tag\": \"{tag}\", \"new\": \"x{i}\"}}\n"))
                .collect::<String>()
        },
        |reply| {
            let r = apply_as("hashline", reply, &f);
            assert_eq!(r.status, Status::Applied, "{:.300}", r.feedback);
        },
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_lines_bad_crc() {
    series(
        "lines edits, bad CRC",
        10_000,
        |n| {
            let mut reply: String = (1..=n)
                .map(|i| format!("@@ f.txt {i} crc32=00000000\nnew {i}\n"))
                .collect();
            reply.push_str("@@ end\n");
            (reply, one("f.txt", lines_file(n)))
        },
        |(reply, f)| {
            let r = apply_as("lines", reply, f);
            assert_eq!(r.status, Status::Failed);
        },
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_lines_seen_snapshot_of_a_changed_file() {
    // The model saw the whole file; a line was added at the top since, so
    // the snapshot's CRC is off and every edit is found again by the hashes
    // of its shown block (one line down).
    series(
        "lines edits, file changed",
        8_000,
        |n| {
            let shown = lines_file(n);
            let mut seen = patchbay::SeenLines::default();
            seen.record("f.txt", &shown, &[(1, n)]);
            let mut reply: String = (1..=n)
                .map(|i| format!("@@ f.txt {i}\nnew {i}\n"))
                .collect();
            reply.push_str("@@ end\n");
            (reply, one("f.txt", format!("added\n{shown}")), seen)
        },
        |(reply, f, seen)| {
            let opt = ApplyOptions {
                format: patchbay::FormatName::Lines,
                transaction: patchbay::Options {
                    seen: Some(seen.clone()),
                    ..Default::default()
                },
                ..Default::default()
            };
            let r = patchbay::apply(reply, f, &opt);
            assert_eq!(r.status, Status::Applied, "{:.300}", r.feedback);
        },
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_failing_search_blocks() {
    series(
        "failing SEARCH blocks",
        4_000,
        |n| {
            let reply: String = (0..n)
                .map(|i| format!("f.txt\n<<<<<<< SEARCH\nline {i} of the fil\nline {} of the file\n=======\nx\n>>>>>>> REPLACE\n", i + 1))
                .collect();
            (reply, one("f.txt", lines_file(n)))
        },
        |(reply, f)| {
            let r = apply_as("search-replace", reply, f);
            assert_eq!(r.status, Status::Failed);
        },
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_failing_udiff_hunks() {
    series(
        "non-matching udiff hunks",
        4_000,
        |n| {
            let mut reply = String::from("--- a/f.txt\n+++ b/f.txt\n");
            for i in 0..n {
                reply.push_str(&format!(
                    "@@ -{0},2 +{0},2 @@\n line {i} of the fil\n-line {1} of the file\n+x\n",
                    i + 1,
                    i + 1
                ));
            }
            (reply, one("f.txt", lines_file(n)))
        },
        |(reply, f)| {
            let r = apply_as("udiff", reply, f);
            assert_eq!(r.status, Status::Failed);
        },
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_stream_small_chunks() {
    // The file stays the same size: each early receipt locates its edit
    // against the whole file (`O(file)`, as in the transaction); what must
    // not grow with the reply is the work per chunk.
    let file = lines_file(2_000);
    let search_replace = |i: usize| {
        let l = format!("line {} of the file\n", i % 2_000);
        format!("f.txt\n<<<<<<< SEARCH\n{l}=======\n{l}>>>>>>> REPLACE\n")
    };
    let tool_call = |i: usize| {
        let l = format!("line {} of the file", i % 2_000);
        format!("{{\"command\": \"str_replace\", \"path\": \"f.txt\", \"old_str\": \"{l}\", \"new_str\": \"{l}\"}}\n")
    };
    // One JSON array on one line: no line breaks to count from.
    let one_line = |i: usize| {
        let l = format!("line {} of the file", i % 2_000);
        let sep = if i == 0 { "[" } else { ", " };
        format!("{sep}{{\"command\": \"str_replace\", \"path\": \"f.txt\", \"old_str\": \"{l}\", \"new_str\": \"{l}\"}}")
    };
    let shapes: [(&str, &dyn Fn(usize) -> String); 3] = [
        ("search-replace blocks", &search_replace),
        ("tool-call lines", &tool_call),
        ("tool-call, one line", &one_line),
    ];
    for (name, edit) in shapes {
        let format = name.split([' ', ',']).next().expect("a name");
        series(
            &format!("stream {name}, 64-byte chunks"),
            500,
            |n| (0..n).map(edit).collect::<String>(),
            |reply| {
                let (s, emitted) = streamed(format, &file, reply, 64);
                // Every edit was judged early (the one-line array is never
                // closed: its cut is one more receipt at the end).
                let n = s.finish().receipts().len();
                assert!(emitted == n || emitted + 1 == n, "{emitted} of {n}");
            },
        );
    }
}

/// A reply of prose before its one edit, streamed in 20-byte chunks with
/// the format left to `auto`: until the first edit fixes the format, the
/// stream detects it. Detecting on the whole text at every chunk would be
/// quadratic in the prose; the stream detects only where some format's
/// edit could start or end, and at brackets only as the text grows by an
/// eighth, which keeps prose with a bracket on every line (the case here)
/// linear. The edit at the end is still detected and judged early.
#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_stream_auto_prose_before_the_edit() {
    let file = lines_file(2_000);
    series(
        "stream auto, prose then a block",
        1_000,
        |n| {
            let mut reply: String = (0..n)
                .map(|i| {
                    format!("Step {i}: the parser reads the next line [{i}] and keeps its state.\n")
                })
                .collect();
            reply.push_str(
                "f.txt\n<<<<<<< SEARCH\nline 7 of the file\n=======\nline seven\n>>>>>>> REPLACE\n",
            );
            reply
        },
        |reply| {
            let (_, emitted) = streamed("auto", &file, reply, 20);
            assert_eq!(emitted, 1, "the block is judged early");
        },
    );
    // One long line (no line break before the block): each chunk searched
    // the whole line for a break, under `auto` and under a named format.
    for format in ["auto", "search-replace"] {
        series(
            &format!("stream {format}, one long line"),
            400_000,
            |n| {
                let mut reply = "word ".repeat(n / 5);
                reply.push_str("\nf.txt\n<<<<<<< SEARCH\nline 7 of the file\n=======\nline seven\n>>>>>>> REPLACE\n");
                reply
            },
            |reply| {
                let (_, emitted) = streamed(format, &file, reply, 20);
                assert_eq!(emitted, 1, "the block is judged early");
            },
        );
    }
}

/// A unified diff of one file streamed in 20-byte chunks (shorter than a
/// hunk). A hunk's reading depends on the file header and the fence far
/// above it, and re-reading the diff from the top at every chunk that ends
/// a line would be quadratic in its hunks: the stream re-reads only at a
/// line that can complete a hunk (`Format::turn`), from the last complete
/// hunk (`Format::parse_after`).
#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_stream_udiff_small_chunks() {
    let file = lines_file(2_000);
    series(
        "stream udiff hunks, 20-byte chunks",
        250,
        |n| {
            let mut reply = String::from("--- a/f.txt\n+++ b/f.txt\n");
            for i in 0..n {
                let k = i * 8 % 2_000;
                reply.push_str(&format!(
                    "@@ -{0},1 +{0},1 @@\n-line {k} of the file\n+line {k} of the file!\n",
                    k + 1
                ));
            }
            reply
        },
        |reply| {
            let (s, emitted) = streamed("udiff", &file, reply, 20);
            // Every hunk but the last is judged early (the last one waits:
            // a diff has no closing marker).
            let n = s.finish().receipts().len();
            assert_eq!(emitted + 1, n, "{emitted} of {n}");
        },
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_many_files() {
    // From 500 files: the instructions are linear from 1,000 to 8,000
    // (callgrind: 105 M and 865 M, 8.2x), but the time at 8,000 files,
    // whose working set is past the caches, read exponents of 1.25-1.39.
    series(
        "one reply, many files",
        500,
        |n| {
            let files: BTreeMap<String, String> = (0..n)
                .map(|i| (format!("src/f{i}.txt"), "a\nb\n".to_string()))
                .collect();
            let reply: String = (0..n)
                .map(|i| format!("src/f{i}.txt\n<<<<<<< SEARCH\nb\n=======\nB\n>>>>>>> REPLACE\n"))
                .collect();
            (reply, files)
        },
        |(reply, f)| {
            let r = apply_as("search-replace", reply, f);
            assert_eq!(r.status, Status::Applied);
        },
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_budget_plan_in_a_window_the_file_fits() {
    use patchbay::budget::{plan, FileInput, Request};
    series(
        "budget plan, whole window",
        250,
        |n| {
            let text: String = (0..n)
                .map(|k| format!("/// Case {k}.\npub fn handler_{k}(x: &str) -> usize {{\n    x.len() / {k}\n}}\n\n"))
                .collect();
            Request {
                window: 2 * text.len(),
                task: "Fix the division in handler_3".into(),
                files: vec![FileInput {
                    path: "src/h.rs".into(),
                    text,
                    sections: None,
                }],
                ..Request::default()
            }
        },
        |req| {
            let p = plan(req).expect("the window holds the file");
            let f = &p.files[0];
            // Section by section, the whole file joined again.
            assert_eq!(f.mode, patchbay::budget::FileMode::Whole);
            assert_eq!(f.ranges, [(1, f.lines)]);
            assert!(f.index.iter().all(|s| s.selected));
        },
    );
}

/// A file whose every line changed: its old and new texts.
fn every_line_changed(n: usize) -> (String, String) {
    let before: String = (0..n)
        .map(|k| format!("    let value_{k} = {k};\n"))
        .collect();
    let after: String = (0..n)
        .map(|k| format!("    let value_{k} = {k} + 1;\n"))
        .collect();
    (before, after)
}

/// `compare` on a file whose every line changed renders every format's
/// edit and applies each back: linear, where Myers' diff is quadratic.
#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_compare_every_line_changed() {
    use patchbay::budget::advisor::{compare, CompareOptions};
    series(
        "compare, every line changed",
        2_500,
        every_line_changed,
        |(before, after)| {
            let c = compare(before, after, &CompareOptions::default());
            assert!(c.formats.iter().any(|f| f.unambiguous));
        },
    );
}

/// `render` of every format on the same change: linear too.
#[test]
#[cfg_attr(debug_assertions, ignore = "timed: runs in release (scripts/test.sh)")]
fn growth_render_every_line_changed() {
    for format in [
        "udiff",
        "search-replace",
        "apply-patch",
        "hashline",
        "lines",
        "tool-call",
    ] {
        series(
            &format!("render {format}, all changed"),
            5_000,
            every_line_changed,
            |(before, after)| {
                let out = patchbay::render(format.parse().unwrap(), "src/values.rs", before, after)
                    .unwrap();
                assert!(out.len() > after.len() / 2);
            },
        );
    }
}
