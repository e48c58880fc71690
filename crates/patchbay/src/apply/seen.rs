//! What a model was shown of each file, for the `lines` format: the numbered
//! views (`crc_view`, `seen_view`), the snapshot a caller keeps between the
//! read and the edit ([`SeenLines`]), and the check that holds plain line
//! numbers to it ([`relocate`]).
//!
//! Two modes (docs/formats.md, `lines`):
//! - `file-crc`: the view carries the CRC-32 of the whole file in its header
//!   (`# file: src/app.py crc32=1a2b3c4d lines=120`); an edit that repeats it
//!   is refused as soon as anything in the file changed.
//! - `seen-lines`: the caller records the hash of every line it showed.
//!   Editing a line never shown is `not_shown` ("read lines X-Y first"); a
//!   changed line is `stale_tag`; when the file changed elsewhere, the edited
//!   lines are found again by the hashes of the shown block around them
//!   (the edited lines and up to [`CONTEXT`] shown lines on each side, more
//!   while that is not unique), and the shift is reported.
//!
//! A line hash is the CRC-32 of the line without its terminator and without
//! trailing whitespace, the same text a hashline tag covers.
//!
//! Cost: a view is linear in the lines shown; [`relocate`] hashes the file
//! and indexes the hashes once per file ([`Relocator`], `O(N)`) when it
//! changed since it was shown, then checks the places where the shown
//! block's first line occurs, `O(w)` each for a block of `w` lines.

use crate::apply::text::file_crc;
use crate::apply::text::Text;
use crate::edit::{Check, Code, SeenFile};
use serde::{Deserialize, Serialize};
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};

/// Shown lines on each side of the edited ones that must still be in place
/// (or moved with them) for a changed file to be edited by number.
pub const CONTEXT: usize = 2;

/// The hash of one line as recorded in a [`SeenLines`] snapshot.
pub fn line_hash(line: &str) -> u32 {
    crate::crc::hash(line.trim_end().as_bytes())
}

/// The snapshot a caller keeps between showing files and applying edits:
/// path -> what was shown. Serialises as a plain JSON object, e.g.
/// `{"src/app.py": {"crc32": "1a2b3c4d", "lines": [[10, 305419896]]}}`, so
/// the CLI and JavaScript can keep it as JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(transparent)]
pub struct SeenLines(pub BTreeMap<String, SeenFile>);

impl SeenLines {
    /// Records the lines of `ranges` (1-based, inclusive, clamped to the
    /// file) of `text` as shown. A later read of the same line replaces the
    /// earlier record; the file CRC is kept only while every read saw the
    /// same file.
    pub fn record(&mut self, path: &str, text: &str, ranges: &[(usize, usize)]) {
        let t = Text::new(text);
        let crc = file_crc(text);
        let e = self.0.entry(path.to_owned()).or_default();
        e.crc = match (e.crc, e.lines.is_empty()) {
            (_, true) => Some(crc),
            (Some(c), false) if c == crc => Some(c),
            _ => None,
        };
        let read = merged(ranges, t.len())
            .into_iter()
            .flat_map(|(a, b)| a..=b)
            .map(|n| (n, line_hash(t.line(n - 1))));
        e.lines = Hashes::overlay(&e.lines, read).0;
    }

    /// Records that the whole file was shown with its CRC (`file-crc` mode).
    pub fn record_crc(&mut self, path: &str, text: &str) {
        self.0.insert(
            path.to_owned(),
            SeenFile {
                crc: Some(file_crc(text)),
                lines: vec![],
            },
        );
    }

    /// Adds another snapshot's records (its records win).
    pub fn merge(&mut self, other: SeenLines) {
        for (p, f) in other.0 {
            match self.0.get_mut(&p) {
                Some(e) if !f.lines.is_empty() && !e.lines.is_empty() => {
                    if e.crc != f.crc {
                        e.crc = None;
                    }
                    e.lines = Hashes::overlay(&e.lines, f.lines).0;
                }
                _ => {
                    self.0.insert(p, f);
                }
            }
        }
    }

    /// The check plain line numbers of `path` get: its shown lines, or the
    /// file CRC when only that was recorded (the whole file was shown).
    pub fn check_for(&self, path: &str) -> Check {
        let f = self.file(path);
        match (f.lines.is_empty(), f.crc) {
            (true, Some(c)) => Check::FileCrc(c),
            _ => Check::Seen(f),
        }
    }

