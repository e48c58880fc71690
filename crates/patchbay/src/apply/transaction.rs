//! The transaction: locate every edit against the same original snapshot,
//! reject overlaps, then apply all of them, or none.
//!
//! Locating everything before changing anything is what makes the order of
//! blocks irrelevant: an edit can never be shifted, or matched, by another
//! edit's result. All-or-nothing is the default; `partial` applies the edits
//! that located. A truncated output applies nothing. Every edit ends with a
//! receipt.
//!
//! Cost: per file, one line split and the matcher's lazy indexes, `O(N)`;
//! each edit costs one lookup (see `matcher`); overlaps are found with one
//! sort, `O(E log E)`; the splice copies the file once, `O(N + new text)`.

use crate::apply::feedback;
use crate::apply::feedback::Words;
use crate::apply::locate::{self, ForeignMarker, Rules, Spot, Target};
use crate::apply::matcher::{FindOptions, Haystack, Level};
use crate::apply::paths;
use crate::apply::report::{FileReport, FileStatus, Report, Status};
use crate::apply::text::{Text, Utf16Lines};
use crate::edit::{Check, Code, Edit, EditStatus, Op, Parsed, Position, Receipt};
use crate::name::FormatName;
use std::collections::{BTreeMap, HashMap};

mod chain;

/// What the transaction needs of the format a reply is in. The formats
/// build it from a name (their `From<FormatName>`), so
/// callers pass the name and the transaction needs no format registry.
#[derive(Clone, Copy)]
pub struct Dialect {
    /// The format, as the report names it.
    pub name: FormatName,
    /// How messages name the parts of its edits.
    pub words: &'static Words,
    /// Whether its edits apply one after another, so an edit may quote
    /// text an earlier one wrote (the format's `sequential`).
    pub sequential: bool,
    /// Finds any format's marker in a whole-file text, which then is a
    /// reply read as content, not the file.
    pub foreign_marker: ForeignMarker,
}

impl Dialect {
    /// The lookup rules of an edit under `opt`.
    fn rules(&self, opt: &Options) -> Rules<'static> {
        Rules {
            window: opt.window,
            max_level: opt.max_level,
            overwrite: opt.overwrite,
            words: self.words,
            foreign_marker: self.foreign_marker,
        }
    }
}

/// How a transaction behaves (in JSON, the fields of [`crate::ApplyOptions`]
/// beside its `format`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub struct Options {
    /// Apply the edits that located even when others failed.
    pub partial: bool,
    /// Target for edits without a path (`--file`).
    pub default_path: Option<String>,
    /// Hint window in lines: around a hint, a single candidate may be
    /// chosen.
    pub window: usize,
    /// Matcher levels up to this one are tried (strict modes use `Exact`).
    pub max_level: Level,
    /// What the model was shown (the `lines` format's `seen-lines` or
    /// `file-crc` snapshot): edits with
    /// `Check::Snapshot` are held to it (`Check::Seen`, or the file CRC), and
    /// refused without it.
    pub seen: Option<crate::apply::seen::SeenLines>,
    /// Codex's rule for files that exist: an added file (`*** Add File:`,
    /// a `create`) replaces it and a move may land on it. Off by default:
    /// a model that thinks a file is new has not seen what it would erase.
    pub overwrite: bool,
    /// Edits (1-based, as receipts number them) the caller sets aside: they
    /// are located and reported (`skipped`, `held_back`), the others apply
    /// as if they were absent. A review that rejects an edit asks the engine
    /// for the result without it, so the terminators and the file's end come
    /// out as they would for that reply. The transaction takes them sorted
    /// ([`crate::ApplyOptions::transaction_options`]).
    pub skip: Vec<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            partial: false,
            default_path: None,
            window: FindOptions::default().window,
            max_level: Level::Unicode,
            seen: None,
            overwrite: false,
            skip: vec![],
        }
    }
}

/// An edit that located: replace original lines `start..end` with `new`.
#[derive(Clone)]
struct Planned {
    idx: usize,
    start: usize,
    end: usize,
    new: Vec<String>,
    /// Whole-file write or delete: nothing else may touch the file.
    exclusive: bool,
    delete: bool,
    /// Earlier edits this one was merged with (it builds on them): their
    /// new lines are part of `new`.
    merged: Vec<usize>,
}

