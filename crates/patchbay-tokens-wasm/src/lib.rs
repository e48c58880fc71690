//! Exact token counts in the browser: a thin wasm-bindgen binding of
//! `patchbay::budget::tokens::exact` (tiktoken's BPE with the o200k_base,
//! cl100k_base, llama3, qwen2 and deepseek_v3 vocabularies).
//!
//! It is a module of its own because the vocabularies weigh ~2.4 MB: the
//! playground loads it only when the user asks for an exact count, and
//! `patchbay-wasm` keeps the vocabulary-free estimator. No logic here:
//! each function resolves the name, calls the core and returns numbers.
//!
//! The module gets a 4 MB stack (`build.rs`): built for size, the
//! tokenizer overflowed wasm's default 1 MB.

use patchbay::budget::tokens::{Family, Tokenizer};
use patchbay_js::range_error;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start, skip_typescript)]
fn start() {
    patchbay_js::install_panic_hook();
}

/// An encoding this module cannot count exactly is a `RangeError`.
fn exact(name: &str) -> Result<Tokenizer, JsValue> {
    let family =
        Family::from_name(name).ok_or_else(|| range_error(format!("unknown encoding {name:?}")))?;
    Tokenizer::exact(family).map_err(range_error)
}

/// The exact token count of `text` (special-token text counts as text).
/// `encoding`: `o200k_base`, `cl100k_base`, `llama3`, `qwen2`, `deepseek_v3`.
/// The first call for an encoding decompresses its vocabulary.
#[wasm_bindgen(js_name = countTokens)]
pub fn count_tokens(text: &str, encoding: &str) -> Result<usize, JsValue> {
    Ok(exact(encoding)?.count(text))
}

/// The count of each text (per edit, per block, per pane) in one call.
#[wasm_bindgen(js_name = countTokensEach)]
pub fn count_tokens_each(texts: Vec<String>, encoding: &str) -> Result<Vec<u32>, JsValue> {
    let t = exact(encoding)?;
    Ok(texts.iter().map(|s| t.count(s) as u32).collect())
}

/// The encodings this module counts exactly.
#[wasm_bindgen]
pub fn encodings() -> Vec<String> {
    Family::ALL
        .iter()
        .filter_map(|f| f.encoding())
        .map(String::from)
        .collect()
}