    /// The record of a path (paths compare normalised); an unknown path was
    /// never shown, which is an empty record.
    pub fn file(&self, path: &str) -> SeenFile {
        let want = crate::apply::paths::normalize(path).unwrap_or_else(|_| path.to_owned());
        self.0
            .iter()
            .find(|(p, _)| {
                p.as_str() == path || crate::apply::paths::normalize(p).is_ok_and(|n| n == want)
            })
            .map(|(_, f)| f.clone())
            .unwrap_or_default()
    }
}

/// Sorted, merged ranges clamped to `1..=n`; empty ones dropped.
fn merged(ranges: &[(usize, usize)], n: usize) -> Vec<(usize, usize)> {
    let mut v: Vec<(usize, usize)> = ranges
        .iter()
        .map(|&(a, b)| (a.max(1), b.min(n)))
        .filter(|&(a, b)| a <= b)
        .collect();
    crate::order::sort(&mut v[..]);
    let mut out: Vec<(usize, usize)> = vec![];
    for (a, b) in v {
        match out.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

fn numbered(out: &mut String, t: &Text, a: usize, b: usize) {
    for n in a..=b {
        out.push_str(&n.to_string());
        out.push('\t');
        out.push_str(t.line(n - 1));
        out.push('\n');
    }
}

/// The `file-crc` view: a header with the whole file's CRC-32 and line
/// count, then every line as `N<TAB>content`. An empty `path` is left out
/// of the header.
pub fn crc_view(path: &str, text: &str) -> String {
    let t = Text::new(text);
    let mut out = String::with_capacity(text.len() + t.len() * 6 + 64);
    let name = if path.is_empty() {
        String::new()
    } else {
        format!(" {path}")
    };
    out.push_str(&format!(
        "# file:{name} crc32={:08x} lines={}\n",
        file_crc(text),
        t.len()
    ));
    numbered(&mut out, &t, 1, t.len());
    out
}

/// The `seen-lines` view of `ranges` (1-based, inclusive; clamped, merged):
/// a header per range (`# file: src/app.py lines 10-50 of 200`), then the
/// lines as `N<TAB>content`; and the snapshot recording exactly those lines.
pub fn seen_view(path: &str, text: &str, ranges: &[(usize, usize)]) -> (String, SeenLines) {
    let t = Text::new(text);
    let mut out = String::new();
    let shown = merged(ranges, t.len());
    for &(a, b) in &shown {
        out.push_str(&format!("# file: {path} lines {a}-{b} of {}\n", t.len()));
        numbered(&mut out, &t, a, b);
    }
    if shown.is_empty() {
        out.push_str(&format!(
            "# file: {path} has {} lines; none in the requested range\n",
            t.len()
        ));
    }
    let mut seen = SeenLines::default();
    seen.record(path, text, &shown);
    (out, seen)
}

type Failure = (Code, String);

/// `a-b`, or `a` when they are equal.
fn span(a: usize, b: usize) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a}-{b}")
    }
}

fn noun(a: usize, b: usize) -> &'static str {
    if a == b {
        "line"
    } else {
        "lines"
    }
}

/// Runs of consecutive line numbers, as `1-40, 60-80`.
fn runs(lines: &[usize]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = vec![];
    for &n in lines {
        match out.last_mut() {
            Some(last) if n == last.1 + 1 => last.1 = n,
            _ => out.push((n, n)),
        }
    }
    out
}

/// What [`relocate`] reads of one file and its snapshot, built once per
/// file and shared by all its edits (rebuilt per edit, 16,000 edits of a
/// changed file would take 25 s): the shown lines by number and their runs, the
/// current line hashes and where each hash occurs.
#[derive(Default)]
pub struct Relocator {
    shown: OnceCell<Shown>,
    now: OnceCell<Now>,
}

/// Line numbers and their hashes, sorted by number, each number once: what
/// a map from number to hash holds, as a sorted list (no B-tree of its own
/// in the WebAssembly module).
struct Hashes(Vec<(usize, u32)>);

impl Hashes {
    /// `old` with `new` laid over it: a number in both takes `new`'s hash
    /// (the last of several), as inserting into a map does.
    fn overlay(old: &[(usize, u32)], new: impl IntoIterator<Item = (usize, u32)>) -> Hashes {
        let mut all: Vec<(usize, u32)> = old.iter().copied().chain(new).collect();
        // Stable: of equal numbers the later entry stays later, and wins.
        crate::order::sort_by_key(&mut all, |&(n, _)| n);
        let mut out: Vec<(usize, u32)> = Vec::with_capacity(all.len());
        for (n, h) in all {
            match out.last_mut() {
                Some(last) if last.0 == n => last.1 = h,
                _ => out.push((n, h)),
            }
        }
        Hashes(out)
    }

