//! Speed of `patchbay::apply` against a peer run in the same process.
//!
//! No timed assertions anywhere: this prints ratios. Cases:
//!
//! * `50 blocks / 100k lines`: a deterministic 100,000-line Go-like source
//!   file (functions with unique signatures, bodies full of repeated lines
//!   such as `}` and `return nil`) and a reply of 50 SEARCH/REPLACE blocks
//!   (3-8 lines, each unique in the file, spread over it, in random order).
//!   patchbay runs the whole transaction (parse, locate, apply).
//! * the pathological ones, 20,000 identical lines: a block of 500 of them
//!   (ambiguous: must be refused); the same with one distinct line that
//!   makes the block unique; the hashline way, 500 lines addressed by
//!   number with their tags checked (a hand-built `Op::Lines` run through
//!   `transaction::run`); and the matcher's lookup alone (`Haystack::find`).
//!
//! Each patchbay time is compared with the baseline most agents write: a
//! line-by-line sliding window (`lines[i..i + m] == block`, all matches
//! collected to check uniqueness), blocks applied one after the other, the
//! text re-split after each.
//!
//! Results are checked against an independently computed expected file
//! before anything is timed.
//!
//! ```text
//! cargo bench -p patchbay --bench apply                 # the table
//! cargo bench -p patchbay --bench apply -- --runs 51    # more runs
//! cargo bench -p patchbay --bench apply -- --only blocks # cases whose name has it
//! cargo bench -p patchbay --bench apply -- --profile     # patchbay only, untimed
//! cargo bench -p patchbay --bench apply -- --write-fixtures DIR
//! ```
//!
//! `--write-fixtures DIR` writes `DIR/before/src/server.go`, `DIR/reply.txt`
//! and `DIR/expected.go` (the whole-process comparison of
//! `scripts/bench.sh` uses them) and exits. Without `--bench` (as under
//! `cargo test --benches`) every case runs once, checked, untimed.

use patchbay::apply::matcher::{FindOptions, Haystack, Miss};
use patchbay::apply::transaction;
use patchbay::formats::hashline::tags;
use patchbay::{ApplyOptions, Check, Code, Edit, Op, Options, Parsed, Status, TagOptions};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Path of the generated file, relative to the root.
const PATH: &str = "src/server.go";
const FILE_LINES: usize = 100_000;
const BLOCKS: usize = 50;

// ---------------------------------------------------------------- generator

#[path = "../tests/support/rng.rs"]
#[allow(dead_code)]
mod rng;
use rng::SplitMix;

const NOUNS: [&str; 12] = [
    "Order", "Invoice", "Customer", "Session", "Ticket", "Report", "Account", "Shipment",
    "Payment", "Profile", "Device", "Upload",
];

/// One function in one of four shapes; the signature (and a few lines) name
/// `i`, the rest is boilerplate that repeats all over the file.
fn function(i: usize, rng: &mut SplitMix) -> Vec<String> {
    let noun = NOUNS[i % NOUNS.len()];
    let k = rng.range(2, 9);
    let v: Vec<&str> = match rng.range(0, 3) {
        0 => {
            return vec![
                format!("// handle{noun}{i} validates and stores a {noun} of kind {i}."),
                format!(
                    "func handle{noun}{i}(ctx context.Context, req *Request) (*Response, error) {{"
                ),
                "\tif req == nil {".into(),
                "\t\treturn nil, errNilRequest".into(),
                "\t}".into(),
                "\tif err := req.Validate(); err != nil {".into(),
                "\t\treturn nil, err".into(),
                "\t}".into(),
                "\ttotal := 0".into(),
                "\tfor _, item := range req.Items {".into(),
                format!("\t\ttotal += item.Price * {k}"),
                "\t}".into(),
                format!("\tif total > {} {{", rng.range(100, 5000)),
                format!(
                    "\t\treturn nil, fmt.Errorf(\"{} {i}: total %d over limit\", total)",
                    noun.to_lowercase()
                ),
                "\t}".into(),
                "\treturn &Response{ID: req.ID, Total: total}, nil".into(),
                "}".into(),
                String::new(),
            ];
        }
        1 => vec![
            "func (s *Store) get{noun}{i}(key string) (string, error) {",
            "\ts.mu.Lock()",
            "\tdefer s.mu.Unlock()",
            "\tv, ok := s.data[key]",
            "\tif !ok {",
            "\t\treturn \"\", errNotFound",
            "\t}",
            "\treturn v, nil",
            "}",
            "",
        ],
        2 => vec![
            "// close{noun}{i} releases what worker {i} holds.",
            "func close{noun}{i}(w *Worker) error {",
            "\tif w == nil {",
            "\t\treturn nil",
            "\t}",
            "\tif err := w.conn.Close(); err != nil {",
            "\t\treturn err",
            "\t}",
            "\tw.closed = true",
            "\treturn nil",
            "}",
            "",
        ],
        _ => vec![
            "func kind{noun}{i}(v int) string {",
            "\tswitch v % {k} {",
            "\tcase 0:",
            "\t\treturn \"zero\"",
            "\tcase 1:",
            "\t\treturn \"one\"",
            "\tdefault:",
            "\t\treturn \"many\"",
            "\t}",
            "}",
            "",
        ],
    };
    v.into_iter()
        .map(|l| {
            l.replace("{noun}", noun)
                .replace("{i}", &i.to_string())
                .replace("{k}", &k.to_string())
        })
        .collect()
}

