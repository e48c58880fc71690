//! Token counts: a built-in estimator (no vocabulary) and, with the
//! `exact-tokens` feature, exact BPE counts.
//!
//! The estimator ([`estimate`]) counts the pieces a modern BPE
//! pre-tokenizer cuts a text into ([`pieces`]) and combines the counts with
//! weights fitted per model family against exact counts ([`weights`]). On
//! the calibration corpus it is within about 3% of o200k_base per file
//! (`docs/benchmarks.md` has the figures per language and family). It runs
//! in one pass, `O(len)`, at hundreds of MB/s, and adds a few KB of code.
//!
//! A [`Tokenizer`] names either the estimator for a family
//! (`estimate:qwen2`) or an exact vocabulary (`qwen2`); every counting
//! API takes one, so callers switch between them without other changes.
//!
//! ```
//! use patchbay::budget::tokens::{estimate, Family, Tokenizer};
//! let code = "fn main() {\n    println!(\"hello\");\n}\n";
//! let n = estimate(code, Family::O200k);
//! assert!((8..=16).contains(&n));
//! let t = Tokenizer::parse("estimate:llama3").unwrap();
//! assert_eq!(t.count_spans(code, &[0..9, 9..code.len()]).len(), 2);
//! ```

pub mod pieces;
pub mod tally;
pub mod weights;

#[cfg(feature = "exact-tokens")]
pub mod exact;

pub use pieces::{features, Features, FEATURE_NAMES};
pub use tally::{clean_cut, Tally};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::ops::Range;

/// A model family: which vocabulary the count should match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Family {
    /// GPT-4o, GPT-4.1, GPT-5, o-series.
    #[default]
    #[serde(rename = "o200k_base")]
    O200k,
    /// GPT-4, GPT-3.5.
    #[serde(rename = "cl100k_base")]
    Cl100k,
    /// Llama 3.x and 4.
    #[serde(rename = "llama3")]
    Llama3,
    /// Qwen 2.5 and 3.
    #[serde(rename = "qwen2")]
    Qwen2,
    /// DeepSeek V3, R1.
    #[serde(rename = "deepseek_v3")]
    DeepseekV3,
    /// Gemma 2 and 3 (SentencePiece, 256k): estimate only.
    #[serde(rename = "gemma")]
    Gemma,
}

impl Family {
    pub const ALL: [Family; 6] = [
        Family::O200k,
        Family::Cl100k,
        Family::Llama3,
        Family::Qwen2,
        Family::DeepseekV3,
        Family::Gemma,
    ];

    /// The contract name (also the exact tokenizer's name, where one exists).
    pub fn name(self) -> &'static str {
        match self {
            Family::O200k => "o200k_base",
            Family::Cl100k => "cl100k_base",
            Family::Llama3 => "llama3",
            Family::Qwen2 => "qwen2",
            Family::DeepseekV3 => "deepseek_v3",
            Family::Gemma => "gemma",
        }
    }

    /// The family by its name or a common alias (`o200k`, `gpt-4o`,
    /// `llama`, `qwen`, `deepseek`, ...).
    pub fn from_name(name: &str) -> Option<Family> {
        let n = name.trim().to_ascii_lowercase();
        Some(match n.as_str() {
            "o200k_base" | "o200k" | "gpt-4o" | "gpt-5" | "openai" => Family::O200k,
            "cl100k_base" | "cl100k" | "gpt-4" | "gpt-3.5" => Family::Cl100k,
            "llama3" | "llama" | "llama-3" => Family::Llama3,
            "qwen2" | "qwen" | "qwen3" => Family::Qwen2,
            "deepseek_v3" | "deepseek" | "deepseek-v3" => Family::DeepseekV3,
            "gemma" | "gemma2" | "gemma3" => Family::Gemma,
            _ => return None,
        })
    }

    /// The name of the exact vocabulary, `None` for Gemma (SentencePiece;
    /// not available to this crate).
    pub fn encoding(self) -> Option<&'static str> {
        match self {
            Family::Gemma => None,
            f => Some(f.name()),
        }
    }
}

/// The estimated token count of `text` for `family`. A non-empty text is
/// at least one token.
pub fn estimate(text: &str, family: Family) -> usize {
    estimate_features(&features(text), family, !text.is_empty())
}

/// The estimate from counted features.
pub fn estimate_features(f: &Features, family: Family, non_empty: bool) -> usize {
    estimate_counts(&f.array(), family, non_empty)
}

/// The estimate from feature counts in [`FEATURE_NAMES`] order.
fn estimate_counts(counts: &[u32; pieces::N_FEATURES], family: Family, non_empty: bool) -> usize {
    let w = weights::weights(family);
    let sum: f64 = counts
        .iter()
        .zip(w.iter())
        .map(|(&c, &w)| c as f64 * w)
        .sum();
    let n = sum.round().max(0.0) as usize;
    if non_empty {
        n.max(1)
    } else {
        n
    }
}

/// A counter: the estimator for a family, or an exact vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tokenizer {
    family: Family,
    exact: bool,
}

impl Default for Tokenizer {
    fn default() -> Self {
        Tokenizer::estimate(Family::O200k)
    }
}

/// A tokenizer name that is unknown or not compiled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownTokenizer(pub String);

impl std::fmt::Display for UnknownTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for UnknownTokenizer {}

