//! The matcher ladder: find a block of lines in a file at increasing tolerance,
//! and only ever return a place that is unique at the level that found it.
//!
//! Levels, each including the tolerance of the ones before it:
//!
//! | level         | what may differ                                                    |
//! |---------------|--------------------------------------------------------------------|
//! | `exact`       | nothing                                                            |
//! | `trailing_ws` | trailing whitespace                                                |
//! | `indent`      | the whole block shifted by one indentation prefix (added/removed)  |
//! | `blank_lines` | leading/trailing blank lines of the block are ignored              |
//! | `tabs`        | tabs vs spaces: a constant shift of indentation *width* (tab 4/8/2)|
//! | `unicode`     | Unicode look-alikes (quotes, dashes, odd spaces) folded to ASCII   |
//!
//! At every level the candidates are counted: one wins; two or more are
//! `ambiguous`, unless a line hint selects exactly one within a window; none
//! moves on to the next level. Similarity guesses are never returned here.
//!
//! Cost: each file line is normalised and hashed at most once per key kind
//! (exact, trimmed, folded), lazily, `O(N)` for an `N`-byte file. A lookup of
//! an `M`-line block picks the block line that is rarest in the file as the
//! anchor and verifies only the windows around its occurrences; when that
//! would cost more than `O(N)` (pathological repetition) it switches to a
//! rolling hash over line hashes, so the worst case is `O(N + M·(C + W))`
//! with `C` the candidate cap and `W` the hint window.

use crate::apply::fold::{fold, indent, indent_width, is_blank};
pub use crate::edit::Level;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::sync::Arc;

/// The normalisation a level compares lines under.
fn key(level: Level) -> Key {
    match level {
        Level::Exact => Key::Exact,
        Level::Unicode => Key::Fold,
        _ => Key::Trim,
    }
}

#[derive(Clone, Copy)]
enum Key {
    Exact,
    Trim,
    Fold,
}

fn key_of(k: Key, line: &str) -> Cow<'_, str> {
    match k {
        Key::Exact => Cow::Borrowed(line),
        Key::Trim => Cow::Borrowed(line.trim()),
        Key::Fold => match fold(line) {
            Cow::Borrowed(s) => Cow::Borrowed(s.trim()),
            Cow::Owned(s) => Cow::Owned(s.trim().to_owned()),
        },
    }
}

/// How the replacement must be re-indented to sit where the block was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shift {
    None,
    /// The file has this prefix in front of every block line's indentation.
    Add(String),
    /// The block has this prefix that the file lacks.
    Remove(String),
    /// Indentation widths differ by `delta` columns (tab stop `tab`); the file
    /// indents with tabs when `tabs`.
    Width {
        delta: isize,
        tab: usize,
        tabs: bool,
    },
}

impl Shift {
    /// Re-indents replacement lines; blank lines stay as they are.
    pub fn apply(&self, lines: &[String]) -> Vec<String> {
        lines.iter().map(|l| self.apply_line(l)).collect()
    }

    fn apply_line(&self, l: &str) -> String {
        if is_blank(l) {
            return l.to_owned();
        }
        match self {
            Shift::None => l.to_owned(),
            Shift::Add(p) => format!("{p}{l}"),
            Shift::Remove(p) => match l.strip_prefix(p.as_str()) {
                Some(rest) => rest.to_owned(),
                None => {
                    let ind = indent(l);
                    let cut = ind.len().min(p.len());
                    l[cut..].to_owned()
                }
            },
            Shift::Width { delta, tab, tabs } => {
                let ind = indent(l);
                let w = (indent_width(ind, *tab) as isize + delta).max(0) as usize;
                let new_ind = if *tabs {
                    format!("{}{}", "\t".repeat(w / tab), " ".repeat(w % tab))
                } else {
                    " ".repeat(w)
                };
                format!("{new_ind}{}", &l[ind.len()..])
            }
        }
    }
}