/// The file as lines (exactly `FILE_LINES`) and each function's line range.
fn generate_file(rng: &mut SplitMix) -> (Vec<String>, Vec<(usize, usize)>) {
    let mut lines: Vec<String> = [
        "package server",
        "",
        "import (",
        "\t\"context\"",
        "\t\"errors\"",
        "\t\"fmt\"",
        ")",
        "",
        "var errNilRequest = errors.New(\"nil request\")",
        "var errNotFound = errors.New(\"not found\")",
        "",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut funcs = vec![];
    for i in 0.. {
        let f = function(i, rng);
        if lines.len() + f.len() > FILE_LINES {
            break;
        }
        funcs.push((lines.len(), lines.len() + f.len()));
        lines.extend(f);
    }
    // Pad to the exact size with a registry of unique lines.
    let mut j = 0;
    while lines.len() < FILE_LINES {
        lines.push(format!("var _ = registry{j}"));
        j += 1;
    }
    (lines, funcs)
}

/// One SEARCH/REPLACE block: original lines `start..start + old.len()`.
struct Block {
    start: usize,
    old: Vec<String>,
    new: Vec<String>,
}

/// 50 blocks, one in each fiftieth of the functions, each containing a line
/// that occurs once in the file (so the block is unique), in random order.
fn generate_blocks(lines: &[String], funcs: &[(usize, usize)], rng: &mut SplitMix) -> Vec<Block> {
    let mut count: std::collections::HashMap<&str, usize> = Default::default();
    for l in lines {
        *count.entry(l.as_str()).or_default() += 1;
    }
    let per = funcs.len() / BLOCKS;
    let mut blocks = vec![];
    for b in 0..BLOCKS {
        let (fs, fe) = funcs[b * per + rng.range(0, per - 1)];
        let m = rng.range(3, 8).min(fe - fs);
        let start = loop {
            let s = rng.range(fs, fe - m);
            if lines[s..s + m].iter().any(|l| count[l.as_str()] == 1) {
                break s;
            }
        };
        let old: Vec<String> = lines[start..start + m].to_vec();
        // The edit: a log line after the first line, and `return nil, err`
        // wrapped with `fmt.Errorf` where there is one.
        let mut new = vec![old[0].clone()];
        let ind: String = old[1].chars().take_while(|c| c.is_whitespace()).collect();
        let ind = if ind.is_empty() { "\t".to_owned() } else { ind };
        new.push(format!(
            "{ind}log.Printf(\"bench edit {b} at line %d\", {})",
            start + 1
        ));
        for l in &old[1..] {
            new.push(l.replace(
                "return nil, err",
                &format!("return nil, fmt.Errorf(\"edit {b}: %w\", err)"),
            ));
        }
        blocks.push(Block { start, old, new });
    }
    rng.shuffle(&mut blocks);
    blocks
}

/// The reply a model would write: prose, then each block fenced under its
/// path.
fn reply(blocks: &[Block]) -> String {
    let mut out = String::from("I'll make these changes to the server.\n\n");
    for (n, b) in blocks.iter().enumerate() {
        if n % 10 == 9 {
            out.push_str("Next, the remaining handlers:\n\n");
        }
        out.push_str(PATH);
        out.push_str("\n```go\n<<<<<<< SEARCH\n");
        for l in &b.old {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str("=======\n");
        for l in &b.new {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str(">>>>>>> REPLACE\n```\n\n");
    }
    out
}

/// The expected result, computed from the block positions alone.
fn expected(lines: &[String], blocks: &[Block]) -> String {
    let mut order: Vec<&Block> = blocks.iter().collect();
    order.sort_by_key(|b| b.start);
    let mut out = String::new();
    let mut pos = 0;
    for b in order {
        for l in &lines[pos..b.start] {
            out.push_str(l);
            out.push('\n');
        }
        for l in &b.new {
            out.push_str(l);
            out.push('\n');
        }
        pos = b.start + b.old.len();
    }
    for l in &lines[pos..] {
        out.push_str(l);
        out.push('\n');
    }
    out
}

struct Fixture {
    before: String,
    reply: String,
    expected: String,
}

fn fixture() -> Fixture {
    let mut rng = SplitMix(0x7061_7463_6862_6179); // "patchbay"
    let (lines, funcs) = generate_file(&mut rng);
    let blocks = generate_blocks(&lines, &funcs, &mut rng);
    let mut before = lines.join("\n");
    before.push('\n');
    Fixture {
        reply: reply(&blocks),
        expected: expected(&lines, &blocks),
        before,
    }
}

// ----------------------------------------------------------------- baseline

/// The straightforward applier: parse the blocks, then for each one split
/// the current text into lines, slide a window comparing line by line,
/// collect every match, require exactly one, splice, and join again.
mod baseline {
    use std::collections::BTreeMap;

    pub struct Block {
        pub path: String,
        pub old: Vec<String>,
        pub new: Vec<String>,
    }

    pub fn parse(reply: &str) -> Vec<Block> {
        let lines: Vec<&str> = reply.lines().collect();
        let mut out = vec![];
        let mut i = 0;
        while i < lines.len() {
            if lines[i].trim_end() == "<<<<<<< SEARCH" {
                let mut p = i;
                while p > 0 && (lines[p - 1].starts_with("```") || lines[p - 1].is_empty()) {
                    p -= 1;
                }
                let path = if p > 0 { lines[p - 1].trim() } else { "" };
                let (mut old, mut new) = (vec![], vec![]);
                i += 1;
                while i < lines.len() && lines[i].trim_end() != "=======" {
                    old.push(lines[i].to_owned());
                    i += 1;
                }
                i += 1;
                while i < lines.len() && lines[i].trim_end() != ">>>>>>> REPLACE" {
                    new.push(lines[i].to_owned());
                    i += 1;
                }
                out.push(Block {
                    path: path.to_owned(),
                    old,
                    new,
                });
            }
            i += 1;
        }
        out
    }

    /// Every start where `block` matches the file line for line.
    pub fn find_all(lines: &[&str], block: &[String]) -> Vec<usize> {
        let m = block.len();
        let mut found = vec![];
        if m == 0 || m > lines.len() {
            return found;
        }
        for i in 0..=lines.len() - m {
            if lines[i..i + m] == block[..] {
                found.push(i);
            }
        }
        found
    }

    /// Applies every block in order; `Err` names the first block that is
    /// missing or matches more than once.
    pub fn apply(
        reply: &str,
        files: &BTreeMap<String, String>,
    ) -> Result<BTreeMap<String, String>, String> {
        let mut files = files.clone();
        for (n, b) in parse(reply).iter().enumerate() {
            let text = files
                .get_mut(&b.path)
                .ok_or_else(|| format!("block {n}: no file {}", b.path))?;
            let lines: Vec<&str> = text.split('\n').collect();
            let found = find_all(&lines, &b.old);
            if found.len() != 1 {
                return Err(format!("block {n}: {} matches", found.len()));
            }
            let at = found[0];
            let mut out: Vec<&str> = Vec::with_capacity(lines.len() + b.new.len());
            out.extend_from_slice(&lines[..at]);
            out.extend(b.new.iter().map(String::as_str));
            out.extend_from_slice(&lines[at + b.old.len()..]);
            *text = out.join("\n");
        }
        Ok(files)
    }
}

// ------------------------------------------------------------------ timing

struct Timing {
    median: Duration,
    min: Duration,
    runs: usize,
}

/// Warm-up (at least 3 runs and 100 ms), then `runs` timed runs, capped at
/// about `budget` in total (but never fewer than 5 runs).
fn time<T>(runs: usize, budget: Duration, mut f: impl FnMut() -> T) -> Timing {
    let warm = Instant::now();
    let mut w = 0;
    while w < 3 || warm.elapsed() < Duration::from_millis(100) {
        black_box(f());
        w += 1;
    }
    let mut ts = Vec::with_capacity(runs);
    let all = Instant::now();
    for _ in 0..runs {
        let t = Instant::now();
        black_box(f());
        ts.push(t.elapsed());
        if ts.len() >= 5 && all.elapsed() > budget {
            break;
        }
    }
    ts.sort();
    Timing {
        median: ts[ts.len() / 2],
        min: ts[0],
        runs: ts.len(),
    }
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

// -------------------------------------------------------------------- cases

/// A case: checked once, then timed (patchbay, baseline).
struct Case {
    name: &'static str,
    patchbay: Box<dyn FnMut()>,
    baseline: Box<dyn FnMut()>,
}

fn files_of(text: &str) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    files.insert(PATH.to_string(), text.to_string());
    files
}

fn sr_reply(old: &[&str], new: &[&str]) -> String {
    format!(
        "{PATH}\n```go\n<<<<<<< SEARCH\n{}\n=======\n{}\n>>>>>>> REPLACE\n```\n",
        old.join("\n"),
        new.join("\n")
    )
}

fn main_case(fx: &Fixture) -> Case {
    let files = files_of(&fx.before);
    let opt = ApplyOptions::default();
    // Check both before timing anything.
    let report = patchbay::apply(&fx.reply, &files, &opt);
    assert_eq!(report.status, Status::Applied, "{}", report.feedback);
    assert_eq!(report.files.len(), 1);
    assert!(
        report.files[0].content.as_deref() == Some(fx.expected.as_str()),
        "patchbay's result differs from the expected file"
    );
    let base = baseline::apply(&fx.reply, &files).expect("baseline applies");
    assert!(
        base[PATH] == fx.expected,
        "the baseline's result differs from the expected file"
    );

    let (r1, f1) = (fx.reply.clone(), files.clone());
    let (r2, f2) = (fx.reply.clone(), files);
    Case {
        name: "50 blocks / 100k lines",
        patchbay: Box::new(move || {
            black_box(patchbay::apply(black_box(&r1), &f1, &opt));
        }),
        baseline: Box::new(move || {
            black_box(baseline::apply(black_box(&r2), &f2).unwrap());
        }),
    }
}

/// 20,000 identical lines, a block of 500 of them: must be refused as
/// ambiguous (the baseline finds all 19,501 places).
fn ambiguous_case() -> Case {
    let text = "\treturn nil\n".repeat(20_000);
    let block = vec!["\treturn nil"; 500];
    let reply = sr_reply(&block, &["\treturn err"]);
    let files = files_of(&text);
    let opt = ApplyOptions::default();
    let report = patchbay::apply(&reply, &files, &opt);
    assert_eq!(report.status, Status::Failed);
    assert_eq!(report.files[0].edits[0].code, Some(Code::Ambiguous));
    let lines: Vec<&str> = text.split('\n').collect();
    let owned: Vec<String> = block.iter().map(|s| s.to_string()).collect();
    assert_eq!(baseline::find_all(&lines, &owned).len(), 19_501);
    assert!(baseline::apply(&reply, &files).is_err());
    let (r2, f2) = (reply.clone(), files.clone());
    Case {
        name: "pathological, ambiguous",
        patchbay: Box::new(move || {
            black_box(patchbay::apply(black_box(&reply), &files, &opt));
        }),
        baseline: Box::new(move || {
            black_box(baseline::apply(black_box(&r2), &f2).unwrap_err());
        }),
    }
}

/// The same file with one distinct line at 15,000; the block is 499
/// identical lines and that one, so it is unique.
fn unique_case() -> Case {
    let mut lines = vec!["\treturn nil"; 20_000];
    lines[15_000] = "\treturn errDone";
    let mut text = lines.join("\n");
    text.push('\n');
    let mut block = vec!["\treturn nil"; 499];
    block.push("\treturn errDone");
    let reply = sr_reply(&block, &["\treturn errStopped"]);
    let files = files_of(&text);
    let opt = ApplyOptions::default();
    let report = patchbay::apply(&reply, &files, &opt);
    assert_eq!(report.status, Status::Applied, "{}", report.feedback);
    let mut want = lines.clone();
    want.splice(14_501..15_001, ["\treturn errStopped"]);
    let mut want = want.join("\n");
    want.push('\n');
    assert!(report.files[0].content.as_deref() == Some(want.as_str()));
    assert!(baseline::apply(&reply, &files).unwrap()[PATH] == want);
    let (r2, f2) = (reply.clone(), files.clone());
    Case {
        name: "pathological, unique",
        patchbay: Box::new(move || {
            black_box(patchbay::apply(black_box(&reply), &files, &opt));
        }),
        baseline: Box::new(move || {
            black_box(baseline::apply(black_box(&r2), &f2).unwrap());
        }),
    }
}

/// The same 20,000 identical lines, edited the hashline way: lines
/// 14,501-15,000 addressed by number, each with its tag (all 500 tags are
/// the same, as the lines are), checked and replaced. The baseline gets the
/// same edit as a SEARCH/REPLACE block and can only refuse it (19,501
/// places); patchbay's cost is the check of the lines named.
fn tagged_case() -> Case {
    let text = "\treturn nil\n".repeat(20_000);
    let opts = TagOptions::default();
    let (start, end) = (14_500, 15_000);
    let tags: Vec<(usize, String)> = (start + 1..=end)
        .map(|n| (n, tags::tag("\treturn nil", n, opts)))
        .collect();
    let parsed = Parsed {
        edits: vec![Edit {
            path: Some(PATH.into()),
            op: Op::Lines {
                start,
                end,
                new: vec!["\treturn err".into()],
                check: Check::Tags { tags, opts },
            },
            span: 0..0,
        }],
        truncated: false,
        mentions: vec![],
        ..Parsed::default()
    };
    let files = files_of(&text);
    let opt = Options::default();
    let report = transaction::run(patchbay::FormatName::Hashline, &parsed, &files, &opt);
    assert_eq!(report.status, Status::Applied, "{}", report.feedback);
    let mut want = "\treturn nil\n".repeat(start);
    want.push_str("\treturn err\n");
    want.push_str(&"\treturn nil\n".repeat(20_000 - end));
    assert!(report.files[0].content.as_deref() == Some(want.as_str()));
    let reply = sr_reply(&vec!["\treturn nil"; end - start], &["\treturn err"]);
    assert!(baseline::apply(&reply, &files).is_err());
    let f2 = files.clone();
    Case {
        name: "pathological, tagged",
        patchbay: Box::new(move || {
            black_box(transaction::run(
                patchbay::FormatName::Hashline,
                black_box(&parsed),
                &files,
                &opt,
            ));
        }),
        baseline: Box::new(move || {
            black_box(baseline::apply(black_box(&reply), &f2).unwrap_err());
        }),
    }
}

/// The lookup alone (no parse, no report) on the ambiguous input: the
/// matcher's index build plus one `find`, against the baseline's scan.
fn lookup_case() -> Case {
    let text = "\treturn nil\n".repeat(20_000);
    let block = vec!["\treturn nil".to_string(); 500];
    let t2 = text.clone();
    let b2 = block.clone();
    let lines: Vec<&str> = text.lines().collect();
    match Haystack::new(lines).find(&block, FindOptions::default()) {
        Err(Miss::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates.len(), patchbay::apply::matcher::CANDIDATE_CAP)
        }
        other => panic!("{other:?}"),
    }
    Case {
        name: "pathological, lookup only",
        patchbay: Box::new(move || {
            let lines: Vec<&str> = black_box(&text).lines().collect();
            black_box(Haystack::new(lines).find(&block, FindOptions::default())).ok();
        }),
        baseline: Box::new(move || {
            let lines: Vec<&str> = black_box(&t2).split('\n').collect();
            black_box(baseline::find_all(&lines, &b2));
        }),
    }
}

fn write_fixtures(dir: &str, fx: &Fixture) -> std::io::Result<()> {
    let dir = std::path::Path::new(dir);
    let target = dir.join("before").join(PATH);
    std::fs::create_dir_all(target.parent().expect("has a parent"))?;
    std::fs::write(&target, &fx.before)?;
    std::fs::write(dir.join("reply.txt"), &fx.reply)?;
    std::fs::write(dir.join("expected.go"), &fx.expected)?;
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.iter().any(|a| a == "--bench");
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().expect("--runs takes a number"))
        .unwrap_or(31);

    let fx = fixture();
    if let Some(i) = args.iter().position(|a| a == "--write-fixtures") {
        let dir = args.get(i + 1).expect("--write-fixtures DIR");
        write_fixtures(dir, &fx).expect("cannot write the fixtures");
        println!(
            "wrote {dir}: before/{PATH} ({} lines), reply.txt ({} blocks), expected.go",
            fx.before.lines().count(),
            BLOCKS
        );
        return;
    }

    let mut cases = vec![
        main_case(&fx),
        ambiguous_case(),
        unique_case(),
        tagged_case(),
        lookup_case(),
    ];
    if let Some(i) = args.iter().position(|a| a == "--only") {
        let want = args.get(i + 1).expect("--only WORD").as_str();
        cases.retain(|c| c.name.contains(want));
    }
    if args.iter().any(|a| a == "--profile") {
        // For a profiler: patchbay's side only, `runs` times.
        for c in &mut cases {
            for _ in 0..runs {
                (c.patchbay)();
            }
        }
        return;
    }
    if !bench {
        // `cargo test --benches`: checked above; run each once and stop.
        for c in &mut cases {
            (c.patchbay)();
            (c.baseline)();
        }
        println!(
            "bench apply: {} cases checked (pass --bench to time)",
            cases.len()
        );
        return;
    }

    print_timings(&fx, &mut cases, runs);
}

/// Times both sides of every case and prints the table.
fn print_timings(fx: &Fixture, cases: &mut [Case], runs: usize) {
    println!(
        "file: {} lines, {} bytes; reply: {} blocks, {} bytes; {runs} runs a side (fewer if one passes 10 s)",
        FILE_LINES,
        fx.before.len(),
        BLOCKS,
        fx.reply.len()
    );
    println!();
    println!(
        "| {:<26} | {:>24} | {:>24} | {:>8} |",
        "case", "patchbay median (min)", "baseline median (min)", "ratio"
    );
    println!("|{:-<28}|{:-<26}|{:-<26}|{:-<10}|", "", "", "", "");
    let budget = Duration::from_secs(10);
    for c in cases.iter_mut() {
        let p = time(runs, budget, &mut c.patchbay);
        let b = time(runs, budget, &mut c.baseline);
        let ratio = b.median.as_secs_f64() / p.median.as_secs_f64();
        println!(
            "| {:<26} | {:>24} | {:>24} | {:>7.1}x |",
            c.name,
            format!("{} ({})", ms(p.median), ms(p.min)),
            format!("{} ({})", ms(b.median), ms(b.min)),
            ratio
        );
        if p.runs < runs || b.runs < runs {
            println!("|   (runs: patchbay {}, baseline {})", p.runs, b.runs);
        }
    }
    println!();
    println!("ratio = baseline median / patchbay median (higher is better for patchbay)");
}
