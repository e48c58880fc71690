//! `auto`: which format an output is written in, from its markers, with a
//! confidence and a reason, so a playground user can paste anything.
//!
//! Every registered format recognises its own markers
//! ([`crate::formats::Format::sniff`]) in one reading of the reply
//! ([`Reply`]); this module only reads the reply and picks a winner:
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
//! `<<<<<<< SEARCH` is apply-patch). A JSON object belongs to at most one
//! format (`command` makes it a tool call even with a `tag`, and a `lines`
//! value of digits only, `"10:23"`, is a range, not a line with tag `23`);
//! a line that is a diff's hunk is not a `lines` header.
//!
//! A whole-file block (a fence named by a path) is the outer structure too
//! when its text holds another format's marker without being an edit in
//! that format: JSON with other text around it (unless the fence says
//! `json`), or hunk headers without a file header that do not start the
//! block or come with no `+`/`-` line and a line that is not diff syntax
//! (unless the fence says `diff`). Those markers are content.
//!
//! Cost: one pass over the lines and one JSON scan of the output, plus one
//! JSON scan of each named fenced block; each format's sniff is a pass over
//! the lines at most.

pub use crate::edit::Detection;
use crate::formats::{all, udiff, whole, Format, FormatName};
use crate::reading::json_edits::{self, leaves, Piece};
use crate::reading::scan::{fence_open, find_fence_close, out_lines, path_from_info, OutLine};
use crate::reading::sniff::{inside, JsonEdit, Reply, Sniff};
use std::ops::Range;

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

/// The text of whole-file blocks (a fence named by a path on the line
/// above or in its info string) that holds another format's marker without
/// being an edit in that format: JSON among other text, and hunk headers
/// that are not a diff. Those markers are the file's content.
fn file_texts(output: &str, ls: &[OutLine]) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    let (mut json, mut diff) = (vec![], vec![]);
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
            json.push(text.clone());
        }
        if named && !is(&["diff", "patch", "udiff"]) && udiff::not_a_diff(&ls[i + 1..close]) {
            diff.push(text);
        }
        i = close + 1;
    }
    (json, diff)
}

/// The format a JSON object belongs to: the one format that claims it.
fn owner(
    m: &serde_json::Map<String, serde_json::Value>,
) -> Option<(&'static dyn Format, f64, &'static str)> {
    all()
        .iter()
        .find_map(|f| f.json_claim(m).map(|(c, why)| (*f, c, why)))
}

/// The JSON edits of the output outside whole-file text, each with its
/// format: a value by its first object some format claims, a cut or broken
/// one by its text.
fn json_edits_of(output: &str, file_json: &[Range<usize>]) -> Vec<JsonEdit> {
    let keys: Vec<&str> = all().iter().flat_map(|f| f.json_keys()).copied().collect();
    let like = |s: &str| keys.iter().any(|k| s.contains(k));
    let mut out = vec![];
    for piece in json_edits::scan(output, &like) {
        let at = match &piece {
            Piece::Value(_, r) | Piece::Truncated(r) | Piece::Broken(_, r) => r.start,
        };
        if inside(file_json, at) {
            continue;
        }
        let claim = match piece {
            Piece::Value(v, _) => leaves(v).iter().find_map(|(m, _)| owner(m)),
            Piece::Truncated(r) | Piece::Broken(_, r) => {
                let text = &output[r];
                all()
                    .iter()
                    .find_map(|f| f.cut_json_claim(text).map(|(c, why)| (*f, c, why)))
            }
        };
        if let Some((f, confidence, reason)) = claim {
            out.push(JsonEdit {
                at,
                format: f.id(),
                confidence,
                reason,
            });
        }
    }
    out
}

/// Reads `output` (split into `lines`) once for every format's sniff.
pub fn read<'a>(output: &'a str, lines: &'a [OutLine<'a>]) -> Reply<'a> {
    let (file_json, file_diff) = file_texts(output, lines);
    let json = json_edits_of(output, &file_json);
    Reply {
        text: output,
        lines,
        file_diff,
        json,
    }
}

/// Detects the format of an output: every registered format sniffs the
/// reply, and the earliest marker wins (the surer one at the same place).
pub fn detect(output: &str) -> Detection {
    // A reasoning section's drafts are not the answer: nothing in it counts.
    let (masked, _) = crate::reading::reasoning::mask(output);
    detect_lines(&masked, &out_lines(&masked))
}

/// [`detect`] on the output's lines, already split.
pub fn detect_lines(output: &str, lines: &[OutLine]) -> Detection {
    detect_format(output, lines).1
}

/// [`detect_lines`] with the detected format itself, so a caller that
/// parses next needs no second look-up by name.
pub fn detect_format(output: &str, lines: &[OutLine]) -> (&'static dyn Format, Detection) {
    let reply = read(output, lines);
    let mut best: Option<(&'static dyn Format, Sniff)> = None;
    for f in all() {
        let Some(s) = f.sniff(&reply) else { continue };
        let better = best
            .as_ref()
            .is_none_or(|(_, b)| s.at < b.at || (s.at == b.at && s.confidence > b.confidence));
        if better {
            best = Some((*f, s));
        }
    }
    match best {
        Some((f, s)) => (
            f,
            Detection {
                format: f.id(),
                confidence: s.confidence,
                reason: s.reason,
            },
        ),
        None => (
            &whole::Whole,
            Detection {
                format: FormatName::Whole,
                confidence: 0.1,
                reason: "no edit markers found".into(),
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::lines;
    use crate::formats::udiff::hunk_header;

    /// The detected name when `want` is available, else what the fallback
    /// gives (a later guess, or `whole`) with `want` named in the reason.
    fn check(output: &str, want: &str) {
        let d = detect(output);
        assert_eq!(d.format, want, "{d:?}\n{output}");
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
