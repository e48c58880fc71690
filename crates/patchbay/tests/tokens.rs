//! Token counting: known exact counts (feature `exact-tokens`) and the
//! estimator's accuracy against them on committed, held-out excerpts of real
//! files (tests/tokens/samples and tests/tools/sources, 7 languages plus
//! Markdown). Without the feature only the estimator's own checks run.

// Most checks need the exact counters; without them the helpers idle.
#![cfg_attr(not(feature = "exact-tokens"), allow(unused))]

use patchbay::budget::tokens::{estimate, features, Family, Tokenizer};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// (name, text) of every committed sample.
fn samples() -> Vec<(String, String)> {
    let mut out = vec![];
    for dir in ["tests/tokens/samples", "tests/tools/sources"] {
        let mut entries: Vec<_> = std::fs::read_dir(repo().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap() != "SOURCES.md")
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, std::fs::read_to_string(&p).unwrap()));
        }
    }
    out
}

/// ~1 KB chunks cut at line ends, as in the calibration data.
fn chunks(text: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut rest = text;
    while !rest.is_empty() {
        let mut limit = rest.len().min(1024);
        while !rest.is_char_boundary(limit) {
            limit -= 1;
        }
        let end = if limit == rest.len() {
            limit
        } else {
            rest[..limit].rfind('\n').map_or(limit, |p| p + 1)
        };
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    out
}

#[test]
fn the_samples_cover_seven_languages_and_markdown() {
    let exts: std::collections::BTreeSet<String> = samples()
        .iter()
        .map(|(n, _)| n.rsplit('.').next().unwrap().to_string())
        .collect();
    for e in ["py", "rs", "js", "go", "c", "cpp", "pm", "md"] {
        assert!(exts.contains(e), "no .{e} sample in {exts:?}");
    }
}

#[test]
fn estimates_scale_with_text_and_differ_by_family() {
    let (_, text) = &samples()[0];
    let one = estimate(text, Family::O200k);
    let two = estimate(&text.repeat(2), Family::O200k);
    // Twice the text is twice the pieces, up to one rounding each way.
    assert!(two.abs_diff(2 * one) <= 2, "{one} vs {two}");
    // Gemma's vocabulary needs about a fifth more tokens for code.
    let g = estimate(text, Family::Gemma);
    assert!(g > one, "gemma {g} vs o200k {one}");
}

#[test]
fn features_of_a_line_of_code() {
    let f = features("    return self._cache[key]  # hit\n");
    // "   ", " return", " self", "._" (two marks: no prefix), "cache",
    // "[key" (one mark: a prefix), "]", " ", " #", " hit", "\n".
    assert_eq!(f.words, 5);
    assert_eq!(f.prefixed, 1);
    assert_eq!(f.puncts, 3);
    assert_eq!(f.newlines, 1);
}

#[cfg(feature = "exact-tokens")]
mod exact {
    use super::*;
    use patchbay::budget::tokens::exact::{count, encode};

    #[test]
    fn known_token_ids() {
        // tiktoken's own test and OpenAI's cookbook examples.
        assert_eq!(
            encode(Family::Cl100k, "hello world"),
            Some(vec![15339, 1917])
        );
        assert_eq!(
            encode(Family::Cl100k, "tiktoken is great!"),
            Some(vec![83, 1609, 5963, 374, 2294, 0])
        );
        assert_eq!(
            encode(Family::O200k, "tiktoken is great!"),
            Some(vec![83, 8251, 2488, 382, 2212, 0])
        );
        assert_eq!(
            encode(Family::O200k, "hello world"),
            Some(vec![24912, 2375])
        );
        // Llama 3 starts from cl100k's merges; Qwen 2 has its own ids.
        assert_eq!(
            encode(Family::Llama3, "hello world"),
            Some(vec![15339, 1917])
        );
        assert_eq!(
            encode(Family::Qwen2, "hello world"),
            Some(vec![14990, 1879])
        );
        assert_eq!(count(Family::DeepseekV3, "hello world"), Some(2));
        assert_eq!(count(Family::Cl100k, "你好世界"), Some(5));
        assert_eq!(count(Family::Gemma, "hello world"), None);
    }

    #[test]
    fn qwen_counts_after_nfc() {
        // "é" written as e + combining acute is the same text after NFC.
        let decomposed = "cafe\u{301}";
        assert_eq!(
            encode(Family::Qwen2, decomposed),
            encode(Family::Qwen2, "café")
        );
        // The other vocabularies see the bytes as written.
        assert_ne!(
            encode(Family::O200k, decomposed),
            encode(Family::O200k, "café")
        );
    }

    #[test]
    fn the_tokenizer_type_uses_the_exact_counter() {
        let t = Tokenizer::parse("o200k_base").unwrap();
        assert!(t.is_exact());
        assert_eq!(t.count("hello world"), 2);
        let spans = t.count_spans("hello world", &[0..5, 5..11]);
        assert_eq!(spans, vec![1, 1]);
    }

    /// Relative errors of the estimate per file and per 1 KB chunk.
    fn errors(family: Family) -> (Vec<(String, f64)>, Vec<f64>) {
        let mut files = vec![];
        let mut chunk_errs = vec![];
        for (name, text) in samples() {
            let exact = count(family, &text).unwrap() as f64;
            let est = estimate(&text, family) as f64;
            files.push((name, (est - exact).abs() / exact));
            for c in chunks(&text) {
                if c.trim().is_empty() {
                    continue;
                }
                let e = count(family, c).unwrap() as f64;
                chunk_errs.push((estimate(c, family) as f64 - e).abs() / e);
            }
        }
        chunk_errs.sort_by(f64::total_cmp);
        (files, chunk_errs)
    }

    fn p90(sorted: &[f64]) -> f64 {
        sorted[((sorted.len() as f64 * 0.9).ceil() as usize).saturating_sub(1)]
    }

    #[test]
    fn estimator_within_6_percent_per_file_and_10_at_p90_of_chunks_for_o200k() {
        let (files, chunks) = errors(Family::O200k);
        let mae = files.iter().map(|(_, e)| e).sum::<f64>() / files.len() as f64;
        assert!(mae <= 0.06, "mean abs error per file {mae:.3}: {files:?}");
        let p = p90(&chunks);
        assert!(p < 0.10, "p90 error on {} chunks: {p:.3}", chunks.len());
        // No single file is far off either.
        for (name, e) in &files {
            assert!(*e < 0.15, "{name}: {e:.3}");
        }
    }

    #[test]
    fn estimator_tracks_every_exact_family() {
        for family in [
            Family::Cl100k,
            Family::Llama3,
            Family::Qwen2,
            Family::DeepseekV3,
        ] {
            let (files, chunks) = errors(family);
            let mae = files.iter().map(|(_, e)| e).sum::<f64>() / files.len() as f64;
            assert!(
                mae <= 0.08,
                "{family:?}: mean abs error {mae:.3}: {files:?}"
            );
            assert!(p90(&chunks) < 0.13, "{family:?}: p90 {:.3}", p90(&chunks));
        }
    }

    #[test]
    fn bytes_over_four_is_worse_than_the_estimator() {
        // The reason the estimator exists: bytes/4 on the same files.
        let mut est = 0.0;
        let mut naive = 0.0;
        for (_, text) in samples() {
            let exact = count(Family::O200k, &text).unwrap() as f64;
            est += (estimate(&text, Family::O200k) as f64 - exact).abs() / exact;
            naive += ((text.len() as f64 / 4.0) - exact).abs() / exact;
        }
        assert!(est < naive, "estimator {est:.3} vs bytes/4 {naive:.3}");
    }
}