struct FileWork<'a> {
    path: String,
    original: Option<&'a str>,
    /// The original split into lines and its matcher indexes, built once
    /// per file and shared by all its edits (not once per edit).
    text: Text<'a>,
    hay: std::cell::OnceCell<Haystack<'a>>,
    receipts: Vec<Receipt>,
    planned: Vec<Planned>,
    /// Whether one of `planned` takes the whole file (kept as they are
    /// pushed: asking `planned` each edit would cost O(edits) an edit).
    exclusive: bool,
    /// Where the file moves to, after its edits.
    rename_to: Option<String>,
    /// Indexes of read-only views: never held back, they change nothing.
    views: Vec<usize>,
    /// Edits of this file not found so far: only the first
    /// [`feedback::DETAILED`] get a closest region (each costs a pass over
    /// the file and a character diff), the rest a short message that says so.
    not_found: usize,
    /// The check of the caller's snapshot for this file, and what relocating
    /// its edits reads: built once, shared by the file's edits.
    seen: std::cell::OnceCell<Check>,
    relocator: crate::apply::seen::Relocator,
    /// UTF-16 line starts of the original, for early receipts' offsets.
    utf16: std::cell::OnceCell<Utf16Lines>,
    /// Texts built to locate edits that build on earlier ones ([`chain`]).
    rebuilds: usize,
    /// What the edits located alone so far planned ([`run_alone`]): the
    /// text a later edit that builds on them is looked for in.
    history: Vec<Planned>,
}

/// Normalised target path of an edit, or the reason it has none.
pub fn target_path(edit: &Edit, default: Option<&str>) -> Result<String, (Code, String)> {
    match edit.path.as_deref().or(default) {
        None => Err((
            Code::Malformed,
            "the edit names no file; put its path on the line before it (or the caller sets a default file: `defaultPath` in JS, `--file` on the command line)".into(),
        )),
        Some(p) => paths::normalize(p).map_err(|m| (Code::PathEscape, m)),
    }
}

/// Why an edit that names no file of its own may not go to `target`: the
/// prose above it names `mention`, another file. A mention agrees when it
/// is the target or a tail of it (`b.py` for `src/b.py`), or the other way.
fn unclear_path(edit: &Edit, target: &str, mention: &str) -> Option<(Code, String)> {
    let m = paths::normalize(mention).unwrap_or_else(|_| mention.to_owned());
    let tail = |long: &str, short: &str| long == short || long.ends_with(&format!("/{short}"));
    if tail(target, &m) || tail(&m, target) {
        return None;
    }
    let whose = if edit.path.is_some() {
        "the previous edit's file"
    } else {
        "the default file"
    };
    Some((
        Code::PathUnclear,
        format!(
            "this edit names no file, and the text above it mentions `{mention}`, so it would go to {target} ({whose}); put the path of the file it changes alone on the line before it"
        ),
    ))
}

/// Why an edit whose path is a bare word above it (`configure`) may not
/// go anywhere: the files hold no such file, so the word may be prose.
fn unsure_path(
    edit: &Edit,
    path: &str,
    files: &BTreeMap<String, String>,
) -> Option<(Code, String)> {
    if matches!(edit.op, Op::Invalid { .. }) || files.contains_key(path) {
        return None;
    }
    Some((
        Code::PathUnclear,
        format!(
            "the line `{path}` above this edit may be a file name or prose, and no file {path} exists, so the edit goes nowhere rather than to another file; write the file's path with its folder (`./{path}`) on the line before the block"
        ),
    ))
}

/// Runs a parsed output against `files` (path -> current text; a path that
/// is absent does not exist).
pub fn run(
    format: impl Into<Dialect>,
    parsed: &Parsed,
    files: &BTreeMap<String, String>,
    opt: &Options,
) -> Report {
    let dialect = format.into();
    let format = dialect.name;
    if parsed.edits.is_empty() {
        return Report {
            status: Status::Failed,
            format,
            code: Some(Code::NoEdits),
            files: vec![],
            feedback: feedback::no_edits(format, parsed.reasoning.as_ref()),
            reasoning: parsed.reasoning.clone(),
        };
    }
    let mut work = locate_all(&dialect, parsed, files, opt);
    for w in &mut work {
        check_overlaps(w);
        if dialect.sequential {
            chain::build_on_earlier(w, &parsed.edits, opt, &dialect);
        }
    }
    let any_failed = work
        .iter()
        .any(|w| w.receipts.iter().any(|r| r.status == EditStatus::Failed));
    // A reply that declared more edits (`EDITS: N`) than arrived complete
    // was cut between two edits, where no format can see the cut.
    let complete = parsed.edits.iter().filter(|e| !e.is_cut()).count();
    let truncated = parsed.truncated || parsed.declared.is_some_and(|d| complete < d);
    let apply = !truncated && (!any_failed || opt.partial);
    let status = if truncated {
        Status::Truncated
    } else if any_failed {
        Status::Failed
    } else {
        Status::Applied
    };
    let mut report = Report {
        status,
        format,
        code: None,
        files: file_reports(work, apply, truncated, files),
        feedback: String::new(),
        reasoning: parsed.reasoning.clone(),
    };
    report.feedback = feedback::summary(&report, opt.partial);
    if let Some(d) = parsed.declared.filter(|&d| d != complete) {
        report.feedback.push_str(&format!(
            "\nThe reply declared {d} edits (EDITS: {d}); {complete} arrived complete."
        ));
    }
    report
}

