//! The data every format produces and every report carries: edits, error
//! codes, receipts. Formats only parse into these; the transaction applies
//! them. Nothing here does work.

pub use crate::name::FormatName;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::Range;

/// Declares [`Code`] and its names once: each variant's contract name is
/// both its serde name and what [`Code::as_str`] gives.
macro_rules! codes {
    ($($(#[doc = $doc:literal])* $name:ident = $text:literal,)*) => {
        /// Failure codes. The names are a contract (docs/contracts.md): JSON,
        /// JS API, CLI. A code is never reused for another meaning; new ones
        /// are added at the end.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        pub enum Code {
            $($(#[doc = $doc])* #[serde(rename = $text)] $name,)*
        }

        impl Code {
            /// The code's contract name (`not_found`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$name => $text,)*
                }
            }
        }
    };
}

codes! {
    NotFound = "not_found",
    Ambiguous = "ambiguous",
    StaleTag = "stale_tag",
    OutOfRange = "out_of_range",
    Overlap = "overlap",
    Malformed = "malformed",
    Truncated = "truncated",
    Elided = "elided",
    PathEscape = "path_escape",
    FileMissing = "file_missing",
    FileExists = "file_exists",
    NoEdits = "no_edits",
    /// The SEARCH text is absent but the REPLACE text is already in the file:
    /// most likely the edit was applied before.
    AlreadyApplied = "already_applied",
    /// The edit located, but the transaction failed elsewhere, so it was held
    /// back (all-or-nothing).
    HeldBack = "held_back",
    /// A line-addressed edit names lines the model was never shown (the
    /// caller's `seen` snapshot, `lines` format): read them first.
    NotShown = "not_shown",
    /// The edit applied but left a syntax error the file did not have
    /// (patchbay-syntax's parse check, when it is set to fail).
    SyntaxError = "syntax_error",
    /// The edit names no file of its own, and the prose right above it
    /// names another file than the one it would go to (the previous
    /// block's, or the default): refused rather than applied to a file the
    /// model may not have meant.
    PathUnclear = "path_unclear",
    /// The file changed on disk between the read and the write (another
    /// process wrote it): nothing was written; read it again and redo the edit.
    FileChanged = "file_changed",
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an edit does. Block operations go through the matcher; the others
/// address the file as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Replace the lines `old` (found by the matcher ladder) with `new`.
    /// `hint` is a 0-based line where the model said the block starts.
    Replace {
        old: Vec<String>,
        new: Vec<String>,
        hint: Option<usize>,
        /// Lines that must be found first, in order, each after the one
        /// before (V4A's `@@ class A` / `@@ def f():`); the block is then
        /// looked for after the last one. Each must be unique there.
        anchors: Vec<String>,
        /// The block must end at the file's last line (V4A's `*** End of
        /// File`). An empty `old` then appends; an empty `old` after
        /// anchors inserts right after the last anchor.
        at_end: bool,
    },
    /// Create the file, or append to it if it exists (Aider's empty SEARCH).
    CreateOrAppend { text: Vec<String> },
    /// Replace the whole file, creating it if missing.
    Write { text: Vec<String> },
    /// Create a file that must not exist yet.
    Create { text: Vec<String> },
    /// Delete a file that must exist.
    Delete,
    /// Replace original lines `start..end` (0-based, end exclusive;
    /// `start == end` inserts before line `start`) after `check` passes.
    /// For formats that address lines by number (hashline, lines, inserts).
    Lines {
        start: usize,
        end: usize,
        new: Vec<String>,
        check: Check,
    },
    /// Replace the one occurrence of the substring `old` (it may span
    /// lines; compared with LF line ends) with `new`. `hint` is a 0-based
    /// line near which the occurrence should start.
    StrReplace {
        old: String,
        new: String,
        hint: Option<usize>,
    },
    /// Rename the file to `to` (after the file's other edits).
    Rename { to: String },
    /// Read-only: show lines of the file as it was before the transaction
    /// (`N\tline`, 1-based) in the receipt's message. `range` is a 1-based
    /// inclusive `(first, last)`, `last == None` meaning the end of the file;
    /// `None` shows it all. It changes nothing, so it never conflicts with
    /// other edits and is never held back.
    View {
        range: Option<(usize, Option<usize>)>,
    },
    /// Alternative readings of one damaged block edit, most likely first
    /// (a diff hunk whose lines lost their `' '`/`+` markers); each holds a
    /// `Replace`. The file decides: the readings that locate must agree on
    /// one place, else `ambiguous`.
    OneOf(Vec<Reading>),
    /// A part of the output that should have been an edit but cannot be
    /// used; it becomes a failed receipt with this code.
    Invalid { code: Code, message: String },
}

impl Op {
    /// A part of the reply that should have been an edit but cannot be
    /// used: it becomes a failed receipt with `code` and `message`.
    pub fn invalid(code: Code, message: String) -> Op {
        Op::Invalid { code, message }
    }

    /// The first NUL byte of the text the edit writes, as its 1-based line
    /// and character column: the rule that refuses a file holding one
    /// refuses an edit that would write one.
    pub fn nul_in_new_text(&self) -> Option<(usize, usize)> {
        let has = |t: &str| memchr::memchr(0, t.as_bytes()).is_some();
        let lines = |ls: &[String]| {
            ls.iter()
                .any(|l| has(l))
                .then(|| nul_position(&ls.join("\n")))
        };
        match self {
            Op::Replace { new, .. } | Op::Lines { new, .. } => lines(new),
            Op::CreateOrAppend { text } | Op::Write { text } | Op::Create { text } => lines(text),
            Op::StrReplace { new, .. } => has(new).then(|| nul_position(new)),
            Op::OneOf(readings) => readings.iter().find_map(|r| r.op.nul_in_new_text()),
            _ => None,
        }
    }
}

/// Where the first NUL of `text` is: its 1-based line and character column.
/// A function of its own, apart from the scan every edit runs: only a
/// hostile reply gets here, so the module's first part leaves it out.
#[cold]
#[inline(never)]
fn nul_position(text: &str) -> (usize, usize) {
    let at = text.find('\0').unwrap_or(text.len());
    let line = 1 + text[..at].matches('\n').count();
    let start = text[..at].rfind('\n').map_or(0, |k| k + 1);
    (line, text[start..at].chars().count() + 1)
}

/// What a line-addressed edit asserts about the lines it names, checked
/// against the original before anything is applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Plain line numbers, trusted as they are.
    None,
    /// `(1-based line, tag)` pairs the model quoted from a tagged view.
    Tags {
        tags: Vec<(usize, String)>,
        opts: TagOptions,
    },
    /// The CRC-32 of the whole file as it was shown.
    FileCrc(u32),
    /// The lines the model was shown of this file, with their hashes: the edited lines must be among them, unchanged; a
    /// shown block that moved is found again. The transaction sets it for
    /// [`Check::Snapshot`] edits from the caller's `seen` snapshot.
    Seen(SeenFile),
    /// Plain line numbers that must be held to what the model was shown,
    /// which the caller keeps (`ApplyOptions::seen`: seen lines, or the file
    /// CRC); refused as `malformed` when there is no such snapshot.
    Snapshot,
}

