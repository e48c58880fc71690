//! The WebAssembly binding of patchbay, the only crate that knows about JS.
//!
//! It holds no logic: each function checks its arguments, calls the core
//! and serializes the result as plain JS objects (camelCase keys, the
//! core's serde names). Misuse throws a `TypeError` or `RangeError`, bad
//! model output comes back as receipts (`patchbay-js`). Every data type in
//! the `.d.ts` is generated from the Rust types (`types.d.ts`, written by
//! `cargo run -p patchbay-types`); `files` is the first argument wherever a
//! function takes one.

mod edit_loop;

use patchbay::formats::udiff;
use patchbay::reply::stream::Stream;
use patchbay::{ApplyOptions, FormatName};
pub use patchbay_js::JsResult;
use patchbay_js::{error, files as files_arg, options, range_error, record, string, to_js};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("../types.d.ts");

#[wasm_bindgen(typescript_custom_section)]
const TS_FILES: &'static str = r#"
/** The files an edit may touch: path -> text; absent paths do not exist. */
export type Files = Record<string, string>;
"#;

// Optional arguments as extern types, so the `.d.ts` says `options?: T | null`.
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "ApplyOptions")]
    pub type ApplyOptionsArg;
    #[wasm_bindgen(typescript_type = "TagOptions")]
    pub type TagOptionsArg;
    #[wasm_bindgen(typescript_type = "CompareOptions")]
    pub type CompareOptionsArg;
    #[wasm_bindgen(typescript_type = "CheckOptions")]
    pub type CheckOptionsArg;
    #[wasm_bindgen(typescript_type = "Family")]
    pub type FamilyArg;
}

#[wasm_bindgen(start, skip_typescript)]
fn start() {
    patchbay_js::install_panic_hook();
}

/// The apply options. The format is read as a `FormatName`, so an unknown
/// name is a `RangeError` with the core's message, which lists the known
/// ones.
fn apply_options(value: Option<ApplyOptionsArg>) -> JsResult<ApplyOptions> {
    options(value.map(JsValue::from), "options")
}

/// A format name argument: an unknown name is a `RangeError`.
fn format_name(name: &str) -> JsResult<FormatName> {
    name.parse().map_err(range_error)
}

/// Applies a model reply to `files` as one transaction. Failed edits are
/// receipts in the report, never exceptions.
#[wasm_bindgen(js_name = applyEdits, unchecked_return_type = "Report")]
pub fn apply_edits(
    #[wasm_bindgen(unchecked_param_type = "Files")] files: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] reply: JsValue,
    options: Option<ApplyOptionsArg>,
) -> JsResult {
    let files = files_arg(&files)?;
    let reply = string(&reply, "reply")?;
    let opt = apply_options(options)?;
    to_js(&patchbay::apply(&reply, &files, &opt))
}

/// Guesses the format of a model reply.
#[wasm_bindgen(js_name = detectFormat, unchecked_return_type = "Detection")]
pub fn detect_format(reply: &str) -> JsResult {
    to_js(&patchbay::detect(reply))
}

/// The canonical edit in `format` that turns `before` into `after`.
#[wasm_bindgen]
pub fn render(
    #[wasm_bindgen(unchecked_param_type = "FormatName")] format: &str,
    path: &str,
    before: &str,
    after: &str,
) -> JsResult<String> {
    patchbay::render(format_name(format)?, path, before, after).map_err(range_error)
}

/// The format names accepted by `applyEdits` and `render`, `auto` included.
#[wasm_bindgen(unchecked_return_type = "FormatName[]")]
pub fn formats() -> JsResult {
    to_js(&patchbay::formats::names())
}

/// The estimated token count of `text` for a model family (the core's
/// default family when absent).
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(text: &str, family: Option<FamilyArg>) -> JsResult<usize> {
    let family = match family.map(JsValue::from) {
        None => patchbay::budget::tokens::Family::default(),
        Some(f) => {
            let f = string(&f, "family")?;
            patchbay::budget::tokens::Family::from_name(&f)
                .ok_or_else(|| range_error(format!("unknown model family {f:?}")))?
        }
    };
    Ok(patchbay::budget::tokens::estimate(text, family))
}

/// Every format's canonical edit from `before` to `after`, its size, and
/// the advised format.
#[wasm_bindgen(unchecked_return_type = "Comparison")]
pub fn compare(before: &str, after: &str, options: Option<CompareOptionsArg>) -> JsResult {
    let opt: patchbay::budget::advisor::CompareOptions =
        self::options(options.map(JsValue::from), "options")?;
    to_js(&patchbay::budget::advisor::compare(before, after, &opt))
}

/// Plans what fits in a context window; throws an `Error` with the numbers
/// when even the minimum does not fit.
#[wasm_bindgen(js_name = planBudget, unchecked_return_type = "Plan")]
pub fn plan_budget(
    #[wasm_bindgen(unchecked_param_type = "PlanRequest")] request: JsValue,
) -> JsResult {
    let request: patchbay::budget::Request = record(&request, "request")?;
    to_js(&patchbay::budget::plan(&request).map_err(error)?)
}

