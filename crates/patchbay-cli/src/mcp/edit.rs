//! The writing tools: `edit` (the mode's edits of one file) and `apply` (a
//! whole reply in any format). Both go through [`crate::apply::transact`],
//! so what lands on disk is what `patchbay apply` writes for the same
//! reply; a refusal writes nothing and answers with the engine's feedback
//! and the current lines around each refused edit.

use super::view::{self, File};
use super::{lock, Answer, Mode, Session, Settings};
use crate::apply::{transact, Commit, Outcome};
use crate::Failure;
use patchbay::apply::text::Text;
use patchbay::{ApplyOptions, FileStatus, FormatName, Options, Report, Status};
use rmcp::ErrorData;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::Mutex;

/// Lines of context shown around a changed or refused region.
const CONTEXT: usize = 2;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    path: String,
    edits: Vec<Map<String, Value>>,
}

/// `edit`: the edits become one reply in the mode's format, applied all or
/// nothing.
pub fn edit(s: &Settings, session: &Mutex<Session>, a: EditArgs) -> Answer {
    let rel = view::relative(s, &a.path)?;
    if a.edits.is_empty() {
        return Err("`edits` is empty: give at least one edit".into());
    }
    let mut reply = String::new();
    for mut e in a.edits {
        e.entry("path")
            .or_insert_with(|| Value::String(rel.clone()));
        if s.mode == Mode::StrReplace && !e.contains_key("command") {
            let command = match e.contains_key("insert_line") {
                true => "insert",
                false => "str_replace",
            };
            e.insert("command".into(), command.into());
        }
        reply.push_str(&Value::Object(e).to_string());
        reply.push('\n');
    }
    let mut how = Commit::default();
    if s.mode == Mode::StrReplace {
        if let Some(&crc) = lock(session).shown.get(&rel) {
            how.shown.insert(rel.clone(), crc);
        }
    }
    let done = commit(s, session, &reply, s.mode.format(), Some(rel), &how)?;
    answer(s, session, &done, false)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApplyArgs {
    reply: String,
    /// Read where the arguments are: an unknown name is a protocol error.
    format: Option<FormatName>,
    path: Option<String>,
    dry_run: Option<bool>,
}

/// `apply`: an unknown format is a protocol error (of the arguments); a
/// refusal is a result.
pub fn apply(s: &Settings, session: &Mutex<Session>, a: &ApplyArgs) -> Result<Answer, ErrorData> {
    let format = a.format.unwrap_or(FormatName::Auto);
    let dry_run = a.dry_run.unwrap_or(false);
    let default = match a.path.as_deref().map(|p| view::relative(s, p)).transpose() {
        Ok(d) => d,
        Err(e) => return Ok(Err(e)),
    };
    let how = Commit {
        dry_run,
        ..Commit::default()
    };
    Ok(commit(s, session, &a.reply, format, default, &how)
        .and_then(|done| answer(s, session, &done, dry_run)))
}

/// Runs the reply through the write layer with the session's snapshot.
fn commit(
    s: &Settings,
    session: &Mutex<Session>,
    reply: &str,
    format: FormatName,
    default: Option<String>,
    how: &Commit,
) -> Result<Outcome, String> {
    let api = ApplyOptions {
        format,
        tags: s.tags,
        transaction: Options {
            default_path: default,
            seen: Some(lock(session).seen.clone()),
            ..Options::default()
        },
        ..ApplyOptions::default()
    };
    transact(&s.root, reply, &api, how).map_err(|e| match e {
        Failure::Usage(m) | Failure::Io(m) => m,
    })
}

/// The tool's answer to a transaction: what was written and the new lines,
/// or the refusal with the current lines.
fn answer(s: &Settings, session: &Mutex<Session>, done: &Outcome, dry_run: bool) -> Answer {
    let r = &done.report;
    if r.status != Status::Applied {
        let mut out = format!("{}\nNothing was written.\n", r.feedback.trim_end());
        out.push_str(&current_lines(s, session, done));
        return Err(out);
    }
    let mut out = String::new();
    for f in &r.files {
        let verb = match f.status {
            FileStatus::Created => "created",
            FileStatus::Deleted => "deleted",
            FileStatus::Skipped => continue,
            _ => "edited",
        };
        out.push_str(&format!(
            "{}{verb} {}\n",
            if dry_run { "would have " } else { "" },
            f.path
        ));
    }
    if dry_run {
        out.push_str(&format!(
            "{}\nDry run: nothing was written.\n",
            r.feedback.trim_end()
        ));
        out.push_str(&preview(r, done));
        return Ok(out);
    }
    for f in &r.files {
        if let (Some(after), FileStatus::Applied | FileStatus::Created) = (&f.content, f.status) {
            let before = done.before.get(&f.path).map_or("", String::as_str);
            out.push_str(&changed(s, session, &f.path, before, after));
        }
    }
    Ok(out)
}

/// The canonical diff of each file a dry run would change.
fn preview(r: &Report, done: &Outcome) -> String {
    let mut out = String::new();
    for f in &r.files {
        let before = done.before.get(&f.path).map_or("", String::as_str);
        let after = f.content.as_deref().unwrap_or("");
        if let Ok(d) = patchbay::render(FormatName::Udiff, &f.path, before, after) {
            out.push_str(&d);
        }
    }
    out
}

/// The current lines around every refused edit that the engine located,
/// in the mode's view (recorded as shown), so the next try can use them.
fn current_lines(s: &Settings, session: &Mutex<Session>, done: &Outcome) -> String {
    let mut out = String::new();
    for f in &done.report.files {
        let Some(text) = done.before.get(&f.path) else {
            continue;
        };
        let ranges: Vec<(usize, usize)> = f
            .edits
            .iter()
            .filter(|e| e.code.is_some())
            .filter_map(|e| e.lines)
            .map(|[a, b]| (a.saturating_sub(CONTEXT), b.max(a) + CONTEXT))
            .collect();
        if ranges.is_empty() {
            continue;
        }
        let file = File {
            rel: f.path.clone(),
            text: text.clone(),
        };
        out.push_str("Current lines:\n");
        out.push_str(&view::lines(s, session, &file, &ranges));
    }
    out
}

/// After a write: the session's record of the file follows the edit (the
/// lines shown before keep their place, shifted past the change), and the
/// changed region is shown with its context.
fn changed(s: &Settings, session: &Mutex<Session>, rel: &str, before: &str, after: &str) -> String {
    let (b, a) = (Text::new(before), Text::new(after));
    let (old, new) = region(b.lines(), a.lines());
    {
        let mut held = lock(session);
        let known = held.ranges.remove(rel).unwrap_or_default();
        held.seen.0.remove(rel);
        let moved = remap(&known, old, new);
        held.seen.record(rel, after, &moved);
        held.ranges.insert(rel.to_owned(), moved);
    }
    let file = File {
        rel: rel.to_owned(),
        text: after.to_owned(),
    };
    let shown = (new.0.saturating_sub(CONTEXT), new.1 + CONTEXT);
    format!("New lines:\n{}", view::lines(s, session, &file, &[shown]))
}

/// The lines that differ between two texts: `(old, new)` 1-based ranges
/// `(first, last)` between the common head and tail (`last < first` when
/// nothing is on that side, as for a pure insertion or deletion).
fn region(b: &[&str], a: &[&str]) -> ((usize, usize), (usize, usize)) {
    let head = b.iter().zip(a).take_while(|(x, y)| x == y).count();
    let room = b.len().min(a.len()) - head;
    let tail = b
        .iter()
        .rev()
        .zip(a.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    ((head + 1, b.len() - tail), (head + 1, a.len() - tail))
}

/// Ranges of the old numbering carried to the new: lines before the change
/// keep their numbers, lines after it move by the change in length, lines
/// inside it are dropped (they are shown anew).
fn remap(
    ranges: &[(usize, usize)],
    old: (usize, usize),
    new: (usize, usize),
) -> Vec<(usize, usize)> {
    let shift = |n: usize| n + new.1 + 1 - new.0 - (old.1 + 1 - old.0);
    let mut out = vec![];
    for &(a, b) in ranges {
        if a < old.0 {
            out.push((a, b.min(old.0 - 1)));
        }
        if b > old.1 {
            out.push((shift(a.max(old.1 + 1)), shift(b)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{region, remap};

    #[test]
    fn the_region_is_between_the_common_head_and_tail() {
        let b = ["a", "b", "c", "d"];
        assert_eq!(region(&b, &["a", "X", "Y", "c", "d"]), ((2, 2), (2, 3)));
        // A pure insertion: nothing on the old side.
        assert_eq!(region(&b, &["a", "b", "N", "c", "d"]), ((3, 2), (3, 3)));
        // A deletion: nothing on the new side.
        assert_eq!(region(&b, &["a", "d"]), ((2, 3), (2, 1)));
    }

    #[test]
    fn shown_ranges_move_with_the_lines() {
        // Lines 1-10 shown; 4-5 replaced by three lines: 1-3 stay, 6-10
        // become 7-11.
        assert_eq!(remap(&[(1, 10)], (4, 5), (4, 6)), [(1, 3), (7, 11)]);
        // A deletion of 2-3 pulls 4-10 up to 2-8.
        assert_eq!(remap(&[(1, 10)], (2, 3), (2, 1)), [(1, 1), (2, 8)]);
    }
}