/// A unique match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// 0-based first file line of the match, and one past its last.
    pub start: usize,
    pub end: usize,
    pub level: Level,
    pub shift: Shift,
    /// Blank lines dropped from the head and tail of the block (level
    /// `blank_lines` and above), so the caller can drop them from the
    /// replacement too.
    pub trimmed: (usize, usize),
    /// True when several places matched and the hint chose this one.
    pub by_hint: bool,
}

/// Why no unique place was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    NotFound,
    /// Starts (0-based) of up to `CANDIDATE_CAP` candidates at `level`.
    Ambiguous {
        level: Level,
        candidates: Vec<usize>,
        len: usize,
    },
    /// The block is empty or blank: there is nothing to look for.
    Empty,
}

/// Lookup options.
#[derive(Debug, Clone, Copy)]
pub struct FindOptions {
    /// 0-based line where the edit is expected to start.
    pub hint: Option<usize>,
    /// How far (in lines) from the hint a candidate may start to be chosen.
    pub window: usize,
    /// The most tolerant level to try (`Exact` for strict modes).
    pub max_level: Level,
    /// Only places starting at or after this 0-based line count (the line
    /// after an anchor such as V4A's `@@ def f():`).
    pub min_start: usize,
    /// Only places starting before this 0-based line count (the next
    /// occurrence of that anchor); `usize::MAX` for no bound.
    pub max_start: usize,
}

impl Default for FindOptions {
    fn default() -> Self {
        FindOptions {
            hint: None,
            window: 20,
            max_level: Level::Unicode,
            min_start: 0,
            max_start: usize::MAX,
        }
    }
}

/// How many candidates are collected before a lookup stops looking.
pub const CANDIDATE_CAP: usize = 16;

const NONE: u32 = u32::MAX;

/// The hash of a line's key: 8 bytes a step, the last (partial) step one
/// unaligned load that overlaps the one before instead of a byte loop, so a
/// typical 20-byte line costs three multiplies. Only ever compared with
/// itself (file lines against block lines), never stored.
#[inline(always)]
fn line_hash(b: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let half = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes")) as u64;
    let step = |h: u64, w: u64| (h ^ w).wrapping_mul(K).rotate_left(29);
    let n = b.len();
    let mut h = 0xcbf2_9ce4_8422_2325 ^ (n as u64).wrapping_mul(K);
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            h = step(h, word(i));
            i += 8;
        }
        h = step(h, word(n - 8));
    } else if n >= 4 {
        h = step(h, half(0) | half(n - 4) << 32);
    } else if n > 0 {
        // b[0], b[n / 2] and b[n - 1] are all the bytes of a 1-3 byte line.
        h = step(
            h,
            b[0] as u64 | (b[n / 2] as u64) << 8 | (b[n - 1] as u64) << 16,
        );
    }
    // Final avalanche so that the low bits (the table's slot) mix well.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// The hash of line `l`'s key; the exact key hashes the line itself.
#[inline]
fn key_hash(k: Key, l: &str) -> u64 {
    match k {
        Key::Exact => line_hash(l.as_bytes()),
        Key::Trim => line_hash(l.trim().as_bytes()),
        Key::Fold => line_hash(key_of(k, l).as_bytes()),
    }
}

/// Per key kind: every line's hash, and for every hash its first occurrence,
/// its count and a chain to the next occurrence.
struct Index {
    hashes: Vec<u64>,
    table: Table,
    next: Vec<u32>,
}

/// An open-addressing map from a line hash to (first line + 1, count),
/// probed linearly; the key is not stored, `hashes[first]` is it. At most
/// 2/3 full, zeroed memory is empty (so it is allocated zeroed, not
/// written), and one slot is 8 bytes: about half a general hash map's
/// memory and instructions for the 100,000 inserts of a large file.
struct Table {
    slots: Vec<(u32, u32)>,
    mask: usize,
}

