//! `apply-patch`: OpenAI Codex's V4A patch.
//!
//! ````text
//! *** Begin Patch
//! *** Update File: src/app.py
//! *** Move to: src/main.py
//! @@ class App:
//! @@     def run(self):
//!          x = 1
//! -        return x
//! +        return x + 1
//! *** Add File: NOTES.md
//! +hello
//! *** Delete File: old.py
//! *** End Patch
//! ````
//!
//! Each `@@` chunk becomes one [`Op::Replace`]: context (` `) and removed
//! (`-`) lines are the block to find, context and added (`+`) lines its
//! replacement. The texts of the `@@ line` headers before it are anchors,
//! found first and in order (several in a row nest: class, then method);
//! `*** End of File` pins the block to the end of the file. A chunk with only
//! added lines goes right after its last anchor, or, without one, at the end
//! of the file (as Codex does). `Add File` is [`Op::Create`], `Delete File`
//! [`Op::Delete`], `Move to` an [`Op::Rename`] after the file's chunks.
//!
//! Unlike Codex, chunks are located independently against the original, so
//! their order does not matter and context that occurs twice is `ambiguous`
//! instead of "the first one after the previous chunk"; the whole patch is
//! one transaction. Lenient reading (the default) accepts markers padded with
//! whitespace, a patch in a fence or in prose, a missing `*** Begin Patch`, a
//! chunk line without a prefix (read as context: the space was lost), blank
//! lines in an added file, and a unified-diff header `@@ -1,2 +1,3 @@ text`
//! (its numbers mean nothing here; `text` is the anchor). A space-marked
//! context line left with an odd indentation (`   x` for `    x`) may be an
//! indented line that lost its marker: such a chunk is offered in three
//! readings (as written, odd lines whole, every context line whole) and the
//! file chooses ([`crate::apply::locate::readings`]). Strict mode refuses these. Without `*** End Patch` the output is `truncated`: the complete
//! sections before the cut are located and held back, nothing applies.
//!
//! Rendering writes the patch a careful model would: one `@@` chunk per
//! change with the least context that is unique (see
//! [`crate::apply::diff::unique_blocks`]), so it needs no anchors. One pass,
//! `O(len)`; rendering costs a line diff.

use super::{Format, ParseOptions};
use crate::apply::diff::{changes_linear, unique_blocks};
use crate::apply::feedback::Words;
use crate::apply::matcher::Level;
use crate::apply::text::Text;
use crate::edit::Reading;
use crate::edit::{Code, Edit, Op, Parsed};
use crate::formats::prompt::{self, COUNT};
use crate::reading::scan::{out_lines, OutLine};
use crate::reading::sniff::{Reply, Sniff};
use std::ops::Range;

pub struct ApplyPatch;

/// The line that opens a patch.
pub const BEGIN: &str = "*** Begin Patch";
/// The line that closes a patch.
pub const END: &str = "*** End Patch";
/// The line that ends a chunk at the file's end.
pub const END_OF_FILE: &str = "*** End of File";
/// The action that adds a file, followed by its path.
pub const ADD: &str = "*** Add File:";
/// The action that deletes a file, followed by its path.
pub const DELETE: &str = "*** Delete File:";
/// The action that changes a file, followed by its path.
pub const UPDATE: &str = "*** Update File:";
/// After an update's action: the path the file moves to.
pub const MOVE: &str = "*** Move to:";
/// The file actions a patch's sections start with.
pub const ACTIONS: [&str; 3] = [UPDATE, ADD, DELETE];