impl Tokenizer {
    /// The estimator fitted for `family`.
    pub const fn estimate(family: Family) -> Tokenizer {
        Tokenizer {
            family,
            exact: false,
        }
    }

    /// The exact counter of `family`; an error when the family has none or
    /// the crate was built without `exact-tokens`.
    pub fn exact(family: Family) -> Result<Tokenizer, UnknownTokenizer> {
        if family.encoding().is_none() {
            return Err(UnknownTokenizer(format!(
                "no exact tokenizer for {} (SentencePiece); use `estimate:{}`",
                family.name(),
                family.name()
            )));
        }
        if !cfg!(feature = "exact-tokens") {
            return Err(UnknownTokenizer(format!(
                "exact tokenizer `{}` is not built in (feature `exact-tokens`); use `estimate:{}`",
                family.name(),
                family.name()
            )));
        }
        Ok(Tokenizer {
            family,
            exact: true,
        })
    }

    /// Parses `estimate`, `estimate:FAMILY` or an exact name (`o200k_base`,
    /// `cl100k_base`, `llama3`, `qwen2`, `deepseek_v3`).
    pub fn parse(name: &str) -> Result<Tokenizer, UnknownTokenizer> {
        let unknown = || {
            UnknownTokenizer(format!(
                "unknown tokenizer {name:?}; expected one of: {}",
                Tokenizer::names().join(", ")
            ))
        };
        let name = name.trim();
        if name == "estimate" {
            return Ok(Tokenizer::default());
        }
        if let Some(f) = name.strip_prefix("estimate:") {
            return Family::from_name(f)
                .map(Tokenizer::estimate)
                .ok_or_else(unknown);
        }
        Tokenizer::exact(Family::from_name(name).ok_or_else(unknown)?)
    }

    /// Every name [`Tokenizer::parse`] accepts in this build.
    pub fn names() -> Vec<String> {
        let mut v = vec!["estimate".to_string()];
        v.extend(Family::ALL.iter().map(|f| format!("estimate:{}", f.name())));
        if cfg!(feature = "exact-tokens") {
            v.extend(
                Family::ALL
                    .iter()
                    .filter_map(|f| f.encoding())
                    .map(String::from),
            );
        }
        v
    }

    /// The canonical name (`estimate:o200k_base` or `o200k_base`).
    pub fn name(&self) -> String {
        if self.exact {
            self.family.name().to_string()
        } else {
            format!("estimate:{}", self.family.name())
        }
    }

    pub fn family(&self) -> Family {
        self.family
    }

    pub fn is_exact(&self) -> bool {
        self.exact
    }

    /// The number of tokens of `text`.
    pub fn count(&self, text: &str) -> usize {
        #[cfg(feature = "exact-tokens")]
        if self.exact {
            if let Some(n) = exact::count(self.family, text) {
                return n;
            }
        }
        estimate(text, self.family)
    }

    /// The count of each byte range of `text`, each counted on its own (so
    /// the parts of a text may add up to a little more than the whole: a
    /// token cannot span a cut). Ranges are clamped to the text and widened
    /// to character boundaries; an empty or reversed range counts 0.
    pub fn count_spans(&self, text: &str, spans: &[Range<usize>]) -> Vec<usize> {
        spans
            .iter()
            .map(|r| self.count(&text[snap(text, r.clone())]))
            .collect()
    }
}

/// `r` clamped to `text` and widened to character boundaries.
pub fn snap(text: &str, r: Range<usize>) -> Range<usize> {
    let n = text.len();
    let mut s = r.start.min(n);
    while !text.is_char_boundary(s) {
        s -= 1;
    }
    let mut e = r.end.min(n).max(s);
    while !text.is_char_boundary(e) {
        e += 1;
    }
    s..e
}

impl Serialize for Tokenizer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for Tokenizer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Tokenizer::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for n in Tokenizer::names() {
            let t = Tokenizer::parse(&n).unwrap();
            let canonical = if n == "estimate" {
                "estimate:o200k_base".to_string()
            } else {
                n.clone()
            };
            assert_eq!(t.name(), canonical);
        }
        assert!(Tokenizer::parse("estimate:gpt2").is_err());
        assert!(Tokenizer::parse("gemma").is_err());
        assert_eq!(
            Tokenizer::parse("estimate:qwen").unwrap().family(),
            Family::Qwen2
        );
    }

    #[test]
    // The reversed range is the point: callers may pass one.
    #[allow(clippy::reversed_empty_ranges)]
    fn spans_are_clamped_and_snapped() {
        let t = Tokenizer::default();
        let text = "héllo wörld";
        // 2 is inside "é"; 100 is past the end; 5..1 is reversed.
        assert_eq!(snap(text, 2..100), 1..text.len());
        assert_eq!(snap(text, 5..1), 5..5);
        assert_eq!(snap(text, 2..1), 1..1);
        let c = t.count_spans(text, &[0..2, 2..100, 5..1]);
        assert_eq!(c[2], 0);
        assert!(c[0] >= 1 && c[1] >= 1);
    }

    #[test]
    fn empty_is_zero_and_text_is_at_least_one() {
        for f in Family::ALL {
            assert_eq!(estimate("", f), 0);
            assert_eq!(estimate(" ", f), 1);
        }
    }
}
