//! Line diffs for rendering canonical edits: the changed regions between two
//! files, and those regions grown to the smallest context that makes each
//! one unique in the old file (what a careful model would write).
//!
//! Cost: linear in the lines whatever the edit ([`changes_linear`]: Myers
//! via `similar` only inside short gaps between unique-line anchors);
//! growing context costs one exact matcher lookup per step, expected
//! `O(M)` each after an `O(N)` index.

use crate::apply::matcher::{FindOptions, Haystack, Level};
use similar::algorithms::{myers, Capture};
use similar::DiffTag;
use std::ops::Range;

/// A region that differs: `old` lines of the old file became `new` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub old: Range<usize>,
    pub new: Range<usize>,
}

/// The maximal changed regions, in order, by Myers' diff: `O((N+M)·D)`,
/// so only for short gaps ([`changes_linear`] is the one to call).
fn myers_changes(old: &[&str], new: &[&str]) -> Vec<Change> {
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

/// Gaps between anchors up to this many lines (both sides) get a Myers
/// diff; longer ones without anchors are one change. Myers costs
/// `O((N+M)·D)`, so this bounds [`changes_linear`] to `O(GAP·(N+M))`.
const GAP: usize = 256;

/// The maximal changed regions, in order, in time linear in the lines
/// whatever the edit (Myers is quadratic when most lines changed: minutes
/// for a 15k-line slice with every line edited). The common prefix and
/// suffix are equal; between them, lines that occur once on each side and
/// in the same order (patience diff's anchors, a longest increasing
/// subsequence) are equal; each gap between anchors gets Myers when short,
/// else is one change. Equal to Myers' diff when the middle is short.
pub fn changes_linear(old: &[&str], new: &[&str]) -> Vec<Change> {
    let pre = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suf = old[pre..]
        .iter()
        .rev()
        .zip(new[pre..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (o, n) = (pre..old.len() - suf, pre..new.len() - suf);
    let mut out: Vec<Change> = Vec::new();
    let (mut i, mut j) = (o.start, n.start);
    for (a, b) in anchors(&old[o.clone()], &new[n.clone()])
        .into_iter()
        .map(|(a, b)| (a + o.start, b + n.start))
        .chain([(o.end, n.end)])
    {
        gap(old, new, i..a, j..b, &mut out);
        (i, j) = (a + 1, b + 1);
    }
    out
}

/// The changes of one gap between anchors, appended to `out` (merged with
/// the last one when they touch).
fn gap(old: &[&str], new: &[&str], o: Range<usize>, n: Range<usize>, out: &mut Vec<Change>) {
    if o.is_empty() && n.is_empty() {
        return;
    }
    let found = if o.len() + n.len() <= GAP {
        myers_changes(&old[o.clone()], &new[n.clone()])
    } else {
        vec![Change {
            old: 0..o.len(),
            new: 0..n.len(),
        }]
    };
    for c in found {
        let c = Change {
            old: c.old.start + o.start..c.old.end + o.start,
            new: c.new.start + n.start..c.new.end + n.start,
        };
        match out.last_mut() {
            Some(last) if last.old.end == c.old.start && last.new.end == c.new.start => {
                last.old.end = c.old.end;
                last.new.end = c.new.end;
            }
            _ => out.push(c),
        }
    }
}

/// Pairs `(i, j)` with `old[i] == new[j]` for lines unique on both sides,
/// the longest chain increasing on both (patience sorting), in
/// `O(N log N)` compares over sequential memory: the lines' 64-bit hashes
/// are sorted rather than put in a hash table, whose random accesses made
/// the diff of 480k lines take 15 to 30 times its 60k-line time once the
/// table outgrew the caches. A collision can only hide an anchor: every
/// pair is compared.
fn anchors(old: &[&str], new: &[&str]) -> Vec<(usize, usize)> {
    // (hash, index); new lines carry the top bit.
    const NEW: u64 = 1 << 63;
    let mut keyed: Vec<(u64, u64)> = Vec::with_capacity(old.len() + new.len());
    keyed.extend(old.iter().enumerate().map(|(i, l)| (fx(l), i as u64)));
    keyed.extend(new.iter().enumerate().map(|(j, l)| (fx(l), j as u64 | NEW)));
    crate::order::sort(&mut keyed[..]);
    // partner[i]: the new line old line i is paired with; read in old
    // order, the pairs need no second sort.
    let mut partner: Vec<usize> = vec![usize::MAX; old.len()];
    for group in keyed.chunk_by(|a, b| a.0 == b.0) {
        // Sorted by index within a hash: the old line first, then the new.
        if let [(_, i), (_, j)] = group {
            if i & NEW == 0 && j & NEW != 0 {
                let (i, j) = (*i as usize, (j & !NEW) as usize);
                if old[i] == new[j] {
                    partner[i] = j;
                }
            }
        }
    }
    let pairs: Vec<(usize, usize)> = partner
        .into_iter()
        .enumerate()
        .filter(|&(_, j)| j != usize::MAX)
        .collect();
    increasing(&pairs)
}

/// FxHash's step (rustc's hasher: a multiply and a rotate per 8 bytes) over
/// a line; SipHash's resistance to chosen collisions buys nothing here,
/// where a collision only costs an anchor.
fn fx(line: &str) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h = line.len() as u64;
    let mut chunks = line.as_bytes().chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    for &b in chunks.remainder() {
        h = (h.rotate_left(5) ^ b as u64).wrapping_mul(K);
    }
    h
}

/// The longest subsequence of `pairs` (sorted by `.0`) increasing in `.1`.
fn increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[k]: index in `pairs` of the smallest tail of a chain of k+1.
    let mut tails: Vec<usize> = Vec::new();
    let mut back: Vec<Option<usize>> = vec![None; pairs.len()];
    for (k, p) in pairs.iter().enumerate() {
        let at = tails.partition_point(|&t| pairs[t].1 < p.1);
        back[k] = at.checked_sub(1).map(|a| tails[a]);
        if at == tails.len() {
            tails.push(k);
        } else {
            tails[at] = k;
        }
    }
    let mut chain = Vec::with_capacity(tails.len());
    let mut cur = tails.last().copied();
    while let Some(k) = cur {
        chain.push(pairs[k]);
        cur = back[k];
    }
    chain.reverse();
    chain
}

/// The pairs `(i, j)` of lines the diff keeps unchanged (`old[i] ==
/// new[j]`), in order: the lines between the changed regions. An edit's
/// blocks are short, and Myers alone diffs them (what a first reply runs
/// stays small in the module's first part); a long one gets
/// [`changes_linear`].
pub fn equal_pairs<T: AsRef<str>>(old: &[T], new: &[T]) -> Vec<(usize, usize)> {
    let old: Vec<&str> = old.iter().map(AsRef::as_ref).collect();
    let new: Vec<&str> = new.iter().map(AsRef::as_ref).collect();
    let changes = match old.len() + new.len() <= GAP {
        true => myers_changes(&old, &new),
        false => changes_linear(&old, &new),
    };
    let mut out = vec![];
    let (mut i, mut j) = (0, 0);
    for c in changes.into_iter().chain([Change {
        old: old.len()..old.len(),
        new: new.len()..new.len(),
    }]) {
        out.extend((i..c.old.start).zip(j..c.new.start));
        (i, j) = (c.old.end, c.new.end);
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
    let cs = changes_linear(old, new);
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

    /// `old` with `changes` applied, taking new lines from `new`; also
    /// checks that unchanged lines are equal.
    fn replay<'a>(old: &[&'a str], new: &[&'a str], cs: &[Change]) -> Vec<&'a str> {
        let (mut out, mut i) = (vec![], 0);
        for c in cs {
            for k in i..c.old.start {
                assert_eq!(old[k], new[k + out.len() - i]);
                out.push(old[k]);
            }
            out.extend_from_slice(&new[c.new.clone()]);
            i = c.old.end;
        }
        out.extend_from_slice(&old[i..]);
        out
    }

    #[test]
    fn linear_changes_rebuild_the_new_side() {
        let old: Vec<String> = (0..3000).map(|i| format!("line {}", i % 700)).collect();
        let mut new = old.clone();
        new[5] = "five".into();
        new.insert(1500, "inserted".into());
        new.remove(2900);
        for k in (0..3000).step_by(7) {
            new[k] = format!("changed {k}");
        }
        let (o, n): (Vec<&str>, Vec<&str>) = (
            old.iter().map(|s| s.as_str()).collect(),
            new.iter().map(|s| s.as_str()).collect(),
        );
        let cs = changes_linear(&o, &n);
        assert_eq!(replay(&o, &n, &cs), n);
        let small = (["a", "b", "c", "d"], ["a", "x", "c", "d", "e"]);
        assert_eq!(
            changes_linear(&small.0, &small.1),
            myers_changes(&small.0, &small.1)
        );
        // Every line different: one change, whatever the size.
        let other: Vec<String> = old.iter().map(|l| format!("{l}!")).collect();
        let other: Vec<&str> = other.iter().map(|s| s.as_str()).collect();
        assert_eq!(changes_linear(&o, &other).len(), 1);
        assert_eq!(
            increasing(&[(0, 3), (1, 1), (2, 2), (3, 0)]),
            [(1, 1), (2, 2)]
        );
    }

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
