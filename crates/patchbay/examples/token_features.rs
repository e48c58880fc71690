//! Calibration data for the token estimator: reads `LANG<TAB>ID<TAB>PATH`
//! lines on stdin and prints one CSV row per file and per ~1 KB chunk
//! (cut at line ends) with the estimator's features and the exact counts
//! of every vocabulary. `tests/tools/token_corpus.py` writes the input;
//! `tests/tools/fit_estimator.py` reads the output.
//!
//! Usage: token_features [--dump SAMPLES.jsonl] < files.tsv > data.csv
//! `--dump` also writes every sample's text as JSON lines (`{"id", "text"}`)
//! for counting with a tokenizer outside Rust (Gemma's).

use patchbay::budget::tokens::{exact, features, Family, FEATURE_NAMES};
use std::io::{BufRead, Write};

const CHUNK: usize = 1024;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dump = match args.as_slice() {
        [] => None,
        [flag, path] if flag == "--dump" => Some(std::fs::File::create(path).expect("dump file")),
        _ => {
            eprintln!("usage: token_features [--dump SAMPLES.jsonl] < files.tsv > data.csv");
            std::process::exit(2);
        }
    };
    let mut dump = dump.map(std::io::BufWriter::new);
    let exact_families: Vec<Family> = Family::ALL
        .into_iter()
        .filter(|f| f.encoding().is_some())
        .collect();
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let mut header = vec!["id", "kind", "lang", "bytes"];
    header.extend(FEATURE_NAMES);
    header.extend(exact_families.iter().map(|f| f.name()));
    writeln!(out, "{}", header.join(",")).unwrap();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let mut parts = line.splitn(3, '\t');
        let (Some(lang), Some(id), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let mut samples = vec![(id.to_string(), "file", text.as_str())];
        for (k, c) in chunks(&text).into_iter().enumerate() {
            samples.push((format!("{id}#{k}"), "chunk", c));
        }
        for (sid, kind, s) in samples {
            if s.trim().is_empty() {
                continue;
            }
            let f = features(s);
            let mut row = vec![
                sid.clone(),
                kind.to_string(),
                lang.to_string(),
                s.len().to_string(),
            ];
            row.extend(f.array().iter().map(|c| c.to_string()));
            for fam in &exact_families {
                row.push(exact::count(*fam, s).unwrap_or(0).to_string());
            }
            writeln!(out, "{}", row.join(",")).unwrap();
            if let Some(d) = dump.as_mut() {
                let j = serde_json::json!({"id": sid, "text": s});
                writeln!(d, "{j}").unwrap();
            }
        }
    }
}

/// Chunks of about `CHUNK` bytes that end at line ends (a longer line is
/// cut at a character boundary).
fn chunks(text: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut start = 0;
    while start < text.len() {
        let mut limit = (start + CHUNK).min(text.len());
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        let mut end = if limit == text.len() {
            limit
        } else {
            match text[start..limit].rfind('\n') {
                Some(p) if p > 0 => start + p + 1,
                _ => limit,
            }
        };
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}
