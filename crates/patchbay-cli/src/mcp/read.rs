//! The read-only tools: `read` (a file, a line range or a symbol, in the
//! mode's view; a file over the budget as its outline and the sections the
//! planner picks for the task), `outline` and `tokens`.

use super::view::{self, File};
use super::{Answer, Session, Settings};
use patchbay::budget::tokens::Tokenizer;
use patchbay::budget::{plan, FileInput, PlanOptions, Request, Section};
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
/// outline with what was left out, and how to ask for the rest.
fn planned(s: &Settings, session: &Mutex<Session>, f: &File, tokens: usize, task: &str) -> String {
    let req = Request {
        window: s.budget,
        task: task.to_owned(),
        files: vec![FileInput {
            path: f.rel.clone(),
            text: f.text.clone(),
            sections: sections(&f.rel, &f.text),
        }],
        options: PlanOptions {
            tokenizer: s.tokenizer,
            ..PlanOptions::default()
        },
        ..Request::default()
    };
    let mut out = format!(
        "{} is {tokens} tokens in this view, over the read budget of {}; ",
        f.rel, s.budget
    );
    let Some(fp) = plan(&req).ok().and_then(|p| p.files.into_iter().next()) else {
        out.push_str("not even its first section fits, so here is its outline.\n");
        out.push_str(&outline_of(&f.rel, &f.text));
        out.push_str(
            "\nAsk for lines with read(path, start, end) or a symbol with read(path, symbol).\n",
        );
        return out;
    };
    out.push_str(if task.is_empty() {
        "these are the sections that fit (give `task` to choose by what you mean to change).\n"
    } else {
        "these are the sections the budget planner picked for the task.\n"
    });
    let mut left_out = String::new();
    out.push_str("\nOutline (lines; * = shown below):\n");
    for p in &fp.index {
        let sec = &p.section;
        let mark = if p.selected { "*" } else { " " };
        out.push_str(&format!(
            "{mark} {}-{} {} {}\n",
            sec.start_line, sec.end_line, sec.kind, sec.name
        ));
        if !p.selected {
            left_out.push_str(&format!("{}-{}, ", sec.start_line, sec.end_line));
        }
    }
    // The planner's reserve is its own rendering; the view here may cost
    // more per line, so the shown ranges are the planner's, not re-priced.
    out.push('\n');
    out.push_str(&view::lines(s, session, f, &fp.ranges));
    if !left_out.is_empty() {
        out.push_str(&format!(
            "\nLeft out: lines {}. Read them with read(path, start, end) or read(path, symbol).\n",
            left_out.trim_end_matches([',', ' '])
        ));
    }
    out
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
