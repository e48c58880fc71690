//! The WebAssembly binding of patchbay-syntax: tree-sitter outlines,
//! slices, splices and parse checks for the browser.
//!
//! A module of its own (`web/pkg-syntax/`), so that the grammars (several
//! hundred KB) never ride in the core bundle: a page loads it only when a
//! user asks for an outline. Like `patchbay-wasm` it holds no logic: each
//! function deserializes, calls the crate and serializes; every error is a
//! `js_sys::Error` through `syntax_error`, its message prefixed by the
//! error's stable code (`stale_slice: ...`).
//!
//! It does not apply edits: the package's `patchbay/syntax` entry composes
//! `slice` -> the core module's `applyEdits` -> `splice`, so one copy of the
//! core serves both modules (the linker drops the core's transaction here).

use patchbay_js::{error, record, to_js, JsResult};
use patchbay_syntax::{Language, Slice};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("../types.d.ts");

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "Slice")]
    pub type JsSlice;
}

#[wasm_bindgen(start, skip_typescript)]
fn start() {
    patchbay_js::install_panic_hook();
}

/// A crate error as an `Error` whose message starts with its stable code
/// (`stale_slice: ...`), also set as its `code` property.
fn syntax_error(e: patchbay_syntax::Error) -> JsValue {
    let err = error(format!("{}: {e}", e.code()));
    let _ = js_sys::Reflect::set(&err, &"code".into(), &e.code().into());
    err
}

fn language(path: &str, name: Option<String>) -> JsResult<Language> {
    Language::resolve(path, name.as_deref()).map_err(syntax_error)
}

fn slice_arg(s: JsSlice) -> JsResult<Slice> {
    record(&s.into(), "slice")
}

/// The languages compiled into this module.
#[wasm_bindgen(unchecked_return_type = "Language[]")]
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

/// The syntax errors `after` has that `before` did not (ERROR and MISSING
/// nodes), with their lines in `after`.
#[wasm_bindgen(js_name = parseCheck, unchecked_return_type = "SyntaxIssue[]")]
pub fn parse_check(path: &str, before: &str, after: &str, language: Option<String>) -> JsResult {
    let lang = self::language(path, language)?;
    to_js(&patchbay_syntax::new_issues(before, after, lang).map_err(syntax_error)?)
}

/// The first half of applying a reply to a slice: the slice checked against
/// `text` (throws `stale_slice: ...` if the file changed) as the files the
/// core module's `applyEdits` runs on, with the path its edits default to.
#[wasm_bindgen(js_name = sliceInput, unchecked_return_type = "SliceInput")]
pub fn slice_input(text: &str, slice: JsSlice) -> JsResult {
    let s = slice_arg(slice)?;
    to_js(&patchbay_syntax::slice_input(text, &s).map_err(syntax_error)?)
}

/// The second half: the core's report on the slice, its receipts moved to
/// the lines of `text`, and the new file.
#[wasm_bindgen(js_name = spliceReport, unchecked_return_type = "SliceResult")]
pub fn splice_report(
    text: &str,
    slice: JsSlice,
    #[wasm_bindgen(unchecked_param_type = "Report")] report: JsValue,
) -> JsResult {
    let s = slice_arg(slice)?;
    let report: patchbay::Report = record(&report, "report")?;
    let (report, text) = patchbay_syntax::splice_report(text, &s, report).map_err(syntax_error)?;
    to_js(&patchbay_syntax::SliceResult { report, text })
}
