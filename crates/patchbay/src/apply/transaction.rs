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

use crate::apply::elision::find_elision;
use crate::apply::feedback;
use crate::apply::fold::is_blank;
use crate::apply::locate;
use crate::apply::matcher::{FindOptions, Found, Haystack, Level, Miss};
use crate::apply::paths;
use crate::apply::report::{FileReport, FileStatus, Report, Status};
use crate::apply::text::Text;
use crate::edit::{Check, Code, Edit, EditStatus, Op, Parsed, Receipt};
use crate::reply::scan::OutputLines;
use std::collections::{BTreeMap, HashMap};

/// How a transaction behaves.
#[derive(Debug, Clone)]
pub struct Options {
    /// Apply the edits that located even when others failed.
    pub partial: bool,
    /// Target for edits that carry no path (`--file`).
    pub default_path: Option<String>,
    /// Lines around a hint within which a single candidate may be chosen.
    pub window: usize,
    /// The most tolerant matcher level (strict modes use `Exact`).
    pub max_level: Level,
    /// What the model was shown (the `lines` format's snapshot): edits with
    /// `Check::Snapshot` are held to it (`Check::Seen`, or the file CRC).
    pub seen: Option<crate::formats::lines::seen::SeenLines>,
    /// Codex's rule for files that exist: an added file (`*** Add File:`,
    /// a `create`) replaces it and a move may land on it. Off by default:
    /// a model that thinks a file is new has not seen what it would erase.
    pub overwrite: bool,
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
        }
    }
}

/// An edit that located: replace original lines `start..end` with `new`.
struct Planned {
    idx: usize,
    start: usize,
    end: usize,
    new: Vec<String>,
    /// Whole-file write or delete: nothing else may touch the file.
    exclusive: bool,
    delete: bool,
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
    relocator: crate::formats::lines::seen::Relocator,
}

