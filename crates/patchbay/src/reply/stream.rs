//! Streaming: judge edits while the model is still writing.
//!
//! A [`Stream`] is fed the reply chunk by chunk. The moment an edit is
//! complete it is located against the original files and its receipt is
//! emitted, so a client can stop the generation at the first failing edit
//! instead of paying for the rest. [`Stream::finish`] runs the ordinary
//! transaction on the whole reply, so the final report is exactly what
//! [`crate::apply()`] gives for the same text, whatever the chunking.
//!
//! An edit counts as complete once the parse of the text so far holds a
//! later edit, or the edit ends with its format's closing marker (a SEARCH/
//! REPLACE block's `>>>>>>> REPLACE`, a closed fence); text that arrives later
//! can then no longer change it. Formats whose edits end with a line (all
//! but the JSON ones, [`formats::Format::whole_mid_line`]) are read up to
//! the last line break only, so a chunk that ends no line changes nothing
//! and is not read again; an edit that a reply's unfinished last line
//! would complete is judged by `finish`. Nor is a chunk whose lines cannot
//! change which edits are complete ([`formats::Format::turn`]: the lines
//! inside a block, a hunk's body). Cost: a re-read parses only the text
//! after the last complete edit (`tail`), resuming the format's parser
//! there or re-reading from a few lines above it when that reading agrees
//! with the whole one, so a push costs `O(chunk)` amortised for replies of
//! bounded edits; for the formats that allow neither (`lines`, whole
//! files), the text so far at each line that may end an edit. The edits complete
//! at one [`Stream::judge`] are located together, each alone, on their own
//! spans ([`transaction::run_alone`]), with each file's split and index
//! built once for the whole stream ([`transaction::Prepared`], kept beside
//! the files it borrows): `O(N)` once for an `N`-byte file, as in the
//! transaction, however many edits the stream emits.

mod gate;
mod tail;

use crate::apply::report::Report;
use crate::apply::transaction::{self, Prepared};
use crate::edit::{Code, Edit, Op, Parsed, Receipt};
use crate::formats::{self, FormatName};
use crate::reading::scan::OutputLines;
use crate::ApplyOptions;
use std::collections::BTreeMap;

/// One edit judged early.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "StreamEvent"))]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// The edit's path as resolved (empty when it has none).
    pub path: String,
    /// The receipt of the edit located on its own against the original.
    /// Overlaps with later edits are only known at the end.
    pub receipt: Receipt,
}

self_cell::self_cell!(
    /// The files and the per-file work ([`transaction::Prepared`]) of the
    /// edits located early, built once per file for the whole stream.
    struct Files {
        owner: BTreeMap<String, String>,
        #[not_covariant]
        dependent: Prepared,
    }
);

impl Files {
    fn fresh(files: BTreeMap<String, String>) -> Self {
        Files::new(files, |_| Prepared::default())
    }
}

/// An incremental parser and locator for one reply.
pub struct Stream {
    files: Files,
    opt: ApplyOptions,
    buf: String,
    /// The format, fixed by the first edit that was emitted.
    format: Option<FormatName>,
    emitted: usize,
    /// The parse of the text so far: the format that read it and its edits
    /// (spans in `buf`), of which the first `complete` can no longer change.
    parse: Option<(FormatName, Parsed)>,
    complete: usize,
    /// How many edits [`Stream::new_paths`] has reported.
    named: usize,
    /// `lines_at.1` line breaks stand before byte `lines_at.0` of `buf`;
    /// advanced as edits are emitted.
    lines_at: (usize, usize),
    head: Head,
    /// The lines of `buf` read by the last refresh or classified since
    /// ([`Stream::turned`]).
    read: NewLines,
    /// An edit may be open: the last refresh left one incomplete, or a line
    /// that may start one arrived since.
    open: bool,
    /// Under `auto`, before the format is fixed: what is detected from.
    auto: AutoDetect,
    /// The reasoning section the reply may start with: nothing is read
    /// while one may be open.
    gate: gate::Gate,
    /// The raw bytes of the reasoning section, masked in `buf`.
    reasoning: String,
}

/// The complete lines of a growing text not taken yet, each taken once.
/// A long line is searched for its break once, not at every chunk.
#[derive(Default)]
struct NewLines {
    /// The lines before this byte were taken.
    to: usize,
    /// The bytes from `to` to this one hold no line break.
    searched: usize,
}

