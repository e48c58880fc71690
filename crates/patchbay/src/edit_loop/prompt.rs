//! What the loop shows the model: the system prompt from the prompt kit,
//! and the first user message with the task and each file in the view its
//! format needs ([`crate::formats::Format::view`]: tagged, numbered under
//! the file's CRC, or plain), whole or as the sections the budget plan
//! chose.

use crate::apply::seen::{crc_view, seen_view, SeenLines};
use crate::apply::tags::{self, TagOptions};
use crate::budget::{self, select, FileInput, FileMode, FilePlan, LineNumbers, Plan, PlanOptions};
use crate::formats::View;
use std::collections::BTreeMap;

/// The first user message and what it commits the loop to.
pub(super) struct First {
    pub text: String,
    pub plan: Plan,
    /// The `lines` format's snapshot of what was shown.
    pub seen: Option<SeenLines>,
}

/// Plans the first request and renders it. `Err` carries the planner's
/// message when even the minimum does not fit the window.
pub(super) fn first_message(
    cfg: &super::LoopConfig,
    system: &str,
    files: &BTreeMap<String, String>,
) -> Result<First, budget::PlanError> {
    let model_view = cfg.view();
    let line_numbers = match model_view.numbers_every_line() {
        true => LineNumbers::Every,
        false => LineNumbers::Sections,
    };
    let req = budget::Request {
        window: cfg.context_length,
        system: system.to_owned(),
        reserve: cfg.reply_limit,
        task: cfg.task.clone(),
        files: files
            .iter()
            .map(|(path, text)| FileInput {
                path: path.clone(),
                text: text.clone(),
                sections: None,
            })
            .collect(),
        options: PlanOptions {
            tokenizer: cfg.tokenizer,
            line_numbers,
            ..PlanOptions::default()
        },
        ..budget::Request::default()
    };
    let plan = budget::plan(&req)?;
    let mut seen = SeenLines::default();
    let mut text = format!("Task: {}\n\n", cfg.task);
    for fp in &plan.files {
        let body = files.get(&fp.path).map(String::as_str).unwrap_or("");
        text.push_str(&file_view(model_view, fp, body, &mut seen));
        text.push('\n');
    }
    text.push_str("Reply with the edits only, in the format described.");
    let seen = model_view.keeps_seen().then_some(seen);
    Ok(First { text, plan, seen })
}

/// One file as the format needs it, whole or in the plan's sections; in
/// sections mode the other sections are listed by name so the model knows
/// what it was not shown.
fn file_view(model_view: View, fp: &FilePlan, text: &str, seen: &mut SeenLines) -> String {
    let whole = fp.mode == FileMode::Whole;
    let mut out = if whole {
        view(model_view, &fp.path, text, seen)
    } else {
        ranges_view(model_view, &fp.path, text, &fp.ranges, seen)
    };
    if !whole {
        let rest: Vec<String> = fp
            .index
            .iter()
            .filter(|s| !s.selected)
            .map(|s| {
                let sec = &s.section;
                format!("  {} (lines {}-{})", sec.name, sec.start_line, sec.end_line)
            })
            .collect();
        if !rest.is_empty() {
            out.push_str("Not shown (ask for nothing; edit only what is shown):\n");
            out.push_str(&rest.join("\n"));
            out.push('\n');
        }
    }
    out
}

/// A whole file in the format's view (also used for files a round changed).
pub(super) fn view(model_view: View, path: &str, text: &str, seen: &mut SeenLines) -> String {
    match model_view {
        View::Tagged => format!("{path}\n{}", tags::view(text, TagOptions::default())),
        View::Numbered => {
            seen.record_crc(path, text);
            crc_view(path, text)
        }
        View::Plain => {
            let nl = if text.ends_with('\n') || text.is_empty() {
                ""
            } else {
                "\n"
            };
            format!("{path}\n```\n{text}{nl}```\n")
        }
    }
}

/// Line ranges (1-based, inclusive) of a file in the format's view, with
/// their original line numbers (hashline tags and `lines` numbers check
/// against the whole file, so a partial view edits like a whole one).
fn ranges_view(
    model_view: View,
    path: &str,
    text: &str,
    ranges: &[(usize, usize)],
    seen: &mut SeenLines,
) -> String {
    match model_view {
        View::Tagged => {
            let tagged = tags::view(text, TagOptions::default());
            let lines: Vec<&str> = tagged.lines().collect();
            let mut out = format!(
                "{path} (lines {} of {}; the rest is not shown)\n",
                shown(ranges),
                lines.len()
            );
            for &(a, b) in ranges {
                for l in lines.get(a - 1..b.min(lines.len())).unwrap_or(&[]) {
                    out.push_str(l);
                    out.push('\n');
                }
            }
            out
        }
        View::Numbered => {
            let (v, s) = seen_view(path, text, ranges);
            seen.merge(s);
            v
        }
        View::Plain => {
            let lines: Vec<&str> = text.lines().collect();
            format!(
                "```\n{}```\n",
                select::render(path, &lines, ranges, LineNumbers::Sections)
            )
        }
    }
}

/// Lines of context shown around a changed region.
const AROUND: usize = 3;

/// A file a round changed, for the retry message: whole when its view
/// costs at most `budget` tokens, else only the changed regions (with
/// [`AROUND`] lines of context) in the format's view.
pub(super) fn changed_view(
    model_view: View,
    path: &str,
    (old, new): (&str, &str),
    budget: usize,
    tokenizer: crate::budget::tokens::Tokenizer,
    seen: &mut SeenLines,
) -> String {
    let mut probe = SeenLines::default();
    let whole = view(model_view, path, new, &mut probe);
    if tokenizer.count(&whole) <= budget {
        seen.merge(probe);
        return whole;
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let n = b.len();
    let mut ranges: Vec<(usize, usize)> = vec![];
    for c in crate::apply::diff::changes_linear(&a, &b) {
        let first = c.new.start.saturating_sub(AROUND) + 1;
        let last = (c.new.end + AROUND).min(n);
        match ranges.last_mut() {
            Some(r) if first <= r.1 + 1 => r.1 = r.1.max(last),
            _ if first <= last => ranges.push((first, last)),
            _ => {}
        }
    }
    if model_view.keeps_seen() {
        // The file changed: the old records of it no longer hold.
        seen.0.remove(path);
    }
    ranges_view(model_view, path, new, &ranges, seen)
}

fn shown(ranges: &[(usize, usize)]) -> String {
    let r: Vec<String> = ranges.iter().map(|(a, b)| format!("{a}-{b}")).collect();
    r.join(", ")
}
