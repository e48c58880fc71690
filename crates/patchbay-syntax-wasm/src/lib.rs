//! The WebAssembly binding of patchbay-syntax: tree-sitter outlines,
//! slices, splices and parse checks for the browser.
//!
//! A module of its own (`web/pkg-syntax/`), so that the grammars (several
//! hundred KB) never ride in the core bundle: a page loads it only when a
//! user asks for an outline. Like `patchbay-wasm` it holds no logic: each
//! function deserializes, calls the crate and serializes; every error is a
//! `js_sys::Error` through [`js_error`], its message prefixed by the
//! error's stable code (`stale_slice: ...`).

use patchbay::ApplyOptions;
use patchbay_syntax::{Language, Slice};
use serde::Serialize;
use serde_wasm_bindgen::from_value;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Languages with a grammar in this build. */
export type LanguageName =
  | "rust" | "python" | "javascript" | "typescript" | "tsx" | "go" | "java" | "c" | "cpp";
export type SymbolKind =
  | "function" | "method" | "class" | "struct" | "enum" | "union" | "trait" | "interface"
  | "impl" | "module" | "type" | "macro";

/** `bytes` half-open in UTF-8 bytes of the text, `lines` 1-based inclusive. */
export interface Span { bytes: [number, number]; lines: [number, number]; }

export interface SymbolInfo {
  name: string;
  /** `Greeter::hello` (Rust, C, C++) or `Outer.Inner.method`. */
  qualified: string;
  kind: SymbolKind;
  /** The definition with what wraps it (export, decorators, template). */
  span: Span;
  /** Leading doc comments and attributes or decorators. */
  leading?: Span;
  /** The lines a slice takes (leading lines included). */
  lines: [number, number];
  /** Index of the enclosing symbol. */
  parent?: number;
  depth: number;
}

export interface Outline { language: LanguageName; symbols: SymbolInfo[]; }

export interface Section { name: string; kind: SymbolKind; start_line: number; end_line: number; }

/** One symbol cut out of a file; pass it back unchanged to `splice`/`applyToSlice`. */
export interface Slice {
  path: string;
  language: LanguageName;
  symbol: string;
  kind: SymbolKind;
  /** 1-based inclusive lines of the original file. */
  lines: [number, number];
  /** The indentation removed from every line. */
  indent: string;
  /** CRC-32 of the whole original file. */
  file_crc: number;
  /** The dedented text. */
  text: string;
}

export interface SyntaxIssue {
  kind: "error" | "missing";
  /** 1-based inclusive lines of the edited text. */
  lines: [number, number];
  message: string;
}

/** What `applyToSlice` returns: the report (receipts' `lines` in the original file) and the new file. */
export interface SliceResult { report: any; text: string; }
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "Slice")]
    pub type JsSlice;
    #[wasm_bindgen(typescript_type = "object")]
    pub type Options;
}

type JsResult<T = JsValue> = Result<T, JsValue>;

/// Turns any error into the one kind of exception JS callers see.
fn js_error(e: impl std::fmt::Display) -> JsValue {
    let text = e.to_string();
    js_sys::Error::new(text.strip_prefix("Error: ").unwrap_or(&text)).into()
}

/// A crate error, with its stable code first so callers can branch on it.
fn syntax_error(e: patchbay_syntax::Error) -> JsValue {
    js_error(format!("{}: {e}", e.code()))
}

/// Serializes with maps as plain objects and numbers as numbers.
fn to_js(value: &impl Serialize) -> JsResult {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(js_error)
}

/// A JSON round trip, so that fields set to `undefined` count as absent.
fn plain(value: &JsValue) -> JsResult {
    js_sys::JSON::parse(&String::from(js_sys::JSON::stringify(value)?))
}

fn language(path: &str, name: Option<String>) -> JsResult<Language> {
    Language::resolve(path, name.as_deref()).map_err(syntax_error)
}

fn slice_arg(s: JsSlice) -> JsResult<Slice> {
    from_value(plain(&s.into())?).map_err(js_error)
}

/// The languages compiled into this module.
#[wasm_bindgen(unchecked_return_type = "LanguageName[]")]
pub fn languages() -> JsResult {
    let names: Vec<&str> = patchbay_syntax::lang::enabled()
        .into_iter()
        .map(|l| l.name())
        .collect();
    to_js(&names)
}

/// The definitions of a file; the language comes from `path`'s extension
/// unless `language` names it.
#[wasm_bindgen(unchecked_return_type = "Outline")]
pub fn outline(path: &str, text: &str, language: Option<String>) -> JsResult {
    let lang = self::language(path, language)?;
    to_js(&patchbay_syntax::outline(text, lang).map_err(syntax_error)?)
}

/// Every symbol as a flat section list (for budget planners).
#[wasm_bindgen(unchecked_return_type = "Section[]")]
pub fn sections(path: &str, text: &str, language: Option<String>) -> JsResult {
    let lang = self::language(path, language)?;
    to_js(&patchbay_syntax::sections(text, lang).map_err(syntax_error)?)
}

/// Cuts one symbol out: `symbol` is a qualified name, a name, or a line
/// number (the innermost symbol there).
#[wasm_bindgen(unchecked_return_type = "Slice")]
pub fn slice(path: &str, text: &str, symbol: &str, language: Option<String>) -> JsResult {
    let lang = self::language(path, language)?;
    to_js(&patchbay_syntax::slice::slice(path, text, lang, symbol).map_err(syntax_error)?)
}

/// Puts an edited slice text back into `text` (the file it was cut from);
/// returns the new file. Throws `stale_slice: ...` if the file changed.
#[wasm_bindgen]
pub fn splice(text: &str, slice: JsSlice, edited: &str) -> JsResult<String> {
    let s = slice_arg(slice)?;
    patchbay_syntax::splice::splice(text, &s, edited).map_err(syntax_error)
}

/// Applies a model reply (any patchbay format) to a slice as a file of its
/// own and splices the result into `text`.
#[wasm_bindgen(js_name = applyToSlice, unchecked_return_type = "SliceResult")]
pub fn apply_to_slice(
    text: &str,
    slice: JsSlice,
    output: &str,
    options: Option<Options>,
) -> JsResult {
    let s = slice_arg(slice)?;
    let options: ApplyOptions = match options {
        Some(o) => from_value(plain(&o.into())?).map_err(js_error)?,
        None => ApplyOptions::default(),
    };
    let (report, new_text) =
        patchbay_syntax::apply_to_slice(text, &s, output, &options).map_err(syntax_error)?;
    #[derive(Serialize)]
    struct Out {
        report: patchbay::Report,
        text: String,
    }
    to_js(&Out {
        report,
        text: new_text,
    })
}

/// The syntax errors `after` has that `before` did not (ERROR and MISSING
/// nodes), with their lines in `after`.
#[wasm_bindgen(js_name = parseCheck, unchecked_return_type = "SyntaxIssue[]")]
pub fn parse_check(path: &str, before: &str, after: &str, language: Option<String>) -> JsResult {
    let lang = self::language(path, language)?;
    to_js(&patchbay_syntax::new_issues(before, after, lang).map_err(syntax_error)?)
}
