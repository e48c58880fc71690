//! Edit formats: one module each, all behind [`Format`]. A format only
//! parses model output into [`Edit`]s and renders the canonical edit between
//! two versions of a file; locating and applying is the transaction's job,
//! so no format has its own matcher or apply loop.

use crate::edit::{Edit, Parsed};
pub use crate::name::{FormatName, UnknownFormat};
use crate::reading::scan::OutLine;
use crate::reading::sniff::{Reply, Sniff};
use serde_json::{Map, Value};

pub mod apply_patch;
pub mod hashline;
pub mod lines;
pub mod prompt;
pub mod search_replace;
pub mod tool_call;
pub mod udiff;
pub mod whole;

/// Options that change how a format reads an output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Take the output literally: no repair of model faults (udiff line
    /// numbers and counts are honoured, missing prefixes are errors).
    pub strict: bool,
    /// How hashline tags are computed.
    pub tags: crate::apply::tags::TagOptions,
    /// The caller knows the reply ended on its own (the model's stop reason
    /// was `stop`): an ending that only may be a cut (a unified diff whose
    /// last hunk is shorter than its header says) is read as complete.
    pub complete: bool,
}

/// One edit format.
pub trait Format: Sync {
    /// Which format this is.
    fn id(&self) -> FormatName;
    /// The contract name (`search-replace`, `udiff`, ...).
    fn name(&self) -> &'static str {
        self.id().as_str()
    }
    /// Parses a model output. Never panics; unusable parts become edits with
    /// [`crate::edit::Op::Invalid`].
    fn parse(&self, output: &str, opt: &ParseOptions) -> Parsed;
    /// [`Format::parse`] on the reply's lines, already split: the reader
    /// splits a reply once for detection, parsing and receipts. Formats that
    /// read lines override it (and their `parse` splits and calls it).
    fn parse_lines(&self, output: &str, lines: &[OutLine], opt: &ParseOptions) -> Parsed {
        let _ = lines;
        self.parse(output, opt)
    }
    /// [`Format::parse`] with default options.
    fn parse_default(&self, output: &str) -> Parsed {
        self.parse(output, &ParseOptions::default())
    }
    /// Recognises this format in a reply: its first marker, how sure, why
    /// (in `auto` detection the earliest marker of all formats wins). By default, the first JSON edit this format claims.
    fn sniff(&self, reply: &Reply) -> Option<Sniff> {
        reply.first_json(self.id())
    }
    /// Keys whose presence makes a JSON value of a reply worth reading as
    /// this format's edit (JSON formats only).
    fn json_keys(&self) -> &'static [&'static str] {
        &[]
    }
    /// Whether a JSON object is an edit of this format: how sure and why.
    /// At most one format claims an object.
    fn json_claim(&self, m: &Map<String, Value>) -> Option<(f64, &'static str)> {
        let _ = m;
        None
    }
    /// The same for the text of a JSON edit that was cut off or is broken.
    fn cut_json_claim(&self, text: &str) -> Option<(f64, &'static str)> {
        let _ = text;
        None
    }
    /// How messages name the parts of this format's edits (the SEARCH
    /// text, a hunk, `old_str`), so feedback speaks the reply's language.
    fn words(&self) -> &'static crate::apply::feedback::Words {
        &search_replace::WORDS
    }
    /// Whether the format's tools apply its edits one after another, each
    /// to the text the one before left (Aider's blocks, Anthropic's editor
    /// calls), so a model may quote text an earlier edit wrote: such an
    /// edit, absent from the original, is then located in that text (the
    /// transaction's `chain.rs`).
    fn sequential(&self) -> bool {
        false
    }
    /// What a system prompt says about this format, with its worked example
    /// (see [`prompt`]); a test applies every example.
    fn prompt(&self) -> prompt::Prompt;
    /// Lines of context before an edit's span that this format reads, or
    /// `None` when its edits depend on text further up. With a number, a
    /// stream re-reads only the text from the last complete edit.
    fn tail_context(&self) -> Option<usize> {
        None
    }
    /// The parse of what follows `last`, an edit of the parse of `text`
    /// that nothing after it can change, as that parse reads it: where the
    /// reading starts and the edits from there (spans from that start).
    /// The parser resumes in the state `last` left it in, so a stream reads
    /// each edit once. The last edit of `text` may read differently when
    /// the end of the text cuts it (it is open; the stream reads it again
    /// once complete), with the same path. `None` when the format cannot,
    /// and the stream re-reads from [`Format::tail_context`] lines above
    /// `last`.
    /// `tests/stream.rs` holds it to [`Format::parse`] on every corpus reply.
    fn parse_after(&self, text: &str, last: &Edit, opt: &ParseOptions) -> Option<(usize, Parsed)> {
        let _ = (text, last, opt);
        None
    }
    /// Whether an edit is whole once its own text closes, even inside a
    /// line still arriving (a JSON value is, once its bracket closes).
    fn whole_mid_line(&self) -> bool {
        false
    }
    /// Whether an edit whose last line is `last`, followed by the complete
    /// line `next`, has ended: nothing more can be added to it. `fence`:
    /// `last` is a fence line.
    fn closes(&self, last: &str, next: Option<&str>, fence: bool) -> bool {
        let _ = (last, next);
        fence
    }
    /// What a complete line (without its line break) can do to this
    /// format's edits: a stream re-reads its text only at lines that can
    /// change which edits are complete ([`Turn`]). A format whose edits end
    /// mid-line ([`Format::whole_mid_line`]) is asked of each chunk
    /// instead, and a chunk that is [`Turn::Plain`] is not read. By default
    /// every line may complete an edit, so the stream re-reads at each. An
    /// answer too low would lose events: `tests/stream.rs` holds every
    /// format's answers to its parser on the corpus replies, after every
    /// push of every chunking.
    fn turn(&self, line: &str) -> Turn {
        let _ = line;
        Turn::Ends
    }
    /// What a model must be shown of a file to write this format's edits
    /// (the plain file by default).
    fn view(&self) -> View {
        View::Plain
    }
    /// The edit a perfect model would write to turn `before` into `after`.
    fn render(&self, path: &str, before: &str, after: &str) -> String;
}