impl NewLines {
    /// The complete lines of `buf` after the last taken: where each ends
    /// (past its break) and the line without `\n` or `\r\n`.
    fn take<'a>(&mut self, buf: &'a str) -> impl Iterator<Item = (usize, &'a str)> + 'a {
        let (start, from) = (self.to, self.searched.max(self.to));
        self.searched = buf.len();
        if let Some(k) = memchr::memrchr(b'\n', &buf.as_bytes()[from..]) {
            self.to = from + k + 1;
        }
        let mut at = start;
        buf[start..self.to].split_inclusive('\n').map(move |line| {
            at += line.len();
            let line = line.strip_suffix('\n').unwrap_or(line);
            (at, line.strip_suffix('\r').unwrap_or(line))
        })
    }
}

/// Detection under `auto` as text arrives, until the first emitted edit
/// fixes the format. Run on the whole text at every chunk, it would take
/// time quadratic in the length of a reply of prose, so it runs only at
/// places where an edit of some format could start or end, on the text up
/// to there:
/// - at the end of a line that one of the formats' [`formats::Format::turn`]
///   does not call plain for more than its brackets (a marker, a header,
///   a fence): always;
/// - at a closing bracket, or the end of a line that only its brackets
///   make a turn (a JSON edit may end there): when the text has grown by
///   an eighth, and at least 4 KB, since the last detection, so that
///   prose full of brackets costs linear time too. A JSON edit there is
///   judged at that later place, or at `finish`.
///
/// The places are taken in the order of the text and depend on it alone,
/// so the events do not depend on the chunking. Text after the last place
/// holds no line that could start or end an edit.
#[derive(Default)]
struct AutoDetect {
    /// The lines classified.
    lines: NewLines,
    /// The bytes before this one were searched for closing brackets.
    brackets_to: usize,
    /// Where the last detection ran to.
    upto: usize,
    /// The format detected on `buf[..upto]`, when sure of it.
    format: Option<FormatName>,
}

/// Below this, a bracket does not move the detection (see [`AutoDetect`]).
const BRACKETS_APART: usize = 4096;

impl AutoDetect {
    /// Takes what arrived; whether the detection ran again.
    fn advance(&mut self, buf: &str) -> bool {
        let bytes = buf.as_bytes();
        // (place, always): closing brackets, then the new complete lines.
        let new = self.brackets_to;
        let mut places: Vec<(usize, bool)> = memchr::memchr2_iter(b'}', b']', &bytes[new..])
            .map(|k| (new + k + 1, false))
            .collect();
        self.brackets_to = bytes.len();
        for (at, line) in self.lines.take(buf) {
            if turns(line) {
                places.push((at, turns(&line.replace(['{', '}', '[', ']'], ""))));
            }
        }
        crate::order::sort_by_key(&mut places, |p| p.0);
        let before = self.upto;
        for (at, always) in places {
            if always || at >= self.upto + (self.upto / 8).max(BRACKETS_APART) {
                self.upto = at;
            }
        }
        if self.upto == before {
            return false;
        }
        let d = crate::detect(&buf[..self.upto]);
        self.format = (d.confidence >= 0.9).then_some(d.format);
        true
    }
}

/// Whether a complete line can start or end an edit of some format.
fn turns(line: &str) -> bool {
    formats::all()
        .iter()
        .any(|f| f.turn(line) != formats::Turn::Plain)
}

/// The reply's declared edit count (`EDITS: N` in its first lines, see
/// [`crate::reading::counts::declared_edits`]), read as its lines arrive instead of
/// from the top for every emitted edit (a one-line JSON reply made that a
/// pass over the reply per edit).
#[derive(Default)]
struct Head {
    /// Where the next line starts, how many lines were read, how far the
    /// open line was searched for its end, and the count found.
    pos: usize,
    lines: usize,
    searched: usize,
    found: Option<usize>,
}

impl Head {
    fn declared(&mut self, buf: &str) -> Option<usize> {
        use crate::reading::counts::{declared_in_line, DECLARED_LINES};
        while self.found.is_none() && self.lines < DECLARED_LINES {
            let from = self.searched.max(self.pos);
            let Some(k) = memchr::memchr(b'\n', &buf.as_bytes()[from..]) else {
                self.searched = buf.len();
                break;
            };
            self.found = declared_in_line(&buf[self.pos..from + k]);
            (self.pos, self.searched) = (from + k + 1, from + k + 1);
            self.lines += 1;
        }
        if self.found.is_some() || self.lines >= DECLARED_LINES {
            return self.found;
        }
        // The open last line counts too; only its start can make it one.
        let open = &buf[self.pos..];
        let t = open.trim_start();
        (t.starts_with("EDITS:") || t.starts_with("Edits:"))
            .then(|| declared_in_line(open))
            .flatten()
    }
}

