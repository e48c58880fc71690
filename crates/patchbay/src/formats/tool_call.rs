//! `tool-call`: calls of Anthropic's text-editor tool written as JSON, in the
//! tool's own field names.
//!
//! ```text
//! {"command": "str_replace", "path": "a.py", "old_str": "x = 1", "new_str": "x = 2", "line_hint": 12}
//! {"command": "insert", "path": "a.py", "insert_line": 0, "new_str": "import os"}
//! {"command": "create", "path": "b.py", "file_text": "print(1)\n"}
//! {"command": "view", "path": "a.py", "view_range": [10, -1]}
//! ```
//!
//! One object, an array, or one object per line; fenced or bare, with prose
//! around; also inside tool-use envelopes (`{"name": ..., "input": {...}}`,
//! `{"type": "tool_use", ...}`), all found by [`crate::reading::json_edits`], which
//! also repairs raw newlines in strings and trailing commas.
//!
//! - `str_replace` is [`Op::StrReplace`]: `old_str` must occur once (an
//!   ambiguous one is refused with the lines of every occurrence, unless the
//!   1-based `line_hint` picks one); missing `new_str` deletes.
//! - `insert` is [`Op::Lines`] with an empty range: after line `insert_line`
//!   (0 = the top); past the end is `out_of_range` with the valid range.
//!   `insert_text` is accepted for `new_str`.
//! - `create` is [`Op::Create`]: like Anthropic's reference tool, it does not
//!   overwrite; an existing file is `file_exists` (edit it instead).
//! - `view` is [`Op::View`]: read-only, the numbered lines come back in the
//!   receipt; `view_range` is `[first, last]`, 1-based, `-1` = the end.
//! - `undo_edit` is refused: there is no edit history to undo.
//!
//! Texts are read like a file's text: a final `\n` ends the last line, it
//! does not add an empty one. Paths are relative to the root (an absolute
//! path is `path_escape`). A call cut off by the end of the output is
//! `truncated`; JSON that does not parse is `malformed` with its position.
//! An object with another tool's `command` and no `path` (a shell call) is
//! not an edit and is skipped.
//!
//! Rendering writes one `str_replace` per changed region, with the shortest
//! `old_str` that occurs exactly once, or a `create` for a new file. Cost:
//! one pass over the output; rendering costs a line diff plus one substring
//! count per region.

use super::{Format, ParseOptions};
use crate::apply::diff::unique_blocks;
use crate::apply::feedback::Words;
use crate::apply::text::Text;
use crate::edit::{Check, Code, Edit, Op, Parsed};
use crate::formats::prompt::{self, COUNT};
use crate::reading::json_edits::{self, field, leaves, number, text_lines, Piece};
use serde::Serialize;
use serde_json::{Map, Value};
use std::ops::Range;

pub struct ToolCall;

const COMMANDS: &str = "`str_replace`, `insert`, `create` or `view`";

/// Keys only an editor tool call has.
const KEYS: [&str; 6] = [
    "old_str",
    "new_str",
    "file_text",
    "insert_line",
    "insert_text",
    "view_range",
];

/// Whether a piece of text that is not valid JSON was meant as a call.
fn call_like(s: &str) -> bool {
    s.contains("\"command\"") || KEYS.iter().any(|k| s.contains(&format!("\"{k}\"")))
}

/// How messages name the parts of a `str_replace` call.
pub const WORDS: Words = crate::apply::feedback::STR_REPLACE;

/// Whether a JSON object is a text-editor tool call: a `command` string
/// and one of the tool's fields.
pub fn is_call(m: &Map<String, Value>) -> bool {
    m.get("command").is_some_and(Value::is_string)
        && [
            "old_str",
            "new_str",
            "insert_line",
            "file_text",
            "view_range",
            "path",
        ]
        .iter()
        .any(|k| m.contains_key(*k))
}

