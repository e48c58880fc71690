//! Line diffs for rendering canonical edits: the changed regions between two
//! files, and those regions grown to the smallest context that makes each
//! one unique in the old file (what a careful model would write).
//!
//! Cost: Myers' diff via `similar`, `O((N+M)·D)`; growing context costs one
//! exact matcher lookup per step, expected `O(M)` each after an `O(N)` index.

use crate::matcher::{FindOptions, Haystack, Level};
use similar::algorithms::{myers, Capture};
use similar::DiffTag;
use std::ops::Range;

/// A region that differs: `old` lines of the old file became `new` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub old: Range<usize>,
    pub new: Range<usize>,
}

/// The maximal changed regions, in order.
pub fn changes(old: &[&str], new: &[&str]) -> Vec<Change> {
    // Plain Myers with a capturing hook. similar's `capture_diff_slices`
    // adds a compaction pass that, in 2.7, can emit ops with inconsistent
    // indexes (found by the property test), so it is not used.
    let mut cap = Capture::new();
    if myers::diff(&mut cap, old, 0..old.len(), new, 0..new.len()).is_err() {
        return vec![Change {
            old: 0..old.len(),
            new: 0..new.len(),
        }];
    }
    let ops = cap.into_ops();
    let mut out: Vec<Change> = Vec::new();
    for op in ops {
        let (tag, o, n) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.old.end == o.start && last.new.end == n.start => {
                last.old.end = o.end;
                last.new.end = n.end;
            }
            _ => out.push(Change { old: o, new: n }),
        }
    }
    out
}

/// The pairs `(i, j)` of lines that Myers' diff keeps unchanged
/// (`old[i] == new[j]`), in order.
pub fn equal_pairs<T: AsRef<str>>(old: &[T], new: &[T]) -> Vec<(usize, usize)> {
    let old: Vec<&str> = old.iter().map(AsRef::as_ref).collect();
    let new: Vec<&str> = new.iter().map(AsRef::as_ref).collect();
    let mut cap = Capture::new();
    if myers::diff(&mut cap, &old, 0..old.len(), &new, 0..new.len()).is_err() {
        return vec![];
    }
    let mut out = vec![];
    for op in cap.into_ops() {
        let (tag, o, n) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            out.extend(o.zip(n));
        }
    }
    out
}

/// Changed regions grown by equal context lines until each old block is
/// non-blank and unique in `old`; regions whose context would overlap are
/// merged. `min_context` lines are always added where available.
pub fn unique_blocks(old: &[&str], new: &[&str], min_context: usize) -> Vec<Change> {
    let hay = Haystack::new(old.to_vec());
    let exact = FindOptions {
        max_level: Level::Exact,
        ..Default::default()
    };
    let cs = changes(old, new);
    let mut out: Vec<Change> = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let mut c = cs[i].clone();
        i += 1;
        let mut k = min_context;
        let grown = loop {
            // Context must be equal lines. Above, that is the gap down to the
            // previous block; when more is needed, that block (already
            // unique) joins this one, which makes the union unique too.
            let gap_up = c.old.start - out.last().map_or(0, |p| p.old.end);
            if k > gap_up {
                if let Some(p) = out.pop() {
                    c.old.start = p.old.start;
                    c.new.start = p.new.start;
                    continue;
                }
            }
            // Below, likewise: the equal lines down to the next change (or
            // the end); when more is needed, that change joins this block.
            let gap_down = cs.get(i).map_or(old.len(), |n| n.old.start) - c.old.end;
            if k > gap_down && i < cs.len() {
                c.old.end = cs[i].old.end;
                c.new.end = cs[i].new.end;
                i += 1;
                continue;
            }
            let up = k.min(gap_up);
            let down = k.min(gap_down);
            let g = Change {
                old: c.old.start - up..c.old.end + down,
                new: c.new.start - up..c.new.end + down,
            };
            let whole = g.old.start == 0 && g.old.end == old.len();
            if whole || hay.find(&old[g.old.clone()], exact).is_ok() {
                break g;
            }
            // Growth is bounded: once up and down stop growing, the next
            // step either joins a neighbour or covers the whole file.
            k += 1;
        };
        // Blocks that touch are written as one: formats that quote text
        // (str_replace) would otherwise see two edits on one line break.
        match out.last_mut() {
            Some(prev) if prev.old.end >= grown.old.start => {
                prev.old.end = grown.old.end;
                prev.new.end = grown.new.end;
            }
            _ => out.push(grown),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_until_unique() {
        let old = ["a", "x", "b", "x", "c"];
        let new = ["a", "x", "b", "y", "c"];
        let b = unique_blocks(&old, &new, 0);
        assert_eq!(
            b,
            vec![Change {
                old: 2..5,
                new: 2..5
            }]
        );
    }

    #[test]
    fn merges_neighbours() {
        let old = ["a", "b", "c", "d"];
        let new = ["A", "b", "C", "d"];
        let b = unique_blocks(&old, &new, 1);
        assert_eq!(
            b,
            vec![Change {
                old: 0..4,
                new: 0..4
            }]
        );
    }

    #[test]
    fn insertion_gets_context() {
        let old = ["a", "b"];
        let new = ["a", "n", "b"];
        let b = unique_blocks(&old, &new, 0);
        assert_eq!(b[0].old, 0..2);
        assert_eq!(b[0].new, 0..3);
    }
}