impl Stream {
    /// `files` may start empty and be filled as paths appear
    /// ([`Stream::new_paths`], [`Stream::add_file`]), as a file-system caller
    /// does.
    pub fn new(files: BTreeMap<String, String>, opt: ApplyOptions) -> Self {
        Stream {
            files: Files::fresh(files),
            opt,
            buf: String::new(),
            format: None,
            emitted: 0,
            parse: None,
            complete: 0,
            named: 0,
            lines_at: (0, 0),
            head: Head::default(),
            read: NewLines::default(),
            open: false,
            auto: AutoDetect::default(),
            gate: gate::Gate::default(),
            reasoning: String::new(),
        }
    }

    /// Masks the reasoning section that ends at `end` and reads the text
    /// from the top: edits read before its close belonged to the draft.
    fn mask_reasoning(&mut self, end: usize) {
        self.reasoning = self.buf[..end].to_owned();
        self.buf = crate::reading::reasoning::masked(&self.buf, 0..end);
        let files = std::mem::replace(&mut self.files, Files::fresh(BTreeMap::new()));
        let fresh = Stream::new(BTreeMap::new(), self.opt.clone());
        *self = Stream {
            files,
            buf: std::mem::take(&mut self.buf),
            reasoning: std::mem::take(&mut self.reasoning),
            gate: std::mem::take(&mut self.gate),
            ..fresh
        };
    }

    /// The valid paths named by the text so far.
    pub fn paths(&self) -> Vec<String> {
        match &self.parse {
            Some((_, p)) => self.paths_of(&p.edits),
            None => vec![],
        }
    }

    /// The valid paths named by edits not reported by an earlier call (the
    /// edits still open are reported each time): what a caller loading files
    /// as they are named needs, at a cost that does not grow with the reply.
    pub fn new_paths(&mut self) -> Vec<String> {
        let Some((_, p)) = &self.parse else {
            return vec![];
        };
        let from = self.named.min(self.complete);
        let out = self.paths_of(&p.edits[from..]);
        self.named = self.complete;
        out
    }

    fn paths_of(&self, edits: &[Edit]) -> Vec<String> {
        let p = Parsed {
            edits: edits.to_vec(),
            ..Parsed::default()
        };
        crate::paths(&p, self.opt.transaction.default_path.as_deref())
    }

    /// Whether the stream already knows the text of `path`.
    pub fn has_file(&self, path: &str) -> bool {
        self.files.borrow_owner().contains_key(path)
    }

    /// Makes an existing file known before the edits that touch it are judged.
    pub fn add_file(&mut self, path: String, text: String) {
        // The prepared work borrows the files: a new file starts it afresh.
        let mut files =
            std::mem::replace(&mut self.files, Files::fresh(BTreeMap::new())).into_owner();
        files.insert(path, text);
        self.files = Files::fresh(files);
    }

