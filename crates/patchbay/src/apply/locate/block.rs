//! Blocks of old lines (SEARCH/REPLACE, diff hunks, V4A chunks): found on
//! the matcher ladder, narrowed by anchor lines (V4A's `@@ def f():`) and
//! `*** End of File`, refused as `already_applied` when only the new text
//! is there, and rewritten so that the lines the edit leaves unchanged are
//! the file's ([`replacement`]).
//!
//! Cost: one matcher lookup per region (one region unless an anchor occurs
//! several times), see [`crate::apply::matcher`].

use super::{Refusal, Rules, Spot, Target};
use crate::apply::elision::find_elision;
use crate::apply::feedback;
use crate::apply::fold::is_blank;
use crate::apply::matcher::{FindOptions, Found, Haystack, Level, Miss, CANDIDATE_CAP};
use crate::edit::Code;

/// A block of old lines to replace (`Op::Replace`, borrowed).
pub struct Block<'e> {
    pub old: &'e [String],
    pub new: &'e [String],
    pub hint: Option<usize>,
    pub anchors: &'e [String],
    pub at_end: bool,
}

/// Places a block: its anchors' regions, then the ladder in them.
pub fn place(t: &Target, b: &Block, rules: Rules) -> Result<Spot, Refusal> {
    if t.original.is_none() {
        let msg = format!(
            "{} does not exist; to create it, {}",
            t.path, rules.words.create
        );
        return Err((Code::FileMissing, msg).into());
    }
    let hay = t.hay();
    if let Some(k) = find_elision(b.new, hay.lines()) {
        return Err((Code::Elided, feedback::elided(t.path, k, &b.new[k])).into());
    }
    let fo = rules.find(b.hint);
    let regions = block_regions(hay, b.anchors, b.at_end, b.old.len(), fo)
        .map_err(|miss| (miss.code(), miss.message(t.path)))?;
    // No old lines: an insertion at the end, or right after the anchor.
    if b.old.is_empty() && (b.at_end || !b.anchors.is_empty()) {
        return insertion(t, b, &regions);
    }
    match in_regions(hay, b.old, b.new, &regions, fo) {
        Ok((found, _)) if b.at_end && !hay.lines()[found.end..].iter().all(|l| is_blank(l)) => Err((
            Code::NotFound,
            format!("the lines before `*** End of File` are not the last lines of {}; they occur at lines {}-{}", t.path, found.start + 1, found.end),
        ).into()),
        Ok((found, new)) => Ok(Spot {
            level: Some(found.level),
            note: found_note(&found, b.hint),
            ..Spot::at(found.start, found.end, new)
        }),
        Err(miss) => Err(missed(t, b, &miss, &regions, fo, rules.words)),
    }
}

/// A block without old lines goes at the end, or right after its anchor
/// (which must then be found once).
fn insertion(t: &Target, b: &Block, regions: &[(usize, usize)]) -> Result<Spot, Refusal> {
    if regions.len() > 1 {
        let at: Vec<String> = regions.iter().map(|r| r.0.to_string()).collect();
        return Err((Code::Ambiguous, format!("the anchors occur at several places of {} (after lines {}) and the chunk has no context lines to tell them apart; use a more specific anchor", t.path, at.join(", "))).into());
    }
    let at = if b.at_end { t.text.len() } else { regions[0].0 };
    Ok(Spot::at(at, at, b.new.to_vec()))
}

/// `old` found on the ladder in one of `regions` (see [`find_in_regions`]),
/// and the lines that replace it there (see [`replacement`]).
pub fn in_regions(
    hay: &Haystack,
    old: &[String],
    new: &[String],
    regions: &[(usize, usize)],
    fo: FindOptions,
) -> Result<(Found, Vec<String>), Miss> {
    let found = find_in_regions(hay, old, regions, fo)?;
    let new = replacement(old, new, &found, hay.lines());
    Ok((found, new))
}

