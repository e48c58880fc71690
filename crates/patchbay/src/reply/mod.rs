//! A model's reply as a whole: which format it is in (`detect`) and replies
//! that arrive in pieces (`stream`), both above the formats and the
//! transaction. How a reply is read before any format parses it (`scan`,
//! `sniff`, `json_edits`, `counts`, `reasoning`, [`read`]) sits below the
//! formats, in its own module, and is reached here under the same paths.

pub mod detect;
pub mod stream;

pub use crate::reading::{counts, json_edits, read, reasoning, scan, sniff};
