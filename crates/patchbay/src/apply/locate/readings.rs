//! Choosing among alternative readings of one damaged edit ([`Op::OneOf`]).
//!
//! Some model faults cannot be undone from the output alone: a diff line
//! that lost its one-space prefix may be an unchanged line or an added one,
//! and an indented context line that lost it looks like a line indented one
//! column less. A format that meets such a line offers every plausible
//! reading, most likely first, and the file decides: each reading is looked
//! up with the shared matcher ladder against the original, and
//!
//! * the readings are compared at the lowest ladder level at which any of
//!   them is found (exact before trailing whitespace, and so on); readings
//!   found only at looser levels do not count, just as the ladder never
//!   looks further once a level has found something;
//! * when the places found at that level lie inside the largest of them
//!   (one region, read with more or fewer of its lines as unchanged), the
//!   reading of the largest place is the edit, the earliest on a tie: it
//!   is the one with the most lines checked against the file (a line that
//!   is really there is unchanged, not added again);
//! * when places lie apart, or one reading is ambiguous at that level while
//!   another is found, nothing is chosen (`ambiguous`): that would be a
//!   guess;
//! * when none is found, the first reading stands, so that the receipt
//!   explains the miss in terms of what the model most likely meant.
//!
//! A reading may cap the ladder: one that already re-reads indentation
//! (a space given back to some lines) must not be matched at the `indent`
//! level as well, or the shift found would be applied to added lines that
//! never had it.
//!
//! Only [`Op::Replace`] readings are compared; other ops are never offered
//! as readings. Cost: one matcher lookup per reading (see [`crate::apply::matcher`]).

use crate::apply::feedback::Words;
use crate::apply::matcher::{FindOptions, Haystack, Level, Miss};
use crate::edit::{Op, Reading};

/// The outcome of [`choose`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Index of the reading to apply.
    One(usize),
    /// Readings locate at these different places (0-based `start..end`).
    Conflict(Vec<(usize, usize)>),
}

/// A reading found at a level: (level, reading index, places).
type Hit = (Level, usize, Vec<(usize, usize)>);

/// Picks the reading of `readings` to apply to a file of `lines`.
pub fn choose(lines: &[&str], readings: &[Reading], fo: FindOptions) -> Choice {
    choose_in(&Haystack::new(lines.to_vec()), readings, fo)
}

/// [`choose`] in a file already indexed (the transaction keeps one index
/// per file; building it again per edit would cost `O(N)` each).
pub fn choose_in(hay: &Haystack, readings: &[Reading], fo: FindOptions) -> Choice {
    // (level, reading, places): one place when found, several when ambiguous.
    let mut hits: Vec<Hit> = vec![];
    'reading: for (i, r) in readings.iter().enumerate() {
        let Op::Replace {
            old,
            hint,
            anchors,
            at_end,
            ..
        } = &r.op
        else {
            continue;
        };
        let at = FindOptions {
            hint: *hint,
            max_level: fo.max_level.min(r.max_level),
            ..fo
        };
        // Anchors (`@@ def f():` lines) narrow the search as the
        // transaction narrows it; a reading whose anchor is missing or
        // too frequent is not found here (the transaction reports why).
        let Ok(regions) =
            crate::apply::locate::block::block_regions(hay, anchors, *at_end, old.len(), at)
        else {
            continue 'reading;
        };
        match crate::apply::locate::block::find_in_regions(hay, old, &regions, at) {
            Ok(f) => hits.push((f.level, i, vec![(f.start, f.end)])),
            Err(Miss::Ambiguous {
                level,
                candidates,
                len,
            }) => hits.push((level, i, candidates.iter().map(|&c| (c, c + len)).collect())),
            Err(_) => {}
        }
    }
    let Some(best) = hits.iter().map(|h| h.0).min() else {
        return Choice::One(0);
    };
    let at_best: Vec<&Hit> = hits.iter().filter(|h| h.0 == best).collect();
    let mut places: Vec<(usize, usize)> = at_best.iter().flat_map(|h| h.2.clone()).collect();
    crate::order::sort(&mut places[..]);
    places.dedup();
    // One reading at that level, even ambiguous on its own: the
    // transaction then locates it (and reports an ambiguity itself).
    if at_best.len() == 1 {
        return Choice::One(at_best[0].1);
    }
    let widest = at_best
        .iter()
        .filter(|h| h.2.len() == 1)
        .max_by_key(|h| (h.2[0].1 - h.2[0].0, std::cmp::Reverse(h.1)));
    match widest {
        Some(w) if places.iter().all(|p| w.2[0].0 <= p.0 && p.1 <= w.2[0].1) => Choice::One(w.1),
        _ => Choice::Conflict(places),
    }
}