/// How tags are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub struct TagOptions {
    /// Characters per tag, 2 to 8.
    pub len: usize,
    /// Whether the line number is part of the hashed text.
    pub with_line: bool,
}

impl Default for TagOptions {
    fn default() -> Self {
        TagOptions {
            len: 4,
            with_line: false,
        }
    }
}

impl TagOptions {
    /// The length clamped to the supported range.
    pub fn chars(&self) -> usize {
        self.len.clamp(2, 8)
    }
}

/// A rung of the ladder; the receipt records the one that found the match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Exact,
    TrailingWs,
    Indent,
    BlankLines,
    Tabs,
    Unicode,
}

impl Level {
    pub const ALL: [Level; 6] = [
        Level::Exact,
        Level::TrailingWs,
        Level::Indent,
        Level::BlankLines,
        Level::Tabs,
        Level::Unicode,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Level::Exact => "exact",
            Level::TrailingWs => "trailing_ws",
            Level::Indent => "indent",
            Level::BlankLines => "blank_lines",
            Level::Tabs => "tabs",
            Level::Unicode => "unicode",
        }
    }
}

/// One reading of an [`Op::OneOf`]: a `Replace`, and the most tolerant
/// matcher level it may be found at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    pub op: Op,
    pub max_level: Level,
}

/// What the model was shown of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct SeenFile {
    /// CRC-32 of the whole file when it was shown (hex, as in the view
    /// header). With `lines` empty it means the whole file was shown
    /// (`file-crc` mode); with `lines` it only tells that nothing changed.
    #[serde(
        rename = "crc32",
        serialize_with = "hex_ser",
        deserialize_with = "hex_de",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "ts", ts(optional, type = "string"))]
    pub crc: Option<u32>,
    /// The lines shown: `(1-based line, line_hash)`, in any order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<(usize, u32)>,
}

fn hex_ser<S: Serializer>(v: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(c) => s.serialize_str(&format!("{c:08x}")),
        None => s.serialize_none(),
    }
}

fn hex_de<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    let s: Option<String> = Option::deserialize(d)?;
    match s {
        None => Ok(None),
        Some(s) => crate::crc::parse_crc(&s)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("{s:?} is not a CRC-32 in hex"))),
    }
}

/// One edit as parsed from the model output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Target path as written (normalised later); `None` uses the default.
    pub path: Option<String>,
    pub op: Op,
    /// Byte range of the edit in the model output.
    pub span: Range<usize>,
}

impl Edit {
    /// An edit the reply's end cut off (`truncated`): it waits for the rest.
    pub fn is_cut(&self) -> bool {
        matches!(
            self.op,
            Op::Invalid {
                code: Code::Truncated,
                ..
            }
        )
    }
}

/// A reasoning section at the start of a reply, skipped by every format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Reasoning {
    /// Its first and last line in the reply (1-based, inclusive).
    pub lines: [usize; 2],
    /// The tag's name: `think`, `thinking` or `reasoning`.
    pub tag: String,
    /// Whether the reply opened it (else the chat template did).
    pub opened: bool,
    /// Whether it closed; an open one means the reply ends inside it.
    pub closed: bool,
    /// Its bytes in the reply.
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub bytes: Range<usize>,
}

