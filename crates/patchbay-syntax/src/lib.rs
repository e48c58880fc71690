//! patchbay-syntax: syntax-aware editing on top of the patchbay core, with
//! tree-sitter grammars.
//!
//! * [`outline()`]: the definitions of a file (functions, methods, classes,
//!   structs, enums, traits and interfaces, impl blocks, modules) with
//!   qualified names, byte and line ranges, and their leading doc comments
//!   and attributes or decorators. [`sections`] is the flat view a budget
//!   planner needs.
//! * [`slice`](mod@slice): one symbol cut out as a virtual file that remembers where it
//!   came from (lines, the indentation it was cut from, a CRC-32 of the
//!   file); [`splice`](mod@splice) puts an edited slice back, re-indented, and refuses
//!   when the file changed since. [`apply_to_slice`] runs any patchbay edit
//!   format against a slice and maps its receipts back to the file.
//! * [`check`]: the syntax errors an edit introduced (new ERROR and MISSING
//!   nodes only), as warnings or as a failure of the report.
//!
//! Each grammar is a cargo feature (all on by default): `rust`, `python`,
//! `javascript`, `typescript` (TypeScript and TSX), `go`, `java`, `c`,
//! `cpp`. The crate is pure Rust plus the grammars' C; it does no I/O and
//! builds for `wasm32-unknown-unknown` (see `scripts/build-web.sh` for the
//! C flags that needs).
//!
//! ```
//! use patchbay_syntax::{outline, slice, splice, Language};
//! let src = "struct Greeter;\n\nimpl Greeter {\n    /// Says hello.\n    fn hello(&self) -> &str {\n        \"hi\"\n    }\n}\n";
//! let o = outline::outline(src, Language::Rust).unwrap();
//! assert_eq!(o.symbols[2].qualified, "Greeter::hello");
//! assert_eq!(o.symbols[2].lines, [4, 7]); // doc comment included
//!
//! let s = slice::slice("lib.rs", src, Language::Rust, "Greeter::hello").unwrap();
//! assert_eq!(s.text, "/// Says hello.\nfn hello(&self) -> &str {\n    \"hi\"\n}\n");
//! assert_eq!(s.indent, "    ");
//! let edited = s.text.replace("\"hi\"", "\"hello\"");
//! let new = splice::splice(src, &s, &edited).unwrap();
//! assert_eq!(new, src.replace("\"hi\"", "\"hello\""));
//! ```

pub mod check;
pub mod lang;
mod merge;
pub mod outline;
mod preproc;
mod rules;
pub mod slice;
pub mod splice;
pub mod symbol;
mod walk;

pub use check::{check_report, new_issues, FileIssues, Policy, SyntaxIssue};
pub use lang::Language;
pub use outline::{outline, sections, Kind, Outline, Section, Span, Symbol};
pub use slice::Slice;
pub use splice::{apply_to_slice, slice_input, splice_report, SliceInput, SliceResult};
pub use walk::{MAX_DEPTH, MAX_QUALIFIED};

use std::fmt;

/// The largest text parsed, in bytes (32 MiB). tree-sitter's tree takes
/// about 15 bytes of memory a byte of source (a 32 MiB C++ file peaks near
/// 0.5 GB; 300 MB needs more than 4 GiB and aborts), so a larger file is
/// refused with [`Error::TooLarge`] before it is parsed. Hand-written
/// sources are far smaller (SQLite's one-file amalgamation is 9 MB).
pub const MAX_SOURCE_BYTES: usize = 32 * 1024 * 1024;

