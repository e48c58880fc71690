//! Reading a model's reply before any format parses it: output lines,
//! Markdown fences and path lines (`scan`), what a format's sniffer reads
//! and answers (`sniff`), JSON edits found in prose (`json_edits`),
//! declared counts and truncation (`counts`), and the reasoning section a
//! reply may start with, which no format reads (`reasoning`). The formats
//! read replies with these; the public paths are under `reply`.

use crate::edit::Parsed;

pub mod counts;
pub mod json_edits;
pub mod reasoning;
pub mod scan;
pub mod sniff;

/// Fills in what a parse leaves to the reply as a whole: each edit's lines
/// in the reply (from the reply's `lines`, split once for detection,
/// parsing and this) and the declared edit count (from its first lines).
pub fn read(parsed: &mut Parsed, output: &str, lines: &[scan::OutLine]) {
    if let Some((span, message)) = counts::declared_too_large(output) {
        let code = crate::edit::Code::Malformed;
        let op = crate::edit::Op::invalid(code, message);
        parsed.edits.push(crate::edit::Edit {
            path: None,
            op,
            span,
        });
    }
    let lines = scan::OutputLines::from_lines(output, lines);
    parsed.lines = parsed.edits.iter().map(|e| lines.range(&e.span)).collect();
    parsed.declared = counts::declared_edits(output);
}
