//! patchbay: apply what a language model writes when it changes code, or
//! refuse with an error the model can act on.
//!
//! The core is pure Rust with no I/O: text in, text plus a report out. Every
//! format parses into the same [`edit::Edit`]s; one matcher ladder
//! ([`apply::matcher`]) locates them and one transaction
//! ([`apply::transaction`]) applies
//! them all or none.
//!
//! ```
//! use std::collections::BTreeMap;
//! let mut files = BTreeMap::new();
//! files.insert("app.py".to_string(), "def f():\n    return 1\n".to_string());
//! let reply = "app.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n";
//! let report = patchbay::apply(reply, &files, &patchbay::ApplyOptions::default());
//! assert_eq!(report.status, patchbay::Status::Applied);
//! assert_eq!(report.files[0].content.as_deref(), Some("def f():\n    return 2\n"));
//! ```

pub mod apply;
pub mod budget;
pub(crate) mod crc;
pub mod edit;
pub mod edit_loop;
pub mod formats;
mod name;
pub(crate) mod order;
mod reading;
pub mod reply;
pub(crate) mod table;
#[cfg(test)]
mod test_support;

pub use apply::matcher::Level;
pub use apply::report::{FileReport, FileStatus, Report, Status};
pub use apply::seen::{crc_view, seen_view, SeenLines};
pub use apply::tags::TagOptions;
pub use apply::text::file_crc;
pub use apply::transaction::Options;
pub use edit::{
    Check, Closest, Code, Edit, EditStatus, FirstDifference, Op, Parsed, Position, Receipt,
};
pub use formats::{FormatName, ParseOptions, UnknownFormat};
pub use reply::detect::{detect, Detection};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Options of [`apply()`]: the format (`auto` detects it), how the reply is
/// read, and the transaction's options (one JSON object: the transaction's
/// fields sit beside `format`). By default the format is `auto`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub struct ApplyOptions {
    #[cfg_attr(feature = "ts", ts(type = "FormatName"))]
    pub format: FormatName,
    /// Strict mode: exact matching only, and formats honour what the model
    /// stated (udiff line numbers and counts) instead of repairing it.
    pub strict: bool,
    /// Tag options for the hashline format.
    pub tags: TagOptions,
    /// Why the model stopped, when the caller knows: `stop` (it ended on
    /// its own) lets a reply that only may be cut apply; `length` (the
    /// reply limit cut it) makes the reply `truncated` however complete it
    /// looks, so a cut reply never applies.
    pub stop_reason: Option<StopReason>,
    /// The transaction's options.
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(flatten))]
    pub transaction: Options,
}

/// Why a model stopped generating, as its server reports it (Ollama's
/// `done_reason`, OpenAI's `finish_reason`, Anthropic's `stop_reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// It ended on its own (`stop`, `end_turn`, `stop_sequence`).
    #[serde(alias = "end_turn", alias = "stop_sequence", alias = "eos")]
    Stop,
    /// The reply limit cut it off (`length`, `max_tokens`).
    #[serde(alias = "max_tokens")]
    Length,
}

impl std::str::FromStr for StopReason {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        serde_json::from_value(serde_json::Value::String(s.to_owned())).map_err(|_| {
            format!(
                "unknown stop reason {s:?}; expected stop (or end_turn) or length (or max_tokens)"
            )
        })
    }
}

impl ApplyOptions {
    /// The transaction's options as the transaction takes them: `strict`
    /// caps the matcher at `Exact`, and the edits set aside are sorted.
    pub fn transaction_options(&self) -> Options {
        let mut t = self.transaction.clone();
        if self.strict {
            t.max_level = Level::Exact;
        }
        crate::order::sort(&mut t.skip[..]);
        t.skip.dedup();
        t
    }

    pub fn parse_options(&self) -> ParseOptions {
        ParseOptions {
            strict: self.strict,
            tags: self.tags,
            complete: self.stop_reason == Some(StopReason::Stop),
        }
    }
}

/// Resolves a format name (`auto` detects from the output) and parses.
pub fn parse(output: &str, format: FormatName) -> (FormatName, Parsed) {
    parse_with(output, format, &ParseOptions::default())
}

/// [`parse`] with format options.
pub fn parse_with(output: &str, format: FormatName, opt: &ParseOptions) -> (FormatName, Parsed) {
    let (masked, reasoning) = reply::reasoning::mask(output);
    let output = &*masked;
    let lines = reply::scan::out_lines(output);
    let (name, mut parsed) = parse_edits(output, &lines, format, opt);
    skip_reasoning(output, &mut parsed, reasoning);
    reply::read(&mut parsed, output, &lines);
    (name, parsed)
}