    fn get(&self, n: &usize) -> Option<&u32> {
        let i = self.0.binary_search_by_key(n, |&(k, _)| k).ok()?;
        Some(&self.0[i].1)
    }

    fn contains_key(&self, n: &usize) -> bool {
        self.get(n).is_some()
    }
}

/// The shown lines (number -> hash) and their runs of consecutive numbers.
type Shown = (Hashes, Vec<(usize, usize)>);
/// The current line hashes and the lines (0-based) where each occurs.
type Now = (Vec<u32>, HashMap<u32, Vec<usize>>);

impl Relocator {
    fn shown(&self, seen: &SeenFile) -> &Shown {
        self.shown.get_or_init(|| {
            let shown = Hashes::overlay(&[], seen.lines.iter().copied());
            let keys: Vec<usize> = shown.0.iter().map(|&(n, _)| n).collect();
            let runs = runs(&keys);
            (shown, runs)
        })
    }

    fn now(&self, text: &Text) -> &Now {
        self.now.get_or_init(|| {
            let now: Vec<u32> = (0..text.len()).map(|i| line_hash(text.line(i))).collect();
            let mut at: HashMap<u32, Vec<usize>> = HashMap::new();
            for (i, h) in now.iter().enumerate() {
                at.entry(*h).or_default().push(i);
            }
            (now, at)
        })
    }
}

/// The run of consecutive shown lines holding line `a` (which was shown).
fn run_of(runs: &[(usize, usize)], a: usize) -> (usize, usize) {
    let k = runs.partition_point(|r| r.1 < a);
    runs.get(k).copied().unwrap_or((a, a))
}

/// Checks a plain line edit of original lines `start..end` (0-based, end
/// exclusive, `start == end` inserts after line `start`) against what was
/// shown, and returns the range to edit in the current text (moved when the
/// shown block moved) with a note for the receipt when it moved. `cache`
/// holds what the file's other edits read too.
pub fn relocate(
    text: &Text,
    path: &str,
    (start, end): (usize, usize),
    seen: &SeenFile,
    cache: &Relocator,
) -> Result<(usize, usize, Option<String>), Failure> {
    // An insertion at the top edits no line the model must have seen.
    if start == end && start == 0 {
        return Ok((0, 0, None));
    }
    let (shown, shown_runs) = cache.shown(seen);
    // The lines the edit stands on: the replaced ones, or the line an
    // insertion follows.
    let (a, b) = if start < end {
        (start + 1, end)
    } else {
        (start, start)
    };
    let missing: Vec<usize> = (a..=b).filter(|n| !shown.contains_key(n)).collect();
    if let (Some(&lo), Some(&hi)) = (missing.first(), missing.last()) {
        return Err(not_shown(path, shown_runs, lo, hi));
    }
    // Unchanged since it was shown: the numbers hold as they are.
    if seen.crc == Some(text.crc()) {
        return Ok((start, end, None));
    }
    // The shown run around the edit, and the block to look for: the edited
    // lines and up to CONTEXT shown lines on each side.
    let (run_lo, run_hi) = run_of(shown_runs, a);
    let (now, at) = cache.now(text);
    let matches_at = |lo: usize, hi: usize, shift: isize| {
        (lo..=hi).all(|n| {
            let at = n as isize - 1 + shift;
            at >= 0
                && shown
                    .get(&n)
                    .is_some_and(|h| now.get(at as usize) == Some(h))
        })
    };
    let mut k = CONTEXT;
    let (mut lo, mut hi) = (a.saturating_sub(k).max(run_lo), (b + k).min(run_hi));
    let len = hi - lo + 1;
    // Only where the block's first line occurs (in order, as a scan finds
    // them), not at every line of the file.
    let last_start = now.len().saturating_sub(len - 1);
    let mut cands: Vec<isize> = shown
        .get(&lo)
        .and_then(|h| at.get(h))
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .take_while(|&&p| p < last_start)
        .map(|&p| p as isize - (lo as isize - 1))
        .filter(|&s| matches_at(lo, hi, s))
        .collect();
    // Several places: grow the block within the shown run until one is left.
    while cands.len() > 1 && (lo > run_lo || hi < run_hi) {
        k += 1;
        (lo, hi) = (a.saturating_sub(k).max(run_lo), (b + k).min(run_hi));
        cands.retain(|&s| matches_at(lo, hi, s));
    }
    match cands.as_slice() {
        [] => Err(lost(
            text,
            path,
            (a, b),
            (lo, hi),
            (run_lo, run_hi),
            &matches_at,
        )),
        [s] => Ok(moved(path, (start, end), (a, b), *s)),
        many => Err(found_several(path, (a, b), (lo, hi), many)),
    }
}

