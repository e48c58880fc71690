//! What the finder learns about the output while it scans, kept so that no
//! byte is read again for a later candidate: where each bracket closes, and
//! whether a value cut by the end is JSON as far as it goes.
//!
//! Both questions have the same answer for a bracket whatever candidate the
//! scan started from: bracket matching that reaches a `{` or `[` outside a
//! string is in the state a scan starting there begins with, and a prefix
//! check that reaches a container start is too (the error, or the end, that
//! ends the outer value lies inside every container still open there).
//! So lines of `{"command":` (each opener unclosed to the end) cost one
//! pass, not one pass per line.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A hash for byte offsets: the offset itself in the low bits, which pick
/// the table's bucket (so nearby offsets, looked up one after another, sit
/// in nearby memory: a multiplicative hash makes each lookup a cache miss),
/// and a multiplicative hash in the top 7 bits, which the table compares
/// first. Offsets that share a bucket are a table size apart, so few of
/// them fit in one output. SipHash, the default, would take a third of the
/// finder's time on a megabyte of openers.
#[derive(Default)]
pub(super) struct OffsetHasher(u64);

impl Hasher for OffsetHasher {
    fn finish(&self) -> u64 {
        const TOP: u64 = 0xfe00_0000_0000_0000;
        (self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) & TOP) | (self.0 & !TOP)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(b);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = n as u64;
    }
}

type Offsets<V> = HashMap<usize, V, BuildHasherDefault<OffsetHasher>>;

/// Memoised bracket matching and prefix checks over one output.
#[derive(Default)]
pub(super) struct Memo {
    /// Opener offset -> end (exclusive) of its value and its nesting depth
    /// (1 for a flat object), `None` when the output ends inside it.
    ends: Offsets<Option<(usize, u32)>>,
    /// Opener offset -> whether the text from it to the end is a valid
    /// beginning of a JSON value (models' slips repaired).
    prefix: Offsets<bool>,
    /// Openers learnt by the last call, not yet in the maps: a scan that
    /// stops at its first cut value (lines of `{"op":`, all unclosed) never
    /// needs them, so they are stored only when another question comes.
    cut: Vec<usize>,
    checked: (Vec<usize>, bool),
}

impl Memo {
    /// The end of the object or array starting at `i` (see
    /// [`super::extent`], which this answers for many starts at once).
    pub(super) fn extent(&mut self, b: &[u8], i: usize) -> Option<usize> {
        for o in self.cut.drain(..) {
            self.ends.insert(o, None);
        }
        if let Some(&known) = self.ends.get(&i) {
            return known.map(|k| k.0);
        }
        // Open brackets, and in step with them the deepest value closed
        // inside each so far: two vectors, so that the offsets become
        // `cut` as they are (hostile outputs open a bracket a line).
        let mut open: Vec<usize> = vec![];
        let mut inner: Vec<u32> = vec![];
        let (mut in_str, mut esc) = (false, false);
        let mut k = i;
        while k < b.len() {
            let c = b[k];
            if in_str {
                match (esc, c) {
                    (true, _) => esc = false,
                    (false, b'\\') => esc = true,
                    (false, b'"') => in_str = false,
                    _ => {}
                }
                k += 1;
                continue;
            }
            match c {
                b'"' => in_str = true,
                b'{' | b'[' => match self.ends.get(&k) {
                    // Known already: jump over it, or stop when it is cut.
                    Some(&Some((end, depth))) if k != i => {
                        if let Some(top) = inner.last_mut() {
                            *top = (*top).max(depth);
                        }
                        k = end;
                        continue;
                    }
                    Some(&None) => break,
                    _ => {
                        open.push(k);
                        inner.push(0);
                    }
                },
                b'}' | b']' => {
                    if let (Some(o), Some(deepest)) = (open.pop(), inner.pop()) {
                        self.ends.insert(o, Some((k + 1, deepest + 1)));
                        if let Some(top) = inner.last_mut() {
                            *top = (*top).max(deepest + 1);
                        }
                    }
                    if open.is_empty() {
                        return Some(k + 1);
                    }
                }
                _ => {}
            }
            k += 1;
        }
        self.cut = open;
        None
    }

    /// The nesting depth of the closed value at `i` (0 when not known).
    pub(super) fn depth(&self, i: usize) -> u32 {
        match self.ends.get(&i) {
            Some(Some((_, d))) => *d,
            _ => 0,
        }
    }

    /// Whether the text from `i` (an opener) to the end is valid JSON as far
    /// as it goes.
    pub(super) fn valid_prefix(&mut self, b: &[u8], i: usize) -> bool {
        let (open, verdict) = std::mem::take(&mut self.checked);
        for o in open {
            self.prefix.insert(o, verdict);
        }
        if let Some(&known) = self.prefix.get(&i) {
            return known;
        }
        let (verdict, open) = super::prefix::check(b, i);
        self.prefix.insert(i, verdict);
        self.checked = (open, verdict);
        verdict
    }
}