/// A marker line, recognised with surrounding whitespace trimmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark<'a> {
    Begin,
    End,
    Add(&'a str),
    Delete(&'a str),
    Update(&'a str),
    Move(&'a str),
    EndOfFile,
    /// `@@`, with the anchor text after it, if any.
    Chunk(Option<&'a str>),
    /// `*** Rename File: p` and the like: a file action V4A does not have.
    Unknown(&'a str),
}

fn mark(line: &str, strict: bool) -> Option<Mark<'_>> {
    let t = line.trim();
    match t {
        BEGIN => return Some(Mark::Begin),
        END => return Some(Mark::End),
        END_OF_FILE => return Some(Mark::EndOfFile),
        "@@" => return Some(Mark::Chunk(None)),
        _ => {}
    }
    if let Some(rest) = t.strip_prefix("@@") {
        // `@@count` (a Ruby class variable) is a line, not a header.
        if !rest.starts_with(char::is_whitespace) {
            return None;
        }
        return Some(Mark::Chunk(anchor_text(rest.trim(), strict)));
    }
    let file = |p: &str| {
        t.strip_prefix(p)
            .map(|r| r.trim().trim_matches(['`', '"', '\'']).trim())
    };
    if let Some(p) = file(ADD) {
        return Some(Mark::Add(p));
    }
    if let Some(p) = file(DELETE) {
        return Some(Mark::Delete(p));
    }
    if let Some(p) = file(UPDATE) {
        return Some(Mark::Update(p));
    }
    if let Some(p) = file(MOVE) {
        return Some(Mark::Move(p));
    }
    let action = t.strip_prefix("*** ")?.split_once(" File:")?.0;
    (!action.is_empty() && action.chars().all(|c| c.is_ascii_alphabetic()))
        .then_some(Mark::Unknown(t))
}

/// The anchor of `@@ text`; a unified-diff range header before the text
/// (`-12,3 +12,4 @@ def f():`) is dropped in lenient mode.
fn anchor_text(rest: &str, strict: bool) -> Option<&str> {
    let mut t = rest;
    if !strict && t.starts_with('-') {
        let mut words = t.splitn(4, ' ');
        let ranges = |w: Option<&str>, sign: char| {
            w.and_then(|w| w.strip_prefix(sign))
                .is_some_and(|w| !w.is_empty() && w.split(',').all(|n| n.parse::<u64>().is_ok()))
        };
        if ranges(words.next(), '-') && ranges(words.next(), '+') && words.next() == Some("@@") {
            t = words.next().unwrap_or("").trim();
        }
    }
    (!t.is_empty()).then_some(t)
}

/// True when `rest` is indented by an odd number of spaces.
fn odd_indent(rest: &str) -> bool {
    let n = rest.len() - rest.trim_start_matches(' ').len();
    n % 2 == 1 && !rest[n..].trim().is_empty() && !rest[n..].starts_with('\t')
}

/// The chunk being read in an `Update File` section.
#[derive(Default)]
struct Chunk {
    anchors: Vec<String>,
    old: Vec<String>,
    new: Vec<String>,
    /// `old` and `new` with the space-marked context lines of odd
    /// indentation read whole, as if the model had dropped their marker
    /// (see `doubtful`); and with every space-marked context line read whole.
    odd_old: Vec<String>,
    odd_new: Vec<String>,
    whole_old: Vec<String>,
    whole_new: Vec<String>,
    /// A space-marked context line leaves an odd indentation (3 spaces):
    /// likely a line indented 4 that lost its marker. The chunk is then
    /// offered in both readings and the file decides (`crate::apply::locate::readings`).
    doubtful: bool,
    /// Content lines read (context, `-`, `+`).
    body: usize,
    /// Empty output lines at the end of the chunk: separators, not context.
    empties: usize,
    span: Option<Range<usize>>,
}

impl Chunk {
    /// A body line of an update chunk (` ` context, `-` removed, `+`
    /// added; unmarked as context unless strict), with the readings it
    /// offers when its marker may have been lost; false when it is none.
    fn push_line(&mut self, l: &OutLine, strict: bool) -> bool {
        let (old, new) = match l.text.as_bytes().first() {
            None => (Some(""), Some("")),
            Some(b' ') => (Some(&l.text[1..]), Some(&l.text[1..])),
            Some(b'-') => (Some(&l.text[1..]), None),
            Some(b'+') => (None, Some(&l.text[1..])),
            Some(_) if !strict => (Some(l.text), Some(l.text)),
            Some(_) => (None, None),
        };
        if old.is_none() && new.is_none() {
            return false;
        }
        let marked = l.text.starts_with(' ');
        let odd = marked && odd_indent(&l.text[1..]);
        let whole = |t: &str| if marked { l.text } else { t }.to_owned();
        let odd_whole = |t: &str| if odd { l.text } else { t }.to_owned();
        self.odd_old.extend(old.map(odd_whole));
        self.odd_new.extend(new.map(odd_whole));
        self.whole_old.extend(old.map(whole));
        self.whole_new.extend(new.map(whole));
        self.doubtful |= !strict && odd;
        self.old.extend(old.map(str::to_owned));
        self.new.extend(new.map(str::to_owned));
        self.body += 1;
        self.empties = if l.text.is_empty() {
            self.empties + 1
        } else {
            0
        };
        let span = l.start..l.end;
        self.span.get_or_insert(span.clone()).end = span.end;
        true
    }
}
enum Action {
    Add {
        text: Vec<String>,
        blanks: usize,
    },
    Delete,
    Update {
        // Boxed: a chunk carries three readings of its lines.
        chunk: Box<Chunk>,
        moved: Option<(String, Range<usize>)>,
    },
}

/// One `*** ... File:` section and the edits it has produced so far.
struct Section {
    path: String,
    head: Range<usize>,
    kind: Action,
    edits: Vec<Edit>,
}

impl Section {
    fn open(m: Mark, l: &OutLine) -> Option<Section> {
        let (path, kind) = match m {
            Mark::Add(p) => (
                p,
                Action::Add {
                    text: vec![],
                    blanks: 0,
                },
            ),
            Mark::Delete(p) => (p, Action::Delete),
            Mark::Update(p) => (
                p,
                Action::Update {
                    chunk: Box::default(),
                    moved: None,
                },
            ),
            _ => return None,
        };
        let mut s = Section {
            path: path.to_owned(),
            head: l.start..l.end,
            kind,
            edits: vec![],
        };
        if path.is_empty() {
            s.invalid(
                format!(
                    "`{}` names no file; write the path after the colon",
                    l.text.trim()
                ),
                l.start..l.end,
            );
        }
        Some(s)
    }

    fn edit(&mut self, op: Op, span: Range<usize>) {
        let path = Some(self.path.clone()).filter(|p| !p.is_empty());
        self.edits.push(Edit { path, op, span });
    }

    fn invalid(&mut self, message: String, span: Range<usize>) {
        let op = Op::invalid(Code::Malformed, message);
        self.edit(op, span);
    }

    /// Reads one line of the section's body (`no` is its 1-based number).
    fn feed(&mut self, l: &OutLine, no: usize, strict: bool) {
        let span = l.start..l.end;
        let problem = match &mut self.kind {
            Action::Delete => {
                let t = l.text.trim();
                if t.is_empty() || (!strict && t.starts_with('-')) {
                    return;
                }
                format!("output line {no}: `*** Delete File: {}` takes no lines after it; to change the file, use `*** Update File:`", self.path)
            }
            Action::Add { text, blanks } => {
                if let Some(rest) = l.text.strip_prefix('+') {
                    text.extend(std::iter::repeat_n(String::new(), *blanks));
                    *blanks = 0;
                    text.push(rest.to_owned());
                    return;
                }
                if !strict && l.text.trim().is_empty() {
                    *blanks += 1;
                    return;
                }
                format!("output line {no}: `{}` in an added file; every line of `*** Add File:` starts with `+`", l.text.trim())
            }
            Action::Update { chunk, moved } => match mark(l.text, strict) {
                Some(Mark::Move(to)) => {
                    *moved = Some((to.to_owned(), span));
                    return;
                }
                Some(Mark::Chunk(anchor)) => {
                    if chunk.body > 0 {
                        self.flush(false);
                    }
                    let Action::Update { chunk, .. } = &mut self.kind else {
                        return;
                    };
                    chunk.anchors.extend(anchor.map(str::to_owned));
                    chunk.span.get_or_insert(span.clone()).end = span.end;
                    return;
                }
                Some(Mark::EndOfFile) if chunk.body > 0 => {
                    chunk.span.get_or_insert(span.clone()).end = span.end;
                    chunk.empties = 0;
                    return self.flush(true);
                }
                Some(Mark::EndOfFile) => {
                    format!("output line {no}: `*** End of File` must follow the lines of a chunk")
                }
                Some(Mark::Begin) => return,
                _ if chunk.push_line(l, strict) => return,
                _ => format!("output line {no}: `{}` in an update chunk; every line starts with ` ` (context), `-` (removed) or `+` (added)", l.text.trim()),
            },
        };
        self.invalid(problem, span);
    }

    /// Ends the current chunk of an update section as an edit.
    fn flush(&mut self, at_end: bool) {
        let Action::Update { chunk, .. } = &mut self.kind else {
            return;
        };
        let mut c = *std::mem::take(chunk);
        let span = c.span.clone().unwrap_or(self.head.clone());
        if c.body == 0 {
            if !c.anchors.is_empty() {
                let msg = format!(
                    "the chunk `@@ {}` has no lines after it; add the context, `-` and `+` lines",
                    c.anchors.join(" / ")
                );
                self.invalid(msg, span);
            }
            return;
        }
        // Empty output lines that end a chunk separate it from the next one.
        if !at_end {
            for _ in 0..c.empties.min(c.old.len()).min(c.new.len()) {
                c.old.pop();
                c.new.pop();
                c.odd_old.pop();
                c.odd_new.pop();
                c.whole_old.pop();
                c.whole_new.pop();
            }
        }
        let at_end = at_end || (c.old.is_empty() && c.anchors.is_empty());
        let replace = |old, new| Op::Replace {
            old,
            new,
            hint: None,
            anchors: c.anchors.clone(),
            at_end,
        };
        let op = if c.doubtful {
            // The whole-line readings already give the indentation back, so
            // they must not be matched at the `indent` level as well.
            let mut readings = vec![Reading {
                op: replace(c.old, c.new),
                max_level: Level::Unicode,
            }];
            let all_back = (c.whole_old != c.odd_old).then_some((c.whole_old, c.whole_new));
            for (old, new) in [Some((c.odd_old, c.odd_new)), all_back]
                .into_iter()
                .flatten()
            {
                readings.push(Reading {
                    op: replace(old, new),
                    max_level: Level::TrailingWs,
                });
            }
            Op::OneOf(readings)
        } else {
            replace(c.old, c.new)
        };
        self.edit(op, span);
    }

    /// The section's edits once it is complete.
    fn close(mut self) -> Vec<Edit> {
        let span = self.head.start..self.head.end;
        match std::mem::replace(&mut self.kind, Action::Delete) {
            Action::Delete => self.edit(Op::Delete, span),
            Action::Add { text, .. } => self.edit(Op::Create { text }, span),
            Action::Update { chunk, moved } => {
                self.kind = Action::Update { chunk, moved: None };
                self.flush(false);
                match moved {
                    Some((to, at)) => self.edit(Op::Rename { to }, at),
                    None if self.edits.is_empty() => self.invalid(
                        format!("`*** Update File: {}` has no chunks; add `@@` chunks with ` `, `-` and `+` lines, or `*** Move to:`", self.path),
                        span,
                    ),
                    None => {}
                }
            }
        }
        self.edits
    }
}

/// How messages name the parts of a V4A chunk.
pub const WORDS: Words = Words {
    old: "the chunk's context and `-` lines",
    short: "chunk",
    new: "the chunk's result",
    create: "use `*** Add File:`",
    readings: "some context lines lost their one-space marker. Write every line with its marker (a space for unchanged lines, `-` removed, `+` added)",
};

/// A line that starts V4A: the patch's opening, or a file action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opening {
    /// `*** Begin Patch`.
    Begin,
    /// `*** Update/Add/Delete File:`.
    Action,
}

/// Whether a line starts V4A, and how.
fn opening(line: &str) -> Option<Opening> {
    let t = line.trim();
    if t == BEGIN {
        return Some(Opening::Begin);
    }
    ACTIONS
        .iter()
        .any(|p| t.starts_with(p))
        .then_some(Opening::Action)
}

impl Format for ApplyPatch {
    fn sniff(&self, reply: &Reply) -> Option<Sniff> {
        let i = reply.first_line(|_, t| opening(t).is_some())?;
        let begin = opening(reply.lines[i].text) == Some(Opening::Begin);
        let end = reply.any_line(|x| x.trim() == END);
        Some(Sniff {
            at: reply.lines[i].start,
            confidence: match (begin, end) {
                (true, true) => 0.98,
                (true, false) => 0.9,
                _ => 0.8,
            },
            reason: "has `*** Begin Patch` / `*** Update File:` markers".into(),
        })
    }

    fn closes(&self, last: &str, next: Option<&str>, _fence: bool) -> bool {
        last == END || next == Some(END)
    }

    /// `*** End Patch` ends the patch's last edit; a file action (or
    /// `*** Begin Patch`) may start an edit, which ends the one before. A
    /// section's chunks become edits only when the section ends (until
    /// then the cut section is one `truncated` edit), so a chunk's `@@`,
    /// `*** End of File`, `*** Move to:` and the lines of a chunk end
    /// nothing.
    fn turn(&self, line: &str) -> super::Turn {
        match mark(line, false).or(mark(line, true)) {
            Some(Mark::End) => super::Turn::Ends,
            Some(Mark::Chunk(_) | Mark::EndOfFile | Mark::Move(_)) | None => super::Turn::Plain,
            Some(_) => super::Turn::Opens,
        }
    }

    fn prompt(&self) -> prompt::Prompt {
        prompt::Prompt {
            instructions: format!("Reply with one patch between `*** Begin Patch` and `*** End Patch`. For each file: `*** Update File: PATH` (optionally `*** Move to: NEW`), `*** Add File: PATH` (every line prefixed `+`) or `*** Delete File: PATH`. In updates, each change starts with `@@` (optionally followed by a line such as the enclosing `def` or `class` that makes it unique), then context lines prefixed with a space, removed lines with `-`, added lines with `+`. {COUNT}"),
            example_view: prompt::plain_view(),
            example_reply: "EDITS: 1\n*** Begin Patch\n*** Update File: app.py\n@@ def greet(name):\n-    print(\"Hello, \" + name)\n+    print(f\"Hello, {name}!\")\n*** End Patch\n".into(),
        }
    }

    fn words(&self) -> &'static Words {
        &WORDS
    }

    fn id(&self) -> crate::formats::FormatName {
        crate::formats::FormatName::ApplyPatch
    }

    fn parse(&self, output: &str, opt: &ParseOptions) -> Parsed {
        self.parse_lines(output, &out_lines(output), opt)
    }

    fn parse_lines(&self, output: &str, lines: &[OutLine], opt: &ParseOptions) -> Parsed {
        let mut parsed = Parsed::default();
        let mut i = 0;
        while i < lines.len() {
            i = match mark(lines[i].text, opt.strict) {
                Some(Mark::Begin) => patch(output, lines, i, i + 1, opt.strict, &mut parsed),
                Some(Mark::Add(_) | Mark::Delete(_) | Mark::Update(_)) if !opt.strict => {
                    patch(output, lines, i, i, opt.strict, &mut parsed)
                }
                _ => i + 1,
            };
        }
        parsed
    }

    fn render(&self, path: &str, before: &str, after: &str) -> String {
        let (b, a) = (Text::new(before), Text::new(after));
        let (bl, al) = (b.lines(), a.lines());
        let mut out = String::new();
        if bl.is_empty() {
            if al.is_empty() {
                return out;
            }
            out.push_str(&format!("{BEGIN}\n{ADD} {path}\n"));
            for l in al {
                out.push_str(&format!("+{l}\n"));
            }
        } else {
            let blocks = unique_blocks(bl, al, 0);
            if blocks.is_empty() {
                return out;
            }
            out.push_str(&format!("{BEGIN}\n{UPDATE} {path}\n"));
            for c in blocks {
                out.push_str("@@\n");
                push_chunk(&mut out, &bl[c.old], &al[c.new]);
            }
        }
        out.push_str(END);
        out.push('\n');
        out
    }
}

/// Reads one patch whose sections start at line `from`; returns the line
/// after its `*** End Patch` (or the end of the output when it is cut).
fn patch(
    output: &str,
    lines: &[OutLine],
    begin: usize,
    from: usize,
    strict: bool,
    parsed: &mut Parsed,
) -> usize {
    let mut sec: Option<Section> = None;
    for (i, l) in lines.iter().enumerate().skip(from) {
        match mark(l.text, strict) {
            Some(Mark::End) => {
                parsed
                    .edits
                    .extend(sec.map(Section::close).unwrap_or_default());
                return i + 1;
            }
            Some(m @ (Mark::Add(_) | Mark::Delete(_) | Mark::Update(_))) => {
                parsed
                    .edits
                    .extend(sec.take().map(Section::close).unwrap_or_default());
                sec = Section::open(m, l);
            }
            Some(Mark::Unknown(line)) => {
                parsed
                    .edits
                    .extend(sec.take().map(Section::close).unwrap_or_default());
                parsed.edits.push(unknown_action(line, i, l));
            }
            // Lines before the first section are prose.
            _ => {
                if let Some(s) = &mut sec {
                    s.feed(l, i + 1, strict);
                }
            }
        }
    }
    parsed.truncated = true;
    let (path, start, what) = match sec {
        Some(s) => (
            Some(s.path.clone()).filter(|p| !p.is_empty()),
            s.head.start,
            format!("inside the section for {}", s.path),
        ),
        None => (None, lines[begin].start, "before its first section".into()),
    };
    parsed.edits.push(Edit {
        path,
        op: Op::invalid(Code::Truncated, format!("the output ends {what} without `*** End Patch`; the reply was cut off (or the patch was not closed)")),
        span: start..output.len(),
    });
    lines.len()
}

/// A `*** Xxx File:` line with an action V4A does not have: refused with
/// the line, so that the model learns the actions (a patch of only such
/// sections would otherwise have no edits at all).
fn unknown_action(line: &str, i: usize, l: &OutLine) -> Edit {
    let path = line
        .split_once("File:")
        .map(|(_, p)| p.trim().trim_matches(['`', '"', '\'']));
    Edit {
        path: path.filter(|p| !p.is_empty()).map(str::to_owned),
        op: Op::invalid(Code::Malformed, format!(
                "output line {}: `{line}` is not a patch action; the actions are `*** Add File:`, `*** Delete File:` and `*** Update File:` (followed by `*** Move to:` to rename)",
                i + 1
            )),
        span: l.start..l.end,
    }
}

/// One chunk's lines: unchanged lines as context, the rest as `-` / `+`.
fn push_chunk(out: &mut String, old: &[&str], new: &[&str]) {
    let mut push = |prefix: char, l: &str| {
        out.push(prefix);
        out.push_str(l);
        out.push('\n');
    };
    // A context line that would read as a marker is written as removed
    // and added again, which means the same and cannot be misread.
    let context = |l: &str, push: &mut dyn FnMut(char, &str)| {
        if mark(&format!(" {l}"), false).is_some() {
            push('-', l);
            push('+', l);
        } else {
            push(' ', l);
        }
    };
    let mut i = 0;
    for c in changes_linear(old, new) {
        for l in &old[i..c.old.start] {
            context(l, &mut push);
        }
        for l in &old[c.old.clone()] {
            push('-', l);
        }
        for l in &new[c.new.clone()] {
            push('+', l);
        }
        i = c.old.end;
    }
    for l in &old[i..] {
        context(l, &mut push);
    }
}

#[cfg(test)]
mod tests;
