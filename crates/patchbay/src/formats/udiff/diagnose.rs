//! Per-hunk diagnosis, for teaching: why strict application (as
//! `git apply` does it) of each hunk fails or would succeed, and where the
//! default mode would put it. It looks things up; it never applies.
//!
//! Findings come in a fixed order: the hunk's text (cut off, numbers,
//! counts, markers), its file (path, existence), then its place (found as
//! stated, at an offset, only with tolerance, after re-reading damaged
//! lines, ambiguous, or not found with the closest region). Each says what
//! to write instead. Cost per hunk: an exact lookup, one lookup per reading
//! up the ladder, and for a hunk not found one closest-region search
//! (`feedback::closest`), all `O(N + M)` expected.

use super::edits::{as_written, count_problems, cut_message, old_new, prefix_problem, Body};
use super::parse::{read, Damage, FileDiff, Hunk, Prefix};
use super::place::{self, Placement};
use crate::apply::fold::visible_ws;
use crate::apply::matcher::{FindOptions, Found, Haystack, Level, Miss};
use crate::apply::text::Text;
use serde::Serialize;
use std::collections::BTreeMap;

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    Truncated,
    NoNumbers,
    OldCount,
    NewCount,
    MissingPrefix,
    BlankLine,
    Unsupported,
    NoPath,
    PathEscape,
    FileMissing,
    FileExists,
    Creates,
    Deletes,
    NoContext,
    Found,
    Offset,
    ByHint,
    GitAnchor,
    Tolerated,
    Reread,
    Ambiguous,
    NotFound,
}

/// One thing found about a hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub kind: FindingKind,
    pub message: String,
    /// Whether it makes strict application fail.
    pub fatal: bool,
}

/// Everything found about one hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HunkDiagnosis {
    /// 1-based number of the hunk in the output.
    pub hunk: usize,
    /// The file it targets, as written.
    pub path: Option<String>,
    /// 1-based output line of its `@@` header.
    pub output_line: usize,
    pub header: String,
    /// Strict mode (exact context, counts and markers as `git apply`
    /// wants them) applies it.
    pub strict_ok: bool,
    /// Where the default mode applies it: 1-based first and last original
    /// line replaced (`[n, n-1]` inserts before line n).
    pub lenient_lines: Option<[usize; 2]>,
    pub findings: Vec<Finding>,
}

/// Diagnoses every hunk of `output` against `files` (path -> text).
pub fn diagnose(output: &str, files: &BTreeMap<String, String>) -> Vec<HunkDiagnosis> {
    let mut out = vec![];
    for f in read(output) {
        for h in &f.hunks {
            let mut d = HunkDiagnosis {
                hunk: out.len() + 1,
                path: f.target().map(str::to_owned),
                output_line: h.out_line,
                header: h.header.text.clone(),
                strict_ok: false,
                lenient_lines: None,
                findings: vec![],
            };
            one(&f, h, files, &mut d);
            d.strict_ok = !d.findings.iter().any(|x| x.fatal);
            out.push(d);
        }
    }
    out
}

fn add(d: &mut HunkDiagnosis, kind: FindingKind, fatal: bool, message: String) {
    d.findings.push(Finding {
        kind,
        message,
        fatal,
    });
}

fn one(f: &FileDiff, h: &Hunk, files: &BTreeMap<String, String>, d: &mut HunkDiagnosis) {
    use FindingKind as K;
    if h.cut {
        add(d, K::Truncated, true, cut_message(h));
    }
    if h.header.old.is_none() || h.header.new.is_none() {
        add(d, K::NoNumbers, true, format!("the hunk header `{}` has no line numbers; strict mode needs `@@ -START,COUNT +START,COUNT @@`", h.header.text.trim()));
    }
    for (old, msg) in count_problems(h) {
        add(d, if old { K::OldCount } else { K::NewCount }, true, msg);
    }
    for (k, l) in h.lines.iter().enumerate() {
        match l.damage {
            Some(Damage::NoPrefix) => add(d, K::MissingPrefix, true, prefix_problem(k + 1, l)),
            Some(Damage::Blank) => add(d, K::BlankLine, false, format!("line {} of the hunk is empty; git reads it as an empty unchanged line, but write a single space to be safe", k + 1)),
            None => {}
        }
    }
    if let Some(why) = &f.unsupported {
        return add(d, K::Unsupported, true, why.clone());
    }
    let Some(target) = f.target() else {
        return add(
            d,
            K::NoPath,
            true,
            "the diff names no file; start it with `--- a/PATH` and `+++ b/PATH`".into(),
        );
    };
    let path = match crate::apply::paths::normalize(target) {
        Ok(p) => p,
        Err(m) => return add(d, K::PathEscape, true, m),
    };
    let text = files.get(&path);
    if f.created {
        return match text {
            Some(_) => add(d, K::FileExists, true, format!("{path} already exists, but the diff creates it (`--- /dev/null`); diff against the existing file instead")),
            None => add(d, K::Creates, false, format!("creates {path} with {} lines", h.counts().1)),
        };
    }
    let Some(text) = text else {
        return add(
            d,
            K::FileMissing,
            true,
            format!("{path} does not exist; to create it, use `--- /dev/null`"),
        );
    };
    if f.deleted {
        return add(d, K::Deletes, false, format!("deletes {path}"));
    }
    if !h.cut {
        place(h, &path, text, d);
    }
}