impl Format for ToolCall {
    fn json_keys(&self) -> &'static [&'static str] {
        &["\"command\""]
    }

    fn json_claim(&self, m: &Map<String, Value>) -> Option<(f64, &'static str)> {
        is_call(m).then_some((
            0.95,
            "JSON edits with `command` and the text-editor tool's fields",
        ))
    }

    fn cut_json_claim(&self, text: &str) -> Option<(f64, &'static str)> {
        text.contains("\"command\"")
            .then_some((0.6, "an unfinished JSON edit"))
    }

    super::json_stream::stream_methods!();

    fn prompt(&self) -> prompt::Prompt {
        prompt::Prompt {
            instructions: format!("Edit files with JSON tool calls, one object per line: {{\"command\": \"str_replace\", \"path\": ..., \"old_str\": ..., \"new_str\": ...}} where old_str occurs exactly once in the file (add surrounding lines until it does; \"line_hint\" may give its line), {{\"command\": \"insert\", \"path\": ..., \"insert_line\": N, \"new_str\": ...}} to insert after line N (0 = top), {{\"command\": \"create\", \"path\": ..., \"file_text\": ...}} for a new file. {COUNT}"),
            example_view: prompt::plain_view(),
            example_reply: "EDITS: 1\n{\"command\": \"str_replace\", \"path\": \"app.py\", \"old_str\": \"    print(\\\"Hello, \\\" + name)\", \"new_str\": \"    print(f\\\"Hello, {name}!\\\")\"}\n".into(),
        }
    }

    fn sequential(&self) -> bool {
        true
    }

    fn words(&self) -> &'static Words {
        &WORDS
    }

    fn id(&self) -> crate::formats::FormatName {
        crate::formats::FormatName::ToolCall
    }

    fn parse(&self, output: &str, _opt: &ParseOptions) -> Parsed {
        let mut parsed = Parsed::default();
        let mut lines = LineCursor::default();
        for piece in json_edits::scan(output, &call_like) {
            match piece {
                Piece::Value(v, span) => {
                    for (m, path) in leaves(v) {
                        if let Some(op) = call(&m) {
                            let edit = Edit {
                                path,
                                op,
                                span: span.clone(),
                            };
                            parsed.edits.push(edit);
                        }
                    }
                }
                Piece::Truncated(span) => {
                    parsed.truncated = true;
                    let message = format!(
                        "the output ends inside a JSON tool call (from output line {}); the reply was cut off",
                        lines.line_of(output, span.start).0
                    );
                    let path = scrape_path(&output[span.clone()]);
                    let op = Op::invalid(Code::Truncated, message);
                    parsed.edits.push(Edit { path, op, span });
                }
                Piece::Broken(_, span) => {
                    let message = broken(output, &span, lines.line_of(output, span.start));
                    let path = scrape_path(&output[span.clone()]);
                    let op = Op::invalid(Code::Malformed, message);
                    parsed.edits.push(Edit { path, op, span });
                }
            }
        }
        parsed
    }

    fn render(&self, path: &str, before: &str, after: &str) -> String {
        let (b, a) = (Text::new(before), Text::new(after));
        let (bl, al) = (b.lines(), a.lines());
        if bl.is_empty() {
            if al.is_empty() {
                return String::new();
            }
            return line(&Call {
                command: "create",
                path,
                file_text: Some(terminated(al)),
                ..Call::default()
            });
        }
        let flat = terminated(bl);
        let mut blocks = unique_blocks(bl, al, 0);
        let mut out = String::new();
        let mut k = 0;
        while k < blocks.len() {
            let c = blocks[k].clone();
            let (old, new) = (
                terminated(&bl[c.old.clone()]),
                terminated(&al[c.new.clone()]),
            );
            // The natural form (no final newline) first, then anchored at a
            // line end, then at the previous line's end: each is unique once
            // the one before is not, except at the top of the file.
            let bare = |s: &str| s.strip_suffix('\n').unwrap_or(s).to_owned();
            let pick = if !new.is_empty() && occurrences(&flat, &bare(&old)) == 1 {
                Some((bare(&old), bare(&new)))
            } else if occurrences(&flat, &old) == 1 {
                Some((old, new))
            } else if c.old.start > 0 {
                Some((format!("\n{old}"), format!("\n{new}")))
            } else {
                None
            };
            let Some((old_str, new_str)) = pick else {
                // At the top: take one more line, or the next region.
                match blocks.get(k + 1).cloned() {
                    Some(next) if next.old.start <= c.old.end + 1 => {
                        blocks[k].old.end = next.old.end;
                        blocks[k].new.end = next.new.end;
                        blocks.remove(k + 1);
                    }
                    _ => {
                        blocks[k].old.end += 1;
                        blocks[k].new.end += 1;
                    }
                }
                continue;
            };
            out.push_str(&line(&Call {
                command: "str_replace",
                path,
                old_str: Some(old_str),
                new_str: Some(new_str),
                ..Call::default()
            }));
            k += 1;
        }
        out
    }
}

/// The op of one tool-call object, or `None` when it is not an editor call.
fn call(m: &Map<String, Value>) -> Option<Op> {
    let malformed = |message: String| Some(Op::invalid(Code::Malformed, message));
    if m.get("path").is_some_and(|p| !p.is_string()) {
        return malformed("`path` must be a string: the file's path relative to the root".into());
    }
    let Some(command) = m.get("command") else {
        return if KEYS.iter().any(|k| m.contains_key(*k)) {
            malformed(format!("the tool call has no `command`; use {COMMANDS}"))
        } else {
            None
        };
    };
    let result = match command.as_str() {
        Some("str_replace") => str_replace(m),
        Some("insert") => insert(m),
        Some("create") => match m.get("file_text").and_then(text_lines) {
            Some(text) => Ok(Op::Create { text }),
            None => Err("`create` needs `file_text`, the whole text of the new file, as a string".into()),
        },
        Some("view") => view(m.get("view_range")).map(|range| Op::View { range }),
        Some("undo_edit") => Err("`undo_edit` is not supported: patchbay keeps no edit history; to revert, send a `str_replace` that restores the old text".into()),
        // Another tool's command (a shell call, say): not an edit.
        _ if !m.contains_key("path") => return None,
        Some(other) => Err(format!("unknown command `{other}`; use {COMMANDS}")),
        None => Err(format!("`command` must be a string: {COMMANDS}")),
    };
    match result {
        Ok(op) => Some(op),
        Err(message) => malformed(message),
    }
}