/// Normalised target path of an edit, or the reason it has none.
pub fn target_path(edit: &Edit, default: Option<&str>) -> Result<String, (Code, String)> {
    match edit.path.as_deref().or(default) {
        None => Err((
            Code::Malformed,
            "the edit names no file; put its path on the line before it (or pass --file)".into(),
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

/// Runs a parsed output against `files` (path -> current text; a path that
/// is absent does not exist).
pub fn run(
    format: &str,
    output: &str,
    parsed: &Parsed,
    files: &BTreeMap<String, String>,
    opt: &Options,
) -> Report {
    if parsed.edits.is_empty() {
        return Report {
            status: Status::Failed,
            format: format.to_owned(),
            code: Some(Code::NoEdits),
            files: vec![],
            feedback: feedback::no_edits(format),
        };
    }
    let mut works = Works::default();
    let output_lines = OutputLines::new(output);
    let mentions: BTreeMap<usize, &str> = parsed
        .mentions
        .iter()
        .map(|(i, m)| (*i, m.as_str()))
        .collect();
    for (i, edit) in parsed.edits.iter().enumerate() {
        let idx = i + 1;
        let out_lines = output_lines.range(&edit.span);
        let (path, bad) = resolve(edit, mentions.get(&i).copied(), opt);
        let w = works.get(path, bad.is_none(), files);
        let r = receipt(w, edit, idx, out_lines, bad, opt, files, format);
        w.receipts.push(r);
    }
    let mut work = works.list;
    for w in &mut work {
        check_overlaps(w);
    }
    let any_failed = work
        .iter()
        .any(|w| w.receipts.iter().any(|r| r.status == EditStatus::Failed));
    // A reply that declared more edits (`EDITS: N`) than arrived complete
    // was cut between two edits, where no format can see the cut.
    let declared = crate::reply::counts::declared_edits(output);
    let complete = parsed
        .edits
        .iter()
        .filter(|e| {
            !matches!(
                e.op,
                Op::Invalid {
                    code: Code::Truncated,
                    ..
                }
            )
        })
        .count();
    let truncated = parsed.truncated || declared.is_some_and(|d| complete < d);
    let apply = !truncated && (!any_failed || opt.partial);
    let mut files_out = Vec::new();
    for w in work {
        let rename = w.rename_to.clone();
        // Borrowed, not copied: only a move needs the original text.
        let original = w.original;
        let mut f = finish(w, apply, truncated);
        // A move: the old path is deleted, the new one created with the
        // edited (or unchanged) text.
        if let Some(to) =
            rename.filter(|to| apply && *to != f.path && f.status != FileStatus::Failed)
        {
            let content = f.content.take().or(original.map(str::to_owned));
            f.status = FileStatus::Deleted;
            files_out.push(f);
            let status = if files.contains_key(&to) {
                FileStatus::Applied
            } else {
                FileStatus::Created
            };
            files_out.push(FileReport {
                path: to,
                status,
                edits: vec![],
                content,
            });
            continue;
        }
        files_out.push(f);
    }
    let status = if truncated {
        Status::Truncated
    } else if any_failed {
        Status::Failed
    } else {
        Status::Applied
    };
    let mut report = Report {
        status,
        format: format.to_owned(),
        code: None,
        files: files_out,
        feedback: String::new(),
    };
    report.feedback = feedback::summary(&report, opt.partial);
    if let Some(d) = declared.filter(|&d| d != complete) {
        report.feedback.push_str(&format!(
            "\nThe reply declared {d} edits (EDITS: {d}); {complete} arrived complete."
        ));
    }
    report
}

/// Another format's marker in a whole-file text (see
/// [`crate::formats::foreign_marker`]).
fn foreign(w: &FileWork, text: &[String]) -> Option<(usize, &'static str)> {
    crate::formats::foreign_marker(&w.path, text, w.original.unwrap_or(""))
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
        self.list.push(FileWork {
            path,
            original,
            text: Text::new(original.unwrap_or("")),
            hay: std::cell::OnceCell::new(),
            receipts: vec![],
            planned: vec![],
            rename_to: None,
            views: vec![],
            not_found: 0,
            seen: std::cell::OnceCell::new(),
            relocator: Default::default(),
        });
        self.list.last_mut().expect("just pushed")
    }
}

/// One edit for [`run_alone`]: its 1-based index, the edit, its output
/// lines, and the file the prose above it names (see `Parsed::mentions`).
pub type Alone<'e> = (usize, &'e Edit, [usize; 2], Option<&'e str>);

/// Receipts of edits each located alone against the original files, as
/// [`run`] gives for a reply of that one edit (what a stream emits early),
/// but sharing each file's split and matcher index across the edits:
/// [`Alone`] edits in, `(path, receipt)` out. `declared` is
/// the reply's declared edit count (`EDITS: N`).
pub fn run_alone(
    format: &str,
    edits: &[Alone],
    declared: Option<usize>,
    files: &BTreeMap<String, String>,
    opt: &Options,
) -> Vec<(String, Receipt)> {
    let mut works = Works::default();
    let mut out = vec![];
    for &(idx, edit, out_lines, mention) in edits {
        let (path, bad) = resolve(edit, mention, opt);
        let w = works.get(path, bad.is_none(), files);
        // Alone: nothing the file's earlier edits planned counts.
        w.receipts.clear();
        w.planned.clear();
        w.views.clear();
        (w.rename_to, w.not_found) = (None, 0);
        let mut r = receipt(w, edit, idx, out_lines, bad, opt, files, format);
        let cut = matches!(
            edit.op,
            Op::Invalid {
                code: Code::Truncated,
                ..
            }
        );
        // One edit: only a declared count it falls short of holds it back.
        let truncated = declared.is_some_and(|d| usize::from(!cut) < d);
        if truncated && r.status == EditStatus::Applied && !w.views.contains(&idx) {
            hold_back(&mut r, true);
        }
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
    out_lines: [usize; 2],
    bad: Option<(Code, String)>,
    opt: &Options,
    files: &BTreeMap<String, String>,
    format: &str,
) -> Receipt {
    let mut r = Receipt {
        index: idx,
        status: EditStatus::Failed,
        code: None,
        strategy: None,
        lines: None,
        message: None,
        output_lines: Some(out_lines),
    };
    match bad {
        Some((code, msg)) => fail(&mut r, code, msg),
        None => locate(w, edit, idx, &mut r, opt, files, feedback::words(format)),
    }
    r
}

fn fail(r: &mut Receipt, code: Code, msg: String) {
    r.status = EditStatus::Failed;
    r.code = Some(code);
    r.message = Some(msg);
}

/// An edit placed, or why it could not be: the shape of every arm of
/// [`locate`] that plans a change.
type Placed = Result<Planned, (Code, String)>;

impl Planned {
    /// Original lines `start..end` become `new`.
    fn new(idx: usize, start: usize, end: usize, new: Vec<String>) -> Planned {
        Planned {
            idx,
            start,
            end,
            new,
            exclusive: false,
            delete: false,
        }
    }

    /// A change of the whole file: nothing else may touch it.
    fn exclusive(self) -> Planned {
        Planned {
            exclusive: true,
            ..self
        }
    }
}

/// The lookup options every block search of this transaction starts from.
fn find_options(opt: &Options, hint: Option<usize>) -> FindOptions {
    FindOptions {
        hint,
        window: opt.window,
        max_level: opt.max_level,
        min_start: 0,
        max_start: usize::MAX,
    }
}

/// Locates one edit against the original text of its file.
fn locate(
    w: &mut FileWork,
    edit: &Edit,
    idx: usize,
    r: &mut Receipt,
    opt: &Options,
    files: &BTreeMap<String, String>,
    words: &feedback::Words,
) {
    let placed = match &edit.op {
        Op::Invalid { code, message } => return fail(r, *code, message.clone()),
        Op::OneOf(readings) => return choose_reading(w, edit, readings, idx, r, opt, files, words),
        Op::Rename { to } => return rename(w, to, r, opt, files),
        Op::View { range } => return view(w, *range, idx, r),
        Op::Replace {
            old,
            new,
            hint,
            anchors,
            at_end,
        } => {
            let block = Block {
                old,
                new,
                hint: *hint,
                anchors,
                at_end: *at_end,
            };
            place_block(w, &block, idx, r, opt, words)
        }
        Op::Lines {
            start,
            end,
            new,
            check,
        } => place_lines(w, (*start, *end), new, check, idx, r, opt),
        Op::StrReplace { old, new, hint } => place_substring(w, (old, new), *hint, idx, r, opt),
        whole => place_whole(w, whole, idx, opt),
    };
    match placed {
        Ok(planned) => {
            r.status = EditStatus::Applied;
            r.lines = Some([planned.start + 1, planned.end]);
            w.planned.push(planned);
        }
        Err((code, msg)) => fail(r, code, msg),
    }
}

/// Alternative readings: the file picks one, which is then located like
/// any other edit (see `readings`).
#[allow(clippy::too_many_arguments)]
fn choose_reading(
    w: &mut FileWork,
    edit: &Edit,
    readings: &[crate::edit::Reading],
    idx: usize,
    r: &mut Receipt,
    opt: &Options,
    files: &BTreeMap<String, String>,
    words: &feedback::Words,
) {
    let hay = w.hay.get_or_init(|| Haystack::new(w.text.lines()));
    match crate::apply::readings::choose_in(hay, readings, find_options(opt, None)) {
        crate::apply::readings::Choice::One(k) => match readings.get(k) {
            Some(reading) => {
                let one = Edit {
                    op: reading.op.clone(),
                    ..edit.clone()
                };
                let capped = Options {
                    max_level: opt.max_level.min(reading.max_level),
                    ..opt.clone()
                };
                locate(w, &one, idx, r, &capped, files, words)
            }
            None => fail(r, Code::Malformed, "the edit has no readings".into()),
        },
        crate::apply::readings::Choice::Conflict(places) => fail(
            r,
            Code::Ambiguous,
            crate::apply::readings::conflict_message(words, &w.path, &places),
        ),
    }
}

/// Edits of the whole file: delete, create, write, create-or-append.
fn place_whole(w: &FileWork, op: &Op, idx: usize, opt: &Options) -> Placed {
    let n = w.text.len();
    let creating = w.original.is_none();
    let plan = |start, end, new: &[String]| Planned::new(idx, start, end, new.to_vec());
    match op {
        Op::Delete if creating => Err((
            Code::FileMissing,
            format!("cannot delete {}: it does not exist", w.path),
        )),
        Op::Delete => Ok(Planned {
            delete: true,
            ..plan(0, n, &[]).exclusive()
        }),
        Op::Create { text: t } | Op::Write { text: t } if foreign(w, t).is_some() => {
            let (k, format) = foreign(w, t).expect("checked");
            let msg = feedback::foreign_marker(&w.path, k, &t[k], format);
            Err((Code::Malformed, msg))
        }
        Op::Create { text: t } if !creating && opt.overwrite && w.planned.is_empty() => {
            Ok(plan(0, n, t).exclusive())
        }
        Op::Create { .. } if !creating || w.planned.iter().any(|p| p.exclusive) => Err((
            Code::FileExists,
            format!(
                "cannot create {}: it already exists; edit it instead",
                w.path
            ),
        )),
        Op::Create { text: t } => Ok(plan(0, 0, t).exclusive()),
        Op::Write { text: t } => match find_elision(t, &w.text.lines()) {
            Some(k) => Err((Code::Elided, feedback::elided(&w.path, k, &t[k]))),
            None => Ok(plan(0, n, t).exclusive()),
        },
        Op::CreateOrAppend { text: t } => Ok(plan(n, n, t)),
        other => Err((
            Code::Malformed,
            format!("internal: {other:?} is not a whole-file edit"),
        )),
    }
}

/// Line-addressed edits, with their checks.
fn place_lines(
    w: &FileWork,
    (start, end): (usize, usize),
    new: &[String],
    check: &Check,
    idx: usize,
    r: &mut Receipt,
    opt: &Options,
) -> Placed {
    if w.original.is_none() {
        return Err((Code::FileMissing, format!("{} does not exist", w.path)));
    }
    // Plain numbers are held to the caller's snapshot of the view, looked
    // up once per file (it lists every line shown).
    let held = match (check, &opt.seen) {
        (Check::Snapshot, Some(seen)) => w.seen.get_or_init(|| seen.check_for(&w.path)),
        _ => check,
    };
    let s = locate::lines(&w.text, &w.path, start, end, new, held, &w.relocator)?;
    r.message = s.note;
    Ok(Planned::new(idx, s.start, s.end, s.new))
}

/// A substring replacement (`str_replace`).
fn place_substring(
    w: &mut FileWork,
    old_new: (&str, &str),
    hint: Option<usize>,
    idx: usize,
    r: &mut Receipt,
    opt: &Options,
) -> Placed {
    if w.original.is_none() {
        let msg = format!("{} does not exist; create it first", w.path);
        return Err((Code::FileMissing, msg));
    }
    let fo = find_options(opt, hint);
    let detailed = w.not_found < feedback::DETAILED;
    let found = locate::str_replace(&w.text, &w.hay, &w.path, old_new, hint, fo, detailed);
    if matches!(found, Err((Code::NotFound, _))) {
        w.not_found += 1;
    }
    let s = found?;
    r.strategy = s.level;
    r.message = s.note;
    Ok(Planned::new(idx, s.start, s.end, s.new))
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

/// A block of old lines to replace (`Op::Replace`, borrowed).
struct Block<'e> {
    old: &'e [String],
    new: &'e [String],
    hint: Option<usize>,
    anchors: &'e [String],
    at_end: bool,
}

/// A block located by the matcher ladder, narrowed by its anchors.
fn place_block(
    w: &mut FileWork,
    b: &Block,
    idx: usize,
    r: &mut Receipt,
    opt: &Options,
    words: &feedback::Words,
) -> Placed {
    if w.original.is_none() {
        let msg = format!("{} does not exist; to create it, {}", w.path, words.create);
        return Err((Code::FileMissing, msg));
    }
    let hay = w.hay.get_or_init(|| Haystack::new(w.text.lines()));
    if let Some(k) = find_elision(b.new, hay.lines()) {
        return Err((Code::Elided, feedback::elided(&w.path, k, &b.new[k])));
    }
    let fo = find_options(opt, b.hint);
    let regions = locate::block_regions(hay, b.anchors, b.at_end, b.old.len(), fo)
        .map_err(|miss| (miss.code(), miss.message(&w.path)))?;
    // No old lines: an insertion at the end, or right after the anchor.
    if b.old.is_empty() && (b.at_end || !b.anchors.is_empty()) {
        if regions.len() > 1 {
            let at: Vec<String> = regions.iter().map(|r| r.0.to_string()).collect();
            return Err((Code::Ambiguous, format!("the anchors occur at several places of {} (after lines {}) and the chunk has no context lines to tell them apart; use a more specific anchor", w.path, at.join(", "))));
        }
        let at = if b.at_end { w.text.len() } else { regions[0].0 };
        return Ok(Planned::new(idx, at, at, b.new.to_vec()));
    }
    match locate::find_in_regions(hay, b.old, &regions, fo) {
        Ok(found) if b.at_end && !hay.lines()[found.end..].iter().all(|l| is_blank(l)) => Err((
            Code::NotFound,
            format!("the lines before `*** End of File` are not the last lines of {}; they occur at lines {}-{}", w.path, found.start + 1, found.end),
        )),
        Ok(found) => {
            r.strategy = Some(found.level);
            r.message = found_note(&found, b.hint);
            let new = locate::replacement(b.old, b.new, &found, hay.lines());
            Ok(Planned::new(idx, found.start, found.end, new))
        }
        Err(miss) => {
            if let Miss::Ambiguous { level, .. } = miss {
                r.strategy = Some(level);
            }
            Err(block_missed(w, b, &miss, &regions, fo, words))
        }
    }
}

/// What the receipt of a located block says: the tolerance that found it,
/// and a stated line that was off (a diff header; `git apply` reports it
/// too).
fn found_note(found: &Found, hint: Option<usize>) -> Option<String> {
    let mut msg =
        (found.level != Level::Exact || found.by_hint).then(|| feedback::tolerated(found));
    if let Some(h) = hint.filter(|&h| h != found.start) {
        let d = found.start as isize - h as isize;
        let note = format!(
            "found at line {}; the stated line was {} (offset {d:+})",
            found.start + 1,
            h + 1
        );
        msg = Some(match msg {
            Some(m) => format!("{m}; {note}"),
            None => note,
        });
    }
    msg
}

/// Why a block was not placed: already applied, not found (with the
/// closest region for the first failures of a file), ambiguous, or empty.
fn block_missed(
    w: &mut FileWork,
    b: &Block,
    miss: &Miss,
    regions: &[(usize, usize)],
    fo: FindOptions,
    words: &feedback::Words,
) -> (Code, String) {
    let hay = w.hay.get().expect("built by place_block");
    match miss {
        Miss::NotFound => {
            let at_most_ws = FindOptions {
                max_level: Level::TrailingWs,
                ..fo
            };
            let already = !b.new.iter().all(|l| is_blank(l))
                && b.new != b.old
                && hay.find(b.new, at_most_ws).is_ok();
            if already {
                return (
                    Code::AlreadyApplied,
                    feedback::already_applied(words, &w.path),
                );
            }
            w.not_found += 1;
            let mut msg = if w.not_found <= feedback::DETAILED {
                feedback::not_found(words, &w.path, hay.lines(), b.old)
            } else {
                feedback::not_found_brief(words, &w.path, b.old.len())
            };
            if b.at_end {
                msg.push_str(
                    "\nThe block is marked `*** End of File`: it must end at the file's last line.",
                );
            }
            (Code::NotFound, msg)
        }
        Miss::Ambiguous {
            level,
            candidates,
            len,
        } => {
            let mut msg =
                feedback::ambiguous(words, &w.path, hay.lines(), candidates, *len, *level);
            if regions.len() > 1 {
                let at: Vec<String> = regions.iter().map(|r| r.0.to_string()).collect();
                msg.push_str(&format!("\nThe anchor occurs at several places (lines {}) and the lines follow more than one; an outer anchor (such as `@@ class B:`) says which.", at.join(", ")));
            }
            (Code::Ambiguous, msg)
        }
        Miss::Empty => (
            Code::Malformed,
            format!(
                "{} has only blank lines; quote the lines to replace",
                words.old
            ),
        ),
    }
}

/// Fails every located edit that overlaps an earlier-sorted one.
fn check_overlaps(w: &mut FileWork) {
    let mut order: Vec<usize> = (0..w.planned.len()).collect();
    order.sort_by_key(|&k| {
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
}

/// Applies (or holds back) a file's planned edits and builds its report.
fn finish(mut w: FileWork, apply: bool, truncated: bool) -> FileReport {
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
        return FileReport {
            path: w.path,
            status,
            edits: w.receipts,
            content: None,
        };
    }
    let deleted = w.planned.iter().any(|p| p.delete);
    let content = if w.planned.is_empty() || deleted {
        None
    } else {
        Some(splice(w.original, &w.text, &mut w.planned))
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
    FileReport {
        path: w.path,
        status,
        edits: w.receipts,
        content,
    }
}

/// Builds the new text. Terminators follow [`terminators`] (one rule for
/// every format); BOM and final-newline presence are kept.
fn splice(original: Option<&str>, text: &Text, planned: &mut [Planned]) -> String {
    planned.sort_by_key(|p| (p.start, p.end > p.start, p.idx));
    let src = original.unwrap_or("");
    let n = text.len();
    let eol = text.dominant_eol();
    // With one style of terminator every rule gives the same answer.
    let mixed = (0..n).any(|i| !matches!(text.eol(i), "" | "\n"))
        && (0..n).any(|i| !matches!(text.eol(i), "" | "\r\n"));
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
        if p.start == n && need_eol && !p.new.is_empty() {
            out.push_str(eol);
            need_eol = false;
        }
        for (l, e) in p.new.iter().zip(eols) {
            out.push_str(l);
            out.push_str(e);
        }
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
    }
    out
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
