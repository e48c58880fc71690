//! Where the default mode puts a hunk, found exactly as the transaction
//! finds it (the hunk's readings, [`crate::apply::locate::readings::choose_in`], then the
//! chosen reading on the ladder up to its cap), for the tools that explain
//! or rewrite a diff without applying it: [`super::diagnose`] and
//! [`super::repair`]. Cost: one lookup per reading, plus one.

use super::edits::{old_new, readings, replace_readings, Body};
use super::parse::Hunk;
use crate::apply::locate::readings::{choose_in, Choice};
use crate::apply::matcher::{FindOptions, Found, Haystack, Level, Miss};
use crate::edit::Op;

/// The outcome of [`place`].
pub enum Placed {
    /// Found: the match, the index of the reading in `bodies`, and that
    /// reading's old and new lines (before any re-indentation).
    At {
        found: Found,
        reading: usize,
        old: Vec<String>,
        new: Vec<String>,
    },
    /// Readings match at different places (0-based `start..end`).
    Conflict(Vec<(usize, usize)>),
    Ambiguous {
        level: Level,
        candidates: Vec<usize>,
        len: usize,
    },
    NotFound,
    /// No reading has old lines: nothing to look for.
    NoContext,
}

/// The hunk's readings and where the default mode puts it in `lines`.
pub fn place(h: &Hunk, lines: &[&str]) -> (Vec<(Body, Level)>, Placed) {
    let all = readings(h);
    let fo = FindOptions {
        hint: h.old_start().map(|s| s.saturating_sub(1)),
        ..Default::default()
    };
    let ops = replace_readings(h, &all);
    if ops.is_empty() {
        return (all, Placed::NoContext);
    }
    let only: Vec<_> = ops.iter().map(|o| o.1.clone()).collect();
    let hay = Haystack::new(lines.to_vec());
    let k = match choose_in(&hay, &only, fo) {
        Choice::One(k) => k,
        Choice::Conflict(places) => return (all, Placed::Conflict(places)),
    };
    let Some((idx, r)) = ops.get(k) else {
        return (all, Placed::NoContext);
    };
    let Op::Replace { old, .. } = &r.op else {
        return (all, Placed::NoContext);
    };
    let fo = FindOptions {
        max_level: r.max_level,
        ..fo
    };
    let placed = match hay.find(old, fo) {
        Ok(found) => Placed::At {
            found,
            reading: *idx,
            old: old.clone(),
            new: old_new(&all[*idx].0).1,
        },
        Err(Miss::Ambiguous {
            level,
            candidates,
            len,
        }) => Placed::Ambiguous {
            level,
            candidates,
            len,
        },
        Err(_) => Placed::NotFound,
    };
    (all, placed)
}
