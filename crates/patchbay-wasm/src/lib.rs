//! The WebAssembly binding of patchbay, the only crate that knows about JS.
//!
//! It holds no logic (DESIGN.md): each function deserializes its arguments,
//! calls the core and serializes the result as plain JS objects. Every error
//! becomes a `js_sys::Error` through [`js_error`]; failed edits are not errors
//! but data in the returned report.

use patchbay::formats::udiff;
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
  | "already_applied" | "held_back" | "not_shown" | "syntax_error" | "path_unclear" | "file_changed" | (string & {});

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
  /** Why the model stopped, as its server said: `stop` lets a reply that only may be cut apply; `length` makes it truncated. */
  stopReason?: "stop" | "length" | "end_turn" | "max_tokens" | "stop_sequence" | null;
  /** Codex's rule: an added file replaces an existing one, a move may land on one. Default false. */
  overwrite?: boolean;
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

/// The files argument as the core takes it: path -> text.
fn files_map(files: Files) -> JsResult<BTreeMap<String, String>> {
    from_value(files.into()).map_err(js_error)
}

/// Applies a model reply to `files` (path -> text) as one transaction.
#[wasm_bindgen(js_name = applyEdits, unchecked_return_type = "Report")]
pub fn apply_edits(files: Files, output: &str, options: Option<Options>) -> JsResult {
    let files = files_map(files)?;
    let options: ApplyOptions = match options {
        Some(o) => from_value(plain(&o)?).map_err(js_error)?,
        None => ApplyOptions::default(),
    };
    to_js(&patchbay::apply(output, &files, &options).map_err(js_error)?)
}