/// Every edit located against its file's original, each with its receipt:
/// the work of each file, in the order files first occur.
fn locate_all<'a>(
    dialect: &Dialect,
    parsed: &Parsed,
    files: &'a BTreeMap<String, String>,
    opt: &Options,
) -> Vec<FileWork<'a>> {
    let mut works = Works::default();
    // The file the prose above each edit names, by edit (a later mention
    // of the same edit replaces an earlier one).
    let mut mentions: Vec<Option<&str>> = vec![None; parsed.edits.len()];
    for (i, m) in &parsed.mentions {
        if let Some(slot) = mentions.get_mut(*i) {
            *slot = Some(m.as_str());
        }
    }
    for (i, edit) in parsed.edits.iter().enumerate() {
        let out_lines = parsed.lines.get(i).copied();
        let (path, mut bad) = resolve(edit, mentions[i], opt);
        if bad.is_none() && parsed.unsure.binary_search(&i).is_ok() {
            bad = unsure_path(edit, &path, files);
        }
        let w = works.get(path, bad.is_none(), files);
        let r = receipt(w, edit, i + 1, out_lines, bad, opt, files, dialect);
        w.receipts.push(r);
    }
    works.list
}

/// Each file's report, its edits applied or held back; a move reports the
/// old path deleted and the new one created with the edited (or
/// unchanged) text.
fn file_reports(
    work: Vec<FileWork>,
    apply: bool,
    truncated: bool,
    files: &BTreeMap<String, String>,
) -> Vec<FileReport> {
    let mut out = Vec::new();
    for w in work {
        let rename = w.rename_to.clone();
        // Borrowed, not copied: only a move needs the original text.
        let original = w.original;
        let (mut f, placed, text) = finish(w, apply, truncated);
        if original.is_some() {
            let lines = Utf16Lines::new(&text);
            lines.mark(&text, &mut f.edits);
            if let Some(content) = &f.content {
                mark_results(&lines, &text, content, &placed, &mut f.edits);
            }
        }
        place_the_rest(&mut f, original.is_none());
        let Some(to) = rename.filter(|to| apply && *to != f.path && f.status != FileStatus::Failed)
        else {
            out.push(f);
            continue;
        };
        let content = f.content.take().or(original.map(str::to_owned));
        f.status = FileStatus::Deleted;
        out.push(f);
        let status = if files.contains_key(&to) {
            FileStatus::Applied
        } else {
            FileStatus::Created
        };
        out.push(FileReport {
            path: to,
            status,
            edits: vec![],
            content,
        });
    }
    out
}

/// The path an edit targets, and why it cannot be used when it cannot;
/// `mention` is a file the prose above an edit without a path names.
fn resolve(edit: &Edit, mention: Option<&str>, opt: &Options) -> (String, Option<(Code, String)>) {
    match target_path(edit, opt.default_path.as_deref()) {
        Ok(p) => {
            let unclear = mention.and_then(|m| unclear_path(edit, &p, m));
            (p, unclear)
        }
        // An unusable part keeps its own code (a cut-off edit that did
        // not get as far as its path is `truncated`, not pathless).
        Err(_) if matches!(edit.op, Op::Invalid { .. }) => {
            (edit.path.clone().unwrap_or_default(), None)
        }
        Err(e) => (edit.path.clone().unwrap_or_default(), Some(e)),
    }
}

/// The work of each file, found by path (a map: a reply editing 8,000
/// files must not compare every edit's path with every file's).
#[derive(Default)]
struct Works<'a> {
    list: Vec<FileWork<'a>>,
    by_path: HashMap<String, usize>,
}

