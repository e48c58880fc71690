//! Reading unified diffs out of a model's reply: files, hunks, body lines.
//!
//! Nothing is repaired here. Every deviation from the format is recorded on
//! the line or hunk it concerns (a line without its marker, an empty line,
//! counts that disagree with the body, a hunk cut off by the end of the
//! output), so that the lenient reading, strict validation, diagnosis,
//! repair and the `patch` simulation all start from the same parse.
//!
//! A hunk ends at the next hunk or file header, at the closing fence, or at
//! the end of the output. In a bare (unfenced) diff, prose after the last
//! hunk is cut off: a paragraph after a blank line without any marked line,
//! or unmarked lines once the header's counts are met. Inside a fence,
//! unmarked lines are damaged hunk lines, not prose. A lone CR ending the
//! output is a CRLF line end cut before its LF, not text; a hunk whose last
//! line has no line break after it is marked ([`Hunk::open_end`]): that
//! line may be cut short. One pass, `O(len)`.

use super::headers::{git_paths, side_path};
pub use super::headers::{parse_header, unquote, Header};
use crate::reading::scan::{fence_closes, fence_open, out_lines, path_from_info, path_from_line};
use crate::reading::scan::{Fence, OutLine};
use std::ops::Range;

/// What a body line does, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Prefix {
    Context,
    Remove,
    Add,
}

/// How a body line deviates from the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Damage {
    /// An empty line; git and GNU patch read it as an empty unchanged line.
    Blank,
    /// A line that starts with none of ` `, `+`, `-` (it reads as unchanged).
    NoPrefix,
}

/// One line of a hunk body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyLine {
    /// The kind as written; unmarked lines read as unchanged.
    pub kind: Prefix,
    /// The line without its marker (the whole line when it has none).
    pub text: String,
    pub damage: Option<Damage>,
    /// Followed by `\ No newline at end of file`.
    pub no_newline: bool,
    /// The line ended with CR LF in the output.
    pub cr: bool,
    /// 1-based line in the output.
    pub out_line: usize,
}

impl BodyLine {
    pub fn is_old(&self) -> bool {
        self.kind != Prefix::Add
    }
    pub fn is_new(&self) -> bool {
        self.kind != Prefix::Remove
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub header: Header,
    pub lines: Vec<BodyLine>,
    /// Byte range in the output, header included.
    pub span: Range<usize>,
    /// 1-based output line of the `@@` header.
    pub out_line: usize,
    /// The output ends inside this hunk: its counts are not met, or its
    /// fence is never closed.
    pub cut: bool,
    /// `cut` only because the output ends before the header's counts are
    /// met, outside a fence: the counts may as well be wrong.
    pub maybe_miscounted: bool,
    /// The output ends inside the hunk's last line (no line break after
    /// it), so that line may be cut short.
    pub open_end: bool,
    /// A file that the prose between the previous hunk and this headerless
    /// one names (`` Now in `b.py`: ``) without a path line: the hunk goes
    /// on in the previous hunk's file, which must be that one.
    pub mention: Option<String>,
}

impl Hunk {
    /// (old, new) line counts of the body as written.
    pub fn counts(&self) -> (usize, usize) {
        let old = self.lines.iter().filter(|l| l.is_old()).count();
        let new = self.lines.iter().filter(|l| l.is_new()).count();
        (old, new)
    }
    /// The old-side start line the header states (1-based; 0 = before line 1).
    pub fn old_start(&self) -> Option<usize> {
        self.header.old.map(|o| o.0)
    }
}

/// The part of a diff about one file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileDiff {
    /// Paths with `a/` / `b/` removed; `None` for `/dev/null` or unnamed.
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    /// `--- /dev/null` or `new file mode`.
    pub created: bool,
    /// `+++ /dev/null` or `deleted file mode`.
    pub deleted: bool,
    /// `rename from` / `rename to`.
    pub rename: Option<(String, String)>,
    /// Started by `diff --git`.
    pub git: bool,
    /// Had `---` / `+++` lines.
    pub headers: bool,
    /// Only a mode change (git `old mode` / `new mode`).
    pub mode_only: bool,
    pub hunks: Vec<Hunk>,
    pub span: Range<usize>,
    /// 1-based output line where the file's part starts.
    pub out_line: usize,
    /// Why the part cannot be used (binary patch, copy).
    pub unsupported: Option<String>,
    /// The output ends right after the file's header, before any hunk.
    pub cut: bool,
}