/// Where strict and lenient application put the hunk, and why.
fn place(h: &Hunk, path: &str, text: &str, d: &mut HunkDiagnosis) {
    let t = Text::new(text);
    let lines = t.lines();
    let hay = Haystack::new(t.shared_lines());
    let stated = h.old_start();
    let fo = FindOptions {
        hint: stated.map(|s| s.saturating_sub(1)),
        ..Default::default()
    };
    let body = as_written(h);
    let (old, _) = old_new(&body);
    if old.is_empty() {
        return no_context(d, stated, lines.len());
    }
    let lenient = lenient_place(h, lines);
    if let Some((s, e, _, _)) = lenient.located {
        d.lenient_lines = Some([s + 1, e]);
    }
    let exact = FindOptions {
        max_level: Level::Exact,
        ..fo
    };
    match hay.find(&old, exact) {
        Ok(found) => found_exactly(d, &found, stated, &body, lines.len()),
        Err(Miss::Ambiguous {
            candidates, len, ..
        }) => {
            let at: Vec<String> = candidates
                .iter()
                .map(|c| format!("{}-{}", c + 1, c + len))
                .collect();
            let why = match stated {
                Some(s) => format!(
                    "the header's line {s} is not within {} lines of exactly one of them",
                    fo.window
                ),
                None => "the header has no line numbers to choose".into(),
            };
            add(d, FindingKind::Ambiguous, true, format!("context occurs at {} places (lines {}); {why}; add unchanged lines until it is unique", candidates.len(), at.join(", ")));
        }
        Err(_) => not_exact(d, &lenient, &body, path, lines, &old),
    }
}

/// A hunk without unchanged or removed lines: only a stated line places it.
fn no_context(d: &mut HunkDiagnosis, stated: Option<usize>, n: usize) {
    let msg = match stated {
        Some(0) => "the hunk only adds lines, at the top of the file".to_owned(),
        Some(s) => format!("the hunk has no unchanged or removed lines: strict mode inserts it after line {s} as stated (as `git apply --unidiff-zero` does), the default mode refuses it; include 2-3 unchanged lines around the change"),
        None => "the hunk has no unchanged or removed lines and no line numbers: there is nothing to place it by".to_owned(),
    };
    if stated == Some(0) {
        d.lenient_lines = Some([1, 0]);
    }
    let fatal = stated.is_none() || stated.is_some_and(|s| s > n);
    add(d, FindingKind::NoContext, fatal, msg);
}

/// The context found as written: where, against the header's line, and
/// whether `git apply` would also need it to end the file.
fn found_exactly(
    d: &mut HunkDiagnosis,
    found: &Found,
    stated: Option<usize>,
    body: &Body,
    n: usize,
) {
    use FindingKind as K;
    let at = found.start + 1;
    if found.by_hint {
        add(
            d,
            K::ByHint,
            false,
            format!(
                "the context occurs at several places; the header's line {} picks line {at}",
                stated.unwrap_or(0)
            ),
        );
    }
    match stated {
        Some(s) if s != at => add(
            d,
            K::Offset,
            false,
            format!("context found at line {at}, header says {s}"),
        ),
        Some(_) => add(
            d,
            K::Found,
            false,
            format!("context found at line {at}, as the header says"),
        ),
        None => add(d, K::Found, false, format!("context found at line {at}")),
    }
    let trailing = body
        .iter()
        .rev()
        .take_while(|l| l.0 == Prefix::Context)
        .count();
    if trailing == 0 && found.end < n {
        add(d, K::GitAnchor, false, "the hunk has no unchanged lines after its change, so `git apply` (but not patchbay) requires it to end at the file's last line; add the lines that follow".into());
    }
}