/// Guesses the format of a model reply.
#[wasm_bindgen(js_name = detectFormat, unchecked_return_type = "Detection")]
pub fn detect_format(output: &str) -> JsResult {
    to_js(&patchbay::detect(output))
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

#[wasm_bindgen(typescript_custom_section)]
const TS_TOKEN_TYPES: &'static str = r#"
/** Model families of the token estimator; the exact names count exactly in `patchbay-tokens`. */
export type Family = "o200k_base" | "cl100k_base" | "llama3" | "qwen2" | "deepseek_v3" | "gemma";

/** Options of `compare`; every field is optional. */
export interface CompareOptions {
  /** The path the edits name. Default `file`. */
  path?: string;
  /** `estimate` or `estimate:FAMILY` (the binding has no vocabularies). */
  tokenizer?: string;
  /** Files with fewer lines are rewritten whole. Default 300. */
  wholeBelowLines?: number;
  /** A larger changed share (0..1) is rewritten whole. Default 0.3. */
  wholeAboveChange?: number;
}

export interface FormatCost {
  format: string; bytes: number; tokens: number;
  /** The edit applied to BEFORE gives AFTER exactly. */
  unambiguous: boolean; problem?: string; edit: string;
}

export interface Comparison {
  lines_before: number; lines_after: number; changed_lines: number; change_ratio: number;
  tokenizer: string;
  /** Cheapest first. */
  formats: FormatCost[];
  recommendation: { format: string; reason: string };
}

/** A section of a file: 1-based inclusive lines. */
export interface Section { name: string; kind: string; startLine: number; endLine: number }

/** What one model call should see; see `plan`. */
export interface PlanRequest {
  window: number;
  system?: string;
  /** Tokens reserved for the reply. */
  reserve?: number;
  /** Oldest first. */
  memory?: string[];
  context?: { name: string; text: string }[];
  task?: string;
  /** `sections` (an outline) replaces the built-in line index. */
  files: { path: string; text: string; sections?: Section[] }[];
  options?: {
    tokenizer?: string; indexThreshold?: number; lineNumbers?: "sections" | "every";
    overhead?: number; expectedOutput?: { perItem: number; items: number };
  };
}

export interface Plan {
  window: number; tokenizer: string;
  totals: { system: number; task: number; reserve: number; overhead: number; memory: number;
            context: number; code: number; free: number; code_budget: number };
  parts: { kind: string; name: string; tokens: number; status: "kept" | "dropped" | "trimmed"; reason?: string }[];
  files: { path: string; lines: number; fullTokens: number; tokens: number; mode: "whole" | "sections";
           ranges: [number, number][]; excerpt: string;
           index: (Section & { tokens: number; selected: boolean; reason?: string })[] }[];
  warnings: string[];
}
"#;

/// The estimated token count of `text` for a model family (default
/// `o200k_base`).
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(
    text: &str,
    #[wasm_bindgen(unchecked_param_type = "Family")] family: Option<String>,
) -> JsResult<usize> {
    let family = match family {
        None => patchbay::budget::tokens::Family::default(),
        Some(f) => patchbay::budget::tokens::Family::from_name(&f)
            .ok_or_else(|| js_error(format!("unknown model family {f:?}")))?,
    };
    Ok(patchbay::budget::tokens::estimate(text, family))
}

/// Every format's canonical edit from `before` to `after`, its size, and
/// the advised format.
#[wasm_bindgen(unchecked_return_type = "Comparison")]
pub fn compare(
    before: &str,
    after: &str,
    #[wasm_bindgen(unchecked_param_type = "CompareOptions")] options: Option<JsValue>,
) -> JsResult {
    let options: patchbay::budget::advisor::CompareOptions = match options {
        Some(o) => from_value(plain(&o)?).map_err(js_error)?,
        None => Default::default(),
    };
    to_js(&patchbay::budget::advisor::compare(before, after, &options))
}

/// Plans what fits in a context window; throws with the numbers when even
/// the minimum does not fit.
#[wasm_bindgen(unchecked_return_type = "Plan")]
pub fn plan(#[wasm_bindgen(unchecked_param_type = "PlanRequest")] request: JsValue) -> JsResult {
    let request: patchbay::budget::Request = from_value(plain(&request)?).map_err(js_error)?;
    to_js(&patchbay::budget::plan(&request).map_err(js_error)?)
}

/// The tagged view `N:TAG content` of a file, for hashline edits.
#[wasm_bindgen(js_name = tagView)]
pub fn tag_view(text: &str, tag_len: Option<usize>, with_line: Option<bool>) -> String {
    let opts = patchbay::TagOptions {
        len: tag_len.unwrap_or(4),
        with_line: with_line.unwrap_or(false),
    };
    patchbay::formats::hashline::tags::view(text, opts)
}

/// The numbered view with the file's CRC-32 header, for `lines` edits.
#[wasm_bindgen(js_name = crcView)]
pub fn crc_view(path: &str, text: &str) -> String {
    patchbay::crc_view(path, text)
}

/// Declared counts against what arrived (`Total: N`, `## Item n/N`, or a
/// cut JSON reply), with the continuation prompt for a cut reply.
#[wasm_bindgen(js_name = checkOutput)]
pub fn check_output(text: &str, stop_reason: Option<String>) -> JsResult {
    let p = patchbay::reply::counts::Protocol::default();
    let check = patchbay::reply::counts::check_output(text, &p, stop_reason.as_deref());
    #[derive(Serialize)]
    struct Checked {
        check: patchbay::reply::counts::OutputCheck,
        continuation: String,
    }
    let continuation = patchbay::reply::counts::continuation_prompt(&check, &p);
    to_js(&Checked {
        check,
        continuation,
    })
}

/// The prompt kit of a format: instructions, worked example, token costs.
#[wasm_bindgen(js_name = promptKit)]
pub fn prompt_kit(format: &str) -> JsResult {
    let kit = patchbay::budget::prompts::kit(format)
        .ok_or_else(|| js_error(format!("no prompt kit for {format:?}")))?;
    to_js(&kit)
}

#[wasm_bindgen(typescript_custom_section)]
const TS_UDIFF_TYPES: &'static str = r#"
/** What a finding of `udiffDiagnose` is about. */
export type FindingKind =
  | "truncated" | "no_numbers" | "old_count" | "new_count" | "missing_prefix" | "blank_line"
  | "unsupported" | "no_path" | "path_escape" | "file_missing" | "file_exists" | "creates" | "deletes"
  | "no_context" | "found" | "offset" | "by_hint" | "git_anchor" | "tolerated" | "reread"
  | "ambiguous" | "not_found" | (string & {});

export interface Finding {
  kind: FindingKind;
  /** What was found and what to write instead. */
  message: string;
  /** Whether it makes strict application (`git apply`) fail. */
  fatal: boolean;
}

/** Everything found about one hunk of a unified diff. */
export interface HunkDiagnosis {
  /** 1-based number of the hunk in the reply. */
  hunk: number;
  /** The file it targets, as written. */
  path: string | null;
  /** 1-based reply line of its `@@` header. */
  output_line: number;
  header: string;
  /** Strict mode (exact context, counts and markers, as `git apply`) applies it. */
  strict_ok: boolean;
  /** Where the default mode applies it: first and last original line replaced ([n, n-1] inserts before n). */
  lenient_lines: [number, number] | null;
  findings: Finding[];
}

/** How GNU patch's placement compares with where the hunk belongs. */
export type FuzzVerdict =
  | "agrees" | "misplaced" | "no_safe_place" | "rejected" | "malformed" | "not_reached" | "no_file" | "skipped" | "unsupported";

/** Where GNU patch (2.7.6, `-p1 -f`, default fuzz 2) would put one hunk. */
export interface FuzzReport {
  /** 1-based number of the hunk in the reply. */
  hunk: number;
  path: string | null;
  output_line: number;
  /** The old start line the header states. */
  stated_line: number | null;
  /** The number patch gives the hunk in its file ("Hunk #N"); null when it never reads it as a hunk. */
  patch_hunk: number | null;
  /** Where patch applies the hunk: its first line in the original file. */
  patch_line: number | null;
  /** The line patch prints ("Hunk #1 succeeded at L", "FAILED at L", "ignored at L"). */
  patch_reported_line: number | null;
  /** Context lines patch ignored at each end. */
  fuzz: number;
  /** The offset patch prints. */
  offset: number;
  /** Where the hunk belongs (1-based): the only place where it matches in full, or fits once its damaged lines are read right. */
  safe_line: number | null;
  /** `misplaced` and `no_safe_place` are silent misapplies. */
  verdict: FuzzVerdict;
  message: string;
}
"#;

/// Why each hunk of a unified diff fails strict application (as
/// `git apply`) or succeeds, and where the default mode puts it.
#[wasm_bindgen(js_name = udiffDiagnose, unchecked_return_type = "HunkDiagnosis[]")]
pub fn udiff_diagnose(reply: &str, files: Files) -> JsResult {
    to_js(&udiff::diagnose(reply, &files_map(files)?))
}

/// The reply's unified diff, corrected so that `git apply` accepts it.
/// Throws an `Error` (`cannot repair: ...`, one line per problem, also
/// as its `problems` array) when the default mode would refuse a hunk.
#[wasm_bindgen(js_name = udiffRepair)]
pub fn udiff_repair(reply: &str, files: Files) -> JsResult<String> {
    udiff::repair(reply, &files_map(files)?).map_err(|e| {
        let err = js_error(format!("cannot repair: {e}"));
        if let Ok(problems) = to_js(&e.problems) {
            let _ = js_sys::Reflect::set(&err, &"problems".into(), &problems);
        }
        err
    })
}

/// Where GNU `patch` with its default fuzz would put each hunk, and
/// whether that is the one place where the whole hunk matches.
#[wasm_bindgen(js_name = udiffPatchFuzz, unchecked_return_type = "FuzzReport[]")]
pub fn udiff_patch_fuzz(reply: &str, files: Files) -> JsResult {
    to_js(&udiff::patch_fuzz_simulation(reply, &files_map(files)?))
}