impl<'a> Works<'a> {
    /// The work of `path`, made on first use; `usable` is false for a path
    /// that was refused (it then has no original).
    fn get(
        &mut self,
        path: String,
        usable: bool,
        files: &'a BTreeMap<String, String>,
    ) -> &mut FileWork<'a> {
        if let Some(&k) = self.by_path.get(&path) {
            return &mut self.list[k];
        }
        self.by_path.insert(path.clone(), self.list.len());
        let original = if usable {
            files.get(&path).map(String::as_str)
        } else {
            None
        };
        self.list.push(FileWork::new(path, original));
        self.list.last_mut().expect("just pushed")
    }

    /// [`Works::get`] for an edit located alone: a work made for a refused
    /// edit of the path (no original) does not stand for a usable one.
    fn get_alone(
        &mut self,
        path: String,
        usable: bool,
        files: &'a BTreeMap<String, String>,
    ) -> &mut FileWork<'a> {
        if let (true, Some(&k), Some(text)) = (usable, self.by_path.get(&path), files.get(&path)) {
            if self.list[k].original.is_none() {
                self.list[k] = FileWork::new(path, Some(text));
                return &mut self.list[k];
            }
        }
        self.get(path, usable, files)
    }
}

impl<'a> FileWork<'a> {
    fn new(path: String, original: Option<&'a str>) -> Self {
        FileWork {
            path,
            original,
            text: Text::new(original.unwrap_or("")),
            hay: std::cell::OnceCell::new(),
            receipts: vec![],
            planned: vec![],
            exclusive: false,
            rename_to: None,
            views: vec![],
            not_found: 0,
            seen: std::cell::OnceCell::new(),
            relocator: Default::default(),
            utf16: std::cell::OnceCell::new(),
            rebuilds: 0,
            history: vec![],
        }
    }
}

/// One edit for [`run_alone`]: its 1-based index, the edit, its output
/// lines, the file the prose above it names (see `Parsed::mentions`), and
/// whether its path is a bare word (`Parsed::unsure`).
pub type Alone<'e> = (usize, &'e Edit, [usize; 2], Option<&'e str>, bool);

/// The per-file work [`run_alone`] keeps between calls: each file's split,
/// matcher index and UTF-16 line starts, built on first use. A stream
/// locates its edits as they complete, a few at a time; with one `Prepared`
/// for the whole stream that costs one pass over each file, not one per
/// emitted edit.
#[derive(Default)]
pub struct Prepared<'a>(Works<'a>);

/// Receipts of edits each located alone against the original files, as
/// [`run`] gives for a reply of that one edit (what a stream emits early),
/// but sharing each file's split and matcher index across the edits and
/// across calls with the same `prepared` (which must come from the same
/// `files`): [`Alone`] edits in, `(path, receipt)` out. `declared` is the
/// reply's declared edit count (`EDITS: N`).
pub fn run_alone<'a>(
    format: impl Into<Dialect>,
    edits: &[Alone],
    declared: Option<usize>,
    files: &'a BTreeMap<String, String>,
    opt: &Options,
    prepared: &mut Prepared<'a>,
) -> Vec<(String, Receipt)> {
    let works = &mut prepared.0;
    let dialect = format.into();
    let mut out = vec![];
    for &(idx, edit, out_lines, mention, unsure) in edits {
        let (path, mut bad) = resolve(edit, mention, opt);
        if bad.is_none() && unsure {
            bad = unsure_path(edit, &path, files);
        }
        let w = works.get_alone(path, bad.is_none(), files);
        // Alone: nothing the file's earlier edits planned counts, but the
        // text they produce, for an edit that builds on them.
        w.receipts.clear();
        w.planned.clear();
        w.exclusive = false;
        w.views.clear();
        (w.rename_to, w.not_found) = (None, 0);
        let mut r = receipt(w, edit, idx, Some(out_lines), bad, opt, files, &dialect);
        if dialect.sequential && r.code == Some(Code::NotFound) && !w.history.is_empty() {
            w.planned = std::mem::take(&mut w.history);
            w.receipts = vec![r];
            chain::retry(w, edit, idx, opt, &dialect);
            r = w.receipts.pop().expect("the receipt just pushed");
        }
        let planned = std::mem::take(&mut w.planned);
        w.history.extend(planned);
        let cut = edit.is_cut();
        // One edit: only a declared count it falls short of holds it back.
        let truncated = declared.is_some_and(|d| usize::from(!cut) < d);
        if truncated && r.status == EditStatus::Applied && !w.views.contains(&idx) {
            hold_back(&mut r, true);
        }
        if w.original.is_some() {
            let lines = w.utf16.get_or_init(|| Utf16Lines::new(&w.text));
            lines.mark(&w.text, std::slice::from_mut(&mut r));
        }
        place_at_start(&mut r);
        out.push((w.path.clone(), r));
    }
    out
}