/// The edit of `start..end` (standing on shown lines `a..=b`) moved by
/// `s` lines, with a note that says so when it moved.
fn moved(
    path: &str,
    (start, end): (usize, usize),
    (a, b): (usize, usize),
    s: isize,
) -> (usize, usize, Option<String>) {
    let ns = (start as isize + s) as usize;
    let ne = (end as isize + s) as usize;
    let note = (s != 0).then(|| {
        let (dir, d) = if s > 0 { ("down", s) } else { ("up", -s) };
        format!(
            "{path} changed since you read it; the lines you were shown as {} are now {} ({d} line{} {dir}); the edit was applied there",
            span(a, b),
            span((a as isize + s) as usize, (b as isize + s) as usize),
            if d == 1 { "" } else { "s" }
        )
    });
    (ns, ne, note)
}

/// The refusal of an edit whose shown block (lines `lo..=hi` around the
/// edited `a..=b`) now occurs at several shifts.
fn found_several(
    path: &str,
    (a, b): (usize, usize),
    (lo, hi): (usize, usize),
    many: &[isize],
) -> Failure {
    let at: Vec<String> = many
        .iter()
        .map(|&s| span((a as isize + s) as usize, (b as isize + s) as usize))
        .collect();
    (
        Code::Ambiguous,
        format!(
            "{path} changed since you read it, and the lines you were shown as {} (with the shown lines {} around them) now occur {} times, at lines {}; read the file again and redo the edit",
            span(a, b),
            span(lo, hi),
            many.len(),
            at.join(", ")
        ),
    )
}

/// The refusal of an edit of lines `lo..=hi` that the model was never shown.
fn not_shown(path: &str, shown_runs: &[(usize, usize)], lo: usize, hi: usize) -> Failure {
    let you_saw = if shown_runs.is_empty() {
        format!("you were shown no lines of {path}")
    } else {
        let r: Vec<String> = shown_runs.iter().map(|&(x, y)| span(x, y)).collect();
        format!("you were shown lines {} of {path}", r.join(", "))
    };
    (
        Code::NotShown,
        format!(
            "{} {} of {path} {} never shown to you ({you_saw}); read lines {} first, then edit them",
            noun(lo, hi),
            span(lo, hi),
            if lo == hi { "was" } else { "were" },
            span(lo.saturating_sub(CONTEXT).max(1), hi + CONTEXT)
        ),
    )
}

