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

/// A hash for byte offsets: a multiplication, with its high bits folded
/// into the low ones (the table's bucket), so that offsets a power of two
/// apart do not share buckets. SipHash, the default, was a third of the
/// finder's time on a megabyte of openers.
#[derive(Default)]
pub(super) struct OffsetHasher(u64);

impl Hasher for OffsetHasher {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type Offsets<V> = HashMap<usize, V, BuildHasherDefault<OffsetHasher>>;

/// Memoised bracket matching and prefix checks over one output.
#[derive(Default)]
pub(super) struct Memo {
    /// Opener offset -> end (exclusive) of its value, `None` when the
    /// output ends inside it.
    ends: Offsets<Option<usize>>,
    /// Opener offset -> whether the text from it to the end is a valid
    /// beginning of a JSON value (models' slips repaired).
    prefix: Offsets<bool>,
}

impl Memo {
    /// The end of the object or array starting at `i` (see
    /// [`super::extent`], which this answers for many starts at once).
    pub(super) fn extent(&mut self, b: &[u8], i: usize) -> Option<usize> {
        if let Some(&known) = self.ends.get(&i) {
            return known;
        }
        let mut open: Vec<usize> = vec![];
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
                    Some(&Some(end)) if k != i => {
                        k = end;
                        continue;
                    }
                    Some(&None) => break,
                    _ => open.push(k),
                },
                b'}' | b']' => {
                    if let Some(o) = open.pop() {
                        self.ends.insert(o, Some(k + 1));
                    }
                    if open.is_empty() {
                        return Some(k + 1);
                    }
                }
                _ => {}
            }
            k += 1;
        }
        for o in open {
            self.ends.insert(o, None);
        }
        None
    }

    /// Whether the text from `i` (an opener) to the end is valid JSON as far
    /// as it goes.
    pub(super) fn valid_prefix(&mut self, b: &[u8], i: usize) -> bool {
        if let Some(&known) = self.prefix.get(&i) {
            return known;
        }
        let (verdict, open) = super::prefix::check(b, i);
        for o in open {
            self.prefix.insert(o, verdict);
        }
        self.prefix.insert(i, verdict);
        verdict
    }
}
