//! Reading a model's reply before any format parses it: output lines,
//! Markdown fences and path lines (`scan`), JSON edits found in prose
//! (`json_edits`), which format the reply is in (`detect`), declared counts
//! and truncation (`counts`), and replies that arrive in pieces (`stream`).

use crate::edit::Parsed;

pub mod counts;
pub mod detect;
pub mod json_edits;
pub mod scan;
pub mod sniff;
pub mod stream;

/// Fills in what a parse leaves to the reply as a whole: each edit's lines
/// in the reply and the declared edit count. One pass over the reply for
/// the line breaks, one over its first lines for the count.
pub fn read(parsed: &mut Parsed, output: &str) {
    let lines = scan::OutputLines::new(output);
    parsed.lines = parsed.edits.iter().map(|e| lines.range(&e.span)).collect();
    parsed.declared = counts::declared_edits(output);
}