impl Table {
    fn new(lines: usize) -> Table {
        let size = (lines + lines / 2 + 1).next_power_of_two();
        Table {
            slots: vec![(0, 0); size],
            mask: size - 1,
        }
    }

    /// The slot holding `h`, or the empty one where it would go.
    #[inline]
    fn slot(&self, hashes: &[u64], h: u64) -> usize {
        let mut i = h as usize & self.mask;
        loop {
            let first = self.slots[i].0;
            if first == 0 || hashes[first as usize - 1] == h {
                return i;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// (first line, count) of `h`; `(NONE, 0)` when no line has it.
    fn get(&self, hashes: &[u64], h: u64) -> (u32, u32) {
        match self.slots[self.slot(hashes, h)] {
            (0, _) => (NONE, 0),
            (first, count) => (first - 1, count),
        }
    }
}

impl Index {
    fn build(lines: &[&str], k: Key) -> Index {
        // The exact key (nearly every lookup) in its own loop, with the hash
        // inlined: no branch on the key kind a line.
        let hashes: Vec<u64> = match k {
            Key::Exact => lines.iter().map(|l| line_hash(l.as_bytes())).collect(),
            _ => lines.iter().map(|l| key_hash(k, l)).collect(),
        };
        let mut table = Table::new(lines.len());
        let mut next = vec![NONE; lines.len()];
        // Backwards, so that each hash's chain ends up in file order.
        for i in (0..lines.len()).rev() {
            let h = hashes[i];
            let s = table.slot(&hashes, h);
            let (first, count) = table.slots[s];
            next[i] = first.wrapping_sub(1); // 0 (empty) becomes NONE
            table.slots[s] = (i as u32 + 1, count + 1);
        }
        Index {
            hashes,
            table,
            next,
        }
    }
    fn count(&self, h: u64) -> usize {
        self.table.get(&self.hashes, h).1 as usize
    }
    fn first(&self, h: u64) -> u32 {
        self.table.get(&self.hashes, h).0
    }
}

/// A file prepared for lookups; indexes are built on first use.
pub struct Haystack<'a> {
    /// Shared with the [`crate::apply::text::Text`] it comes from, when it
    /// does: not a copy of a large file's line list.
    lines: Arc<Vec<&'a str>>,
    idx: [OnceCell<Index>; 3],
}

impl<'a> Haystack<'a> {
    pub fn new(lines: impl Into<Arc<Vec<&'a str>>>) -> Self {
        Haystack {
            lines: lines.into(),
            idx: [OnceCell::new(), OnceCell::new(), OnceCell::new()],
        }
    }

    pub fn lines(&self) -> &[&'a str] {
        &self.lines
    }

    fn index(&self, k: Key) -> &Index {
        let slot = match k {
            Key::Exact => 0,
            Key::Trim => 1,
            Key::Fold => 2,
        };
        self.idx[slot].get_or_init(|| Index::build(&self.lines, k))
    }

    /// Finds `block` (lines without terminators) in the file.
    pub fn find<S: AsRef<str>>(&self, block: &[S], opt: FindOptions) -> Result<Found, Miss> {
        let block: Vec<&str> = block.iter().map(|s| s.as_ref()).collect();
        if block.iter().all(|l| is_blank(l)) {
            return Err(Miss::Empty);
        }
        let lead = block.iter().take_while(|l| is_blank(l)).count();
        let trail = block.iter().rev().take_while(|l| is_blank(l)).count();
        let mut ambiguous = None;
        for level in Level::ALL {
            if level > opt.max_level {
                break;
            }
            let (lo, hi) = if level >= Level::BlankLines {
                (lead, block.len() - trail)
            } else {
                (0, block.len())
            };
            if level == Level::BlankLines && lead == 0 && trail == 0 {
                continue; // identical to `indent`
            }
            let sub = &block[lo..hi];
            let found = self.candidates(level, sub, opt);
            match found.len() {
                0 => continue,
                1 => {
                    return Ok(self.found(
                        level,
                        sub,
                        found[0].0,
                        found[0].1.clone(),
                        lo,
                        block.len() - hi,
                        false,
                    ));
                }
                _ => {
                    if let Some(h) = opt.hint {
                        let near = self.near_hint(level, sub, h, opt);
                        if near.len() == 1 {
                            return Ok(self.found(
                                level,
                                sub,
                                near[0].0,
                                near[0].1.clone(),
                                lo,
                                block.len() - hi,
                                true,
                            ));
                        }
                    }
                    ambiguous = Some(Miss::Ambiguous {
                        level,
                        candidates: found.iter().map(|c| c.0).collect(),
                        len: sub.len(),
                    });
                    break;
                }
            }
        }
        Err(ambiguous.unwrap_or(Miss::NotFound))
    }

    #[allow(clippy::too_many_arguments)]
    fn found(
        &self,
        level: Level,
        sub: &[&str],
        start: usize,
        shift: Shift,
        lo: usize,
        tail: usize,
        by_hint: bool,
    ) -> Found {
        Found {
            start,
            end: start + sub.len(),
            level,
            shift,
            trimmed: (lo, tail),
            by_hint,
        }
    }

    /// Candidate starts within `window` of `hint`, verified one by one:
    /// bounded by `(2W+1)·M` whatever the file holds.
    fn near_hint(
        &self,
        level: Level,
        sub: &[&str],
        hint: usize,
        opt: FindOptions,
    ) -> Vec<(usize, Shift)> {
        let n = self.lines.len();
        if sub.len() > n {
            return vec![];
        }
        let idx = self.index(key(level));
        let bh = block_hashes(level, sub);
        let lo = hint.saturating_sub(opt.window).max(opt.min_start);
        let hi = (hint + opt.window)
            .min(n - sub.len())
            .min(opt.max_start.saturating_sub(1));
        if opt.max_start == 0 {
            return vec![];
        }
        if lo > hi {
            return vec![];
        }
        let mut out = vec![];
        for s in lo..=hi {
            if let Some(sh) = self.verify(level, idx, &bh, sub, s) {
                out.push((s, sh));
                if out.len() > 1 {
                    break;
                }
            }
        }
        out
    }

    /// Up to `CANDIDATE_CAP` verified starts at `level`.
    fn candidates(&self, level: Level, sub: &[&str], opt: FindOptions) -> Vec<(usize, Shift)> {
        let n = self.lines.len();
        let m = sub.len();
        if m == 0 || m > n {
            return vec![];
        }
        let idx = self.index(key(level));
        let bh = block_hashes(level, sub);
        // Anchor: the block line that is rarest in the file.
        let mut anchor = 0;
        let mut best = usize::MAX;
        for (i, h) in bh.iter().enumerate() {
            let c = idx.count(*h);
            if c == 0 {
                return vec![];
            }
            if c < best {
                best = c;
                anchor = i;
            }
        }
        let mut out = Vec::new();
        if best.saturating_mul(m) <= 4 * n + 1024 {
            let mut p = idx.first(bh[anchor]);
            while p != NONE {
                let pos = p as usize;
                p = idx.next[pos];
                if pos < anchor
                    || pos - anchor + m > n
                    || pos - anchor < opt.min_start
                    || pos - anchor >= opt.max_start
                {
                    continue;
                }
                let s = pos - anchor;
                if let Some(sh) = self.verify(level, idx, &bh, sub, s) {
                    out.push((s, sh));
                    if out.len() >= CANDIDATE_CAP {
                        break;
                    }
                }
            }
        } else {
            // Rolling polynomial hash over line hashes: O(N) windows.
            const B: u64 = 0x100_0000_01b3;
            let pow = (1..m).fold(1u64, |a, _| a.wrapping_mul(B));
            let target = bh
                .iter()
                .fold(0u64, |a, h| a.wrapping_mul(B).wrapping_add(*h));
            let hs = &idx.hashes;
            let mut w = hs[..m]
                .iter()
                .fold(0u64, |a, h| a.wrapping_mul(B).wrapping_add(*h));
            for s in 0..=n - m {
                if s > 0 {
                    w = w
                        .wrapping_sub(hs[s - 1].wrapping_mul(pow))
                        .wrapping_mul(B)
                        .wrapping_add(hs[s + m - 1]);
                }
                if w == target && s >= opt.min_start && s < opt.max_start {
                    if let Some(sh) = self.verify(level, idx, &bh, sub, s) {
                        out.push((s, sh));
                        if out.len() >= CANDIDATE_CAP {
                            break;
                        }
                    }
                }
            }
        }
        out
    }

    /// Checks the window at `s` line by line, then the level's indentation rule.
    fn verify(
        &self,
        level: Level,
        idx: &Index,
        bh: &[u64],
        sub: &[&str],
        s: usize,
    ) -> Option<Shift> {
        let k = key(level);
        let file = &self.lines[s..s + sub.len()];
        for (i, b) in sub.iter().enumerate() {
            if idx.hashes[s + i] != bh[i] || key_of(k, file[i]) != key_of(k, b) {
                return None;
            }
        }
        match level {
            Level::Exact => Some(Shift::None),
            Level::TrailingWs => match prefix_shift(file, sub)? {
                Shift::None => Some(Shift::None),
                _ => None,
            },
            Level::Indent | Level::BlankLines => prefix_shift(file, sub),
            Level::Tabs | Level::Unicode => width_shift(file, sub),
        }
    }
}

fn block_hashes(level: Level, sub: &[&str]) -> Vec<u64> {
    sub.iter().map(|l| key_hash(key(level), l)).collect()
}

/// The one indentation prefix that turns every non-blank block line's
/// indentation into the file's, if there is one.
fn prefix_shift(file: &[&str], block: &[&str]) -> Option<Shift> {
    let mut shift: Option<Shift> = None;
    for (f, b) in file.iter().zip(block) {
        if is_blank(f) || is_blank(b) {
            continue;
        }
        let (fi, bi) = (indent(f), indent(b));
        let this = if fi == bi {
            Shift::None
        } else if let Some(p) = fi.strip_suffix(bi) {
            Shift::Add(p.to_owned())
        } else if let Some(p) = bi.strip_suffix(fi) {
            Shift::Remove(p.to_owned())
        } else {
            return None;
        };
        match &shift {
            None => shift = Some(this),
            Some(s) if *s == this => {}
            Some(_) => return None,
        }
    }
    Some(shift.unwrap_or(Shift::None))
}

/// A constant difference of indentation width, trying tab stops 4, 8, 2.
fn width_shift(file: &[&str], block: &[&str]) -> Option<Shift> {
    // A plain prefix (often none at all: the model copied the indentation
    // and only the text differs) says more than a width; re-rendering the
    // indentation would turn the spaces of added lines into tabs.
    if let Some(s) = prefix_shift(file, block) {
        return Some(s);
    }
    let pairs: Vec<(&str, &str)> = file
        .iter()
        .zip(block)
        .filter(|(f, b)| !is_blank(f) && !is_blank(b))
        .map(|(f, b)| (indent(f), indent(b)))
        .collect();
    let tabs = pairs.iter().any(|(f, _)| f.contains('\t'));
    'tab: for tab in [4usize, 8, 2] {
        let mut delta = None;
        for (f, b) in &pairs {
            let d = indent_width(f, tab) as isize - indent_width(b, tab) as isize;
            match delta {
                None => delta = Some(d),
                Some(x) if x == d => {}
                Some(_) => continue 'tab,
            }
        }
        return Some(Shift::Width {
            delta: delta.unwrap_or(0),
            tab,
            tabs,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hay(s: &str) -> Vec<&str> {
        s.lines().collect()
    }

    fn find(file: &str, block: &str) -> Result<Found, Miss> {
        Haystack::new(hay(file)).find(&hay(block), FindOptions::default())
    }

    #[test]
    fn exact_then_trailing_ws() {
        let f = find("a\nb  \nc\n", "b\nc").unwrap();
        assert_eq!((f.start, f.end, f.level), (1, 3, Level::TrailingWs));
        let f = find("a\nb\nc\n", "b\nc").unwrap();
        assert_eq!(f.level, Level::Exact);
    }

    #[test]
    fn indentation_offset_is_recorded() {
        let file = "fn x() {\n    if a {\n        b();\n    }\n}\n";
        let f = find(file, "if a {\n    b();\n}").unwrap();
        assert_eq!(f.level, Level::Indent);
        assert_eq!(f.shift, Shift::Add("    ".into()));
        assert_eq!(
            f.shift.apply(&["c();".into()]),
            vec!["    c();".to_string()]
        );
    }

    #[test]
    fn inconsistent_indentation_is_not_an_offset() {
        let file = "    a\n  b\n";
        assert_eq!(find(file, "a\nb"), Err(Miss::NotFound));
    }

    #[test]
    fn duplicates_are_ambiguous_and_hint_selects() {
        let file = "x\nfoo\nbar\ny\nfoo\nbar\nz\n";
        match find(file, "foo\nbar") {
            Err(Miss::Ambiguous {
                candidates, level, ..
            }) => {
                assert_eq!(candidates, vec![1, 4]);
                assert_eq!(level, Level::Exact);
            }
            other => panic!("{other:?}"),
        }
        let opt = FindOptions {
            hint: Some(4),
            window: 1,
            ..Default::default()
        };
        let f = Haystack::new(hay(file)).find(&["foo", "bar"], opt).unwrap();
        assert_eq!((f.start, f.by_hint), (4, true));
        let opt = FindOptions {
            hint: Some(3),
            window: 5,
            ..Default::default()
        };
        assert!(matches!(
            Haystack::new(hay(file)).find(&["foo", "bar"], opt),
            Err(Miss::Ambiguous { .. })
        ));
    }

    #[test]
    fn blank_lines_and_tabs_and_unicode() {
        let f = find("a\nb\nc\n", "\nb\nc\n\n").unwrap();
        assert_eq!(
            (f.start, f.level, f.trimmed),
            (1, Level::BlankLines, (1, 1))
        );
        let f = find("if x:\n\ty = 1\n", "if x:\n    y = 1").unwrap();
        assert_eq!(f.level, Level::Tabs);
        assert_eq!(
            f.shift.apply(&["    z = 2".into()]),
            vec!["\tz = 2".to_string()]
        );
        let f = find("s = \"it's\"\n", "s = \u{201c}it\u{2019}s\u{201d}").unwrap();
        assert_eq!(f.level, Level::Unicode);
    }

    #[test]
    fn ambiguity_at_a_level_stops_the_ladder() {
        // Two places match once trailing whitespace is ignored: never guess.
        assert!(matches!(
            find("a \nb\na  \nb\n", "a\nb"),
            Err(Miss::Ambiguous {
                level: Level::TrailingWs,
                ..
            })
        ));
    }

    #[test]
    fn pathological_repetition_is_bounded() {
        let file = "a\n".repeat(20000);
        let block: Vec<&str> = vec!["a"; 500];
        match Haystack::new(hay(&file)).find(&block, FindOptions::default()) {
            Err(Miss::Ambiguous { candidates, .. }) => assert_eq!(candidates.len(), CANDIDATE_CAP),
            other => panic!("{other:?}"),
        }
        let mut block2 = block.clone();
        block2.push("b");
        assert_eq!(
            Haystack::new(hay(&file)).find(&block2, FindOptions::default()),
            Err(Miss::NotFound)
        );
    }

    #[test]
    fn blank_block_is_empty() {
        assert_eq!(find("a\n", "\n  \n"), Err(Miss::Empty));
    }
}