/// What a model is shown of a file to write a format's edits: the edit
/// loop renders a file in its format's view, and the budget planner counts
/// the view's line numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The file as it is; a partial view marks where each run of lines
    /// starts.
    Plain,
    /// Every line with its hashline tag ([`hashline::tags::view`]).
    Tagged,
    /// Every line numbered, under the file's CRC ([`lines::seen`]): the
    /// snapshot of what was shown, which the format's edits are held to.
    Numbered,
}

impl View {
    /// Whether the format's edits name lines by number, so every line the
    /// model is shown carries its number.
    pub fn numbers_every_line(self) -> bool {
        self != View::Plain
    }

    /// Whether the format's edits are held to what the model was shown
    /// ([`lines::seen::SeenLines`]), which a caller then keeps.
    pub fn keeps_seen(self) -> bool {
        self == View::Numbered
    }

    /// What the advisor adds to its advice of a format with this view:
    /// nothing for the plain file.
    pub fn note(self) -> &'static str {
        match self {
            View::Plain => "",
            View::Tagged => {
                "; the model must see the file's tagged view (`patchbay tag FILE`, `tags::view`)"
            }
            View::Numbered => "; the model must see the file with its CRC header and line numbers (`patchbay tag --crc FILE`, `crc_view`)",
        }
    }
}

/// What a line-addressed edit does to the lines it names (the `hashline`
/// and `lines` formats share the four).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineOp {
    /// Replace the lines.
    Replace,
    /// Insert new lines after the line.
    After,
    /// Insert new lines before the line.
    Before,
    /// Delete the lines.
    Delete,
}

/// What one line of a reply can do to a format's edits ([`Format::turn`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// It can neither start an edit nor complete one: the edits complete
    /// before it are those complete after it.
    Plain,
    /// It may start an edit that its own line cannot complete: it completes
    /// only an edit that was still open above it.
    Opens,
    /// It may complete an edit (one still open above it, or one it starts).
    Ends,
}

/// A fence line as [`Format::closes`] is told of one: only backticks or
/// only tildes, at least three, or a tag fence's closer (`</source>`).
pub fn is_fence(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && (t.chars().all(|c| c == '`') || t.chars().all(|c| c == '~'))
        || crate::reading::scan::tag_fence_close(t)
}

