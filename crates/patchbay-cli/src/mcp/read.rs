//! The read-only tools: `read` (a file, a line range or a symbol, in the
//! mode's view; a file over the budget as its outline and the sections the
//! planner picks for the task), `outline` and `tokens`.

use super::view::{self, File};
use super::{Answer, Session, Settings};
use patchbay::budget::tokens::Tokenizer;
use patchbay::budget::{plan, FileInput, FilePlan, PlanOptions, PlannedSection, Request, Section};
use rmcp::ErrorData;
use serde::Deserialize;
use std::sync::Mutex;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    path: String,
    start: Option<usize>,
    end: Option<usize>,
    symbol: Option<String>,
    task: Option<String>,
}

/// `read`.
pub fn read(s: &Settings, session: &Mutex<Session>, a: &ReadArgs) -> Answer {
    let f = view::load(s, &a.path)?;
    let n = patchbay::apply::text::Text::new(&f.text).len();
    if let Some(symbol) = &a.symbol {
        let (start, end) = symbol_lines(&f, symbol)?;
        return Ok(view::lines(s, session, &f, &[(start, end)]));
    }
    if a.start.is_some() || a.end.is_some() {
        let (start, end) = (a.start.unwrap_or(1), a.end.unwrap_or(n));
        if start == 0 || start > end {
            return Err(format!(
                "out_of_range: start {start} and end {end} do not name lines of {} (1 to {n})",
                f.rel
            ));
        }
        return Ok(view::lines(s, session, &f, &[(start, end)]));
    }
    let whole = view::lines(s, session, &f, &[(1, n.max(1))]);
    let tokens = s.tokenizer.count(&whole);
    if tokens <= s.budget {
        return Ok(whole);
    }
    Ok(planned(
        s,
        session,
        &f,
        tokens,
        a.task.as_deref().unwrap_or(""),
    ))
}

/// The lines of `symbol` (a name, a qualified name or a line number).
fn symbol_lines(f: &File, symbol: &str) -> Result<(usize, usize), String> {
    let lang = patchbay_syntax::Language::resolve(&f.rel, None).map_err(|e| e.to_string())?;
    let slice =
        patchbay_syntax::slice::slice(&f.rel, &f.text, lang, symbol).map_err(|e| e.to_string())?;
    Ok((slice.lines[0], slice.lines[1]))
}

/// A file over the budget: the sections the planner picks for `task`, the
/// outline around them with what was left out, and how to ask for the
/// rest. A quarter of the budget goes to the outline, the rest to the
/// sections: the planner prices plain text, so its window is scaled by
/// how much larger this mode's view of the file is than the plain text,
/// and narrowed (at most [`PLAN_TRIES`] times) while the answer is still
/// over the budget. Only the answer sent is recorded as shown.
fn planned(s: &Settings, session: &Mutex<Session>, f: &File, tokens: usize, task: &str) -> String {
    let plain = s.tokenizer.count(&f.text).max(1);
    let outline = sections(&f.rel, &f.text);
    let mut window = (s.budget - s.budget / 4) * plain / tokens.max(plain);
    let mut ranges = None;
    for _ in 0..PLAN_TRIES {
        let Some(fp) = plan_file(s, f, task, window, outline.clone()) else {
            break;
        };
        let scratch = Mutex::new(Session::default());
        let answer = plan_answer(s, &scratch, f, tokens, task, &fp);
        let over = s.tokenizer.count(&answer).saturating_sub(s.budget);
        ranges = Some(fp);
        if over == 0 {
            break;
        }
        // Sections are whole, so a window a few tokens smaller may pick the
        // same ones: each try gives up a twentieth more.
        window = window.saturating_sub(over * plain / tokens.max(plain) + window / 20);
    }
    match ranges {
        Some(fp) => plan_answer(s, session, f, tokens, task, &fp),
        None => {
            let index = patchbay::budget::line_index(&f.rel, &f.text, outline, s.tokenizer);
            format!(
                "{} is {tokens} tokens in this view, over the read budget of {}; not even its first section fits, so here is (the start of) its outline.\n{}Ask for lines with read(path, start, end) or a symbol with read(path, symbol).\n",
                f.rel,
                s.budget,
                outline_near(s, &index, s.budget / 2)
            )
        }
    }
}

/// Times [`planned`] plans a file whose answer came out over the budget.
const PLAN_TRIES: usize = 3;

/// The planner's choice for one file in `window` tokens, if any fits.
fn plan_file(
    s: &Settings,
    f: &File,
    task: &str,
    window: usize,
    outline: Option<Vec<Section>>,
) -> Option<FilePlan> {
    let req = Request {
        window,
        task: task.to_owned(),
        files: vec![FileInput {
            path: f.rel.clone(),
            text: f.text.clone(),
            sections: outline,
        }],
        options: PlanOptions {
            tokenizer: s.tokenizer,
            ..PlanOptions::default()
        },
        ..Request::default()
    };
    plan(&req).ok()?.files.into_iter().next()
}