/// [`in_regions`] over the whole range `fo` allows: a block without anchors.
pub fn on_ladder(
    hay: &Haystack,
    old: &[String],
    new: &[String],
    fo: FindOptions,
) -> Result<(Found, Vec<String>), Miss> {
    in_regions(hay, old, new, &[(fo.min_start, fo.max_start)], fo)
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
fn missed(
    t: &Target,
    b: &Block,
    miss: &Miss,
    regions: &[(usize, usize)],
    fo: FindOptions,
    words: &feedback::Words,
) -> Refusal {
    let hay = t.hay();
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
                    feedback::already_applied(words, t.path),
                )
                    .into();
            }
            let (mut msg, closest) = if t.detailed() {
                feedback::not_found(words, t.path, hay.lines(), b.old)
            } else {
                (feedback::not_found_brief(words, t.path, b.old.len()), None)
            };
            if b.at_end {
                msg.push_str(
                    "\nThe block is marked `*** End of File`: it must end at the file's last line.",
                );
            }
            Refusal::not_found((msg, closest))
        }
        Miss::Ambiguous {
            level,
            candidates,
            len,
        } => {
            let mut msg = feedback::ambiguous(words, t.path, hay.lines(), candidates, *len, *level);
            if regions.len() > 1 {
                let at: Vec<String> = regions.iter().map(|r| r.0.to_string()).collect();
                msg.push_str(&format!("\nThe anchor occurs at several places (lines {}) and the lines follow more than one; an outer anchor (such as `@@ class B:`) says which.", at.join(", ")));
            }
            Refusal {
                level: Some(*level),
                ..(Code::Ambiguous, msg).into()
            }
        }
        Miss::Empty => (
            Code::Malformed,
            format!(
                "{} has only blank lines; quote the lines to replace",
                words.old
            ),
        )
            .into(),
    }
}

/// Why a block's anchors (V4A's `@@ class A` / `@@ def f():` lines) could
/// not place it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnchorMiss {
    /// This anchor is not in the file (after the ones before it).
    NotFound(String),
    /// This anchor occurs on too many lines to try each (0-based starts).
    TooMany(String, Vec<usize>),
}

impl AnchorMiss {
    pub fn code(&self) -> Code {
        match self {
            AnchorMiss::NotFound(_) => Code::NotFound,
            AnchorMiss::TooMany(..) => Code::Ambiguous,
        }
    }

    pub fn message(&self, path: &str) -> String {
        match self {
            AnchorMiss::NotFound(a) => format!("the anchor `{}` was not found in {path}; an anchor is one whole line of the file as it is there (such as `def f(self):`), found after the anchor before it", a.trim()),
            AnchorMiss::TooMany(a, starts) => {
                let at: Vec<String> = starts.iter().map(|c| (c + 1).to_string()).collect();
                format!("the anchor `{}` occurs on too many lines of {path} ({}, ...); use a more specific anchor", a.trim(), at.join(", "))
            }
        }
    }
}

/// Where a block may start after its anchors, each anchor a whole line
/// found after the one before: one region per placement of the chain,
/// from just after its last anchor line to the next occurrence of that
/// line (or the end of the region it was found in). An anchor that occurs
/// twice therefore narrows instead of refusing: the block's own lines then
/// decide (see [`find_in_regions`]). At most [`CANDIDATE_CAP`] regions.
pub fn anchor_regions(
    hay: &Haystack,
    anchors: &[String],
    fo: FindOptions,
) -> Result<Vec<(usize, usize)>, AnchorMiss> {
    let mut regions = vec![(fo.min_start, fo.max_start)];
    for a in anchors {
        let mut next = vec![];
        for &(lo, hi) in &regions {
            let at = FindOptions {
                hint: None,
                min_start: lo,
                max_start: hi,
                ..fo
            };
            let starts = match hay.find(&[a.as_str()], at) {
                Ok(f) => vec![f.start],
                Err(Miss::Ambiguous { candidates, .. }) if candidates.len() < CANDIDATE_CAP => {
                    candidates
                }
                Err(Miss::Ambiguous { candidates, .. }) => {
                    return Err(AnchorMiss::TooMany(a.clone(), candidates))
                }
                Err(_) => continue,
            };
            let ends = starts.iter().skip(1).copied().chain([hi]);
            next.extend(starts.iter().zip(ends).map(|(&s, e)| (s + 1, e)));
        }
        if next.is_empty() {
            return Err(AnchorMiss::NotFound(a.clone()));
        }
        if next.len() > CANDIDATE_CAP {
            let starts = next.iter().map(|r| r.0 - 1).collect();
            return Err(AnchorMiss::TooMany(a.clone(), starts));
        }
        regions = next;
    }
    Ok(regions)
}

