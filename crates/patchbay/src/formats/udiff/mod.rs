//! `udiff`: unified diffs, as git and GNU diff write them and as models get
//! them wrong.
//!
//! ````text
//! ```diff
//! diff --git a/src/app.py b/src/app.py
//! --- a/src/app.py
//! +++ b/src/app.py
//! @@ -48,7 +48,8 @@ def total(items):
//!      subtotal = sum(i.price for i in items)
//! -    tax = subtotal * RATE
//! +    tax = subtotal * rate(items)
//! +    log.info("tax %s", tax)
//!      return subtotal + tax
//! ```
//! ````
//!
//! Several files, `diff --git` headers or plain `---`/`+++` lines, `a/` and
//! `b/` prefixes or none, fenced or bare, prose around it. `--- /dev/null`
//! creates a file, `+++ /dev/null` deletes one (its removed lines are not
//! compared), git's `rename from`/`rename to` moves one after its hunks.
//! Hunks without a file header use the path on the line before the fence
//! (or in its info string), else the default file.
//!
//! Each hunk is one `Replace` of its unchanged and removed lines by its
//! unchanged and added lines, located by the shared matcher ladder; the
//! header's old start is only the hint that chooses among equal candidates.
//! Lenient mode (the default) ignores wrong numbers and counts and reads
//! damaged lines generously (see [`edits`]); strict mode reads like
//! `git apply` (counts must agree, markers are required, context must match
//! exactly) and reports the offset when the header's line is off. A hunk
//! shorter than its header at the end of the output is `truncated`.
//!
//! Final newlines: the engine keeps the target's final-newline presence by
//! design, so `\ No newline at end of file` is read (it marks the line before
//! it) but does not change the result; a created file always ends with one.
//! Rendering writes the marker wherever git would, so its diffs also apply
//! with `git apply`.
//!
//! Tools for teaching and recovery, all pure functions of the output and the
//! files: [`diagnose()`] (per hunk: why strict application fails or succeeds),
//! [`repair()`] (a corrected diff that `git apply --check` accepts) and
//! [`patch_fuzz_simulation`] (what GNU `patch` 2.7.6 with its default fuzz
//! would do with each hunk, flagging silent misapplies).

pub mod diagnose;
pub mod edits;
pub mod fuzz;
mod headers;
pub mod parse;
mod place;
mod render;
pub mod repair;

pub use diagnose::{diagnose, Finding, FindingKind, HunkDiagnosis};
pub use fuzz::{patch_fuzz_apply, patch_fuzz_simulation, FuzzReport, FuzzVerdict, PatchRun};
pub use repair::{repair, RepairError};

use super::{Format, ParseOptions};
use crate::apply::feedback::Words;
use crate::edit::{Edit, Parsed};
use crate::formats::prompt::{self, COUNT};
use crate::reading::scan::fence_open;
use crate::reading::scan::OutLine;
use crate::reading::sniff::{Reply, Sniff};

pub struct Udiff;

/// How messages name the parts of a hunk.
pub const WORDS: Words = Words {
    old: "the hunk's unchanged and removed lines",
    short: "hunk",
    new: "the hunk's result",
    create: "write a diff from `--- /dev/null`",
    readings: "some lines lost their markers. Write every line with its marker (a space for unchanged lines, `-` removed, `+` added)",
};

/// Whether line `i` of a reply is a diff's: a `diff --git` line, `---`
/// followed by `+++`, or a hunk header, outside a whole-file block whose
/// hunk headers are content.
pub fn claims_line(reply: &Reply, i: usize) -> bool {
    let ls = &reply.lines;
    let t = ls[i].text;
    let next = ls.get(i + 1).map(|n| n.text);
    (t.starts_with("diff --git ")
        || (t.starts_with("--- ") && next.is_some_and(|n| n.starts_with("+++ ")))
        || hunk_header(t)
        || bare_hunk_header(t, next))
        && !reply.in_file_diff(ls[i].start)
}

/// Whether a block's text is not a diff although it may hold a hunk
/// header: it has no file header (`diff --git`, `---`/`+++`) and either
/// does not start with a hunk header, or none of its lines adds or removes
/// anything while one is not diff syntax.
pub fn not_a_diff(body: &[crate::reading::scan::OutLine]) -> bool {
    let header = body.iter().enumerate().any(|(k, l)| {
        l.text.starts_with("diff --git ")
            || (l.text.starts_with("--- ")
                && body.get(k + 1).is_some_and(|n| n.text.starts_with("+++ ")))
    });
    let starts = body
        .iter()
        .find(|l| !l.text.trim().is_empty())
        .is_some_and(|l| l.text.starts_with("@@"));
    let changes = body.iter().any(|l| l.text.starts_with(['+', '-']));
    let prose = body
        .iter()
        .any(|l| !l.text.trim().is_empty() && !l.text.starts_with([' ', '@', '\\']));
    !header && (!starts || (!changes && prose))
}

impl Format for Udiff {
    fn sniff(&self, reply: &Reply) -> Option<Sniff> {
        let i = reply.first_line(|i, _| claims_line(reply, i))?;
        let hunk = reply.any_line(hunk_header);
        Some(Sniff {
            at: reply.lines[i].start,
            confidence: if hunk { 0.95 } else { 0.75 },
            reason: "has unified-diff headers (`diff --git`, `---`/`+++`, `@@ -N,M +N,M @@`)"
                .into(),
        })
    }

