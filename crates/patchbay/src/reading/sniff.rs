//! What a format reads to recognise itself in a reply ([`Reply`]) and what
//! it answers ([`Sniff`]). The reply is read once for every format: its
//! lines, the whole-file blocks whose markers are content, and the JSON
//! edits in it with the format each belongs to. `auto` detection fills
//! it; formats only read it.

use super::scan::OutLine;
use crate::name::FormatName;
use std::ops::Range;

/// A format recognised in a reply: where its first marker is, how sure,
/// why.
#[derive(Debug, Clone, PartialEq)]
pub struct Sniff {
    /// Byte offset of the first marker (`usize::MAX`: no marker, a
    /// fallback).
    pub at: usize,
    pub confidence: f64,
    pub reason: String,
}

/// One JSON edit found in a reply, and the format it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonEdit {
    pub at: usize,
    pub format: FormatName,
    pub confidence: f64,
    pub reason: &'static str,
}

/// A reply as the formats' sniffers read it.
pub struct Reply<'a> {
    pub text: &'a str,
    pub lines: &'a [OutLine<'a>],
    /// Whole-file blocks (a fence named by a path) whose hunk headers are
    /// content, not a diff.
    pub(crate) file_diff: Vec<Range<usize>>,
    /// The JSON edits outside whole-file blocks whose JSON is among other
    /// text, in reply order.
    pub(crate) json: Vec<JsonEdit>,
}

impl Reply<'_> {
    /// Whether byte `at` lies in a whole-file block whose hunk headers are
    /// its content.
    pub fn in_file_diff(&self, at: usize) -> bool {
        inside(&self.file_diff, at)
    }

    /// Whether any line satisfies `pred`.
    pub fn any_line(&self, pred: impl Fn(&str) -> bool) -> bool {
        self.lines.iter().any(|l| pred(l.text))
    }

    /// The first line satisfying `pred` (its index).
    pub fn first_line(&self, pred: impl Fn(usize, &str) -> bool) -> Option<usize> {
        (0..self.lines.len()).find(|&i| pred(i, self.lines[i].text))
    }

    /// The first JSON edit of `format`, as a sniff.
    pub fn first_json(&self, format: FormatName) -> Option<Sniff> {
        let e = self.json.iter().find(|e| e.format == format)?;
        Some(Sniff {
            at: e.at,
            confidence: e.confidence,
            reason: e.reason.into(),
        })
    }
}

/// Whether `at` lies in one of `ranges` (disjoint, in output order).
pub(crate) fn inside(ranges: &[Range<usize>], at: usize) -> bool {
    let k = ranges.partition_point(|r| r.end <= at);
    ranges.get(k).is_some_and(|r| r.contains(&at))
}
