//! Locating edits beyond the matcher's one lookup: line-addressed edits
//! with their checks (tags, file CRC), substring replacement
//! (`str_replace`), and blocks narrowed by anchor lines (V4A's `@@`). Both end as a line range plus replacement lines, the one
//! shape the transaction applies.
//!
//! Cost: a line-addressed edit is `O(lines checked)`; a substring edit scans
//! the file once for occurrences (`O(N)`), and falls back to the matcher
//! ladder when the substring is made of whole lines but is not found as is.

use crate::apply::feedback;
use crate::apply::fold::is_blank;
use crate::apply::matcher::{FindOptions, Found, Haystack, Level, Miss, CANDIDATE_CAP};
use crate::apply::text::{split_lines, LineSpan, Text};
use crate::edit::{Check, Code};
use crate::formats::hashline::tags::{tag, TagOptions};
use std::cell::OnceCell;

/// Messages about `str_replace` speak of `old_str`, as the tool does.
const TOOL: &feedback::Words = feedback::words_of_tool_call();

/// A located edit: original lines `start..end` become `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spot {
    pub start: usize,
    pub end: usize,
    pub new: Vec<String>,
    pub level: Option<Level>,
    pub note: Option<String>,
}

type Failure = (Code, String);

/// The current `N:TAG content` lines around `lo..hi` (1-based, inclusive),
/// so a model can retry without reading the file again.
pub fn region_view(text: &Text, lo: usize, hi: usize, opts: TagOptions) -> String {
    let n = text.len();
    if n == 0 {
        return "  (the file is empty)".into();
    }
    let a = lo.saturating_sub(2).max(1);
    let b = (hi + 2).min(n);
    (a..=b)
        .map(|i| {
            format!(
                "  {i}:{} {}",
                tag(text.line(i - 1), i, opts),
                text.line(i - 1)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// When every quoted tag is found again at one other offset within 50
/// lines, says where: the lines moved, and the model can resend with the new
/// numbers (nothing is applied there on a guess). `O(100·k)` tags.
fn moved_hint(text: &Text, tags: &[(usize, String)], opts: TagOptions) -> String {
    let at = |n: usize| (n >= 1 && n <= text.len()).then(|| tag(text.line(n - 1), n, opts));
    let hits: Vec<isize> = (-50isize..=50)
        .filter(|&d| d != 0 && !tags.is_empty())
        .filter(|&d| {
            tags.iter().all(|(n, t)| {
                let m = *n as isize + d;
                m >= 1 && at(m as usize).as_deref() == Some(t.as_str())
            })
        })
        .collect();
    match hits.as_slice() {
        [d] => {
            let lo = tags.iter().map(|t| t.0).min().unwrap_or(1) as isize + d;
            let hi = tags.iter().map(|t| t.0).max().unwrap_or(1) as isize + d;
            let (dir, k) = if *d > 0 { ("down", *d) } else { ("up", -d) };
            format!(
                "\nThe tagged lines are now at lines {lo}-{hi} ({k} line{} {dir}); resend the edit with those numbers and tags.",
                if k == 1 { "" } else { "s" }
            )
        }
        _ => String::new(),
    }
}

/// Checks and locates a line-addressed edit; `cache` is the file's
/// [`crate::formats::lines::seen::Relocator`], shared by its edits.
pub fn lines(
    text: &Text,
    path: &str,
    start: usize,
    end: usize,
    new: &[String],
    check: &Check,
    cache: &crate::formats::lines::seen::Relocator,
) -> Result<Spot, Failure> {
    // Seen lines come from an older view: check them and follow a shown
    // block that moved before the numbers are held to the current file.
    if let Check::Seen(seen) = check {
        let (s, e, note) =
            crate::formats::lines::seen::relocate(text, path, (start, end), seen, cache)?;
        let spot = lines(text, path, s, e, new, &Check::None, cache)?;
        return Ok(Spot { note, ..spot });
    }
    let n = text.len();
    if start > end || end > n {
        let msg = if start == end {
            format!(
                "cannot insert after line {start} of {path}: it has {n} lines; valid insert positions are after line 0 (the top) to after line {n}"
            )
        } else {
            format!(
                "lines {}-{end} are outside {path}, which has {n} lines (1-{n})",
                start + 1
            )
        };
        return Err((Code::OutOfRange, msg));
    }
    match check {
        Check::None => {}
        Check::Tags { tags, opts } => {
            let mut stale = vec![];
            for (line, t) in tags {
                if *line == 0 || *line > n {
                    return Err((
                        Code::OutOfRange,
                        format!("line {line} is outside {path}, which has {n} lines (1-{n})"),
                    ));
                }
                let now = tag(text.line(line - 1), *line, *opts);
                if &now != t {
                    stale.push(format!("{line}:{t}"));
                }
            }
            if !stale.is_empty() {
                let lo = tags.iter().map(|t| t.0).min().unwrap_or(1);
                let hi = tags.iter().map(|t| t.0).max().unwrap_or(1);
                return Err((
                    Code::StaleTag,
                    format!(
                        "the tags {} do not match {path} as it is now (the file changed, or the tag was mistyped). The current lines there:\n{}{}",
                        stale.join(", "),
                        region_view(text, lo, hi, *opts),
                        moved_hint(text, tags, *opts)
                    ),
                ));
            }
        }
        Check::FileCrc(crc) => {
            let now = text.crc();
            if now != *crc {
                return Err((
                    Code::StaleTag,
                    format!("{path} changed since it was shown (CRC-32 {crc:08x}, now {now:08x}); read it again"),
                ));
            }
        }
        Check::Seen(_) => {}
        // The transaction replaces it when the caller kept a snapshot.
        Check::Snapshot => {
            return Err((
                Code::Malformed,
                format!("the edit of {path} gives plain line numbers but no CRC-32, and no snapshot of what was shown was kept, so they cannot be checked; copy `crc32=...` from the view header into the edit (or pass the seen snapshot)"),
            ));
        }
    }
    Ok(Spot {
        start,
        end,
        new: new.to_vec(),
        level: None,
        note: None,
    })
}

/// The numbered lines `N\tline` that a read-only view shows: 1-based
/// `(first, last)`, `last == None` (or past the end) meaning the end.
pub fn view(
    text: &Text,
    path: &str,
    range: Option<(usize, Option<usize>)>,
) -> Result<String, Failure> {
    let n = text.len();
    let (first, last) = range.unwrap_or((1, None));
    if range.is_some() && (first == 0 || first > n || last.is_some_and(|l| l < first)) {
        let asked = last.map_or("-1".to_owned(), |l| l.to_string());
        return Err((
            Code::OutOfRange,
            format!("cannot view lines [{first}, {asked}] of {path}: it has {n} lines; ask for a range within 1-{n} (-1 as the end means the last line)"),
        ));
    }
    let last = last.unwrap_or(n).min(n);
    if n == 0 {
        return Ok(format!("{path} is empty"));
    }
    let shown: Vec<String> = (first..=last)
        .map(|i| format!("{i}\t{}", text.line(i - 1)))
        .collect();
    Ok(shown.join("\n"))
}

/// Locates a substring replacement of `old` by `new`.
/// `hay` is the file's matcher index, shared with the transaction's other
/// edits of the file and built only if the ladder is needed. `detailed`:
/// whether a miss gets the closest region (see [`feedback::DETAILED`]).
pub fn str_replace<'a>(
    text: &Text<'a>,
    hay: &OnceCell<Haystack<'a>>,
    path: &str,
    (old, new): (&str, &str),
    hint: Option<usize>,
    fo: FindOptions,
    detailed: bool,
) -> Result<Spot, Failure> {
    let old = old.replace("\r\n", "\n");
    let new = new.replace("\r\n", "\n");
    if old.is_empty() {
        return Err((
            Code::Malformed,
            "old_str is empty; quote the text to replace".into(),
        ));
    }
    // The file as LF text, every line terminated, with each line's offset.
    // Most files already are that text: then it is borrowed, not rebuilt
    // (a copy of the whole file per edit dominated multi-edit replies), and
    // the offsets are the spans the text already has.
    let src = text.src();
    let plain = !text.has_bom()
        && (src.is_empty() || src.ends_with('\n'))
        && memchr::memchr(b'\r', src.as_bytes()).is_none();
    let flat = if plain {
        Flat::Borrowed(src, text.spans())
    } else {
        let mut flat = String::with_capacity(src.len() + 1);
        let mut starts = Vec::with_capacity(text.len() + 1);
        for i in 0..text.len() {
            starts.push(flat.len());
            flat.push_str(text.line(i));
            flat.push('\n');
        }
        starts.push(flat.len());
        Flat::Owned(flat, starts)
    };
    let n_lines = text.len();
    let line_of = |b: usize| flat.line_of(b);
    let starts = |i: usize| flat.start(i);
    let flat_str = flat.text();
    // Every occurrence (up to 64), with a vectorised substring search (the
    // scan of the whole file is the cost of an edit). Overlapping
    // occurrences count too (`a\na` in `a\na\na` is two places), which
    // `match_indices` would miss.
    let finder = memchr::memmem::Finder::new(old.as_bytes());
    let mut hits: Vec<usize> = Vec::new();
    while hits.len() < 64 {
        let from = hits.last().map_or(0, |&h| {
            h + flat_str[h..].chars().next().map_or(1, char::len_utf8)
        });
        match finder.find(&flat_str.as_bytes()[from..]) {
            Some(k) => hits.push(from + k),
            None => break,
        }
    }
    let chosen = match hits.len() {
        0 => None,
        1 => Some((hits[0], false)),
        _ => {
            let near: Vec<usize> = match hint {
                Some(h) => hits
                    .iter()
                    .copied()
                    .filter(|&b| line_of(b).abs_diff(h) <= fo.window)
                    .collect(),
                None => vec![],
            };
            if near.len() == 1 {
                Some((near[0], true))
            } else {
                let at: Vec<String> = hits.iter().map(|&b| (line_of(b) + 1).to_string()).collect();
                return Err((
                    Code::Ambiguous,
                    format!(
                        "old_str occurs {} times in {path}, starting on lines {}; include more surrounding text so it matches exactly one place, or give a line_hint",
                        hits.len(),
                        at.join(", ")
                    ),
                ));
            }
        }
    };
    if let Some((b, by_hint)) = chosen {
        let e = b + old.len();
        let first = line_of(b);
        let mut end = line_of(e - 1) + 1;
        let mut joined = format!(
            "{}{new}{}",
            &flat_str[starts(first)..b],
            &flat_str[e..starts(end)]
        );
        // When the replacement no longer ends a line, the next line joins it.
        // (An empty one deleted whole lines: nothing to join.)
        if !joined.is_empty() && !joined.ends_with('\n') && end < n_lines {
            joined.push_str(&flat_str[starts(end)..starts(end + 1)]);
            end += 1;
        }
        let body = joined.strip_suffix('\n').unwrap_or(&joined);
        let new_lines = if joined.is_empty() {
            vec![]
        } else {
            body.split('\n').map(str::to_owned).collect()
        };
        let note =
            by_hint.then(|| "several places matched and the line hint chose this one".to_owned());
        return Ok(Spot {
            start: first,
            end,
            new: new_lines,
            level: Some(Level::Exact),
            note,
        });
    }
    // Not found as is: when old_str is whole lines, let the ladder absorb
    // whitespace and look-alike differences, as for a SEARCH block.
    let old_lines = split_lines(&old);
    let hay = hay.get_or_init(|| Haystack::new(text.lines()));
    let lines = hay.lines();
    match hay.find(&old_lines, FindOptions { hint, ..fo }) {
        Ok(f) => {
            // Lines new_str leaves as they were stay as the file has them.
            let new_lines = replacement(&old_lines, &split_lines(&new), &f, lines);
            let note = Some(feedback::tolerated(&f));
            Ok(Spot {
                start: f.start,
                end: f.end,
                new: new_lines,
                level: Some(f.level),
                note,
            })
        }
        Err(Miss::Ambiguous {
            level,
            candidates,
            len,
        }) => Err((
            Code::Ambiguous,
            feedback::ambiguous(TOOL, path, lines, &candidates, len, level),
        )),
        Err(_) if detailed => Err((
            Code::NotFound,
            feedback::not_found(TOOL, path, lines, &old_lines),
        )),
        Err(_) => Err((
            Code::NotFound,
            feedback::not_found_brief(TOOL, path, old_lines.len()),
        )),
    }
}

/// The file as LF text with every line terminated, and where its lines
/// start: the file itself and its spans when it already is that text, else
/// a copy with its own offsets (`n + 1` of them, the last one the end).
enum Flat<'a> {
    Borrowed(&'a str, &'a [LineSpan]),
    Owned(String, Vec<usize>),
}

impl Flat<'_> {
    fn text(&self) -> &str {
        match self {
            Flat::Borrowed(s, _) => s,
            Flat::Owned(s, _) => s,
        }
    }

    /// The offset of line `i` (0-based); `i == n` is the end.
    fn start(&self, i: usize) -> usize {
        match self {
            Flat::Borrowed(s, spans) => spans.get(i).map_or(s.len(), |sp| sp.start),
            Flat::Owned(_, starts) => starts[i],
        }
    }

    /// The line holding byte `b` (`O(log n)`).
    fn line_of(&self, b: usize) -> usize {
        match self {
            Flat::Borrowed(_, spans) => spans.partition_point(|sp| sp.start <= b),
            Flat::Owned(_, starts) => starts.partition_point(|&s| s <= b),
        }
        .saturating_sub(1)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sr(file: &str, old: &str, new: &str) -> Result<Spot, Failure> {
        let text = Text::new(file);
        str_replace(
            &text,
            &OnceCell::new(),
            "f",
            (old, new),
            None,
            FindOptions::default(),
            true,
        )
    }

    #[test]
    fn substring_inside_a_line() {
        let s = sr("let a = 1;\nlet b = 2;\n", "b = 2", "b = 3").unwrap();
        assert_eq!(
            (s.start, s.end, s.new),
            (1, 2, vec!["let b = 3;".to_string()])
        );
    }

    #[test]
    fn substring_across_lines_with_newline() {
        let s = sr("a\nb\nc\n", "a\nb\n", "x\n").unwrap();
        assert_eq!((s.start, s.end), (0, 2));
        assert_eq!(s.new, vec!["x".to_string()]);
        let s = sr("a\nb\nc\n", "b\nc", "y").unwrap();
        assert_eq!((s.start, s.end, s.new), (1, 3, vec!["y".to_string()]));
    }

    #[test]
    fn duplicates_name_their_lines() {
        let e = sr("x = 1\ny\nx = 1\n", "x = 1", "x = 2").unwrap_err();
        assert_eq!(e.0, Code::Ambiguous);
        assert!(e.1.contains("lines 1, 3"), "{}", e.1);
        let text = Text::new("x = 1\ny\nx = 1\n");
        let s = str_replace(
            &text,
            &OnceCell::new(),
            "f",
            ("x = 1", "x = 2"),
            Some(2),
            FindOptions {
                window: 0,
                ..Default::default()
            },
            true,
        )
        .unwrap();
        assert_eq!(s.start, 2);
    }

    #[test]
    fn overlapping_and_unterminated_files_and_crlf() {
        // `a\na` occurs twice in `a\na\na`, overlapping.
        let e = sr("a\na\na\n", "a\na", "b").unwrap_err();
        assert_eq!(e.0, Code::Ambiguous);
        assert!(
            e.1.contains("2 times") && e.1.contains("lines 1, 2"),
            "{}",
            e.1
        );
        // A file without a final newline, CRLF and a BOM take the copy.
        for file in ["x\ny = 1", "x\r\ny = 1\r\n", "\u{feff}x\ny = 1\n"] {
            let s = sr(file, "y = 1", "y = 2").unwrap();
            assert_eq!((s.start, s.end, s.new), (1, 2, vec!["y = 2".to_string()]));
        }
        let s = sr("x\r\ny\r\nz\r\n", "x\r\ny\r\n", "w\n").unwrap();
        assert_eq!((s.start, s.end, s.new), (0, 2, vec!["w".to_string()]));
        // Non-ASCII around the match, and a match at the very end.
        let s = sr("é = 1\nπ = 2\n", "= 2\n", "= 3\n").unwrap();
        assert_eq!((s.start, s.end, s.new), (1, 2, vec!["π = 3".to_string()]));
    }

    proptest::proptest! {
        /// Occurrences as a naive scan counts them (overlapping ones too):
        /// one is located on its line, several are refused with their count
        /// and lines, on LF, CRLF and unterminated files alike.
        #[test]
        fn occurrences_are_counted_as_a_naive_scan_does(
            lines in proptest::collection::vec("[ab é]{0,4}", 1..30),
            crlf in proptest::bool::ANY,
            last in proptest::bool::ANY,
            from in 0usize..200,
            len in 1usize..8,
        ) {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut file = lines.join(eol);
            if last {
                file.push_str(eol);
            }
            let flat: String = Text::new(&file).lines().iter().map(|l| format!("{l}\n")).collect();
            proptest::prop_assume!(!flat.is_empty());
            let chars: Vec<char> = flat.chars().collect();
            let from = from % chars.len();
            let old: String = chars[from..(from + len).min(chars.len())].iter().collect();
            let at: Vec<usize> = (0..flat.len())
                .filter(|&i| flat.is_char_boundary(i) && flat[i..].starts_with(&old))
                .collect();
            let line = |b: usize| flat[..b].matches('\n').count();
            match sr(&file, &old, "X") {
                // None found as is: the ladder may still place whole lines.
                Ok(s) if at.is_empty() => proptest::prop_assert!(s.level != Some(Level::Exact)),
                Ok(s) => {
                    proptest::prop_assert_eq!(at.len(), 1);
                    proptest::prop_assert_eq!(s.start, line(at[0]));
                }
                Err((Code::Ambiguous, msg)) if at.len() > 1 => {
                    let lines: Vec<String> = at.iter().map(|&b| (line(b) + 1).to_string()).collect();
                    let want = format!("occurs {} times in f, starting on lines {};", at.len(), lines.join(", "));
                    proptest::prop_assert!(msg.contains(&want), "{} / {}", msg, want);
                }
                Err(e) => proptest::prop_assert!(at.len() != 1, "{:?} for {} hit(s)", e, at.len()),
            }
        }
    }

    #[test]
    fn whitespace_differences_fall_back_to_the_ladder() {
        let s = sr(
            "    if a:\n        b()\n",
            "if a:\n    b()",
            "if a:\n    c()",
        )
        .unwrap();
        assert_eq!(
            s.new,
            vec!["    if a:".to_string(), "        c()".to_string()]
        );
        assert_eq!(s.level, Some(Level::Indent));
    }

    #[test]
    fn tags_and_ranges() {
        let t = Text::new("a\nb\nc\n");
        let opts = TagOptions::default();
        let good = Check::Tags {
            tags: vec![(2, tag("b", 2, opts))],
            opts,
        };
        assert!(lines(&t, "f", 1, 2, &["B".into()], &good, &Default::default()).is_ok());
        let bad = Check::Tags {
            tags: vec![(2, "AAAA".into())],
            opts,
        };
        let e = lines(&t, "f", 1, 2, &["B".into()], &bad, &Default::default()).unwrap_err();
        assert_eq!(e.0, Code::StaleTag);
        assert!(
            e.1.contains(&format!("2:{} b", tag("b", 2, opts))),
            "{}",
            e.1
        );
        assert_eq!(
            lines(&t, "f", 2, 5, &[], &Check::None, &Default::default())
                .unwrap_err()
                .0,
            Code::OutOfRange
        );
        assert_eq!(
            lines(
                &t,
                "f",
                3,
                3,
                &["d".into()],
                &Check::None,
                &Default::default()
            )
            .unwrap()
            .start,
            3
        );
    }
}