    fn prompt(&self) -> prompt::Prompt {
        prompt::Prompt {
            instructions: format!("Reply with a unified diff (like `diff -u` or `git diff`): `--- a/PATH` and `+++ b/PATH` lines, then hunks starting with `@@ -l,n +l,n @@`, context lines starting with a space, removed lines with `-`, added lines with `+`. Include 2-3 unchanged lines of context around each change. Use `/dev/null` as the old path to create a file. {COUNT}"),
            example_view: prompt::plain_view(),
            example_reply: "EDITS: 1\n```diff\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def greet(name):\n-    print(\"Hello, \" + name)\n+    print(f\"Hello, {name}!\")\n```\n".into(),
        }
    }

    fn words(&self) -> &'static Words {
        &WORDS
    }

    fn id(&self) -> crate::formats::FormatName {
        crate::formats::FormatName::Udiff
    }

    /// A hunk ends at the next hunk or file header (which may start an
    /// edit of its own) or at a fence; body lines and prose end nothing.
    fn turn(&self, line: &str) -> super::Turn {
        let header = ["@@", "diff ", "---", "+++"];
        if super::fence_like(line) {
            super::Turn::Ends
        } else if header.iter().any(|h| line.starts_with(h)) {
            super::Turn::Opens
        } else {
            super::Turn::Plain
        }
    }

    fn parse(&self, output: &str, opt: &ParseOptions) -> Parsed {
        self.parse_lines(output, &crate::reading::scan::out_lines(output), opt)
    }

    fn parse_lines(&self, output: &str, lines: &[OutLine], opt: &ParseOptions) -> Parsed {
        edits_of(parse::read_lines(output, lines), opt)
    }

    /// A hunk's edit depends on its part's path and on whether a fence is
    /// open around it; both the part's header and the fence may stand far
    /// above. The reading resumes at `last` (a hunk of a plain part: its
    /// span starts at its `@@`) with the part's path, once with a fence
    /// open and once without: a tail with no line that may open or close a
    /// fence reads the same with any open fence, so when the two agree,
    /// and `last` reads as before, they are the whole parse's reading.
    fn parse_after(&self, text: &str, last: &Edit, opt: &ParseOptions) -> Option<(usize, Parsed)> {
        let from = last.span.start;
        let tail = text.get(from..)?;
        let lines = crate::reading::scan::out_lines(tail);
        let fence = |t: &str| t.starts_with(['`', '~', '<']) || fence_open(t).is_some();
        if !tail.starts_with("@@") || lines.iter().any(|l| fence(l.text)) {
            return None;
        }
        let read = |fenced| {
            let files = parse::read_from_hunk(tail, &lines, last.path.clone(), fenced);
            edits_of(files, opt)
        };
        let (parsed, fenced) = (read(false), read(true));
        let again = parsed.edits.first()?;
        let same =
            again.path == last.path && again.op == last.op && again.span == (0..last.span.len());
        let n = parsed.edits.len();
        let agree = fenced.edits.len() == n
            && parsed.edits[..n - 1] == fenced.edits[..n - 1]
            && parsed.edits[n - 1].path == fenced.edits[n - 1].path
            && parsed.mentions == fenced.mentions;
        (same && agree).then(|| (from, after_first(parsed)))
    }

    fn render(&self, path: &str, before: &str, after: &str) -> String {
        render::render(path, before, after)
    }
}

/// A hunk header without numbers as models write them (`@@ @@`,
/// `@@ ... @@`) followed by a diff line: for format detection. A closing
/// `@@` is required, so V4A's `@@ def f():` and the lines format's
/// `@@ PATH RANGE` are not taken for one.
pub fn bare_hunk_header(line: &str, next: Option<&str>) -> bool {
    line.starts_with("@@")
        && line[2..].contains("@@")
        && next.is_some_and(|n| n.starts_with([' ', '+', '-']))
}

/// `@@ -N[,M] +N[,M] @@`: a unified-diff hunk header.
pub fn hunk_header(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("@@ -") else {
        return false;
    };
    let num = |s: &str| {
        let mut p = s.splitn(2, ',');
        let ok = |x: Option<&str>| {
            x.is_some_and(|x| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()))
        };
        let a = p.next();
        let b = p.next();
        ok(a) && (b.is_none() || ok(b))
    };
    let mut t = rest.splitn(3, ' ');
    let (Some(old), Some(new), Some(tail)) = (t.next(), t.next(), t.next()) else {
        return false;
    };
    num(old) && new.strip_prefix('+').is_some_and(num) && tail.starts_with("@@")
}

#[cfg(test)]
mod tests;

/// The edits of a diff's file parts. A last hunk shorter than its counts,
/// unfenced, is cut or miscounted; a reply known to have ended on its own
/// (its stop reason) settles it as miscounted. A declared edit count
/// cannot: a hunk cut in its middle is still one of the N.
fn edits_of(mut files: Vec<parse::FileDiff>, opt: &ParseOptions) -> Parsed {
    if opt.complete {
        for h in files.iter_mut().flat_map(|f| f.hunks.iter_mut()) {
            h.cut &= !h.maybe_miscounted;
        }
    }
    edits::to_edits(&files, opt.strict)
}

/// `parsed` without its first edit.
fn after_first(parsed: Parsed) -> Parsed {
    Parsed {
        edits: parsed.edits.into_iter().skip(1).collect(),
        mentions: (parsed.mentions.into_iter())
            .filter(|(k, _)| *k > 0)
            .map(|(k, m)| (k - 1, m))
            .collect(),
        ..parsed
    }
}