    /// The text received so far, its reasoning section included.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        if self.reasoning.is_empty() {
            return std::borrow::Cow::Borrowed(&self.buf);
        }
        let rest = &self.buf[self.reasoning.len()..];
        std::borrow::Cow::Owned(format!("{}{rest}", self.reasoning))
    }

    /// The format to read the text with, or `None` while `auto` is unsure.
    fn format(&self) -> Option<&'static dyn formats::Format> {
        let name = match self.format {
            Some(n) => n,
            // Detection may change its mind as text arrives: emit early only
            // once it is sure; otherwise everything waits for `finish`.
            None if self.opt.format == FormatName::Auto => self.auto.format?,
            None => self.opt.format,
        };
        formats::by_id(name)
    }

    /// Brings the parse up to date with the text: from the last complete
    /// edit on when that reads the same (see [`tail`]), else from the top.
    fn refresh(&mut self) {
        let Some(f) = self.format() else {
            (self.parse, self.open) = (None, true);
            return;
        };
        let name = f.id();
        let popt = self.opt.parse_options();
        // A format whose edits end with their lines reads only the complete
        // lines: the open last line cannot complete an edit, and reading
        // it made every chunk re-read the open edit (see `append`).
        let upto = match f.whole_mid_line() {
            true => self.buf.len(),
            false => memchr::memrchr(b'\n', self.buf.as_bytes()).map_or(0, |k| k + 1),
        };
        let text = &self.buf[..upto];
        let resumed = match &self.parse {
            Some((prev, p)) if *prev == name => {
                tail::resume(f, &popt, text, &p.edits[..self.complete])
            }
            _ => None,
        };
        let from_tail = resumed.is_some();
        let mut parsed = match resumed {
            Some(new) => {
                let mut p = self.parse.take().map(|p| p.1).unwrap_or_default();
                let keep = self.complete;
                p.edits.truncate(keep);
                p.mentions.retain(|(k, _)| *k < keep);
                p.mentions
                    .extend(new.mentions.into_iter().map(|(k, m)| (k + keep, m)));
                p.unsure.retain(|k| *k < keep);
                p.unsure.extend(new.unsure.into_iter().map(|k| k + keep));
                p.edits.extend(new.edits);
                p
            }
            None => f.parse(text, &popt),
        };
        let mut complete = ready(name, text, &parsed.edits);
        // A damaged edit read from the tail may count its output lines from
        // the tail's start: complete, it is read from the top (`tail`).
        if from_tail && complete == parsed.edits.len() && parsed.edits.last().is_some_and(damaged) {
            parsed = f.parse(text, &popt);
            complete = ready(name, text, &parsed.edits);
        }
        self.complete = complete;
        (self.read.to, self.open) = (upto, parsed.edits.len() > complete);
        self.parse = Some((name, parsed));
    }

    /// Adds a chunk; returns the edits that became complete with it.
    pub fn push(&mut self, chunk: &str) -> Vec<Event> {
        self.append(chunk);
        self.judge()
    }

    /// Adds a chunk without judging, for a caller that must first load the
    /// files the new text names ([`Stream::new_paths`]), then calls `judge`.
    pub fn append(&mut self, chunk: &str) {
        self.buf.push_str(chunk);
        match self.gate.advance(&self.buf) {
            gate::Step::Wait => return,
            gate::Step::Masked(end) => self.mask_reasoning(end),
            gate::Step::Pass => {}
        }
        // A fixed format that reads only complete lines re-reads only when
        // one arrived that can change which edits are complete: a chunk
        // that ends no line, or holds only lines inside an edit, changes
        // nothing the stream emits. Re-reading at every line made 20-byte
        // chunks re-read the open edit about ten times. A format whose
        // edits end mid-line is asked of the chunk (a JSON edit is complete
        // only with its closing bracket).
        match self.fixed_format() {
            Some(f) if f.whole_mid_line() && f.turn(chunk) == formats::Turn::Plain => {}
            Some(f) if !f.whole_mid_line() && !self.turned(f) => {}
            None if !self.auto.advance(&self.buf) => {}
            _ => self.refresh(),
        }
    }

    /// Whether the complete lines that arrived since the last refresh can
    /// change which edits are complete ([`formats::Format::turn`]): one
    /// that may end an edit, or one that may start an edit while another
    /// may be open (a later edit completes it). `O(new lines)`.
    fn turned(&mut self, f: &dyn formats::Format) -> bool {
        for (_, line) in self.read.take(&self.buf) {
            match f.turn(line) {
                formats::Turn::Ends => return true,
                formats::Turn::Opens if self.open => return true,
                formats::Turn::Opens => self.open = true,
                formats::Turn::Plain => {}
            }
        }
        false
    }

    /// The format once it no longer depends on the text: named in the
    /// options, or fixed by the first edit emitted under `auto`.
    fn fixed_format(&self) -> Option<&'static dyn formats::Format> {
        match self.format {
            Some(name) => formats::by_id(name),
            None => formats::by_id(self.opt.format),
        }
    }

    /// Judges what is complete in the text received so far (after files
    /// were added, say). The edits that became complete are located
    /// together, each alone against the original files
    /// ([`transaction::run_alone`]): the stream's one split and index of
    /// each file serves all of them.
    pub fn judge(&mut self) -> Vec<Event> {
        let Some((name, parsed)) = self.parse.take() else {
            return vec![];
        };
        let mut batch = vec![];
        while self.emitted < self.complete {
            let i = self.emitted;
            // An edit without a path gets its target from text that may
            // still come (whole-file blocks): it waits for `finish`.
            if parsed.edits[i].path.is_none() {
                break;
            }
            // An edit that reaches into a line still arriving may change
            // (a JSON value is whole once its bracket closes).
            let whole = formats::by_id(name).is_some_and(|f| f.whole_mid_line());
            if !whole && parsed.edits[i].span.end >= self.buf.len() && !self.buf.ends_with('\n') {
                break;
            }
            self.format.get_or_insert(name);
            let lines = self.output_lines(&parsed.edits[i]);
            let unsure = parsed.unsure.binary_search(&i).is_ok();
            batch.push((
                i + 1,
                &parsed.edits[i],
                lines,
                mention_of(&parsed, i),
                unsure,
            ));
            self.emitted += 1;
        }
        let out = if batch.is_empty() {
            vec![]
        } else {
            let declared = self.head.declared(&self.buf);
            let opt = self.opt.transaction_options();
            self.files
                .with_dependent_mut(|files, prepared| {
                    transaction::run_alone(name, &batch, declared, files, &opt, prepared)
                })
                .into_iter()
                .map(|(path, receipt)| Event { path, receipt })
                .collect()
        };
        self.parse = Some((name, parsed));
        out
    }

    /// The output lines of an edit, counting the line breaks before it once
    /// (edits come in order) rather than from the top for every edit.
    fn output_lines(&mut self, edit: &Edit) -> [usize; 2] {
        let start = edit.span.start.min(self.buf.len());
        let end = edit.span.end.clamp(start, self.buf.len());
        let (at, before) = self.lines_at;
        let b = self.buf.as_bytes();
        let before = if at <= start {
            before + memchr::memchr_iter(b'\n', &b[at..start]).count()
        } else {
            memchr::memchr_iter(b'\n', &b[..start]).count()
        };
        self.lines_at = (start, before);
        let [first, last] = OutputLines::new(&self.buf[start..end]).range(&(0..end - start));
        [first + before, last + before]
    }

    /// The final report for the whole reply: the same as [`crate::apply()`]
    /// on the whole text.
    pub fn finish(self) -> Report {
        let text = self.text().into_owned();
        crate::apply(&text, self.files.borrow_owner(), &self.opt)
    }
}

