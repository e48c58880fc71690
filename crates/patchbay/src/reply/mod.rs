//! Reading a model's reply before any format parses it: output lines,
//! Markdown fences and path lines (`scan`), JSON edits found in prose
//! (`json_edits`), which format the reply is in (`detect`), declared counts
//! and truncation (`counts`), and replies that arrive in pieces (`stream`).

pub mod counts;
pub mod detect;
pub mod json_edits;
pub mod scan;
pub mod stream;