/// The answer for a plan: what it is, the outline around the shown
/// sections, the sections in the mode's view, and the lines left out.
fn plan_answer(
    s: &Settings,
    session: &Mutex<Session>,
    f: &File,
    tokens: usize,
    task: &str,
    fp: &FilePlan,
) -> String {
    let mut out = format!(
        "{} is {tokens} tokens in this view, over the read budget of {}; {}\n",
        f.rel,
        s.budget,
        if task.is_empty() {
            "these are the sections that fit (give `task` to choose by what you mean to change)."
        } else {
            "these are the sections the budget planner picked for the task."
        }
    );
    out.push_str("\nOutline (lines; * = shown below):\n");
    out.push_str(&outline_near(s, &fp.index, s.budget / 4));
    out.push('\n');
    out.push_str(&view::lines(s, session, f, &fp.ranges));
    let left_out = left_out(&fp.index);
    if !left_out.is_empty() {
        out.push_str(&format!(
            "\nLeft out: lines {left_out}. Read them with read(path, start, end) or read(path, symbol).\n"
        ));
    }
    out
}

/// The outline entries nearest the shown sections (the shown ones first,
/// then their neighbours, nearest first) that fit in `cap` tokens, in file
/// order, with a count of the entries left out.
fn outline_near(s: &Settings, index: &[PlannedSection], cap: usize) -> String {
    let line = |p: &PlannedSection| {
        let mark = if p.selected { "*" } else { " " };
        let sec = &p.section;
        format!(
            "{mark} {}-{} {} {}\n",
            sec.start_line, sec.end_line, sec.kind, sec.name
        )
    };
    let shown: Vec<usize> = (0..index.len()).filter(|&k| index[k].selected).collect();
    let distance = |k: usize| shown.iter().map(|&j| k.abs_diff(j)).min().unwrap_or(k);
    let mut order: Vec<usize> = (0..index.len()).collect();
    order.sort_by_key(|&k| (distance(k), k));
    let mut keep = vec![false; index.len()];
    let mut spent = 0;
    for k in order {
        let cost = s.tokenizer.count(&line(&index[k]));
        if spent + cost > cap {
            break;
        }
        spent += cost;
        keep[k] = true;
    }
    let mut out = String::new();
    let mut skipped = 0;
    for (k, p) in index.iter().enumerate() {
        if keep[k] {
            if skipped > 0 {
                out.push_str(&format!("  ... {skipped} more (outline lists them all)\n"));
                skipped = 0;
            }
            out.push_str(&line(p));
        } else {
            skipped += 1;
        }
    }
    if skipped > 0 {
        out.push_str(&format!("  ... {skipped} more (outline lists them all)\n"));
    }
    out
}

/// The lines of the sections not shown, as runs (`1-40, 90-200`).
fn left_out(index: &[PlannedSection]) -> String {
    let mut runs: Vec<(usize, usize)> = vec![];
    for p in index.iter().filter(|p| !p.selected) {
        let (a, b) = (p.section.start_line, p.section.end_line);
        match runs.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => runs.push((a, b)),
        }
    }
    let parts: Vec<String> = runs.iter().map(|(a, b)| format!("{a}-{b}")).collect();
    parts.join(", ")
}

/// The tree-sitter outline as planner sections, when the language is
/// known (else the planner's heuristic index).
fn sections(path: &str, text: &str) -> Option<Vec<Section>> {
    crate::budget::outline(path, text)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutlineArgs {
    path: String,
}

/// `outline`.
pub fn outline(s: &Settings, a: &OutlineArgs) -> Answer {
    let f = view::load(s, &a.path)?;
    Ok(outline_of(&f.rel, &f.text))
}

/// The symbols of a file with their lines (tree-sitter), or the planner's
/// heuristic sections for a language without a grammar.
fn outline_of(rel: &str, text: &str) -> String {
    let n = patchbay::apply::text::Text::new(text).len();
    let lang = patchbay_syntax::Language::from_path(rel).filter(|l| l.enabled());
    if let Some(o) = lang.and_then(|l| patchbay_syntax::outline(text, l).ok()) {
        let mut out = format!("{rel}: {n} lines, {} symbols\n", o.symbols.len());
        out.push_str(&o.render());
        for note in &o.notes {
            out.push_str(&format!("note: {note}\n"));
        }
        return out;
    }
    let mut out = format!("{rel}: {n} lines (no grammar for it: sections by indentation)\n");
    for sec in patchbay::budget::index::sections(text, rel) {
        out.push_str(&format!(
            "{}-{} {} {}\n",
            sec.start_line, sec.end_line, sec.kind, sec.name
        ));
    }
    out
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokensArgs {
    text: Option<String>,
    path: Option<String>,
    tokenizer: Option<String>,
}

/// `tokens`: a bad tokenizer name or no input is a protocol error.
pub fn tokens(s: &Settings, a: &TokensArgs) -> Result<Answer, ErrorData> {
    let tokenizer = match &a.tokenizer {
        Some(name) => {
            Tokenizer::parse(name).map_err(|e| ErrorData::invalid_params(e.to_string(), None))?
        }
        None => s.tokenizer,
    };
    if a.text.is_none() && a.path.is_none() {
        return Err(ErrorData::invalid_params(
            "tokens needs `text`, `path` or both",
            None,
        ));
    }
    let mut out = String::new();
    if let Some(text) = &a.text {
        out.push_str(&format!(
            "text: {} tokens ({})\n",
            tokenizer.count(text),
            tokenizer.name()
        ));
    }
    if let Some(path) = &a.path {
        let f = match view::load(s, path) {
            Ok(f) => f,
            Err(e) => return Ok(Err(e)),
        };
        let n = patchbay::apply::text::Text::new(&f.text).len();
        out.push_str(&format!(
            "{}: {n} lines, {} tokens ({})\n",
            f.rel,
            tokenizer.count(&f.text),
            tokenizer.name()
        ));
    }
    Ok(Ok(out))
}