impl FileDiff {
    /// The path the hunks apply to.
    pub fn target(&self) -> Option<&str> {
        if self.created {
            self.new_path.as_deref()
        } else if let Some((from, _)) = &self.rename {
            Some(from)
        } else {
            self.old_path.as_deref().or(self.new_path.as_deref())
        }
    }
}

/// Reads every file part of a diff in `output`.
pub fn read(output: &str) -> Vec<FileDiff> {
    read_lines(output, &out_lines(output))
}

/// [`read`] on the output's lines, already split.
pub fn read_lines<'a>(output: &'a str, lines: &[OutLine<'a>]) -> Vec<FileDiff> {
    let r = DiffReader {
        output,
        lines,
        files: vec![],
        fence: None,
        hint: None,
        mention: None,
    };
    r.read()
}

/// [`read_lines`] of a text that starts at a hunk of a plain file part
/// (not created, deleted or refused) whose hunks go to `path`, in the state
/// a read of the whole diff is in there: the part open, and a fence open
/// around it when `fenced`. Nothing else of what came before counts: a
/// path named above the hunk was named before the part's end, and the
/// prose naming a file is taken by the hunk below it. Which fence is open
/// matters only to lines that may open or close one.
pub fn read_from_hunk<'a>(
    output: &'a str,
    lines: &[OutLine<'a>],
    path: Option<String>,
    fenced: bool,
) -> Vec<FileDiff> {
    let part = FileDiff {
        old_path: path.clone(),
        new_path: path,
        headers: true,
        ..Default::default()
    };
    let fence = Fence {
        ch: '`',
        len: 3,
        info: "",
    };
    let r = DiffReader {
        output,
        lines,
        files: vec![part],
        fence: fenced.then_some(fence),
        hint: None,
        mention: None,
    };
    r.read()
}

impl DiffReader<'_, '_> {
    fn read(mut self) -> Vec<FileDiff> {
        let lines = self.lines;
        let mut i = 0;
        while i < lines.len() {
            i = self.step(i);
        }
        self.mark_cut();
        self.files
    }
}

/// The diff read so far and what the lines before gave.
struct DiffReader<'a, 'l> {
    output: &'a str,
    lines: &'l [OutLine<'a>],
    files: Vec<FileDiff>,
    fence: Option<Fence<'a>>,
    /// A path named by a line of prose or a fence's info string, and the
    /// byte offset where it was named.
    hint: Option<(String, usize)>,
    /// A file named in prose, and where: see `Hunk::mention`.
    mention: Option<(String, usize)>,
}

