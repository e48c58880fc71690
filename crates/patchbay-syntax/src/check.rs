//! Parse checks: the syntax errors an edit introduced. tree-sitter marks
//! what it could not parse with ERROR nodes and what it had to assume with
//! MISSING nodes; an edit is blamed only for those that were not there
//! before, so a file that never parsed (newer syntax than the grammar, a
//! template language) does not fail every edit.
//!
//! "Not there before" is decided by content: an issue of the edited text
//! is old when the text before the edit has an issue of the same kind over
//! the same source text (each old issue excuses one new one). Line shifts
//! do not matter; an error whose text the edit changed counts as new.
//!
//! [`check_report`] runs the check over a patchbay report and either
//! appends warnings to the receipts of the edits that caused them or
//! fails the report with the code `syntax_error`.
//!
//! Cost: two parses, then one walk over the nodes that contain errors
//! (tree-sitter marks them, so clean subtrees are skipped), plus a line
//! diff to find the edit to blame, `O((N+M)·D)`.

use crate::lang::{self, Language};
use crate::Error;
use patchbay::apply::report::{Report, Status};
use patchbay::edit::{Code, EditStatus, Receipt};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use tree_sitter::Node;

/// One syntax problem in a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SyntaxIssue {
    /// `error` (text the grammar could not parse) or `missing` (a token
    /// tree-sitter had to assume, such as a closing brace).
    pub kind: String,
    /// 1-based inclusive lines in the text that has the issue.
    pub lines: [usize; 2],
    /// `syntax error at `...`` or `missing `}``.
    pub message: String,
}

/// How [`check_report`] treats new syntax errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// Append a warning to the receipt of the edit that caused it.
    #[default]
    Warn,
    /// Fail the transaction: the edit that caused it fails with the code
    /// `syntax_error`, the others are held back, nothing is written.
    Fail,
}

/// The new syntax issues of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FileIssues {
    pub path: String,
    pub issues: Vec<SyntaxIssue>,
    /// The 1-based index of the edit blamed for each issue, when one is.
    pub edits: Vec<Option<usize>>,
}

/// Longest excerpt of erroneous text quoted in a message.
const EXCERPT: usize = 40;

/// Every syntax issue of `text`, in document order. ERROR nodes inside an
/// ERROR node are not listed again.
pub fn issues(text: &str, lang: Language) -> Result<Vec<SyntaxIssue>, Error> {
    Ok(keyed(text, lang)?.into_iter().map(|(_, i)| i).collect())
}

/// The issues of `after` that `before` did not have.
pub fn new_issues(before: &str, after: &str, lang: Language) -> Result<Vec<SyntaxIssue>, Error> {
    let mut old: HashMap<Key, usize> = HashMap::new();
    for (key, _) in keyed(before, lang)? {
        *old.entry(key).or_default() += 1;
    }
    let mut out = vec![];
    for (key, issue) in keyed(after, lang)? {
        match old.get_mut(&key) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(issue),
        }
    }
    Ok(out)
}

/// What identifies an issue across an edit: its kind and the CRC-32 of
/// its text.
type Key = (String, u32);

/// Issues with their identity.
fn keyed(source: &str, lang: Language) -> Result<Vec<(Key, SyntaxIssue)>, Error> {
    let (src, _) = crate::body(source);
    let tree = lang::parse(src, lang)?;
    let mut out = vec![];
    let mut stack: Vec<Node> = vec![tree.root_node()];
    let mut cursor = tree.walk();
    while let Some(n) = stack.pop() {
        let issue = if n.is_missing() {
            Some(("missing", format!("missing `{}`", n.kind())))
        } else if n.is_error() {
            let t = src.get(error_start(n).0..n.end_byte()).unwrap_or("").trim();
            let first = t.lines().next().unwrap_or("");
            let mut excerpt: String = first.chars().take(EXCERPT).collect();
            if excerpt.len() < t.len() {
                excerpt.push('…');
            }
            Some(("error", format!("syntax error at `{excerpt}`")))
        } else {
            None
        };
        if let Some((kind, message)) = issue {
            let (start_byte, s) = error_start(n);
            let e = n.end_position();
            let last = if e.column == 0 && e.row > s.row {
                e.row - 1
            } else {
                e.row
            };
            let crc = patchbay::file_crc(match n.is_missing() {
                true => n.kind(),
                false => src.get(start_byte..n.end_byte()).unwrap_or(""),
            });
            out.push((
                (kind.to_owned(), crc),
                SyntaxIssue {
                    kind: kind.to_owned(),
                    lines: [s.row + 1, last + 1],
                    message,
                },
            ));
            continue;
        }
        let start = stack.len();
        stack.extend(n.children(&mut cursor).filter(|c| c.has_error()));
        stack[start..].reverse();
    }
    Ok(out)
}