/// How many of `edits` (the parse of `buf`) are complete: all but the last,
/// and the last too once it ends with its format's closing marker.
fn ready(name: FormatName, buf: &str, edits: &[Edit]) -> usize {
    let Some(last) = edits.last() else {
        return 0;
    };
    let cut = last.is_cut();
    let rest = buf.get(last.span.end..).unwrap_or("");
    let span = buf.get(last.span.clone()).unwrap_or("");
    if cut || !closed(name, span, rest) {
        edits.len() - 1
    } else {
        edits.len()
    }
}

/// An edit the format could not read (a cut edit is not damaged: it waits).
fn damaged(e: &Edit) -> bool {
    matches!(&e.op, Op::Invalid { code, .. } if *code != Code::Truncated)
}

/// The file the prose above edit `i` names (mentions are in edit order).
fn mention_of(parsed: &Parsed, i: usize) -> Option<&str> {
    let k = parsed.mentions.binary_search_by_key(&i, |(k, _)| *k).ok()?;
    Some(parsed.mentions[k].1.as_str())
}

/// Whether an edit's text ends with a marker after which nothing can be
/// added to it, in the format that parsed it; `rest` is the text after the
/// edit (a terminator line may stand there, outside the edit's span).
fn closed(format: FormatName, span: &str, rest: &str) -> bool {
    let last = span.trim_end().lines().last().unwrap_or("").trim();
    // The first complete line after the edit.
    let next = rest.trim_start_matches(['\n', '\r']);
    let next = next.split_once('\n').map(|(l, _)| l.trim());
    let fence = formats::is_fence(last);
    formats::by_id(format).map_or(fence, |f| f.closes(last, next, fence))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The declared count read as lines arrive is the one the whole text
    /// so far declares, at every length and for any growth.
    #[test]
    fn head_reads_the_declaration_like_the_whole_text() {
        let texts = [
            "EDITS: 3\na\n".to_string(),
            "intro\n  Edits: 12  \r\nx".to_string(),
            format!("{}EDITS: 4\n", "line\n".repeat(19)),
            format!("{}EDITS: 4\n", "line\n".repeat(20)),
            "EDITS: x\nEDITS: 2\n".to_string(),
            "[{\"a\": 1}, {\"b\": 2}]".to_string(),
        ];
        for t in &texts {
            for step in [1, 3, 7] {
                let mut h = Head::default();
                let mut k = 0;
                while k < t.len() {
                    k = (k + step).min(t.len());
                    let want = crate::reading::counts::declared_edits(&t[..k]);
                    assert_eq!(h.declared(&t[..k]), want, "{t:?} at {k}");
                }
            }
        }
    }
}