impl<'a> DiffReader<'a, '_> {
    /// Reads what starts at line `i`; returns the next line to read.
    fn step(&mut self, i: usize) -> usize {
        let lines = self.lines;
        let t = lines[i].text;
        match self.fence {
            Some(f) if closes(t, &f) => {
                self.fence = None;
                return i + 1;
            }
            None => {
                if let Some(f) = fence_open(t) {
                    let p = path_from_info(f.info)
                        .or_else(|| i.checked_sub(1).and_then(|k| path_from_line(lines[k].text)));
                    if let Some(p) = p {
                        self.hint = Some((p, lines[i].start));
                    }
                    self.fence = Some(f);
                    return i + 1;
                }
            }
            _ => {}
        }
        if let Some(rest) = t.strip_prefix("diff --git ") {
            let (old, new) = git_paths(rest);
            self.files.push(FileDiff {
                old_path: old,
                new_path: new,
                git: true,
                span: lines[i].start..lines[i].end,
                out_line: i + 1,
                ..Default::default()
            });
            return extended_headers(lines, i + 1, self.files.last_mut().expect("pushed"));
        }
        if is_file_header(lines, i) {
            return self.file_header(i);
        }
        if t.starts_with("@@") {
            return self.hunk_at(i);
        }
        if let Some(p) = path_from_line(t) {
            self.hint = Some((p, lines[i].start));
        } else if let Some(m) = crate::reading::scan::path_in_prose(t) {
            self.mention = Some((m, lines[i].start));
        }
        i + 1
    }

    /// A `---`/`+++` pair at line `i`: the sides of a new file part, or of
    /// the `diff --git` part right above it.
    fn file_header(&mut self, i: usize) -> usize {
        let lines = self.lines;
        let attach = self.files.last().is_some_and(|f| {
            f.git && !f.headers && f.hunks.is_empty() && f.span.end == lines[i].start
        });
        if !attach {
            self.files.push(FileDiff {
                span: lines[i].start..lines[i].start,
                out_line: i + 1,
                ..Default::default()
            });
        }
        let f = self.files.last_mut().expect("exists");
        set_side_paths(f, &lines[i].text[4..], &lines[i + 1].text[4..]);
        f.span.end = lines[i + 1].end;
        i + 2
    }

    /// A hunk at line `i`, in the current file part or, when a path was
    /// named after that part, in a new one.
    fn hunk_at(&mut self, i: usize) -> usize {
        let lines = self.lines;
        let fresh = match (self.files.last(), &self.hint) {
            (None, _) => true,
            (Some(f), Some((p, at))) => *at >= f.span.end && f.target() != Some(p.as_str()),
            (Some(_), None) => false,
        };
        if fresh {
            let p = self.hint.as_ref().map(|h| h.0.clone());
            self.files.push(FileDiff {
                old_path: p.clone(),
                new_path: p,
                span: lines[i].start..lines[i].start,
                out_line: i + 1,
                ..Default::default()
            });
        }
        let (mut h, next) = hunk(self.output, lines, i, self.fence);
        let mention = self.mention.take();
        if !fresh {
            let files = &self.files;
            h.mention = mention
                .filter(|(_, at)| files.last().is_some_and(|f| *at >= f.span.end))
                .map(|(m, _)| m);
        }
        let f = self.files.last_mut().expect("exists");
        f.span.end = h.span.end;
        f.hunks.push(h);
        next
    }

    /// A file header at the very end, before any hunk: the reply was cut.
    /// Only git's header-only parts (an empty file created or deleted, a
    /// rename, a mode change) are complete without hunks, and never inside
    /// a fence that is not closed.
    fn mark_cut(&mut self) {
        let lines = self.lines;
        let rest_blank = |from: usize| {
            lines[from.min(lines.len())..]
                .iter()
                .all(|l| l.text.trim().is_empty())
        };
        let open_fence = self.fence.is_some();
        if let Some(f) = self.files.last_mut().filter(|f| f.hunks.is_empty()) {
            let after = lines.partition_point(|l| l.start < f.span.end);
            let whole = !f.headers && (f.created || f.deleted || f.rename.is_some() || f.mode_only);
            if open_fence || (rest_blank(after) && !whole && f.unsupported.is_none()) {
                f.cut = true;
            }
        }
    }
}

/// A closing fence; inside a hunk a marked line (` ```` `) is content.
fn closes(t: &str, f: &Fence) -> bool {
    t.starts_with(f.ch) && fence_closes(t, f)
}

/// Both sides of a `---`/`+++` pair at `i` name a path or `/dev/null`.
fn paths_pair(lines: &[OutLine], i: usize) -> bool {
    let side = |t: &str| {
        let p = t[4..].split('\t').next().unwrap_or("").trim();
        p == "/dev/null" || p.starts_with('"') || crate::reading::scan::looks_like_path(p)
    };
    side(lines[i].text) && side(lines[i + 1].text)
}

/// `--- path` directly followed by `+++ path`.
fn is_file_header(lines: &[OutLine], i: usize) -> bool {
    lines[i].text.starts_with("--- ")
        && lines.get(i + 1).is_some_and(|l| l.text.starts_with("+++ "))
}

/// Whether a line stops a hunk whatever the counts say.
/// `open` says whether the hunk still needs lines by its header's counts:
/// then a `---`/`+++` pair is only a file header when both sides name
/// paths, else it is a removed `-- x` and an added `++ y` (SQL, Lua).
fn hard_stop(lines: &[OutLine], j: usize, fence: Option<Fence>, open: bool) -> bool {
    let t = lines[j].text;
    t.starts_with("@@")
        || t.starts_with("diff --git ")
        || t.starts_with("Index: ")
        || (is_file_header(lines, j) && (!open || paths_pair(lines, j)))
        || match fence {
            Some(f) => closes(t, &f),
            None => t.starts_with(['`', '~']) && fence_open(t).is_some(),
        }
}

fn marked(t: &str) -> bool {
    t.starts_with([' ', '+', '-', '\\'])
}

