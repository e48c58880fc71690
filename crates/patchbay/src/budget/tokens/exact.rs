//! Exact token counts with the `tiktoken` crate's BPE (feature
//! `exact-tokens`). Each vocabulary is decompressed on first use (tens of
//! milliseconds) and cached for the process; a count is then `O(len)` with
//! a small constant (piece memoisation).
//!
//! Qwen's own tokenizer normalises text to NFC before splitting it; the
//! BPE here does not, so that is done first (a quick check skips the copy
//! for text that is NFC already, which is nearly all code).

use super::Family;
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// The exact count of `text` for `family`, or `None` for a family without
/// an exact tokenizer here (Gemma).
pub fn count(family: Family, text: &str) -> Option<usize> {
    let enc = tiktoken::get_encoding(family.encoding()?)?;
    Some(match family {
        Family::Qwen2 if is_nfc_quick(text.chars()) != IsNormalized::Yes => {
            enc.count(&text.nfc().collect::<String>())
        }
        _ => enc.count(text),
    })
}

/// The token ids of `text` (for tests and tools that show the split).
pub fn encode(family: Family, text: &str) -> Option<Vec<u32>> {
    let enc = tiktoken::get_encoding(family.encoding()?)?;
    Some(match family {
        Family::Qwen2 => enc.encode(&text.nfc().collect::<String>()),
        _ => enc.encode(text),
    })
}