/// The format's parse, with the detection when the format is `auto`, on
/// the reply split once (`lines`); the reply-wide facts ([`reply::read`])
/// are left to the caller. Every name but `auto` is a registered format,
/// and `auto` is the detected one, so every name parses.
fn parse_edits(
    output: &str,
    lines: &[reply::scan::OutLine],
    format: FormatName,
    opt: &ParseOptions,
) -> (FormatName, Parsed) {
    let (f, detection) = match formats::by_id(format) {
        Some(f) => (f, None),
        None => {
            let (f, d) = reply::detect::detect_format(output, lines);
            (f, Some(d))
        }
    };
    let mut parsed = f.parse_lines(output, lines, opt);
    parsed.detection = detection;
    (f.id(), parsed)
}

/// The normalised paths a parsed output touches (those that are valid), so
/// a caller with a file system knows what to load.
pub fn paths(parsed: &Parsed, default_path: Option<&str>) -> Vec<String> {
    let mut v: Vec<String> = parsed
        .edits
        .iter()
        .filter_map(|e| apply::transaction::target_path(e, default_path).ok())
        .collect();
    // Rename targets are loaded too, so that an existing one is refused.
    v.extend(parsed.edits.iter().filter_map(|e| match &e.op {
        Op::Rename { to } => apply::paths::normalize(to).ok(),
        _ => None,
    }));
    crate::order::sort(&mut v[..]);
    v.dedup();
    v
}

/// Parses `output` and applies it to `files` (path -> text; absent paths do
/// not exist) as one transaction.
pub fn apply(output: &str, files: &BTreeMap<String, String>, opt: &ApplyOptions) -> Report {
    let (name, parsed) = parse_reply(output, opt);
    apply::transaction::run(name, &parsed, files, &opt.transaction_options())
}

/// Parses a reply as [`apply()`] does: the format and parse options of
/// `opt`, and its stop reason (`length` makes the reply `truncated`).
pub fn parse_reply(output: &str, opt: &ApplyOptions) -> (FormatName, Parsed) {
    let (masked, reasoning) = reply::reasoning::mask(output);
    let output = &*masked;
    let lines = reply::scan::out_lines(output);
    let (name, mut parsed) = parse_edits(output, &lines, opt.format, &opt.parse_options());
    skip_reasoning(output, &mut parsed, reasoning);
    match opt.stop_reason {
        Some(StopReason::Length) => cut_by_limit(output, &mut parsed),
        Some(StopReason::Stop) => {}
        None => cut_in_a_line(output, &mut parsed),
    }
    reply::read(&mut parsed, output, &lines);
    (name, parsed)
}

/// Records the reasoning section the parse skipped; a reply that ends
/// inside one was cut before its answer: `truncated`.
fn skip_reasoning(
    output: &str,
    parsed: &mut Parsed,
    reasoning: Option<reply::reasoning::Reasoning>,
) {
    if let Some(r) = reasoning.as_ref().filter(|r| !r.closed) {
        let message = format!(
            "the reply ends inside its reasoning section (<{}> at line {}, never closed): it was cut off before its answer",
            r.tag, r.lines[0]
        );
        mark_cut(parsed, message, output.len()..output.len());
    }
    parsed.reasoning = reasoning;
}

/// A reply that stops inside a line that begins a structure (a fence, a
/// marker, a header, a JSON object: [`scan::partial_structure`]) was cut
/// off where its next edit began, even when the edits before it are
/// complete: `truncated`, so that the cut never applies part of a reply.
fn cut_in_a_line(output: &str, parsed: &mut Parsed) {
    if parsed.truncated {
        return;
    }
    let Some(last) = reply::scan::partial_structure(output) else {
        return;
    };
    let message = format!(
        "the reply ends inside the line `{}`, which begins an edit (or its end marker): it was cut off",
        last.trim()
    );
    mark_cut(parsed, message, output.len() - last.len()..output.len());
}

/// Marks the reply cut: a `truncated` edit at `span` says why.
fn mark_cut(parsed: &mut Parsed, message: String, span: std::ops::Range<usize>) {
    parsed.truncated = true;
    parsed.edits.push(Edit {
        path: None,
        op: Op::invalid(Code::Truncated, message),
        span,
    });
}

/// A reply the reply limit cut off (stop reason `length`) is `truncated`
/// however complete it looks: its last edit may have lost lines that no
/// format can see are missing, so that edit is the cut one, and the ones
/// before it wait for the rest (a truncated reply applies nothing).
fn cut_by_limit(output: &str, parsed: &mut Parsed) {
    if parsed.truncated {
        return;
    }
    parsed.truncated = true;
    let op = Op::invalid(Code::Truncated, "the reply was cut off by its length limit (stop reason `length`), so this last edit may be incomplete; nothing was applied".into());
    match parsed.edits.last_mut() {
        Some(last) => last.op = op,
        None => parsed.edits.push(Edit {
            path: None,
            op,
            span: 0..output.len(),
        }),
    }
}

/// The canonical edit in `format` that turns `before` into `after`.
/// `auto` names no format: an [`UnknownFormat`].
pub fn render(
    format: FormatName,
    path: &str,
    before: &str,
    after: &str,
) -> Result<String, UnknownFormat> {
    let f = formats::by_id(format).ok_or_else(|| UnknownFormat(format.to_string()))?;
    Ok(f.render(path, before, after))
}