/// The first `k` at which the lines `cands[..k]` meet the counts.
fn counts_met_at(cands: &[OutLine], old: usize, new: usize) -> Option<usize> {
    let (mut o, mut n) = (0, 0);
    for (k, l) in cands.iter().enumerate() {
        if o == old && n == new {
            return Some(k);
        }
        match l.text.as_bytes().first() {
            Some(b'-') => o += 1,
            Some(b'+') => n += 1,
            Some(b'\\') => {}
            _ => (o, n) = (o + 1, n + 1),
        }
        if o > old || n > new {
            return None;
        }
    }
    (o == old && n == new).then_some(cands.len())
}

/// Where the body ends among the candidate lines after a header.
fn body_end(cands: &[OutLine], h: &Header, fenced: bool) -> usize {
    let counts = h.old.zip(h.new).map(|(o, n)| (o.1, n.1));
    let mut end = cands.len();
    if !fenced {
        // Trailing prose paragraphs: after a blank line, nothing marked.
        loop {
            // Only empty lines: a line holding a space is a marked one.
            while end > 0 && cands[end - 1].text.is_empty() {
                end -= 1;
            }
            let para = (0..end).rev().find(|&k| cands[k].text.is_empty());
            match para {
                Some(p) if cands[p + 1..end].iter().all(|l| !marked(l.text)) => end = p,
                _ => break,
            }
        }
        // Counts met and only unmarked lines after them: prose.
        if let Some((o, n)) = counts {
            if let Some(mut k) = counts_met_at(&cands[..end], o, n) {
                while k < end && cands[k].text.starts_with('\\') {
                    k += 1;
                }
                if cands[k..end].iter().all(|l| !marked(l.text)) {
                    end = k;
                }
            }
        }
    }
    // Trailing empty lines stay only as far as the counts still need them.
    let mut core = end;
    while core > 0 && cands[core - 1].text.is_empty() {
        core -= 1;
    }
    let mut need = counts.map_or(0, |(o, n)| {
        let (mut so, mut sn) = (0usize, 0usize);
        for l in &cands[..core] {
            match l.text.as_bytes().first() {
                Some(b'-') => so += 1,
                Some(b'+') => sn += 1,
                Some(b'\\') => {}
                _ => (so, sn) = (so + 1, sn + 1),
            }
        }
        o.saturating_sub(so).min(n.saturating_sub(sn))
    });
    let mut k = core;
    while k < cands.len() && cands[k].text.is_empty() && need > 0 {
        k += 1;
        need -= 1;
    }
    k
}

/// Reads the hunk whose header is line `at`; returns it and the index of
/// One line of a hunk's body (not a `\ No newline` marker): its kind by
/// its marker, or context with the damage a missing marker is.
fn body_line(output: &str, l: &OutLine, out_line: usize) -> BodyLine {
    // A lone CR ending the output is a CRLF line ending cut before its
    // LF (line ends are never content here), not part of the line.
    let at_end = l.end == output.len();
    let t = match l.text.strip_suffix('\r') {
        Some(s) if at_end => s,
        _ => l.text,
    };
    let (kind, text, damage) = match t.chars().next() {
        Some(' ') => (Prefix::Context, &t[1..], None),
        Some('+') => (Prefix::Add, &t[1..], None),
        Some('-') => (Prefix::Remove, &t[1..], None),
        None => (Prefix::Context, "", Some(Damage::Blank)),
        Some(_) => (Prefix::Context, t, Some(Damage::NoPrefix)),
    };
    BodyLine {
        kind,
        text: text.to_owned(),
        damage,
        no_newline: false,
        cr: output[l.start..l.end].ends_with("\r\n") || (at_end && t.len() < l.text.len()),
        out_line,
    }
}