/// Marks a located edit as not applied because of the others (or a cut).
fn hold_back(r: &mut Receipt, truncated: bool) {
    r.status = EditStatus::Skipped;
    r.code = Some(Code::HeldBack);
    r.message = Some(if truncated {
        "located, not applied: the output was truncated, so nothing is applied".into()
    } else {
        "located, not applied: another edit failed and the transaction is all-or-nothing".into()
    });
}

/// The receipt of one edit: its refusal when its path cannot be used, else
/// what locating it against its file's original gives.
#[allow(clippy::too_many_arguments)]
fn receipt(
    w: &mut FileWork,
    edit: &Edit,
    idx: usize,
    out_lines: Option<[usize; 2]>,
    bad: Option<(Code, String)>,
    opt: &Options,
    files: &BTreeMap<String, String>,
    dialect: &Dialect,
) -> Receipt {
    let mut r = Receipt {
        index: idx,
        status: EditStatus::Failed,
        code: None,
        strategy: None,
        lines: None,
        message: None,
        output_lines: out_lines,
        from: None,
        to: None,
        result_from: None,
        result_to: None,
        from_pos: None,
        to_pos: None,
        result_from_pos: None,
        result_to_pos: None,
        closest: None,
        builds_on: vec![],
    };
    match bad {
        Some((code, msg)) => fail(&mut r, code, msg),
        None => locate(w, edit, idx, &mut r, opt, files, dialect),
    }
    r
}

fn fail(r: &mut Receipt, code: Code, msg: String) {
    r.status = EditStatus::Failed;
    r.code = Some(code);
    r.message = Some(msg);
}

impl Planned {
    fn new(idx: usize, spot: Spot) -> Planned {
        Planned {
            idx,
            start: spot.start,
            end: spot.end,
            new: spot.new,
            exclusive: spot.exclusive,
            delete: spot.delete,
            merged: vec![],
        }
    }
}

impl<'a> FileWork<'a> {
    /// The file as locate reads it.
    fn target<'t>(&'t self, opt: &'t Options) -> Target<'t, 'a> {
        Target {
            path: &self.path,
            original: self.original,
            text: &self.text,
            hay: &self.hay,
            relocator: &self.relocator,
            snapshot: opt.seen.as_ref(),
            seen: &self.seen,
            not_found: self.not_found,
            planned: !self.planned.is_empty(),
            exclusive: self.exclusive,
        }
    }
}

/// Locates one edit against the original text of its file and plans it.
fn locate(
    w: &mut FileWork,
    edit: &Edit,
    idx: usize,
    r: &mut Receipt,
    opt: &Options,
    files: &BTreeMap<String, String>,
    dialect: &Dialect,
) {
    match &edit.op {
        Op::Rename { to } => return rename(w, to, r, opt, files),
        Op::View { range } => return view(w, *range, idx, r),
        _ => {}
    }
    match locate::locate(&w.target(opt), &edit.op, dialect.rules(opt)) {
        Ok(spot) => {
            r.status = EditStatus::Applied;
            r.strategy = spot.level;
            r.message = spot.note.clone();
            r.lines = Some([spot.start + 1, spot.end]);
            if opt.skip.binary_search(&idx).is_ok() {
                return set_aside(r);
            }
            let planned = Planned::new(idx, spot);
            w.exclusive |= planned.exclusive;
            w.planned.push(planned);
        }
        Err(refusal) => {
            w.not_found += usize::from(refusal.searched);
            if refusal.level.is_some() {
                r.strategy = refusal.level;
            }
            r.closest = refusal.closest.map(|c| *c);
            fail(r, refusal.code, refusal.message);
        }
    }
}

/// A located edit the caller set aside: reported where it would go, never
/// applied, and no failure (the others apply without it).
fn set_aside(r: &mut Receipt) {
    r.status = EditStatus::Skipped;
    r.code = Some(Code::HeldBack);
    r.message = Some("located, not applied: set aside by the caller".into());
}