/// The result of parsing a model output: everything the transaction needs,
/// so that the reply is read once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    pub edits: Vec<Edit>,
    /// The output ends inside an edit: that edit is an `Invalid` with code
    /// `truncated` among `edits`.
    pub truncated: bool,
    /// Files that the prose near an edit names when the edit names none of
    /// its own (it reuses an earlier edit's path, or goes to the default):
    /// `(index into edits, path)`. The transaction refuses such an edit as
    /// `path_unclear` when its target does not agree.
    pub mentions: Vec<(usize, String)>,
    /// Edits (indexes into `edits`) whose path is a bare word right above
    /// them (`configure`): the transaction takes it only when the files
    /// hold it, and refuses the edit as `path_unclear` otherwise.
    pub unsure: Vec<usize>,
    /// Per edit, its first and last line in the reply (1-based, what a
    /// receipt's `output_lines` says); filled when the reply is read.
    pub lines: Vec<[usize; 2]>,
    /// The number of edits the reply declared (`EDITS: N`), if it did.
    pub declared: Option<usize>,
    /// How the format was detected, when it was (`auto`).
    pub detection: Option<Detection>,
    /// The reasoning section the reply starts with, which no format read.
    pub reasoning: Option<Reasoning>,
}

/// A guess of the format of an output, with a confidence in `0.0..=1.0`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Detection {
    #[cfg_attr(feature = "ts", ts(type = "FormatName"))]
    pub format: FormatName,
    pub confidence: f64,
    pub reason: String,
}

/// Status of one edit after a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum EditStatus {
    Applied,
    Failed,
    /// Located, not applied (the transaction failed, or it is a dry check).
    Skipped,
}

/// The typed receipt for one edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    /// 1-based number of the edit in the output.
    pub index: usize,
    pub status: EditStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub code: Option<Code>,
    /// The matcher level that located the edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub strategy: Option<Level>,
    /// 1-based inclusive line range in the original file that the edit
    /// replaced (`[n, n-1]` for an insertion before line n).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub lines: Option<[usize; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub message: Option<String>,
    /// 1-based line range of the edit in the model output.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub output_lines: Option<[usize; 2]>,
    /// `lines` as UTF-16 offsets into the original text, the way editors
    /// index a JS string: `from` where the first replaced line starts, `to`
    /// past the last one's line break (`from == to` for an insertion).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub from: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub to: Option<usize>,
    /// Where an applied edit's new lines are in the new text, as UTF-16
    /// offsets (editors label a diff's changes with them): the new text is
    /// the original with each applied edit's `from..to` replaced by its
    /// `resultFrom..resultTo`, then its final newline present or absent as
    /// in the original. To leave edits out, ask again with
    /// `ApplyOptions::skip`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub result_from: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub result_to: Option<usize>,
    /// `from` and `to` as line and column: what an editor that keeps its
    /// own line breaks (CodeMirror normalises `\r\n` to one character,
    /// Monaco a mixed file) places by. See [`Position`].
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub from_pos: Option<Position>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub to_pos: Option<Position>,
    /// `resultFrom` and `resultTo` as line and column in the new text.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub result_from_pos: Option<Position>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub result_to_pos: Option<Position>,
    /// For an edit whose old text was not found: the most similar region
    /// of the file, as data (the message says the same in words).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub closest: Option<Closest>,
    /// The earlier edits of the reply this one builds on: its old text is
    /// not in the original but in the text they produce (sequential
    /// formats), and it applied together with them.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    #[cfg_attr(feature = "ts", ts(optional, as = "Option<Vec<usize>>"))]
    pub builds_on: Vec<usize>,
}

/// A place in a text the way editors address it: `line` counts from 1,
/// `col` is the UTF-16 code units before it on its line. Lines end at
/// `\n` or `\r\n` (a lone `\r` is not a break), so a position means the
/// same character whatever an editor does to line breaks. A BOM is not
/// part of line 1 (Monaco drops it; CodeMirror keeps it as a character
/// of its own, one unit before column 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Position {
    pub line: usize,
    pub col: usize,
}

/// The region of a file most like an edit's old text that was not found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Closest {
    /// Its 1-based inclusive lines in the original.
    pub lines: [usize; 2],
    /// `lines` as UTF-16 offsets and as positions, like a receipt's.
    pub from: usize,
    pub to: usize,
    pub from_pos: Position,
    pub to_pos: Position,
    /// How similar it is to the old text, in percent (0-100).
    pub similarity: u32,
    /// Where it first differs from the old text; none when they differ
    /// only in what the matcher's levels ignore.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub first_difference: Option<FirstDifference>,
}

/// The first character where a closest region and an edit's old text
/// differ: a line and UTF-16 column in the file (as a [`Position`]) and
/// in the old text (line 1 its first line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FirstDifference {
    pub file_line: usize,
    pub file_col: usize,
    pub edit_line: usize,
    pub edit_col: usize,
}
