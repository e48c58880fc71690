//! `auto`: which format an output is written in, from its markers, with a
//! confidence and a reason, so a playground user can paste anything.
//!
//! Every format is recognised by its own markers here, including formats
//! whose module is not registered yet; a guess is only returned when
//! [`crate::formats::by_name`] knows the name, otherwise the next guess is taken.
//!
//! | format | marker |
//! |---|---|
//! | `search-replace` | a `<<<<<<< SEARCH` line |
//! | `apply-patch` | `*** Begin Patch` (or `*** Update/Add/Delete File:`) |
//! | `udiff` | `diff --git`, a `---` line followed by `+++`, or `@@ -N,M +N,M @@` |
//! | `lines` | an `@@ [PATH] RANGE` block header; JSON with a plain `lines` range, `crc32`, or `line` without a tag |
//! | `hashline` | JSON with `tag`, or `lines` holding `N:TAG` entries |
//! | `tool-call` | JSON with `command` and `old_str`/`new_str`/`insert_line`/`file_text`/`view_range` |
//! | `whole` | a fenced block and none of the above |
//!
//! When markers of several formats occur, the one that comes first in the
//! output wins: the outer structure starts first, and the other format's
//! markers are then part of its content (a SEARCH block whose new text
//! holds `*** Begin Patch` is search-replace; a V4A patch that adds a line
//! `<<<<<<< SEARCH` is apply-patch). Inside one JSON object, `command` wins
//! over `tag` (the tool-call's discriminator), and a `lines` value of digits
//! only (`"10:23"`) is a range, not a line with tag `23`.
//!
//! A whole-file block (a fence named by a path) is the outer structure too
//! when its text holds another format's marker without being an edit in
//! that format: JSON with other text around it (unless the fence says
//! `json`), or hunk headers without a file header that do not start the
//! block or come with no `+`/`-` line and a line that is not diff syntax
//! (unless the fence says `diff`). Those markers are content.
//!
//! Cost: one pass over the lines and one JSON scan of the output, plus one
//! JSON scan of each named fenced block.

use super::json_edits::{self, leaves, Piece};
use crate::formats::udiff::hunk_header;
use crate::formats::{by_name, lines, search_replace, whole};
use crate::reply::scan::{fence_open, find_fence_close, out_lines, path_from_info, OutLine};
use serde_json::{Map, Value};
use std::cell::OnceCell;
use std::ops::Range;

/// A guess of the format of an output, with a confidence in `0.0..=1.0`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Detection {
    pub format: &'static str,
    pub confidence: f64,
    pub reason: String,
}

/// A guess: a format, where its first marker is, how sure, why.
struct Guess {
    format: &'static str,
    at: usize,
    confidence: f64,
    reason: String,
}

fn v4a(line: &str) -> Option<bool> {
    let t = line.trim();
    if t == "*** Begin Patch" {
        return Some(true);
    }
    ["*** Update File:", "*** Add File:", "*** Delete File:"]
        .iter()
        .any(|p| t.starts_with(p))
        .then_some(false)
}

/// The text of whole-file blocks (a fence named by a path on the line
/// above or in its info string) that holds another format's marker without
/// being an edit in that format: those markers are the file's content.
#[derive(Default)]
struct FileTexts {
    /// Blocks whose JSON is not all they hold (JSON lines in a file).
    json: Vec<Range<usize>>,
    /// Blocks whose hunk headers have no `+`/`-` line to go with them.
    diff: Vec<Range<usize>>,
}

/// Whether `at` lies in one of `ranges` (disjoint, in output order).
fn inside(ranges: &[Range<usize>], at: usize) -> bool {
    let k = ranges.partition_point(|r| r.end <= at);
    ranges.get(k).is_some_and(|r| r.contains(&at))
}

/// Whether a block's text is JSON values and nothing else (besides the
/// brackets and commas of an array that did not parse as a whole).
fn only_json(text: &str) -> bool {
    let mut rest = String::with_capacity(text.len());
    let mut at = 0;
    for piece in json_edits::scan(text, &|_: &str| true) {
        let (Piece::Value(_, r) | Piece::Truncated(r) | Piece::Broken(_, r)) = piece;
        rest.push_str(&text[at..r.start.max(at)]);
        at = at.max(r.end);
    }
    rest.push_str(&text[at.min(text.len())..]);
    rest.chars()
        .all(|c| c.is_whitespace() || matches!(c, '[' | ']' | ','))
}

