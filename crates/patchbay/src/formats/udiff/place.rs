//! Where the default mode puts a hunk, found by the transaction's own
//! locate functions (the reading the file picks,
//! [`crate::apply::locate::chosen_reading`], then that reading on the
//! ladder up to its cap, [`crate::apply::locate::block::on_ladder`]), for
//! the tools that explain or rewrite a diff without applying it:
//! [`super::diagnose`] and [`super::repair`]. Cost: one lookup per
//! reading, plus one.

use super::edits::{old_new, readings, replace_readings, Body};
use super::parse::Hunk;
use crate::apply::locate;
use crate::apply::matcher::{FindOptions, Found, Haystack, Level, Miss};
use crate::edit::Op;

/// The outcome of [`place`].
pub enum Placement {
    /// Found: the match, the index of the reading in `bodies`, and the
    /// lines the transaction writes there (see
    /// [`crate::apply::locate::replacement`]).
    At {
        found: Found,
        reading: usize,
        replacement: Vec<String>,
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
pub fn place(h: &Hunk, lines: &[&str]) -> (Vec<(Body, Level)>, Placement) {
    let all = readings(h);
    let fo = FindOptions {
        hint: h.old_start().map(|s| s.saturating_sub(1)),
        ..Default::default()
    };
    let ops = replace_readings(h, &all);
    if ops.is_empty() {
        return (all, Placement::NoContext);
    }
    let only: Vec<_> = ops.iter().map(|o| o.1.clone()).collect();
    let hay = Haystack::new(lines.to_vec());
    let (k, fo) = match locate::chosen_reading(&hay, &only, fo) {
        Ok(chosen) => chosen,
        Err(places) => return (all, Placement::Conflict(places)),
    };
    let Some((idx, r)) = ops.get(k) else {
        return (all, Placement::NoContext);
    };
    let Op::Replace { old, .. } = &r.op else {
        return (all, Placement::NoContext);
    };
    let new = old_new(&all[*idx].0).1;
    let placed = match locate::block::on_ladder(&hay, old, &new, fo) {
        Ok((found, replacement)) => Placement::At {
            found,
            reading: *idx,
            replacement,
        },
        Err(Miss::Ambiguous {
            level,
            candidates,
            len,
        }) => Placement::Ambiguous {
            level,
            candidates,
            len,
        },
        Err(_) => Placement::NotFound,
    };
    (all, placed)
}