/// The 1-based line where the first syntax issue of `tree` starts, if it
/// has one (a descent along the first children with errors).
pub(crate) fn first_error_line(tree: &tree_sitter::Tree) -> Option<usize> {
    let mut n = tree.root_node();
    if !n.has_error() {
        return None;
    }
    let mut cursor = tree.walk();
    while !n.is_error() && !n.is_missing() {
        let next = n.children(&mut cursor).find(|c| c.has_error());
        match next {
            Some(c) => n = c,
            None => break,
        }
    }
    Some(error_start(n).1.row + 1)
}

/// Where an ERROR node's trouble starts: tree-sitter often wraps the
/// well-formed statements before the fault into the ERROR too (a Python
/// `def` without its colon makes the whole module one ERROR), so leading
/// children that are complete and error-free are skipped (never the last).
/// Returns the byte offset and position.
fn error_start(n: Node) -> (usize, tree_sitter::Point) {
    let mut cursor = n.walk();
    let kids: Vec<Node> = n.children(&mut cursor).collect();
    let fine = |c: &Node| (c.is_named() || c.is_extra()) && !c.has_error();
    let skip = kids
        .iter()
        .take(kids.len().saturating_sub(1))
        .take_while(|c| fine(c))
        .count();
    kids.get(skip)
        .map_or((n.start_byte(), n.start_position()), |c| {
            (c.start_byte(), c.start_position())
        })
}

/// Checks every file of `report` that has new content and a known
/// language against its text in `before` (absent: a new file). New issues
/// are blamed on the edit whose lines are nearest; see [`Policy`] for what
/// happens then. A file over [`crate::MAX_SOURCE_BYTES`] is not checked,
/// and the feedback says so. Returns the issues found, per file.
pub fn check_report(
    report: &mut Report,
    before: &BTreeMap<String, String>,
    policy: Policy,
) -> Vec<FileIssues> {
    let mut found = vec![];
    let mut skipped = vec![];
    for f in &mut report.files {
        let (Some(after), Some(lang)) = (&f.content, Language::from_path(&f.path)) else {
            continue;
        };
        let old = before.get(&f.path).map_or("", String::as_str);
        let issues = match new_issues(old, after, lang) {
            Ok(issues) => issues,
            Err(e @ Error::TooLarge { .. }) => {
                skipped.push(format!("{}: {e}", f.path));
                continue;
            }
            Err(_) => continue,
        };
        if issues.is_empty() {
            continue;
        }
        let map = LineMap::new(old, after);
        let mut edits = vec![];
        for issue in &issues {
            let blamed = blame(&f.edits, map.to_old(issue.lines));
            edits.push(blamed.map(|k| f.edits[k].index));
            let note = format!(
                "syntax: {} (line {} of the edited file)",
                issue.message, issue.lines[0]
            );
            let Some(r) = blamed.map(|k| &mut f.edits[k]) else {
                continue;
            };
            mark(r, &note, policy);
        }
        // A file that would be written with a new syntax error is not
        // written, even when other files are (partial mode).
        if policy == Policy::Fail {
            f.content = None;
            f.status = patchbay::FileStatus::Failed;
        }
        found.push(FileIssues {
            path: f.path.clone(),
            issues,
            edits,
        });
    }
    for s in &skipped {
        report
            .feedback
            .push_str(&format!("\nSyntax check skipped for {s}."));
    }
    if found.is_empty() {
        return found;
    }
    let mut text = String::from("\nSyntax check (tree-sitter), errors the edits introduced:");
    for fi in &found {
        for (i, e) in fi.issues.iter().zip(&fi.edits) {
            let by = e.map(|k| format!(" (edit {k})")).unwrap_or_default();
            text.push_str(&format!(
                "\n  {} line {}: {}{by}",
                fi.path, i.lines[0], i.message
            ));
        }
    }
    if policy == Policy::Fail && report.status == Status::Applied {
        hold_back_all(report);
        text.push_str(
            "\nNothing was applied. Fix these edits so that the file parses, and send them again.",
        );
    } else if policy == Policy::Fail {
        text.push_str("\nThe files with these errors were not written.");
    }
    report.feedback.push_str(&text);
    found
}