/// The refusal of an edit whose shown block (lines `lo..=hi` around the
/// edited `a..=b`, in the shown run `run`) is found nowhere in the file now.
fn lost(
    text: &Text,
    path: &str,
    (a, b): (usize, usize),
    (lo, hi): (usize, usize),
    (run_lo, run_hi): (usize, usize),
    matches_at: &dyn Fn(usize, usize, isize) -> bool,
) -> Failure {
    let changed: Vec<usize> = (lo..=hi).filter(|&n| !matches_at(n, n, 0)).collect();
    let what = if changed.is_empty() {
        format!("lines {} moved", span(lo, hi))
    } else {
        let r: Vec<String> = runs(&changed).iter().map(|&(x, y)| span(x, y)).collect();
        let one = changed.len() == 1;
        format!(
            "{} {} changed",
            if one { "line" } else { "lines" },
            r.join(", ")
        )
    };
    let (va, vb) = (lo.saturating_sub(2).max(1), (hi + 2).min(text.len()));
    let mut cur = String::new();
    if va <= vb {
        numbered(&mut cur, text, va, vb);
    } else {
        cur = "(the file is shorter now)\n".into();
    }
    (
        Code::StaleTag,
        format!(
            "{path} changed since you read it: {what}, and the lines you were shown around line {} are not found anywhere else. The current lines {}:\n{}Read lines {} again and redo the edit.",
            span(a, b),
            span(va, vb),
            cur.trim_end(),
            span(run_lo, run_hi)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply::text::parse_crc;

    proptest::proptest! {
        /// What a map from number to hash holds after inserting `old`,
        /// then `new`, in order (unsorted, with repeats).
        #[test]
        fn overlay_is_a_map(
            old in proptest::collection::vec((0usize..20, 0u32..5), 0..12),
            new in proptest::collection::vec((0usize..20, 0u32..5), 0..12),
        ) {
            let mut map = BTreeMap::new();
            map.extend(old.iter().copied());
            map.extend(new.iter().copied());
            let want: Vec<(usize, u32)> = map.into_iter().collect();
            let old = Hashes::overlay(&[], old).0;
            proptest::prop_assert_eq!(Hashes::overlay(&old, new).0, want);
        }
    }

    fn seen_of(text: &str, a: usize, b: usize) -> SeenFile {
        seen_view("f", text, &[(a, b)]).1.file("f")
    }

    #[test]
    fn views() {
        let v = crc_view("a.py", "x\ny\n");
        assert_eq!(
            v,
            format!(
                "# file: a.py crc32={:08x} lines=2\n1\tx\n2\ty\n",
                file_crc("x\ny\n")
            )
        );
        let (v, s) = seen_view("a.py", "a\nb\nc\nd\n", &[(3, 9), (1, 1)]);
        assert_eq!(
            v,
            "# file: a.py lines 1-1 of 4\n1\ta\n# file: a.py lines 3-4 of 4\n3\tc\n4\td\n"
        );
        let f = s.file("./a.py");
        assert_eq!(
            f.lines,
            vec![
                (1, line_hash("a")),
                (3, line_hash("c")),
                (4, line_hash("d"))
            ]
        );
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.starts_with("{\"a.py\":{\"crc32\":\""), "{json}");
        assert_eq!(serde_json::from_str::<SeenLines>(&json).unwrap(), s);
    }

    #[test]
    fn never_shown_lines_are_named() {
        let text = "a\nb\nc\nd\ne\n";
        let e = relocate(
            &Text::new(text),
            "f",
            (3, 5),
            &seen_of(text, 1, 4),
            &Relocator::default(),
        )
        .unwrap_err();
        assert_eq!(e.0, Code::NotShown);
        assert!(e.1.contains("line 5 of f was never shown"), "{}", e.1);
        assert!(e.1.contains("read lines 3-7 first"), "{}", e.1);
        // Inserting after a shown line is fine; at the top always.
        assert!(relocate(
            &Text::new(text),
            "f",
            (4, 4),
            &seen_of(text, 1, 4),
            &Relocator::default()
        )
        .is_ok());
        assert!(relocate(
            &Text::new(text),
            "f",
            (0, 0),
            &SeenFile::default(),
            &Relocator::default()
        )
        .is_ok());
    }

    #[test]
    fn moved_block_is_found_and_reported() {
        let before = "a\nb\nc\nd\ne\nf\n";
        let seen = seen_of(before, 1, 6);
        let after = "new\nnew2\na\nb\nc\nd\ne\nf\n";
        let (s, e, note) =
            relocate(&Text::new(after), "f", (3, 4), &seen, &Relocator::default()).unwrap();
        assert_eq!((s, e), (5, 6));
        assert!(note.unwrap().contains("now 6 (2 lines down)"));
    }

    #[test]
    fn changed_line_is_stale_and_duplicate_is_ambiguous() {
        let before = "a\nb\nc\nd\ne\n";
        let seen = seen_of(before, 1, 5);
        let e = relocate(
            &Text::new("a\nb\nC\nd\ne\n"),
            "f",
            (2, 3),
            &seen,
            &Relocator::default(),
        )
        .unwrap_err();
        assert_eq!(e.0, Code::StaleTag);
        assert!(e.1.contains("line 3 changed"), "{}", e.1);
        assert!(e.1.contains("3\tC"), "{}", e.1);
        let twice = "a\nb\nc\nd\ne\nx\na\nb\nc\nd\ne\n";
        let e = relocate(&Text::new(twice), "f", (2, 3), &seen, &Relocator::default()).unwrap_err();
        assert_eq!(e.0, Code::Ambiguous);
        assert!(e.1.contains("at lines 3, 9"), "{}", e.1);
    }

    #[test]
    fn unrelated_change_keeps_numbers() {
        let before: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let seen = seen_of(&before, 1, 20);
        let after = before.replace("line 18\n", "line eighteen\n");
        assert_eq!(
            relocate(
                &Text::new(&after),
                "f",
                (2, 4),
                &seen,
                &Relocator::default()
            )
            .unwrap(),
            (2, 4, None)
        );
    }

    #[test]
    fn record_and_merge() {
        let mut s = SeenLines::default();
        s.record("f", "a\nb\nc\n", &[(1, 1)]);
        s.record("f", "a\nb\nc\n", &[(3, 3)]);
        assert_eq!(s.file("f").lines.len(), 2);
        assert!(s.file("f").crc.is_some());
        s.record("f", "a\nB\nc\n", &[(2, 2)]);
        assert_eq!(s.file("f").crc, None);
        assert_eq!(parse_crc("0x1A2b"), Some(0x1a2b));
        assert_eq!(parse_crc("123456789"), None);
    }
}