/// A line that may open or close a fence, info string and indentation
/// allowed: what [`Format::turn`] counts as one.
pub(crate) fn fence_like(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```")
        || t.starts_with("~~~")
        || t.starts_with('<') && crate::reading::scan::tag_fence_like(t.trim_end())
}

/// Every format that can be named, in detection priority order.
pub fn all() -> &'static [&'static dyn Format] {
    &[
        &search_replace::SearchReplace,
        &whole::Whole,
        &apply_patch::ApplyPatch,
        &hashline::Hashline,
        &lines::Lines,
        &tool_call::ToolCall,
        &udiff::Udiff,
    ]
}

/// The format of a name (none for `auto`).
pub fn by_id(id: FormatName) -> Option<&'static dyn Format> {
    all().iter().copied().find(|f| f.id() == id)
}

/// What the transaction needs of a format: its words, whether its edits
/// build on each other, and the markers of every format.
impl From<FormatName> for crate::apply::transaction::Dialect {
    fn from(name: FormatName) -> Self {
        crate::apply::transaction::Dialect {
            name,
            words: words(name),
            sequential: by_id(name).is_some_and(|f| f.sequential()),
            foreign_marker,
        }
    }
}

/// The words of a format (SEARCH/REPLACE's for `auto`).
pub fn words(id: FormatName) -> &'static crate::apply::feedback::Words {
    by_id(id).map_or(&search_replace::WORDS, |f| f.words())
}

/// The names accepted by `--format`, `auto` included.
pub fn names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = all().iter().map(|f| f.name()).collect();
    v.push("auto");
    v
}

/// The first line of a whole-file text that begins another format's edit
/// (a SEARCH/REPLACE head with its tail after it, a unified-diff hunk header
/// in text that is a diff, a V4A `*** Begin Patch` with a file action) and
/// that `original` does not hold, with the format it belongs to: a reply in
/// that format read as file content by a forced `whole` (or a created
/// file), which would write the markers into the file. Lines inside a
/// fence of the text (a document showing an example) are content, and so
/// are hunk headers in a `.diff`/`.patch` file. `O(lines)`.
pub fn foreign_marker(path: &str, text: &[String], original: &str) -> Option<(usize, FormatName)> {
    let outside = lines_outside_fences(text);
    // The original's lines are indexed only when a marker line turns up,
    // so a plain whole-file write costs one pass over its text.
    let held = std::cell::OnceCell::new();
    let new = |k: &usize| {
        let held: &std::collections::HashSet<&str> =
            held.get_or_init(|| original.lines().map(str::trim_end).collect());
        !held.contains(text[*k].trim_end())
    };
    let first =
        |pred: &dyn Fn(&str) -> bool| outside.iter().copied().find(|&k| pred(&text[k]) && new(&k));
    if let Some(h) = first(&search_replace::is_head) {
        if outside
            .iter()
            .any(|&k| k > h && search_replace::is_tail(&text[k]))
        {
            return Some((h, FormatName::SearchReplace));
        }
    }
    let patch_file = path.ends_with(".diff") || path.ends_with(".patch");
    if let Some(h) = first(&udiff::hunk_header).filter(|_| !patch_file) {
        let changes = text[h + 1..]
            .iter()
            .any(|l| l.starts_with(['+', '-']) && !l.starts_with("+++") && !l.starts_with("---"));
        if changes {
            return Some((h, FormatName::Udiff));
        }
    }
    let begin = first(&|l: &str| l.trim() == apply_patch::BEGIN)?;
    text[begin..]
        .iter()
        .any(|l| {
            apply_patch::ACTIONS
                .iter()
                .any(|a| l.trim_start().starts_with(a))
        })
        .then_some((begin, FormatName::ApplyPatch))
}

/// Indexes of the lines of `text` that are not inside a fenced block.
fn lines_outside_fences(text: &[String]) -> Vec<usize> {
    let mut out = vec![];
    let mut fence: Option<crate::reading::scan::Fence> = None;
    for (k, line) in text.iter().enumerate() {
        match &fence {
            Some(f) if crate::reading::scan::fence_closes(line, f) => fence = None,
            Some(_) => {}
            None => match crate::reading::scan::fence_open(line) {
                Some(f) => fence = Some(f),
                None => out.push(k),
            },
        }
    }
    out
}

/// When a stream may judge an edit of a format whose edits are JSON objects
/// in prose (hashline, tool-call): written once for both.
pub(crate) mod json_stream {
    /// A JSON edit's span starts at its own `{` (the objects of an array
    /// are read one by one), so no context above it is read.
    pub const TAIL_CONTEXT: Option<usize> = Some(0);
    /// A JSON edit is whole once its object closes, even mid-line.
    pub const WHOLE_MID_LINE: bool = true;

    /// A JSON edit is parsed only once its object (or its array) is closed.
    pub fn closes(last: &str, fence: bool) -> bool {
        last.ends_with('}') || last.ends_with(']') || fence
    }

    /// A chunk completes a JSON edit only with the bracket that closes its
    /// value, or a line break (a fence line around it); text inside an
    /// object's strings changes nothing complete.
    pub fn turn(chunk: &str) -> super::Turn {
        match chunk.contains(['}', ']', '\n']) {
            true => super::Turn::Ends,
            false => super::Turn::Plain,
        }
    }
    /// The four [`super::Format`] methods that say how a stream judges a
    /// JSON edit, for a JSON format's `impl Format` to take whole.
    macro_rules! stream_methods {
        () => {
            fn tail_context(&self) -> Option<usize> {
                $crate::formats::json_stream::TAIL_CONTEXT
            }

            fn whole_mid_line(&self) -> bool {
                $crate::formats::json_stream::WHOLE_MID_LINE
            }

            fn turn(&self, chunk: &str) -> $crate::formats::Turn {
                $crate::formats::json_stream::turn(chunk)
            }

            fn closes(&self, last: &str, _next: Option<&str>, fence: bool) -> bool {
                $crate::formats::json_stream::closes(last, fence)
            }
        };
    }
    pub(crate) use stream_methods;
}