/// Everything that can go wrong. Each has a stable [`Error::code`] for JSON
/// and JS, and a message a model or a person can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// No language for this path or name.
    UnknownLanguage(String),
    /// The language's grammar is not compiled in (its cargo feature is off).
    LanguageDisabled(Language),
    /// tree-sitter refused to parse (an ABI mismatch; never a syntax error).
    Parser(String),
    /// No symbol answers to the query; `candidates` are close names.
    SymbolNotFound {
        query: String,
        candidates: Vec<String>,
    },
    /// Several symbols answer to the query: (qualified name, first line).
    AmbiguousSymbol {
        query: String,
        candidates: Vec<(String, usize)>,
    },
    /// No symbol encloses this 1-based line.
    NoSymbolAtLine(usize),
    /// The file changed since the slice was cut: its CRC-32 differs.
    StaleSlice {
        path: String,
        expected: u32,
        actual: u32,
    },
    /// The slice's lines are not in the file (a slice made up by hand).
    SliceOutOfRange {
        lines: [usize; 2],
        file_lines: usize,
    },
    /// A slice that no `slice` could have cut: JSON that does not parse as
    /// one, or an indentation that is not spaces and tabs.
    InvalidSlice(String),
    /// The text is larger than [`MAX_SOURCE_BYTES`]: it is not parsed.
    TooLarge { bytes: usize, limit: usize },
}

impl Error {
    /// The stable name of the error: `unknown_language`,
    /// `language_disabled`, `parser`, `symbol_not_found`, `ambiguous_symbol`,
    /// `no_symbol_at_line`, `stale_slice`, `slice_out_of_range`,
    /// `invalid_slice`, `too_large`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::UnknownLanguage(_) => "unknown_language",
            Error::LanguageDisabled(_) => "language_disabled",
            Error::Parser(_) => "parser",
            Error::SymbolNotFound { .. } => "symbol_not_found",
            Error::AmbiguousSymbol { .. } => "ambiguous_symbol",
            Error::NoSymbolAtLine(_) => "no_symbol_at_line",
            Error::StaleSlice { .. } => "stale_slice",
            Error::SliceOutOfRange { .. } => "slice_out_of_range",
            Error::InvalidSlice(_) => "invalid_slice",
            Error::TooLarge { .. } => "too_large",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownLanguage(what) => {
                let names: Vec<&str> = lang::ALL.iter().map(|l| l.name()).collect();
                write!(
                    f,
                    "no language for {what:?}; known: {} (by extension or by name)",
                    names.join(", ")
                )
            }
            Error::LanguageDisabled(l) => write!(
                f,
                "the {l} grammar is not compiled into this build (cargo feature `{}`)",
                match l {
                    Language::Tsx => "typescript",
                    other => other.name(),
                }
            ),
            Error::Parser(m) => write!(f, "tree-sitter could not parse: {m}"),
            Error::SymbolNotFound { query, candidates } => {
                write!(f, "no symbol named `{query}`")?;
                if candidates.is_empty() {
                    write!(f, "; the file defines no symbols")
                } else {
                    write!(f, "; symbols: {}", candidates.join(", "))
                }
            }
            Error::AmbiguousSymbol { query, candidates } => {
                let at: Vec<String> = candidates
                    .iter()
                    .map(|(q, l)| format!("`{q}` at line {l}"))
                    .collect();
                write!(
                    f,
                    "`{query}` names {} symbols: {}; pass a line number instead",
                    candidates.len(),
                    at.join(", ")
                )
            }
            Error::NoSymbolAtLine(l) => write!(f, "no symbol encloses line {l}"),
            Error::StaleSlice {
                path,
                expected,
                actual,
            } => write!(
                f,
                "{path} changed since the slice was cut (CRC-32 {expected:08x}, now {actual:08x}); slice it again and redo the edit"
            ),
            Error::SliceOutOfRange { lines, file_lines } => write!(
                f,
                "the slice claims lines {}-{} but the file has {file_lines} lines",
                lines[0], lines[1]
            ),
            Error::InvalidSlice(m) => write!(f, "not a slice: {m}"),
            Error::TooLarge { bytes, limit } => write!(
                f,
                "the file is {bytes} bytes; syntax commands parse files of at most {limit} bytes ({} MiB), so it was not parsed",
                limit / (1024 * 1024)
            ),
        }
    }
}

impl std::error::Error for Error {}

/// The text tree-sitter sees: a UTF-8 byte-order mark is not part of any
/// grammar, so parsing starts after it. Returns the body and its offset.
pub(crate) fn body(text: &str) -> (&str, usize) {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => (rest, '\u{feff}'.len_utf8()),
        None => (text, 0),
    }
}
