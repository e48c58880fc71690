//! Line-addressed edits (hashline's `line:tag`, the `lines` format's
//! ranges) and read-only views: the numbers are checked against what the
//! edit asserts (tags, the file's CRC-32, the lines the model was shown)
//! before they are trusted. Cost: `O(lines checked)`, plus a relocation of
//! a shown block that moved (see [`crate::apply::seen::relocate`]).

use super::{Failure, Spot};
use crate::apply::tags::{tag, TagOptions};
use crate::apply::text::Text;
use crate::edit::{Check, Code};

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
/// [`crate::apply::seen::Relocator`], shared by its edits.
pub fn lines(
    text: &Text,
    path: &str,
    start: usize,
    end: usize,
    new: &[String],
    check: &Check,
    cache: &crate::apply::seen::Relocator,
) -> Result<Spot, Failure> {
    // Seen lines come from an older view: check them and follow a shown
    // block that moved before the numbers are held to the current file.
    if let Check::Seen(seen) = check {
        let (s, e, note) = crate::apply::seen::relocate(text, path, (start, end), seen, cache)?;
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
        Check::Tags { tags, opts } => check_tags(text, path, tags, *opts)?,
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
    Ok(Spot::at(start, end, new.to_vec()))
}

/// Every quoted tag is that of its line now, or the edit is refused as
/// `stale_tag` with the current tagged lines around them.
fn check_tags(
    text: &Text,
    path: &str,
    tags: &[(usize, String)],
    opts: TagOptions,
) -> Result<(), Failure> {
    let n = text.len();
    let mut stale = vec![];
    for (line, t) in tags {
        if *line == 0 || *line > n {
            return Err((
                Code::OutOfRange,
                format!("line {line} is outside {path}, which has {n} lines (1-{n})"),
            ));
        }
        let now = tag(text.line(line - 1), *line, opts);
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
                region_view(text, lo, hi, opts),
                moved_hint(text, tags, opts)
            ),
        ));
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

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