/// The context not found as written: what the default mode did instead
/// (another reading, a tolerance), or why it failed too.
fn not_exact(
    d: &mut HunkDiagnosis,
    lenient: &Lenient,
    body: &Body,
    path: &str,
    lines: &[&str],
    old: &[String],
) {
    use FindingKind as K;
    match (lenient.located, &lenient.conflict) {
        (Some((s, _, level, k)), _) => {
            if k > 0 {
                let how = reread(body, &lenient.bodies[k]);
                add(d, K::Reread, true, format!("context found at line {} only after reading the damaged lines differently: {how}", s + 1));
            }
            if level != Level::Exact {
                add(d, K::Tolerated, true, format!("context found at line {} only at the `{}` level ({}); strict mode needs it exact", s + 1, level.name(), tolerance(level)));
            }
        }
        (None, Some(msg)) => add(d, K::Ambiguous, true, msg.clone()),
        (None, None) => add(d, K::NotFound, true, not_found(path, lines, old)),
    }
}

fn tolerance(level: Level) -> &'static str {
    match level {
        Level::Exact => "exact",
        Level::TrailingWs => "trailing whitespace ignored",
        Level::Indent => "the block at another indentation",
        Level::BlankLines => "blank lines at its ends ignored",
        Level::Tabs => "tabs and spaces treated alike",
        Level::Unicode => "look-alike characters folded",
    }
}

struct Lenient {
    bodies: Vec<Body>,
    /// (start, end, level, reading) of the place the default mode uses.
    located: Option<(usize, usize, Level, usize)>,
    conflict: Option<String>,
}

/// What the default mode does with the hunk (the transaction's logic).
fn lenient_place(h: &Hunk, lines: &[&str]) -> Lenient {
    let (all, placed) = place::place(h, lines);
    let mut out = Lenient {
        bodies: all.into_iter().map(|a| a.0).collect(),
        located: None,
        conflict: None,
    };
    match placed {
        Placement::At { found, reading, .. } => {
            out.located = Some((found.start, found.end, found.level, reading));
        }
        Placement::Ambiguous {
            level, candidates, ..
        } => {
            let at: Vec<String> = candidates.iter().map(|c| (c + 1).to_string()).collect();
            out.conflict = Some(format!("context matches {} places at the `{}` level (starting on lines {}); add unchanged lines until it is unique", candidates.len(), level.name(), at.join(", ")));
        }
        Placement::Conflict(places) => {
            out.conflict = Some(crate::apply::locate::readings::conflict_message(
                &super::WORDS,
                "the file",
                &places,
            ));
        }
        Placement::NotFound | Placement::NoContext => {}
    }
    out
}

/// How a re-reading differs from the hunk as written, line by line.
fn reread(written: &Body, chosen: &Body) -> String {
    let mut v = vec![];
    for (k, (a, b)) in written.iter().zip(chosen).enumerate() {
        if a.0 != b.0 {
            v.push(format!(
                "line {} of the hunk read as {}",
                k + 1,
                if b.0 == Prefix::Add {
                    "added"
                } else {
                    "unchanged"
                }
            ));
        } else if a.1.len() < b.1.len() {
            v.push(format!(
                "line {} of the hunk lost its one-space prefix",
                k + 1
            ));
        } else if a.1.len() > b.1.len() {
            v.push(format!("line {} of the hunk has one space too many", k + 1));
        }
    }
    v.join("; ")
}

/// "context not found; closest region lines X-Y", with the first difference.
fn not_found(path: &str, file: &[&str], old: &[String]) -> String {
    let block: Vec<&str> = old.iter().map(String::as_str).collect();
    let Some((s, ratio)) = crate::apply::feedback::closest(file, &block) else {
        return format!("context not found; no line of it occurs in {path}");
    };
    let e = (s + block.len()).min(file.len());
    let mut msg = format!(
        "context not found; closest region lines {}-{e} ({}% similar)",
        s + 1,
        crate::apply::feedback::percent(ratio)
    );
    let diff = (0..block.len().max(e - s)).find(|&i| file.get(s + i) != block.get(i));
    if let Some(i) = diff {
        msg.push_str(&format!(
            "; first difference at line {} (hunk line {} of the old side): file `{}`, hunk `{}`",
            s + i + 1,
            i + 1,
            visible_ws(file.get(s + i).copied().unwrap_or("")),
            visible_ws(block.get(i).copied().unwrap_or(""))
        ));
    }
    msg
}