/// The tagged view `N:TAG content` of a file, for hashline edits.
#[wasm_bindgen(js_name = tagView)]
pub fn tag_view(text: &str, options: Option<TagOptionsArg>) -> JsResult<String> {
    Ok(patchbay::formats::hashline::tags::view(
        text,
        self::options(options.map(JsValue::from), "options")?,
    ))
}

/// The numbered view with the file's CRC-32 header, for `lines` edits.
#[wasm_bindgen(js_name = crcView)]
pub fn crc_view(path: &str, text: &str) -> String {
    patchbay::crc_view(path, text)
}

/// Declared counts against what arrived (`Total: N`, `## Item n/N`, or a
/// cut JSON reply), with the continuation prompt for a cut reply.
#[wasm_bindgen(js_name = checkOutput, unchecked_return_type = "Checked")]
pub fn check_output(text: &str, options: Option<CheckOptionsArg>) -> JsResult {
    let opt: patchbay::reply::counts::CheckOptions =
        self::options(options.map(JsValue::from), "options")?;
    to_js(&patchbay::reply::counts::check(text, &opt))
}

/// The prompt kit of a format: instructions, worked example, token costs.
#[wasm_bindgen(js_name = promptKit, unchecked_return_type = "Kit")]
pub fn prompt_kit(#[wasm_bindgen(unchecked_param_type = "FormatName")] format: &str) -> JsResult {
    let kit = format
        .parse::<FormatName>()
        .ok()
        .and_then(patchbay::budget::prompts::kit)
        .ok_or_else(|| range_error(format!("no prompt kit for format {format:?}")))?;
    to_js(&kit)
}

/// Why each hunk of a unified diff fails strict application (as
/// `git apply`) or succeeds, and where the default mode puts it.
#[wasm_bindgen(js_name = diagnoseUdiff, unchecked_return_type = "HunkDiagnosis[]")]
pub fn diagnose_udiff(
    #[wasm_bindgen(unchecked_param_type = "Files")] files: JsValue,
    reply: &str,
) -> JsResult {
    to_js(&udiff::diagnose(reply, &files_arg(&files)?))
}

/// The reply's unified diff, corrected so that `git apply` accepts it.
/// Throws an `Error` (`cannot repair: ...`, one line per problem, also as
/// its `problems` array) when the default mode would refuse a hunk.
#[wasm_bindgen(js_name = repairUdiff)]
pub fn repair_udiff(
    #[wasm_bindgen(unchecked_param_type = "Files")] files: JsValue,
    reply: &str,
) -> JsResult<String> {
    udiff::repair(reply, &files_arg(&files)?).map_err(|e| {
        let err = error(format!("cannot repair: {e}"));
        if let Ok(problems) = to_js(&e.problems) {
            let _ = js_sys::Reflect::set(&err, &"problems".into(), &problems);
        }
        err
    })
}

/// Where GNU `patch` with its default fuzz would put each hunk, and
/// whether that is the one place where the whole hunk matches.
#[wasm_bindgen(js_name = simulatePatchFuzz, unchecked_return_type = "FuzzReport[]")]
pub fn simulate_patch_fuzz(
    #[wasm_bindgen(unchecked_param_type = "Files")] files: JsValue,
    reply: &str,
) -> JsResult {
    to_js(&udiff::patch_fuzz_simulation(reply, &files_arg(&files)?))
}

/// Judges a reply while it streams: `push` each chunk as it arrives and get
/// the edits that became complete, each with its receipt (located alone
/// against the original: applied in preview, or failed with its feedback);
/// `finish` gives the same report as `applyEdits` on the whole text.
#[wasm_bindgen]
pub struct StreamParser {
    stream: Option<Stream>,
}

#[wasm_bindgen]
impl StreamParser {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Files")] files: JsValue,
        options: Option<ApplyOptionsArg>,
    ) -> JsResult<StreamParser> {
        let files = files_arg(&files)?;
        let opt = apply_options(options)?;
        Ok(StreamParser {
            stream: Some(Stream::new(files, opt)),
        })
    }

    /// Appends a chunk; returns the edits it completed.
    #[wasm_bindgen(unchecked_return_type = "StreamEvent[]")]
    pub fn push(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] chunk: JsValue,
    ) -> JsResult {
        let chunk = string(&chunk, "chunk")?;
        to_js(&self.open()?.push(&chunk))
    }

    /// The report of the whole reply; the parser takes no more chunks.
    #[wasm_bindgen(unchecked_return_type = "Report")]
    pub fn finish(&mut self) -> JsResult {
        self.open()?;
        let stream = self.stream.take().ok_or_else(finished)?;
        to_js(&stream.finish())
    }
}

impl StreamParser {
    fn open(&mut self) -> JsResult<&mut Stream> {
        self.stream.as_mut().ok_or_else(finished)
    }
}

fn finished() -> JsValue {
    patchbay_js::type_error("this StreamParser has finished; create a new one")
}
