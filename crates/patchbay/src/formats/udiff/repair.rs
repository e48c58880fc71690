//! Repair: the model's diff, corrected so that `git apply` accepts it.
//!
//! Every hunk is located exactly as the default mode locates it (readings,
//! ladder, hint); then it is written back with the right numbers and
//! counts, every line with its marker. A hunk found exactly keeps the
//! model's own lines; one found only with tolerance (other indentation,
//! trailing whitespace, look-alike characters) is rebuilt from the file's
//! real lines and the replacement the engine would write. A hunk without
//! unchanged lines after its change gets some (git anchors such hunks at the
//! end of the file), hunks that touch are merged, and a file without a final
//! newline gets git's `\ No newline at end of file` where it belongs, so the
//! repaired diff applies with `git apply` to the same result as patchbay.
//! Creations, deletions (all lines of the file) and renames are written in
//! git's form. Anything the default mode would refuse is an error instead.
//!
//! Cost: the lookups of [`crate::apply::transaction`] per hunk, plus one small
//! Myers diff per rebuilt hunk.

use super::edits::{cut_message, no_context_message, old_new, Body};
use super::parse::{read, FileDiff, Hunk, Prefix};
use super::place::{place, Placement};
use super::render::{header, push_line, quote};
use crate::apply::locate::readings::conflict_message;
use crate::apply::matcher::Level;
use crate::apply::text::Text;
use std::collections::BTreeMap;

/// Why a diff could not be repaired: one message per problem.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RepairError {
    pub problems: Vec<String>,
}

impl std::fmt::Display for RepairError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.problems.join("\n"))
    }
}
impl std::error::Error for RepairError {}

