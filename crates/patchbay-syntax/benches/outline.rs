//! Outline speed: a 10,000-line file per language, natively.
//!
//! No timed assertions: this prints a table. Each file is one of the test
//! fixtures (a real small file) repeated until it has 10,000 lines, with the
//! lines that may only appear once (Go's `package`, Java's `package` and
//! imports) kept from the first copy only, so every file parses without
//! errors. The outline's symbol count is checked against the fixture's
//! before anything is timed. Columns: tree-sitter's parse alone, the whole
//! outline (parse and walk), and the parse check of an edit that appends a
//! stray `)]}` line (`new_issues`: two parses and the error walk).
//!
//! ```text
//! cargo bench -p patchbay-syntax --bench outline              # the table
//! cargo bench -p patchbay-syntax --bench outline -- --runs 21 # more runs
//! ```
//!
//! Without `--bench` (as under `cargo test --benches`) every case runs once,
//! checked, untimed.
//!
//! `--count LANGUAGE STEP` does one step once and exits, for instruction
//! counts that do not depend on the machine's load (under valgrind; see
//! docs/benchmarks.md): `grow` only builds the file, `parse` parses it,
//! `outline` outlines it; the differences are the steps' costs.

use patchbay_syntax::{lang, new_issues, outline, Language};
use std::hint::black_box;
use std::time::{Duration, Instant};

const LINES: usize = 10_000;

/// (language, fixture text, prefixes of lines kept from the first copy only).
fn cases() -> Vec<(Language, &'static str, &'static [&'static str])> {
    vec![
        (
            Language::Rust,
            include_str!("../tests/fixtures/greeter.rs"),
            &["//!"],
        ),
        (
            Language::Python,
            include_str!("../tests/fixtures/handlers.py"),
            &["from __future__"],
        ),
        (
            Language::JavaScript,
            include_str!("../../../tests/tools/sources/ms_index.js"),
            &[],
        ),
        (
            Language::TypeScript,
            include_str!("../tests/fixtures/cache.ts"),
            &[],
        ),
        (
            Language::Tsx,
            include_str!("../tests/fixtures/TodoList.tsx"),
            &[],
        ),
        (
            Language::Go,
            include_str!("../../../tests/tools/sources/strings_builder.go"),
            &["package "],
        ),
        (
            Language::Java,
            include_str!("../tests/fixtures/Inventory.java"),
            &["package ", "import "],
        ),
        (
            Language::C,
            include_str!("../tests/fixtures/ringbuf.c"),
            &[],
        ),
        (
            Language::Cpp,
            include_str!("../tests/fixtures/shapes.cpp"),
            &[],
        ),
    ]
}

/// The fixture repeated to at least [`LINES`] lines; returns the text and
/// the number of copies.
fn grow(unit: &str, once: &[&str]) -> (String, usize) {
    let rest: String = unit
        .split_inclusive('\n')
        .filter(|l| !once.iter().any(|p| l.starts_with(p)))
        .collect();
    let mut text = unit.to_owned();
    let mut copies = 1;
    while text.lines().count() < LINES {
        text.push('\n');
        text.push_str(&rest);
        copies += 1;
    }
    (text, copies)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    black_box(f());
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// `--count LANGUAGE STEP`: one step, once.
fn count(language: &str, step: &str) {
    let Some((lang, unit, once)) = cases().into_iter().find(|c| c.0.name() == language) else {
        panic!("no case for {language:?}");
    };
    let (text, _) = grow(unit, once);
    match step {
        "grow" => {
            black_box(&text);
        }
        "parse" => {
            black_box(lang::parse(&text, lang).unwrap());
        }
        "outline" => {
            black_box(outline(&text, lang).unwrap());
        }
        other => panic!("unknown step {other:?} (grow, parse, outline)"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--count") {
        let arg = |k: usize| args.get(i + k).map(String::as_str).unwrap_or("");
        return count(arg(1), arg(2));
    }
    let timed = args.iter().any(|a| a == "--bench");
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(11);
    if timed {
        println!("| language | lines | KiB | symbols | parse | outline | MB/s (outline) | parse check of an edit |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    }
    for (language, unit, once) in cases() {
        let (text, copies) = grow(unit, once);
        // Checked before timing: every copy outlines like the first, and
        // the grown file parses as cleanly as the fixture.
        let per_copy = outline(unit, language).unwrap().symbols.len();
        let o = outline(&text, language).unwrap();
        assert_eq!(o.symbols.len(), per_copy * copies, "{language}");
        let edited = format!("{text}\n)]}}\n");
        assert!(
            !new_issues(&text, &edited, language).unwrap().is_empty(),
            "{language}"
        );
        if !timed {
            continue;
        }
        let parse = time(runs, || lang::parse(&text, language).unwrap());
        let full = time(runs, || outline(&text, language).unwrap());
        let check = time(runs, || new_issues(&text, &edited, language).unwrap());
        println!(
            "| {language} | {} | {} | {} | {} | {} | {:.1} | {} |",
            text.lines().count(),
            text.len() / 1024,
            o.symbols.len(),
            ms(parse),
            ms(full),
            text.len() as f64 / full.as_secs_f64() / 1e6,
            ms(check),
        );
    }
}