/// What a new syntax issue does to the receipt of the edit blamed for it:
/// a warning, or (under [`Policy::Fail`]) a failure with code
/// `syntax_error`.
fn mark(r: &mut Receipt, note: &str, policy: Policy) {
    match policy {
        Policy::Warn => append(r, &format!("warning: {note}")),
        Policy::Fail => {
            if r.code != Some(Code::SyntaxError) {
                r.message = None;
            }
            r.status = EditStatus::Failed;
            r.code = Some(Code::SyntaxError);
            append(r, &format!("the edit leaves a syntax error: {note}"));
        }
    }
}

/// An applied report with a syntax error under [`Policy::Fail`]: nothing
/// is written, every applied edit is held back, and the summary says so.
fn hold_back_all(report: &mut Report) {
    report.status = Status::Failed;
    for f in &mut report.files {
        f.content = None;
        if f.status != patchbay::FileStatus::Skipped {
            f.status = patchbay::FileStatus::Failed;
        }
        for r in f
            .edits
            .iter_mut()
            .filter(|r| r.status == EditStatus::Applied)
        {
            r.status = EditStatus::Skipped;
            r.code = Some(Code::HeldBack);
            r.message = Some(
                "located, not applied: another edit left a syntax error and the transaction is all-or-nothing"
                    .into(),
            );
        }
    }
    // The summary said every edit applied: say what happened instead.
    report.feedback = patchbay::apply::feedback::summary(report, false);
}

fn append(r: &mut Receipt, note: &str) {
    r.message = Some(match r.message.take() {
        Some(m) => format!("{m}; {note}"),
        None => note.to_owned(),
    });
}

/// The receipt (index into `edits`) whose original lines are nearest to
/// `old` (an original line range); only receipts with lines count.
fn blame(edits: &[Receipt], old: [usize; 2]) -> Option<usize> {
    edits
        .iter()
        .enumerate()
        .filter(|(_, r)| r.status == EditStatus::Applied)
        .filter_map(|(k, r)| r.lines.map(|l| (k, l)))
        .min_by_key(|(_, [a, b])| {
            // An insertion before line n is [n, n-1].
            let (a, b) = (*a, (*b).max(*a));
            if old[1] < a {
                a - old[1]
            } else {
                old[0].saturating_sub(b)
            }
        })
        .map(|(k, _)| k)
}

/// Maps lines of an edited text back to the original, through a line diff.
struct LineMap {
    changes: Vec<patchbay::apply::diff::Change>,
}

impl LineMap {
    fn new(before: &str, after: &str) -> LineMap {
        let b = patchbay::apply::text::Text::new(before);
        let a = patchbay::apply::text::Text::new(after);
        LineMap {
            changes: patchbay::apply::diff::changes_linear(b.lines(), a.lines()),
        }
    }

    /// 1-based lines of the edited text to 1-based original lines: lines
    /// inside a change map to the lines it replaced, others shift.
    fn to_old(&self, lines: [usize; 2]) -> [usize; 2] {
        let one = |l: usize| -> [usize; 2] {
            let x = l.saturating_sub(1);
            let mut shift: isize = 0;
            for c in &self.changes {
                if x < c.new.start {
                    break;
                }
                if x < c.new.end {
                    return [c.old.start + 1, c.old.end.max(c.old.start + 1)];
                }
                shift += c.old.len() as isize - c.new.len() as isize;
            }
            let o = (x as isize + shift).max(0) as usize + 1;
            [o, o]
        };
        [one(lines[0])[0], one(lines[1])[1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_new_errors_count() {
        let before = "fn a() {}\nfn b( {}\n";
        let old = issues(before, Language::Rust).unwrap();
        assert!(!old.is_empty());
        // The old error moves down a line; a new one appears.
        let after = "// moved\nfn a() { let x = ; }\nfn b( {}\n";
        let new = new_issues(before, after, Language::Rust).unwrap();
        assert_eq!(new.len(), 1, "{new:?}");
        assert_eq!(new[0].lines, [2, 2]);
        assert!(new_issues(before, before, Language::Rust)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn lines_map_back_through_changes() {
        let m = LineMap::new("a\nb\nc\nd\n", "a\nX\nY\nc\nd\n");
        assert_eq!(m.to_old([1, 1]), [1, 1]);
        assert_eq!(m.to_old([2, 3]), [2, 2]);
        assert_eq!(m.to_old([4, 5]), [3, 4]);
    }
}