/// A corrected, git-style diff of everything in `output`, or the reasons
/// it cannot be made.
pub fn repair(output: &str, files: &BTreeMap<String, String>) -> Result<String, RepairError> {
    let parts = read(output);
    if parts.is_empty() {
        return Err(RepairError {
            problems: vec![
                "the output holds no unified diff (no `@@` hunk, no `---`/`+++` header)".into(),
            ],
        });
    }
    let mut out = String::new();
    let mut problems = vec![];
    for f in &parts {
        match file(f, files) {
            Ok(s) => out.push_str(&s),
            Err(mut p) => problems.append(&mut p),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(RepairError { problems })
    }
}

/// A hunk located in the original: lines `start..end` and its body.
struct HunkAt {
    start: usize,
    end: usize,
    body: Body,
}

fn file(f: &FileDiff, files: &BTreeMap<String, String>) -> Result<String, Vec<String>> {
    let one = |m: String| vec![m];
    if let Some(why) = unusable(f) {
        return Err(one(why));
    }
    let target = f.target().ok_or_else(|| {
        one("a diff names no file; start it with `--- a/PATH` and `+++ b/PATH`".into())
    })?;
    let path = crate::apply::paths::normalize(target).map_err(one)?;
    let (a, b) = (quote("a/", &path), quote("b/", &path));
    let text = files.get(&path);
    if f.created {
        if text.is_some() {
            return Err(one(format!(
                "{path} already exists, but the diff creates it"
            )));
        }
        return Ok(created(f, &a, &b));
    }
    let text = text.ok_or_else(|| one(format!("{path} does not exist")))?;
    let t = Text::new(text);
    if f.deleted {
        return Ok(deleted(&t, &a, &b));
    }
    if f.hunks.is_empty() && f.rename.is_none() {
        return if f.mode_only {
            Ok(String::new())
        } else {
            Err(one(format!("the diff for {path} has no hunks")))
        };
    }
    let lines = t.lines();
    let spots = widen(merge(spots_of(f, &path, lines)?), lines);
    let mut out = match &f.rename {
        Some((_, to)) => {
            let to = crate::apply::paths::normalize(to).map_err(one)?;
            format!(
                "diff --git {a} {}\nrename from {path}\nrename to {to}\n",
                quote("b/", &to)
            )
        }
        None => format!("diff --git {a} {b}\n"),
    };
    if !spots.is_empty() {
        let to_b = f
            .rename
            .as_ref()
            .and_then(|r| crate::apply::paths::normalize(&r.1).ok())
            .map_or(b, |to| quote("b/", &to));
        out.push_str(&format!("--- {a}\n+++ {to_b}\n"));
    }
    let mut delta = 0isize;
    for s in &spots {
        delta += emit(&mut out, &t, s, delta);
    }
    Ok(out)
}

/// Why a file's diff cannot be repaired at all: unsupported, or cut.
fn unusable(f: &FileDiff) -> Option<String> {
    if let Some(why) = &f.unsupported {
        return Some(why.clone());
    }
    if f.cut {
        return Some("the output ends right after a diff header; the reply was cut off".into());
    }
    f.hunks.iter().find(|h| h.cut).map(cut_message)
}

/// A created file's diff: every added line, from `/dev/null` to `b`.
fn created(f: &FileDiff, a: &str, b: &str) -> String {
    let new: Vec<&str> = f
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter(|l| l.is_new())
        .map(|l| l.text.as_str())
        .collect();
    let mut out = format!("diff --git {a} {b}\nnew file mode 100644\n--- /dev/null\n+++ {b}\n");
    if !new.is_empty() {
        out.push_str(&header(0, 0, 0, new.len()));
        for l in new {
            push_line(&mut out, '+', l, "\n");
        }
    }
    out
}

/// A deleted file's diff: every line of `t` removed.
fn deleted(t: &Text, a: &str, b: &str) -> String {
    let mut out = format!("diff --git {a} {b}\ndeleted file mode 100644\n--- {a}\n+++ /dev/null\n");
    if !t.is_empty() {
        out.push_str(&header(0, t.len(), 0, 0));
        for i in 0..t.len() {
            push_line(&mut out, '-', t.line(i), t.eol(i));
        }
    }
    out
}

/// Every hunk of `f` located in `lines`, in file order, or why some could
/// not be (not found, ambiguous, overlapping another).
fn spots_of(f: &FileDiff, path: &str, lines: &[&str]) -> Result<Vec<HunkAt>, Vec<String>> {
    let mut spots = vec![];
    let mut problems = vec![];
    for (k, h) in f.hunks.iter().enumerate() {
        match locate(h, lines) {
            Ok(s) => spots.push(s),
            Err(m) => problems.push(format!(
                "{path}, hunk {} (output line {}): {m}",
                k + 1,
                h.out_line
            )),
        }
    }
    crate::order::sort_by_key(&mut spots[..], |s| (s.start, s.end));
    for w in spots.windows(2) {
        if w[1].start < w[0].end {
            problems.push(format!(
                "{path}: two hunks change overlapping lines ({}-{} and {}-{}); merge them",
                w[0].start + 1,
                w[0].end,
                w[1].start + 1,
                w[1].end
            ));
        }
    }
    if problems.is_empty() {
        Ok(spots)
    } else {
        Err(problems)
    }
}

/// Locates one hunk as the transaction does and returns its spot.
fn locate(h: &Hunk, lines: &[&str]) -> Result<HunkAt, String> {
    let (all, placed) = place(h, lines);
    match placed {
        Placement::At {
            found,
            reading,
            replacement: fresh,
        } => {
            let body = if found.level == Level::Exact {
                all[reading].0.clone()
            } else {
                // Rebuilt from the file's real lines and the replacement
                // the transaction would write there.
                interleave(
                    &lines[found.start..found.end],
                    &fresh.iter().map(String::as_str).collect::<Vec<_>>(),
                )
            };
            Ok(HunkAt {
                start: found.start,
                end: found.end,
                body,
            })
        }
        Placement::NoContext if h.old_start() == Some(0) => Ok(HunkAt {
            start: 0,
            end: 0,
            body: all[0].0.clone(),
        }),
        Placement::NoContext => Err(no_context_message(h)),
        Placement::Conflict(places) => Err(conflict_message(&super::WORDS, "the file", &places)),
        Placement::Ambiguous {
            candidates, len, ..
        } => {
            let at: Vec<String> = candidates
                .iter()
                .map(|c| format!("{}-{}", c + 1, c + len))
                .collect();
            Err(format!("the context occurs at {} places (lines {}); add unchanged lines until it is unique", candidates.len(), at.join(", ")))
        }
        Placement::NotFound => Err(
            "the context was not found in the file (see `diagnose` for the closest region)".into(),
        ),
    }
}

/// A body from an old and a new block: equal lines unchanged, the rest
/// removed then added.
fn interleave<S: AsRef<str> + PartialEq>(old: &[S], new: &[S]) -> Body {
    let o: Vec<&str> = old.iter().map(|s| s.as_ref()).collect();
    let n: Vec<&str> = new.iter().map(|s| s.as_ref()).collect();
    let mut body = vec![];
    let mut i = 0;
    let tail = crate::apply::diff::Change {
        old: o.len()..o.len(),
        new: n.len()..n.len(),
    };
    for c in crate::apply::diff::changes_linear(&o, &n)
        .iter()
        .chain(std::iter::once(&tail))
    {
        body.extend(
            o[i..c.old.start]
                .iter()
                .map(|l| (Prefix::Context, l.to_string())),
        );
        body.extend(
            o[c.old.clone()]
                .iter()
                .map(|l| (Prefix::Remove, l.to_string())),
        );
        body.extend(
            n[c.new.clone()]
                .iter()
                .map(|l| (Prefix::Add, l.to_string())),
        );
        i = c.old.end;
    }
    body
}

/// Hunks that touch become one (git needs the context between them).
fn merge(spots: Vec<HunkAt>) -> Vec<HunkAt> {
    let mut out: Vec<HunkAt> = vec![];
    for s in spots {
        match out.last_mut() {
            Some(p) if p.end == s.start && !(p.start == p.end && s.start == s.end) => {
                p.end = s.end;
                p.body.extend(s.body);
            }
            _ => out.push(s),
        }
    }
    out
}

/// Up to 3 unchanged lines where a hunk has none before or after its change.
fn widen(mut spots: Vec<HunkAt>, lines: &[&str]) -> Vec<HunkAt> {
    let n = lines.len();
    for i in 0..spots.len() {
        let lo = if i == 0 { 0 } else { spots[i - 1].end };
        let hi = spots.get(i + 1).map_or(n, |s| s.start);
        let s = &mut spots[i];
        if s.body
            .iter()
            .rev()
            .take_while(|l| l.0 == Prefix::Context)
            .count()
            == 0
        {
            let k = 3.min(hi - s.end);
            s.body.extend(
                lines[s.end..s.end + k]
                    .iter()
                    .map(|l| (Prefix::Context, l.to_string())),
            );
            s.end += k;
        }
        if s.body.iter().take_while(|l| l.0 == Prefix::Context).count() == 0 {
            let k = 3.min(s.start - lo);
            let above = lines[s.start - k..s.start]
                .iter()
                .map(|l| (Prefix::Context, l.to_string()));
            s.body.splice(0..0, above);
            s.start -= k;
        }
    }
    spots
}

/// Writes one hunk; returns its change in line count.
fn emit(out: &mut String, t: &Text, s: &HunkAt, delta: isize) -> isize {
    let n = t.len();
    // New lines take the terminator of the first line replaced, as the
    // transaction writes them.
    let add_eol = if s.start < n && !t.eol(s.start).is_empty() {
        t.eol(s.start)
    } else {
        t.dominant_eol()
    };
    let at_eof = s.end == n && !t.ends_with_newline();
    let body = if at_eof {
        // The new last line loses its newline (the engine keeps the file's
        // final-newline state): diff with that made visible.
        let key = |l: &str, last: bool| {
            if last {
                format!("{l}\u{0}")
            } else {
                l.to_owned()
            }
        };
        let old: Vec<String> = (s.start..s.end)
            .map(|i| key(t.line(i), i + 1 == n))
            .collect();
        let (_, new) = old_new(&s.body);
        let new: Vec<String> = new
            .iter()
            .enumerate()
            .map(|(k, l)| key(l, k + 1 == new.len()))
            .collect();
        interleave(&old, &new)
    } else {
        s.body.clone()
    };
    let (oc, nc) = (
        body.iter().filter(|l| l.0 != Prefix::Add).count(),
        body.iter().filter(|l| l.0 != Prefix::Remove).count(),
    );
    let ns = (s.start as isize + delta).max(0) as usize;
    out.push_str(&header(s.start, oc, ns, nc));
    let mut oi = s.start;
    for (kind, text) in &body {
        let (content, eol) = match text.strip_suffix('\u{0}') {
            Some(c) => (c, ""),
            None => (
                text.as_str(),
                if *kind == Prefix::Add {
                    add_eol
                } else {
                    t.eol(oi.min(n.saturating_sub(1)))
                },
            ),
        };
        let mark = match kind {
            Prefix::Context => ' ',
            Prefix::Remove => '-',
            Prefix::Add => '+',
        };
        // An unchanged or removed line keeps the file's terminator; only the
        // file's very last line may lack one, and it carries the marker.
        let eol = if *kind != Prefix::Add && eol.is_empty() && text.strip_suffix('\u{0}').is_none()
        {
            "\n"
        } else {
            eol
        };
        push_line(out, mark, content, eol);
        if *kind != Prefix::Add {
            oi += 1;
        }
    }
    nc as isize - oc as isize
}