/// A move: recorded, carried out after the file's other edits.
fn rename(
    w: &mut FileWork,
    to: &str,
    r: &mut Receipt,
    opt: &Options,
    files: &BTreeMap<String, String>,
) {
    let to = match paths::normalize(to) {
        Ok(t) => t,
        Err(m) => return fail(r, Code::PathEscape, m),
    };
    if w.original.is_none() {
        let msg = format!("cannot move {}: it does not exist", w.path);
        return fail(r, Code::FileMissing, msg);
    }
    let taken = files.contains_key(&to) && !opt.overwrite;
    if to != w.path && (taken || w.rename_to.is_some()) {
        let msg = format!("cannot move {} to {to}: {to} already exists", w.path);
        return fail(r, Code::FileExists, msg);
    }
    w.rename_to = Some(to);
    r.status = EditStatus::Applied;
}

/// A read-only view of the original: never held back.
fn view(w: &mut FileWork, range: Option<(usize, Option<usize>)>, idx: usize, r: &mut Receipt) {
    if w.original.is_none() {
        let msg = format!("cannot view {}: it does not exist", w.path);
        return fail(r, Code::FileMissing, msg);
    }
    match locate::view(&w.text, &w.path, range) {
        Ok(shown) => (r.status, r.message) = (EditStatus::Applied, Some(shown)),
        Err((code, msg)) => return fail(r, code, msg),
    }
    w.views.push(idx);
}

/// Fails every located edit that overlaps an earlier-sorted one.
fn check_overlaps(w: &mut FileWork) {
    let mut order: Vec<usize> = (0..w.planned.len()).collect();
    crate::order::sort_by_key(&mut order[..], |&k| {
        let p = &w.planned[k];
        (p.start, p.end > p.start, p.idx)
    });
    let mut rejected = vec![false; w.planned.len()];
    let exclusive = w.planned.iter().find(|p| p.exclusive).map(|p| p.idx);
    let mut max_end = 0usize;
    let mut holder = 0usize;
    for &k in &order {
        let p = &w.planned[k];
        let clash = match exclusive {
            Some(x) if x != p.idx => Some(x),
            Some(_) => None,
            None if p.start < max_end => Some(holder),
            None => None,
        };
        if let Some(other) = clash {
            rejected[k] = true;
            // Receipts are in index order: a search, not a scan per overlap.
            let at = w
                .receipts
                .binary_search_by_key(&p.idx, |r| r.index)
                .expect("receipt exists");
            let r = &mut w.receipts[at];
            let msg = feedback::overlap(p.idx, other);
            fail(r, Code::Overlap, msg);
            r.lines = Some([p.start + 1, p.end]);
        } else if p.end > p.start && p.end > max_end {
            max_end = p.end;
            holder = p.idx;
        }
    }
    let mut k = 0;
    w.planned.retain(|_| {
        k += 1;
        !rejected[k - 1]
    });
    w.exclusive = w.planned.iter().any(|p| p.exclusive);
}

/// Where one applied edit's new lines landed in the new text.
struct Landed {
    idx: usize,
    /// The original lines it replaced, 0-based, half-open.
    lines: std::ops::Range<usize>,
    /// Its bytes in the new text.
    bytes: std::ops::Range<usize>,
    /// The earlier edits it was merged with: they landed in the same place.
    merged: Vec<usize>,
}

/// Sets `resultFrom`/`resultTo` (and their positions) of each placed
/// edit's receipt: its start in the new text is its start in the original
/// moved by what the edits before it added or removed, so only the new
/// lines are counted, not the file. A text without a final newline may
/// have lost the terminator before an edit that deleted its last lines:
/// offsets are clamped to its length, positions to its end.
fn mark_results(
    lines: &Utf16Lines,
    text: &Text,
    content: &str,
    placed: &[Landed],
    receipts: &mut [Receipt],
) {
    let count = |b: &[u8]| crate::apply::text::utf16_units(b);
    let end = if content.ends_with('\n') {
        usize::MAX
    } else {
        count(content.as_bytes())
    };
    let end_pos = std::cell::OnceCell::new();
    let (mut shift, mut line_shift) = (0isize, 0isize);
    for p in placed {
        let (from, to) = (
            lines.line_start(text, p.lines.start),
            lines.line_start(text, p.lines.end),
        );
        let new = &content.as_bytes()[p.bytes.clone()];
        let units = count(new);
        let at = from.saturating_add_signed(shift).min(end);
        let first = (p.lines.start + 1).saturating_add_signed(line_shift);
        let (head, tail) = new_lines(new);
        let clamp = |units_at: usize, pos: Position| {
            if units_at >= end {
                *end_pos.get_or_init(|| end_position(content))
            } else {
                pos
            }
        };
        let a = clamp(
            from.saturating_add_signed(shift),
            Position {
                line: first,
                col: 0,
            },
        );
        let b = clamp(
            at + units,
            Position {
                line: first + head,
                col: count(tail),
            },
        );
        // Receipts are in reply order, so by index.
        for idx in std::iter::once(&p.idx).chain(&p.merged) {
            if let Ok(k) = receipts.binary_search_by_key(idx, |r| r.index) {
                let r = &mut receipts[k];
                (r.result_from, r.result_to) = (Some(at), Some((at + units).min(end)));
                (r.result_from_pos, r.result_to_pos) = (Some(a), Some(b));
            }
        }
        shift += units as isize - to.saturating_sub(from) as isize;
        let added = head + usize::from(!tail.is_empty());
        line_shift += added as isize - p.lines.len() as isize;
    }
}