/// the first line after it.
fn hunk(output: &str, lines: &[OutLine], at: usize, fence: Option<Fence>) -> (Hunk, usize) {
    let header = parse_header(lines[at].text);
    let (mut left_old, mut left_new) = header
        .old
        .zip(header.new)
        .map_or((0, 0), |(o, n)| (o.1, n.1));
    let mut stop = at + 1;
    while stop < lines.len() && !hard_stop(lines, stop, fence, left_old > 0 || left_new > 0) {
        match lines[stop].text.as_bytes().first() {
            Some(b'-') => left_old = left_old.saturating_sub(1),
            Some(b'+') => left_new = left_new.saturating_sub(1),
            Some(b'\\') => {}
            _ => (left_old, left_new) = (left_old.saturating_sub(1), left_new.saturating_sub(1)),
        }
        stop += 1;
    }
    let cands = &lines[at + 1..stop];
    let end = body_end(cands, &header, fence.is_some());
    let mut body: Vec<BodyLine> = vec![];
    // Where the last body line ends in the output.
    let mut body_end_at = None;
    for (k, l) in cands[..end].iter().enumerate() {
        let t = l.text;
        if t.starts_with('\\') {
            if let Some(last) = body.last_mut() {
                last.no_newline = true;
            }
            continue;
        }
        body.push(body_line(output, l, at + 2 + k));
        body_end_at = Some(l.end);
    }
    let last = if end > 0 {
        cands[end - 1].end
    } else {
        lines[at].end
    };
    let mut h = Hunk {
        header,
        lines: body,
        span: lines[at].start..last,
        out_line: at + 1,
        cut: false,
        maybe_miscounted: false,
        open_end: body_end_at == Some(output.len()) && !output.ends_with(['\n', '\r']),
        mention: None,
    };
    let (o, n) = h.counts();
    let short = h
        .header
        .old
        .zip(h.header.new)
        .is_some_and(|(ho, hn)| o < ho.1 || n < hn.1);
    let rest_blank = cands[end..].iter().all(|l| l.text.trim().is_empty());
    // The output ends right after a line's marker (` `, `-`, `+`): the
    // line's text was cut away, or it is an empty line without a break.
    let bare = h.open_end && end > 0 && matches!(cands[end - 1].text, " " | "-" | "+");
    h.cut = stop == lines.len() && (fence.is_some() || (short && rest_blank) || bare);
    h.maybe_miscounted = h.cut && fence.is_none();
    (h, stop)
}

/// Reads git's extended header lines after `diff --git`; returns the index
/// of the first line that is not one.
pub fn extended_headers(lines: &[OutLine], mut i: usize, f: &mut FileDiff) -> usize {
    let mut from = None;
    while let Some(l) = lines.get(i) {
        let t = l.text;
        if let Some(p) = t.strip_prefix("rename from ") {
            from = Some(unquote(p.trim_end()));
        } else if let Some(p) = t.strip_prefix("rename to ") {
            if let Some(from) = from.take() {
                f.rename = Some((from, unquote(p.trim_end())));
            }
        } else if t.starts_with("new file mode ") {
            f.created = true;
        } else if t.starts_with("deleted file mode ") {
            f.deleted = true;
        } else if t.starts_with("old mode ") || t.starts_with("new mode ") {
            f.mode_only = true;
        } else if t.starts_with("copy from ") || t.starts_with("copy to ") {
            f.unsupported = Some(
                "file copies are not supported; write the new file as a creation (`--- /dev/null`)"
                    .into(),
            );
        } else if t.starts_with("Binary files ") || t.starts_with("GIT binary patch") {
            f.unsupported = Some("binary patches are not supported".into());
        } else if !(t.starts_with("index ")
            || t.starts_with("similarity index ")
            || t.starts_with("dissimilarity index "))
        {
            break;
        }
        f.span.end = l.end;
        i += 1;
    }
    i
}

/// Paths from `--- X` / `+++ Y`: timestamps dropped, `/dev/null` noted,
/// `a/` and `b/` removed when the pair carries them (as git writes it).
pub fn set_side_paths(f: &mut FileDiff, old: &str, new: &str) {
    f.headers = true;
    let (mut o, mut n) = (side_path(old), side_path(new));
    if o.is_none() {
        f.created = true;
    }
    if n.is_none() {
        f.deleted = true;
    }
    let ok_o = o.as_deref().is_none_or(|p| p.starts_with("a/"));
    let ok_n = n.as_deref().is_none_or(|p| p.starts_with("b/"));
    if (ok_o && ok_n) || f.git {
        o = o.map(|p| p.strip_prefix("a/").map(str::to_owned).unwrap_or(p));
        n = n.map(|p| p.strip_prefix("b/").map(str::to_owned).unwrap_or(p));
    } else if let (Some(a), Some(b)) = (&o, &n) {
        // Only one side has its prefix: `--- a/x` with `+++ x`.
        if a.strip_prefix("a/") == Some(b.as_str()) {
            o = n.clone();
        } else if b.strip_prefix("b/") == Some(a.as_str()) {
            n = o.clone();
        }
    }
    if f.git {
        // The `diff --git` names stand for a `/dev/null` side.
        f.old_path = o.or(f.old_path.take());
        f.new_path = n.or(f.new_path.take());
    } else {
        (f.old_path, f.new_path) = (o, n);
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