/// [`anchor_regions`], and with `at_end` (V4A's `*** End of File`) only
/// the starts from which a block of `len` lines can reach the last line.
pub fn block_regions(
    hay: &Haystack,
    anchors: &[String],
    at_end: bool,
    len: usize,
    fo: FindOptions,
) -> Result<Vec<(usize, usize)>, AnchorMiss> {
    let regions = anchor_regions(hay, anchors, fo)?;
    if !at_end {
        return Ok(regions);
    }
    let last = hay.lines().len().saturating_sub(len);
    Ok(regions.iter().map(|&(lo, hi)| (lo.max(last), hi)).collect())
}

/// Finds `block` in each region: the lowest matcher level that finds it in
/// any region decides, and at that level it must be found once in all
/// regions together, or the result is `ambiguous` with every candidate.
pub fn find_in_regions(
    hay: &Haystack,
    block: &[String],
    regions: &[(usize, usize)],
    fo: FindOptions,
) -> Result<Found, Miss> {
    if let [(lo, hi)] = regions {
        return hay.find(
            block,
            FindOptions {
                min_start: *lo,
                max_start: *hi,
                ..fo
            },
        );
    }
    let mut best: Option<(Level, Vec<usize>, usize, Option<Found>)> = None;
    for &(lo, hi) in regions {
        let (level, starts, len, found) = match hay.find(
            block,
            FindOptions {
                min_start: lo,
                max_start: hi,
                ..fo
            },
        ) {
            Ok(f) => (f.level, vec![f.start], f.end - f.start, Some(f)),
            Err(Miss::Ambiguous {
                level,
                candidates,
                len,
            }) => (level, candidates, len, None),
            Err(Miss::Empty) => return Err(Miss::Empty),
            Err(Miss::NotFound) => continue,
        };
        match &mut best {
            Some(b) if b.0 < level => {}
            Some(b) if b.0 == level => {
                b.1.extend(starts);
                b.3 = None;
            }
            _ => best = Some((level, starts, len, found)),
        }
    }
    match best {
        None => Err(Miss::NotFound),
        Some((_, _, _, Some(found))) => Ok(found),
        Some((level, mut candidates, len, None)) => {
            candidates.truncate(CANDIDATE_CAP);
            Err(Miss::Ambiguous {
                level,
                candidates,
                len,
            })
        }
    }
}

/// The replacement lines, minus the blank lines the matcher trimmed from the
/// block, re-indented by the offset it found. Lines the edit leaves as they
/// were (equal in its old and new text) are written as the file has them:
/// a tolerance the matcher granted the old text (trailing spaces, look-alike
/// quotes, other indentation) must not be copied into the file through the
/// unchanged lines of a diff hunk or a SEARCH block. Public so that tools
/// which rebuild an edit (the udiff repair) write exactly what would be
/// applied. `file` is the whole file the match was found in.
pub fn replacement(old: &[String], new: &[String], f: &Found, file: &[&str]) -> Vec<String> {
    let mut lo = 0;
    let mut hi = new.len();
    while lo < f.trimmed.0 && lo < hi && is_blank(&new[lo]) {
        lo += 1;
    }
    let mut cut = 0;
    while cut < f.trimmed.1 && hi > lo && is_blank(&new[hi - 1]) {
        hi -= 1;
        cut += 1;
    }
    let mut out = f.shift.apply(&new[lo..hi]);
    if f.level == Level::Exact {
        return out; // the unchanged lines are the file's already
    }
    // The matched region holds old[trimmed.0 .. len - trimmed.1], line for line.
    let (a, b) = (f.trimmed.0, old.len().saturating_sub(f.trimmed.1));
    for (i, j) in crate::apply::diff::equal_pairs(old, &new[lo..hi]) {
        if (a..b).contains(&i) {
            if let Some(line) = file.get(f.start + i - a) {
                out[j] = (*line).to_owned();
            }
        }
    }
    out
}