/// Gives every applied receipt that changed no lines of an existing file
/// its ranges too, so that an applied receipt always has them: a file it
/// created is an insertion at the start of an empty one, whose result is
/// the whole new text; a view, a move or a deletion keeps the empty range
/// at the start (a deleted file's new text is empty).
fn place_the_rest(f: &mut FileReport, created: bool) {
    let start = Position { line: 1, col: 0 };
    let whole = match (&f.content, created) {
        (Some(c), true) => (
            crate::apply::text::utf16_units(c.as_bytes()),
            end_position(c),
        ),
        _ => (0, start),
    };
    for r in f
        .edits
        .iter_mut()
        .filter(|r| r.status == EditStatus::Applied)
    {
        place_at_start(r);
        if r.result_from.is_none() {
            (r.result_from, r.result_from_pos) = (Some(0), Some(start));
            (r.result_to, r.result_to_pos) = (Some(whole.0), Some(whole.1));
        }
    }
}

/// An applied receipt without a range in the original (a created file, a
/// view, a move) gets the empty one at its start.
fn place_at_start(r: &mut Receipt) {
    let start = Some(Position { line: 1, col: 0 });
    if r.status == EditStatus::Applied && r.from.is_none() {
        (r.from, r.to, r.from_pos, r.to_pos) = (Some(0), Some(0), start, start);
    }
}

/// The line breaks in `new` and what follows the last one (empty when it
/// ends with a break).
fn new_lines(new: &[u8]) -> (usize, &[u8]) {
    let head = memchr::memchr_iter(b'\n', new).count();
    let tail = memchr::memrchr(b'\n', new).map_or(new, |k| &new[k + 1..]);
    (head, tail)
}

/// Where `content` ends, as a position (a BOM is not part of line 1).
fn end_position(content: &str) -> Position {
    let body = content.strip_prefix('\u{feff}').unwrap_or(content);
    let (head, tail) = new_lines(body.as_bytes());
    Position {
        line: head + 1,
        col: crate::apply::text::utf16_units(tail),
    }
}

/// Applies (or holds back) a file's planned edits and builds its report,
/// with where each applied edit landed in the new text; the original's
/// lines come back for the receipts' offsets.
fn finish<'a>(
    mut w: FileWork<'a>,
    apply: bool,
    truncated: bool,
) -> (FileReport, Vec<Landed>, Text<'a>) {
    let failed = w.receipts.iter().any(|r| r.status == EditStatus::Failed);
    if !apply {
        for r in w
            .receipts
            .iter_mut()
            .filter(|r| r.status == EditStatus::Applied && w.views.binary_search(&r.index).is_err())
        {
            hold_back(r, truncated);
        }
        let status = if failed {
            FileStatus::Failed
        } else {
            FileStatus::Skipped
        };
        let report = FileReport {
            path: w.path,
            status,
            edits: w.receipts,
            content: None,
        };
        return (report, vec![], w.text);
    }
    let deleted = w.planned.iter().any(|p| p.delete);
    let (content, placed) = if w.planned.is_empty() || deleted {
        (None, vec![])
    } else {
        let (text, placed) = splice(w.original, &w.text, &mut w.planned);
        (Some(text), placed)
    };
    let status = if deleted {
        FileStatus::Deleted
    } else if failed {
        FileStatus::Failed
    } else if w.original.is_none() {
        FileStatus::Created
    } else {
        FileStatus::Applied
    };
    let report = FileReport {
        path: w.path,
        status,
        edits: w.receipts,
        content,
    };
    (report, placed, w.text)
}