fn str_replace(m: &Map<String, Value>) -> Result<Op, String> {
    let old = match m.get("old_str") {
        Some(Value::String(s)) => s.clone(),
        _ => {
            return Err(
                "`str_replace` needs `old_str`, the exact text to replace, as a string".into(),
            )
        }
    };
    let new = match m.get("new_str") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(_) => return Err("`new_str` must be a string".into()),
    };
    let hint = match m.get("line_hint") {
        None | Some(Value::Null) => None,
        Some(v) => match number(v) {
            Some(n) if n >= 1 => Some(n - 1),
            _ => return Err("`line_hint` must be a 1-based line number".into()),
        },
    };
    Ok(Op::StrReplace { old, new, hint })
}

fn insert(m: &Map<String, Value>) -> Result<Op, String> {
    let at = match m.get("insert_line").map(number) {
        Some(Some(n)) => n,
        _ => return Err("`insert` needs `insert_line`, a line number >= 0: the text goes after that line (0 = the top)".into()),
    };
    let Some(new) = field(m, &["new_str", "insert_text"]).and_then(text_lines) else {
        return Err("`insert` needs `new_str`, the text to insert, as a string".into());
    };
    Ok(Op::Lines {
        start: at,
        end: at,
        new,
        check: Check::None,
    })
}

fn view(range: Option<&Value>) -> Result<Option<(usize, Option<usize>)>, String> {
    let bad = || {
        "`view_range` must be [first, last]: 1-based lines, last >= first, or -1 for the end"
            .to_owned()
    };
    let items = match range {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) if items.len() == 2 => items,
        Some(_) => return Err(bad()),
    };
    let first = number(&items[0]).filter(|&n| n >= 1).ok_or_else(bad)?;
    let last = match items[1].as_i64() {
        Some(-1) => None,
        _ => Some(number(&items[1]).filter(|&n| n >= first).ok_or_else(bad)?),
    };
    Ok(Some((first, last)))
}

/// The message for a value that is not valid JSON, with its position in
/// the output.
/// The message for a call that is not JSON; `at` is the output line its
/// span starts on, and `before` the characters of that line before it.
fn broken(output: &str, span: &Range<usize>, (at, before): (usize, usize)) -> String {
    let text = &output[span.clone()];
    match serde_json::from_str::<Value>(text) {
        Err(e) => {
            let line = at + e.line().saturating_sub(1);
            let col = if e.line() <= 1 {
                before + e.column()
            } else {
                e.column()
            };
            let what = e.to_string();
            let what = what.rsplit_once(" at line ").map_or(what.as_str(), |w| w.0);
            format!("the tool call is not valid JSON: {what} at output line {line}, column {col}; write each call as one JSON object with the tool's fields")
        }
        Ok(_) => format!("the tool call at output line {at} is not valid JSON"),
    }
}

/// Output lines of increasing offsets, counted from the previous one
/// (counted from the top for each damaged call, 100,000 of them would be
/// quadratic).
#[derive(Default)]
struct LineCursor {
    at: usize,
    breaks: usize,
    /// Characters between the start of the line holding `at` and `at`.
    column: usize,
}

impl LineCursor {
    /// The 1-based output line of byte `at`, and how many characters of
    /// that line stand before it.
    fn line_of(&mut self, output: &str, at: usize) -> (usize, usize) {
        let at = at.min(output.len());
        let b = output.as_bytes();
        if at < self.at {
            *self = LineCursor::default();
        }
        let mut from = self.at;
        for k in memchr::memchr_iter(b'\n', &b[self.at..at]) {
            self.breaks += 1;
            (from, self.column) = (self.at + k + 1, 0);
        }
        // Characters are the bytes that do not continue a UTF-8 sequence.
        self.column += b[from..at].iter().filter(|&&c| c & 0xc0 != 0x80).count();
        self.at = at;
        (self.breaks + 1, self.column)
    }
}

/// The `"path": "..."` of a call that does not parse, if it can be read.
fn scrape_path(s: &str) -> Option<String> {
    let rest = s[s.find("\"path\"")? + 6..].trim_start();
    let rest = rest.strip_prefix(':')?.trim_start().strip_prefix('"')?;
    let end = rest.find(['"', '\\', '\n'])?;
    (rest.as_bytes()[end] == b'"' && end > 0).then(|| rest[..end].to_owned())
}

/// Occurrences of `needle` in `hay`, overlapping ones included (as the
/// transaction counts them), up to 2.
fn occurrences(hay: &str, needle: &str) -> usize {
    let mut n = 0;
    let mut from = 0;
    while let Some(k) = hay[from..].find(needle) {
        n += 1;
        if n > 1 {
            break;
        }
        from += k + hay[from + k..].chars().next().map_or(1, char::len_utf8);
    }
    n
}

fn terminated(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[derive(Serialize, Default)]
struct Call<'a> {
    command: &'a str,
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    old_str: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new_str: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_text: Option<String>,
}

fn line(c: &Call) -> String {
    let mut s = serde_json::to_string(c).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests;
