//! Streaming: judge edits while the model is still writing.
//!
//! A [`Stream`] is fed the reply chunk by chunk. The moment an edit is
//! complete it is located against the original files and its receipt is
//! emitted, so a client can stop the generation at the first failing edit
//! instead of paying for the rest. [`Stream::finish`] runs the ordinary
//! transaction on the whole reply, so the final report is exactly what
//! [`crate::apply`] gives for the same text, whatever the chunking.
//!
//! An edit counts as complete once the parse of the text so far holds a
//! later edit, or the edit ends with its format's closing marker (a SEARCH/
//! REPLACE block's `>>>>>>> REPLACE`, a closed fence); text that arrives later
//! can then no longer change it. Cost: each chunk re-parses the text received
//! so far, `O(total)` a chunk; each emitted edit is located once (`O(N)` for
//! an `N`-byte file, as in the transaction).

use crate::edit::{Code, Op, Parsed, Receipt};
use crate::report::Report;
use crate::{formats, transaction, ApplyOptions};
use std::collections::BTreeMap;

/// One edit judged early.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Event {
    /// The edit's path as resolved (empty when it has none).
    pub path: String,
    /// The receipt of the edit located on its own against the original.
    /// Overlaps with later edits are only known at the end.
    pub receipt: Receipt,
}

/// An incremental parser and locator for one reply.
pub struct Stream {
    files: BTreeMap<String, String>,
    opt: ApplyOptions,
    buf: String,
    /// The format, fixed by the first edit that was emitted.
    format: Option<&'static str>,
    emitted: usize,
}

impl Stream {
    /// `files` may start empty and be filled as paths appear
    /// ([`Stream::paths`], [`Stream::add_file`]), as a file-system caller does.
    pub fn new(files: BTreeMap<String, String>, opt: ApplyOptions) -> Self {
        Stream {
            files,
            opt,
            buf: String::new(),
            format: None,
            emitted: 0,
        }
    }

    /// The valid paths named by the text so far.
    pub fn paths(&self) -> Vec<String> {
        match self.parse() {
            Some((_, p)) => crate::paths(&p, self.opt.default_path.as_deref()),
            None => vec![],
        }
    }

    /// Whether the stream already knows the text of `path`.
    pub fn has_file(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// Makes an existing file known before the edits that touch it are judged.
    pub fn add_file(&mut self, path: String, text: String) {
        self.files.insert(path, text);
    }

    /// The text received so far.
    pub fn text(&self) -> &str {
        &self.buf
    }

    fn parse(&self) -> Option<(&'static str, Parsed)> {
        let name = match self.format {
            Some(n) => n,
            // Detection may change its mind as text arrives: emit early only
            // once it is sure; otherwise everything waits for `finish`.
            None if self.opt.format == "auto" => {
                let d = formats::detect(&self.buf);
                if d.confidence < 0.9 {
                    return None;
                }
                d.format
            }
            None => self.opt.format.as_str(),
        };
        let f = formats::by_name(name)?;
        Some((f.name(), f.parse(&self.buf, &self.opt.parse_options())))
    }

    /// Adds a chunk; returns the edits that became complete with it.
    pub fn push(&mut self, chunk: &str) -> Vec<Event> {
        self.buf.push_str(chunk);
        self.judge()
    }

    /// Adds a chunk without judging, for a caller that must first load the
    /// files the new text names ([`Stream::paths`]), then calls `judge`.
    pub fn append(&mut self, chunk: &str) {
        self.buf.push_str(chunk);
    }

    /// Judges what is complete in the text received so far (after files
    /// were added, say).
    pub fn judge(&mut self) -> Vec<Event> {
        let Some((name, parsed)) = self.parse() else {
            return vec![];
        };
        let mut ready = parsed.edits.len();
        if let Some(last) = parsed.edits.last() {
            let cut = matches!(
                last.op,
                Op::Invalid {
                    code: Code::Truncated,
                    ..
                }
            );
            let rest = self.buf.get(last.span.end..).unwrap_or("");
            if cut || !closed(name, &self.buf[last.span.clone()], rest) {
                ready -= 1;
            }
        }
        let mut out = vec![];
        while self.emitted < ready {
            let i = self.emitted;
            // An edit without a path gets its target from text that may
            // still come (whole-file blocks): it waits for `finish`.
            if parsed.edits[i].path.is_none() {
                break;
            }
            // An edit that reaches into a line still arriving may change.
            if parsed.edits[i].span.end >= self.buf.len() && !self.buf.ends_with('\n') {
                break;
            }
            self.format.get_or_insert(name);
            let one = Parsed {
                edits: vec![parsed.edits[i].clone()],
                truncated: false,
                mentions: (parsed.mentions.iter())
                    .filter(|(k, _)| *k == i)
                    .map(|(_, m)| (0, m.clone()))
                    .collect(),
            };
            let report =
                transaction::run(name, &self.buf, &one, &self.files, &self.opt.transaction());
            if let Some(f) = report.files.first() {
                if let Some(r) = f.edits.first() {
                    let mut receipt = r.clone();
                    receipt.index = i + 1;
                    out.push(Event {
                        path: f.path.clone(),
                        receipt,
                    });
                }
            }
            self.emitted += 1;
        }
        out
    }

    /// The final report for the whole reply: the same as [`crate::apply`]
    /// on the whole text.
    pub fn finish(self) -> Report {
        let opt = self.opt;
        match crate::apply(&self.buf, &self.files, &opt) {
            Ok(r) => r,
            Err(e) => Report {
                status: crate::Status::Failed,
                format: opt.format,
                code: Some(Code::Malformed),
                files: vec![],
                feedback: e.to_string(),
            },
        }
    }
}

/// Whether an edit's text ends with a marker after which nothing can be
/// added to it, in the format that parsed it; `rest` is the text after the
/// edit (a terminator line may stand there, outside the edit's span).
fn closed(format: &str, span: &str, rest: &str) -> bool {
    let last = span.trim_end().lines().last().unwrap_or("").trim();
    // The first complete line after the edit.
    let next = rest.trim_start_matches(['\n', '\r']);
    let next = next.split_once('\n').map(|(l, _)| l.trim());
    if format == "lines" && matches!(next, Some("@@ end")) {
        return true;
    }
    let fence =
        last.len() >= 3 && (last.chars().all(|c| c == '`') || last.chars().all(|c| c == '~'));
    match format {
        "search-replace" => crate::formats::search_replace::is_tail(last) || fence,
        "apply-patch" => last == "*** End Patch" || next == Some("*** End Patch"),
        // A JSON edit is parsed only once its object is closed.
        "tool-call" | "hashline" => last.ends_with('}') || last.ends_with(']') || fence,
        "lines" => last == "@@ end" || fence,
        _ => fence,
    }
}