/// Builds the new text. Terminators follow [`terminators`] (one rule for
/// every format); BOM and final-newline presence are kept.
fn splice(original: Option<&str>, text: &Text, planned: &mut [Planned]) -> (String, Vec<Landed>) {
    crate::order::sort_by_key(&mut planned[..], |p| (p.start, p.end > p.start, p.idx));
    let src = original.unwrap_or("");
    let n = text.len();
    let eol = text.dominant_eol();
    // With one style of terminator every rule gives the same answer.
    let mixed = text.mixed_eol();
    let final_nl = original.is_none() || text.ends_with_newline();
    // Room for everything the loop below may write (the kept text, every
    // new line with a CRLF, one more terminator): one allocation, never a
    // regrowth that copies the megabytes already written.
    let added: usize = planned
        .iter()
        .flat_map(|p| &p.new)
        .map(|l| l.len() + 2)
        .sum();
    let mut out = String::with_capacity(src.len() + added + 2);
    if text.has_bom() {
        out.push('\u{feff}');
    }
    let mut pos = 0;
    // The last original line lacks a terminator; it needs one as soon as
    // anything is written after it.
    let mut need_eol = n > 0 && !text.ends_with_newline();
    let mut placed = Vec::with_capacity(planned.len());
    for p in planned.iter() {
        if p.start > pos {
            out.push_str(&src[text.byte_range(pos..p.start)]);
            pos = p.start;
        }
        let eols = if mixed {
            terminators(text, p, eol)
        } else {
            vec![eol; p.new.len()]
        };
        if p.end == n && p.start < n {
            need_eol = false;
        }
        // The terminator the last line gets belongs to the edit that
        // writes after it: the original has none there.
        let at = out.len();
        if p.start == n && need_eol && !p.new.is_empty() {
            out.push_str(eol);
            need_eol = false;
        }
        for (l, e) in p.new.iter().zip(eols) {
            out.push_str(l);
            out.push_str(e);
        }
        placed.push(Landed {
            idx: p.idx,
            lines: p.start..p.end.max(p.start),
            bytes: at..out.len(),
            merged: p.merged.clone(),
        });
        pos = pos.max(p.end);
    }
    if pos < n {
        out.push_str(&src[text.byte_range(pos..n)]);
    }
    if !final_nl {
        if out.ends_with("\r\n") {
            out.truncate(out.len() - 2);
        } else if out.ends_with('\n') {
            out.truncate(out.len() - 1);
        }
        // The terminator dropped was the last placed edit's, if it wrote last.
        for p in &mut placed {
            (p.bytes.start, p.bytes.end) =
                (p.bytes.start.min(out.len()), p.bytes.end.min(out.len()));
        }
    }
    (out, placed)
}

/// The terminator of each line an edit writes, the same whatever the format
/// and however much unchanged context it quoted (ARCHITECTURE.md,
/// "Line endings of written lines"): a line the edit leaves unchanged keeps
/// its own; a changed line takes that of the old line at its place in the
/// changed run (the run's last for extra lines); an inserted line takes
/// that of the line above it (below it at the top of the file). A line
/// without one (the last) gives the file's dominant terminator, `fallback`.
/// Cost: one linear line diff of the edit's old and new lines.
fn terminators<'a>(text: &Text<'a>, p: &Planned, fallback: &'a str) -> Vec<&'a str> {
    let eol_of = |i: usize| match text.eol(i) {
        "" => fallback,
        e => e,
    };
    // The line an insertion before file line `at` is next to.
    let beside = |at: usize| match at {
        0 if !text.is_empty() => eol_of(0),
        0 => fallback,
        a => eol_of(a - 1),
    };
    if p.start == p.end {
        return vec![beside(p.start); p.new.len()];
    }
    let old: Vec<&str> = (p.start..p.end).map(|i| text.line(i)).collect();
    let new: Vec<&str> = p.new.iter().map(String::as_str).collect();
    let mut out = Vec::with_capacity(new.len());
    let (mut i, mut j) = (0, 0);
    for c in crate::apply::diff::changes_linear(&old, &new) {
        out.extend((i..c.old.start).map(|k| eol_of(p.start + k)));
        out.extend((0..c.new.len()).map(|k| match c.old.len() {
            0 => beside(p.start + c.old.start),
            m => eol_of(p.start + c.old.start + k.min(m - 1)),
        }));
        (i, j) = (c.old.end, c.new.end);
    }
    out.extend((j..new.len()).map(|k| eol_of(p.start + i + k - j)));
    out
}
