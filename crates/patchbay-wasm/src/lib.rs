//! The WebAssembly binding of patchbay, the only crate that knows about JS.
//!
//! It holds no logic (DESIGN.md): each function deserializes its arguments,
//! calls the core and serializes the result as plain JS objects. Every error
//! becomes a `js_sys::Error` through [`js_error`]; failed edits are not errors
//! but data in the returned report.

use patchbay::ApplyOptions;
use serde::Serialize;
use serde_wasm_bindgen::from_value;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Edit format names; `auto` detects the format from the reply. */
export type FormatName = "search-replace" | "whole" | "auto" | (string & {});
/** Matcher levels, from strict to tolerant. */
export type Level = "exact" | "trailing_ws" | "indent" | "blank_lines" | "tabs" | "unicode";
/** Failure codes of receipts. */
export type Code =
  | "not_found" | "ambiguous" | "stale_tag" | "out_of_range" | "overlap" | "malformed"
  | "truncated" | "elided" | "path_escape" | "file_missing" | "file_exists" | "no_edits"
  | "already_applied" | "held_back" | (string & {});

/** Options of `applyEdits`; every field is optional. */
export interface ApplyOptions {
  /** Format name, default `auto`. */
  format?: FormatName;
  /** Apply the edits that located even if others failed. Default false (all-or-nothing). */
  partial?: boolean;
  /** Target for edits that carry no path. */
  defaultPath?: string | null;
  /** Hint window in lines. */
  window?: number;
  /** Matcher levels up to this one are tried. */
  maxLevel?: Level;
}

/** The typed receipt of one edit. */
export interface Receipt {
  /** 1-based number of the edit in the reply. */
  index: number;
  status: "applied" | "failed" | "skipped";
  code?: Code;
  /** The matcher level that located the edit. */
  strategy?: Level;
  /** 1-based inclusive line range replaced in the original file. */
  lines?: [number, number];
  message?: string;
  /** 1-based line range of the edit in the reply. */
  output_lines?: [number, number];
}

export interface FileReport {
  path: string;
  status: "applied" | "created" | "deleted" | "failed" | "skipped";
  edits: Receipt[];
  /** The new text of an applied or created file. */
  content?: string;
}

export interface Report {
  status: "applied" | "failed" | "truncated";
  format: string;
  /** Set when the failure is not tied to one edit (`no_edits`). */
  code?: Code;
  files: FileReport[];
  /** Model-readable text: what failed and how to fix it. */
  feedback: string;
}

export interface Detection {
  format: string;
  /** In 0..1. */
  confidence: number;
  reason: string;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// A plain object path -> text; absent paths do not exist.
    #[wasm_bindgen(typescript_type = "Record<string, string>")]
    pub type Files;
    #[wasm_bindgen(typescript_type = "ApplyOptions")]
    pub type Options;
}

type JsResult<T = JsValue> = Result<T, JsValue>;

/// Turns any error into the one kind of exception JS callers see.
fn js_error(e: impl std::fmt::Display) -> JsValue {
    let text = e.to_string();
    // serde-wasm-bindgen's errors print as `Error: ...` already.
    js_sys::Error::new(text.strip_prefix("Error: ").unwrap_or(&text)).into()
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

/// Applies a model reply to `files` (path -> text) as one transaction.
#[wasm_bindgen(js_name = applyEdits, unchecked_return_type = "Report")]
pub fn apply_edits(files: Files, output: &str, options: Option<Options>) -> JsResult {
    let files: BTreeMap<String, String> = from_value(files.into()).map_err(js_error)?;
    let options: ApplyOptions = match options {
        Some(o) => from_value(plain(&o)?).map_err(js_error)?,
        None => ApplyOptions::default(),
    };
    to_js(&patchbay::apply(output, &files, &options).map_err(js_error)?)
}

/// Guesses the format of a model reply.
#[wasm_bindgen(js_name = detectFormat, unchecked_return_type = "Detection")]
pub fn detect_format(output: &str) -> JsResult {
    to_js(&patchbay::formats::detect(output))
}

/// The canonical edit in `format` that turns `before` into `after`.
#[wasm_bindgen]
pub fn render(format: &str, path: &str, before: &str, after: &str) -> JsResult<String> {
    patchbay::render(format, path, before, after).map_err(js_error)
}

/// The format names accepted by `applyEdits` and `render`, `auto` included.
#[wasm_bindgen]
pub fn formats() -> Vec<String> {
    let names = patchbay::formats::names();
    names.into_iter().map(String::from).collect()
}