/// The model-readable message for [`Choice::Conflict`].
pub fn conflict_message(w: &Words, path: &str, places: &[(usize, usize)]) -> String {
    let at: Vec<String> = places
        .iter()
        .map(|(s, e)| format!("{}-{}", s + 1, e))
        .collect();
    format!(
        "this edit can be read in more than one way, and its readings match different places in {path} (lines {}); nothing was applied: {}",
        at.join(", "),
        w.readings
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(old: &[&str]) -> Reading {
        Reading {
            op: Op::Replace {
                old: old.iter().map(|s| s.to_string()).collect(),
                new: vec![],
                hint: None,
                anchors: vec![],
                at_end: false,
            },
            max_level: Level::Unicode,
        }
    }

    #[test]
    fn the_reading_that_locates_wins() {
        let file = ["fn a() {", "    x();", "}"];
        let r = [
            rep(&["fn a() {", "   x();"]),
            rep(&["fn a() {", "    x();"]),
        ];
        assert_eq!(choose(&file, &r, FindOptions::default()), Choice::One(1));
    }

    #[test]
    fn same_place_prefers_the_lower_level() {
        let file = ["if a:", "    b()", "c"];
        // The first reading locates only at the `indent` level, the second
        // exactly, at the same place.
        let r = [rep(&["   b()"]), rep(&["    b()"])];
        assert_eq!(choose(&file, &r, FindOptions::default()), Choice::One(1));
    }

    #[test]
    fn readings_at_different_places_conflict() {
        let file = ["a", "b", "x", "a", "c"];
        // Both exact, at different places.
        let r = [rep(&["a", "b"]), rep(&["a", "c"])];
        assert_eq!(
            choose(&file, &r, FindOptions::default()),
            Choice::Conflict(vec![(0, 2), (3, 5)])
        );
        let m = conflict_message(
            &crate::formats::search_replace::WORDS,
            "f",
            &[(0, 2), (3, 5)],
        );
        assert!(m.contains("`========`"), "{m}");
        assert!(m.contains("lines 1-2, 4-5"), "{m}");
    }

    #[test]
    fn an_ambiguous_reading_blocks_a_unique_one() {
        let file = ["a", "b", "a", "b", "c"];
        let r = [rep(&["a", "b"]), rep(&["b", "c"])];
        assert!(matches!(
            choose(&file, &r, FindOptions::default()),
            Choice::Conflict(_)
        ));
    }

    #[test]
    fn nested_places_prefer_the_most_lines_checked() {
        // `c` read as unchanged (checked) or as added (not): one region.
        let file = ["a", "b", "c", "d"];
        let r = [rep(&["a", "b"]), rep(&["a", "b", "c"])];
        assert_eq!(choose(&file, &r, FindOptions::default()), Choice::One(1));
    }

    #[test]
    fn looser_levels_do_not_count() {
        // The first reading is exact; the second only with trailing
        // whitespace ignored, elsewhere: the exact one stands.
        let file = ["a", "b", "x", "a ", "c"];
        let r = [rep(&["a", "b"]), rep(&["a", "c"])];
        assert_eq!(choose(&file, &r, FindOptions::default()), Choice::One(0));
    }

    #[test]
    fn a_capped_reading_is_not_found_beyond_its_level() {
        let file = ["if a:", "    b()", "c"];
        let mut r = rep(&["  b()"]);
        r.max_level = Level::TrailingWs;
        let other = rep(&["x"]);
        // Only found at the `indent` level, which the cap excludes.
        assert_eq!(
            choose(&file, &[other, r], FindOptions::default()),
            Choice::One(0)
        );
    }

    #[test]
    fn none_locating_keeps_the_first() {
        let file = ["a"];
        let r = [rep(&["x"]), rep(&["y"])];
        assert_eq!(choose(&file, &r, FindOptions::default()), Choice::One(0));
    }
}