/// Whether a block's text is not a diff although it holds a hunk header: it
/// has no file header (`diff --git`, `---`/`+++`) and either does not start
/// with a hunk header, or none of its lines adds or removes anything while
/// one is not diff syntax.
fn no_diff(body: &[OutLine]) -> bool {
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

fn file_texts(output: &str, ls: &[OutLine]) -> FileTexts {
    let mut out = FileTexts::default();
    let mut i = 0;
    while i < ls.len() {
        let Some(f) = fence_open(ls[i].text) else {
            i += 1;
            continue;
        };
        let Some(close) = find_fence_close(ls, i) else {
            break;
        };
        let named = path_from_info(f.info).is_some() || whole::named_above(ls, i);
        let lang = f.info.split_whitespace().next().unwrap_or("");
        let text = ls[i].end..ls[close].start;
        let is = |names: &[&str]| names.iter().any(|n| lang.eq_ignore_ascii_case(n));
        if named && !is(&["json", "jsonl", "jsonc", "json5"]) && !only_json(&output[text.clone()]) {
            out.json.push(text.clone());
        }
        if named && !is(&["diff", "patch", "udiff"]) && no_diff(&ls[i + 1..close]) {
            out.diff.push(text);
        }
        i = close + 1;
    }
    out
}

/// Guesses from line markers, the first of each format.
fn line_guesses(ls: &[OutLine], files: &FileTexts, out: &mut Vec<Guess>) {
    let any = |f: &dyn Fn(&str) -> bool| ls.iter().any(|l| f(l.text));
    // Each "does the output have a closing marker" answer is the same for
    // every marker line: asked once, not once per line (marker soup).
    let (tail, end, hunks) = (OnceCell::new(), OnceCell::new(), OnceCell::new());
    let mut seen: Vec<&str> = vec![];
    let mut push = |g: Guess, out: &mut Vec<Guess>| {
        if !seen.contains(&g.format) {
            seen.push(g.format);
            out.push(g);
        }
    };
    for (i, l) in ls.iter().enumerate() {
        let t = l.text;
        if search_replace::is_head(t) {
            let sure = *tail.get_or_init(|| any(&search_replace::is_tail));
            push(
                Guess {
                    format: "search-replace",
                    at: l.start,
                    confidence: if sure { 0.98 } else { 0.8 },
                    reason: "has a `<<<<<<< SEARCH` marker".into(),
                },
                out,
            );
        } else if let Some(begin) = v4a(t) {
            let end = *end.get_or_init(|| any(&|x| x.trim() == "*** End Patch"));
            push(
                Guess {
                    format: "apply-patch",
                    at: l.start,
                    confidence: match (begin, end) {
                        (true, true) => 0.98,
                        (true, false) => 0.9,
                        _ => 0.8,
                    },
                    reason: "has `*** Begin Patch` / `*** Update File:` markers".into(),
                },
                out,
            );
        } else if (t.starts_with("diff --git ")
            || (t.starts_with("--- ") && ls.get(i + 1).is_some_and(|n| n.text.starts_with("+++ ")))
            || hunk_header(t)
            || crate::formats::udiff::bare_hunk_header(t, ls.get(i + 1).map(|n| n.text)))
            && !inside(&files.diff, l.start)
        {
            let hunk = *hunks.get_or_init(|| any(&hunk_header));
            push(
                Guess {
                    format: "udiff",
                    at: l.start,
                    confidence: if hunk { 0.95 } else { 0.75 },
                    reason:
                        "has unified-diff headers (`diff --git`, `---`/`+++`, `@@ -N,M +N,M @@`)"
                            .into(),
                },
                out,
            );
        } else if lines::is_header(t) {
            push(
                Guess {
                    format: "lines",
                    at: l.start,
                    confidence: 0.9,
                    reason: "has `@@ PATH N:M` line-range block headers".into(),
                },
                out,
            );
        }
    }
}

/// A `N:TAG` entry list whose tags are not all digits, or that has several
/// entries: hashline's `lines`. A single `N:M` of digits is a range.
fn tagged_lines(v: &Value) -> bool {
    let items: Vec<&str> = match v {
        Value::String(s) => s
            .split(['\n', ','])
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .collect(),
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => return false,
    };
    let entries: Vec<(&str, &str)> = items.iter().filter_map(|x| x.split_once(':')).collect();
    !entries.is_empty()
        && entries
            .iter()
            .all(|(n, _)| n.trim().parse::<usize>().is_ok())
        && (entries.len() > 1
            || entries
                .iter()
                .any(|(_, t)| !t.trim().bytes().all(|b| b.is_ascii_digit())))
}

/// The format of one JSON edit object, if it is one.
fn classify(m: &Map<String, Value>) -> Option<(&'static str, f64, &'static str)> {
    let has = |k: &str| m.contains_key(k);
    if m.get("command").is_some_and(Value::is_string)
        && [
            "old_str",
            "new_str",
            "insert_line",
            "file_text",
            "view_range",
            "path",
        ]
        .iter()
        .any(|k| has(k))
    {
        return Some((
            "tool-call",
            0.95,
            "JSON edits with `command` and the text-editor tool's fields",
        ));
    }
    if has("tag") || m.get("lines").is_some_and(tagged_lines) {
        return Some(("hashline", 0.95, "JSON edits naming lines by `N:TAG`"));
    }
    if has("lines") || has("crc32") || (has("line") && (has("new") || has("op"))) {
        return Some((
            "lines",
            0.85,
            "JSON edits naming plain line numbers or ranges",
        ));
    }
    None
}

fn json_guesses(output: &str, files: &FileTexts, out: &mut Vec<Guess>) {
    let like = |s: &str| {
        ["\"command\"", "\"tag\"", "\"line"]
            .iter()
            .any(|k| s.contains(k))
    };
    for piece in json_edits::scan(output, &like) {
        let (Piece::Value(_, r) | Piece::Truncated(r) | Piece::Broken(_, r)) = &piece;
        if inside(&files.json, r.start) {
            continue;
        }
        let guess = match &piece {
            Piece::Value(v, r) => leaves(v)
                .iter()
                .find_map(|(m, _)| classify(m))
                .map(|c| (c, r.start)),
            Piece::Truncated(r) | Piece::Broken(_, r) => {
                let s = &output[r.clone()];
                let f = if s.contains("\"command\"") {
                    "tool-call"
                } else if s.contains("\"tag\"") {
                    "hashline"
                } else {
                    "lines"
                };
                Some(((f, 0.6, "an unfinished JSON edit"), r.start))
            }
        };
        if let Some(((format, confidence, why), at)) = guess {
            if !out.iter().any(|g| g.format == format) {
                out.push(Guess {
                    format,
                    at,
                    confidence,
                    reason: why.into(),
                });
            }
        }
    }
}

/// Detects the format of an output (see the module docs for the rules).
pub fn detect(output: &str) -> Detection {
    let mut guesses = vec![];
    let ls = out_lines(output);
    let files = file_texts(output, &ls);
    line_guesses(&ls, &files, &mut guesses);
    json_guesses(output, &files, &mut guesses);
    guesses.sort_by(|a, b| a.at.cmp(&b.at).then(b.confidence.total_cmp(&a.confidence)));
    let mut missing: Vec<&str> = vec![];
    for g in guesses {
        if let Some(f) = by_name(g.format) {
            let mut reason = g.reason;
            if !missing.is_empty() {
                reason.push_str(&format!(
                    "; it also looks like {}, which is not available",
                    missing.join(", ")
                ));
            }
            return Detection {
                format: f.name(),
                confidence: g.confidence,
                reason,
            };
        }
        missing.push(g.format);
    }
    let note = if missing.is_empty() {
        String::new()
    } else {
        format!(
            " (it looks like {}, which is not available)",
            missing.join(", ")
        )
    };
    if ls.iter().any(|l| fence_open(l.text).is_some()) {
        return Detection {
            format: "whole",
            confidence: if missing.is_empty() { 0.6 } else { 0.3 },
            reason: format!("has a fenced block and no other edit markers{note}"),
        };
    }
    Detection {
        format: "whole",
        confidence: 0.1,
        reason: format!("no edit markers found{note}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The detected name when `want` is available, else what the fallback
    /// gives (a later guess, or `whole`) with `want` named in the reason.
    fn check(output: &str, want: &str) {
        let d = detect(output);
        if by_name(want).is_some() {
            assert_eq!(d.format, want, "{d:?}\n{output}");
        } else {
            assert_ne!(d.format, want);
            assert!(d.reason.contains(want), "{d:?}");
        }
    }

    #[test]
    fn each_format() {
        check(
            "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n",
            "search-replace",
        );
        check(
            "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-x\n+y\n*** End Patch\n",
            "apply-patch",
        );
        check(
            "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-x\n+y\n z\n",
            "udiff",
        );
        check("--- a.py\n+++ a.py\n@@ -3 +3 @@\n-x\n+y\n", "udiff");
        check("```json\n{\"command\": \"str_replace\", \"path\": \"a.py\", \"old_str\": \"x\", \"new_str\": \"y\"}\n```\n", "tool-call");
        check("{\"name\": \"str_replace_based_edit_tool\", \"input\": {\"command\": \"insert\", \"path\": \"a.py\", \"insert_line\": 0, \"new_str\": \"y\"}}", "tool-call");
        check("{\"tool\": \"edit\", \"path\": \"/tmp/example.c\", \"line\": 10, \"tag\": \"Q8fA\", \"new\": \"int count = 11;\"}", "hashline");
        check(
            "[{\"lines\": \"11:rA3_\\n12:Kq9z\", \"new\": \"x\"}]",
            "hashline",
        );
        check("Here you go:\n@@ src/app.py 10:23\nnew\n@@ end\n", "lines");
        check(
            "{\"path\": \"a.py\", \"lines\": \"10:23\", \"new\": \"x\", \"crc32\": \"1a2b3c4d\"}",
            "lines",
        );
        check("a.py\n```python\nx = 1\n```\n", "whole");
        assert_eq!(detect("just prose").confidence, 0.1);
    }

    #[test]
    fn ambiguous_pastes() {
        // The outer structure comes first: a SEARCH block whose new text
        // holds V4A and lines markers is search-replace.
        check(
            "a.md\n<<<<<<< SEARCH\nold\n=======\n*** Begin Patch\n@@ a.py 3:4\n>>>>>>> REPLACE\n",
            "search-replace",
        );
        // A V4A patch adding a file whose text holds a hunk header.
        check(
            "*** Begin Patch\n*** Add File: t.txt\n+@@ -1 +1 @@\n*** End Patch\n",
            "apply-patch",
        );
        // A diff in a fence is a diff, not a whole file.
        check(
            "```diff\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n```\n",
            "udiff",
        );
        // Digits only: a range (lines); several entries or a letter: tags.
        check("{\"lines\": \"10:23\", \"new\": \"x\"}", "lines");
        check("{\"lines\": \"10:23\\n11:42\", \"new\": \"x\"}", "hashline");
        check("{\"lines\": \"10:2b\", \"new\": \"x\"}", "hashline");
        // `command` decides between tool-call and hashline in one object.
        check("{\"command\": \"str_replace\", \"old_str\": \"a\", \"new_str\": \"b\", \"tag\": \"Q8fA\"}", "tool-call");
        // A hashline edit cut off is still hashline (and then truncated).
        check("{\"line\": 3, \"tag\": \"abcd\", \"new\": \"x", "hashline");
        // V4A `@@ def f():` anchors are not lines headers.
        assert!(!lines::is_header("@@ def f():"));
        // JSON shown before a lines block: the first marker wins.
        check(
            "@@ a.py 3\nx\n@@ end\n{\"line\": 3, \"tag\": \"abcd\", \"new\": \"x\"}\n",
            "lines",
        );
    }

    #[test]
    fn markers_inside_a_whole_file_are_content() {
        let call = "{\"command\": \"str_replace\", \"old_str\": \"x\"}";
        // A JSON line among other lines of a named block: a file.
        check(&format!("src/a.rs\n```\n{call}\n+added\n```\n"), "whole");
        check(
            &format!("src/a.rs\n```\nfn a() {{}}\n{call}\n```\n"),
            "whole",
        );
        // A hunk header with nothing added or removed, or not at the top.
        check("src/a.rs\n```\n@@ -1,3 +1,4 @@\n# note\n```\n", "whole");
        check("src/a.rs\n```\nc\n@@ -1,3 +1,4 @@\n+x\n```\n", "whole");
        // Edits in named blocks stay edits.
        check(&format!("src/a.rs\n```json\n{call}\n```\n"), "tool-call");
        check(
            "src/a.rs\n```json\n[{\"line\": 3, \"tag\": \"abcd\", \"new\": \"x\"}]\nnote\n```\n",
            "hashline",
        );
        check("src/a.py\n```\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n```\n", "udiff");
        check(
            "src/a.py\n```\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1,3 +1,2 @@\nimport a\n-import b\nimport c\n```\n",
            "udiff",
        );
        check("src/a.md\n```\n# T\n@@ -1 +1 @@\n```\n", "whole");
    }

    #[test]
    fn hunk_headers() {
        assert!(hunk_header("@@ -1,3 +1,4 @@"));
        assert!(hunk_header("@@ -1 +1 @@ fn main"));
        assert!(!hunk_header("@@ a.py 1:3"));
        assert!(!hunk_header("@@ -x +1 @@"));
    }
}
