//! `hashline`: edits by line number and tag against the tagged view
//! (`N:TAG content`, see [`crate::apply::tags`]).
//!
//! Edits are JSON objects, one, an array, or one per line, fenced or bare,
//! with prose around them ([`crate::reading::json_edits`]):
//!
//! ```text
//! {"op": "replace", "line": 10, "tag": "Q8fA", "new": "int count = 11;"}
//! {"op": "replace", "lines": "11:rA3_\n12:Kq9z\n13:PX0b", "new": "if (count > limit)\n    return limit;"}
//! {"op": "insert_after", "line": 13, "tag": "PX0b", "new": ["", "log(count);"]}
//! {"op": "insert_after", "line": 0, "new": "// top of the file"}
//! {"op": "delete", "lines": "20:aB3x\n21:Zz9_"}
//! ```
//!
//! - `op` defaults to `replace`, so the flat tool-style shape (`{"tool": "edit",
//!   "path": ..., "line": ..., "tag": ..., "new": ...}`) is accepted as is;
//!   `insert_before` exists too. `path` (or `file`, `file_path`) is optional
//!   when the caller names the file; a wrapper `{"path": ..., "edits": [...]}`
//!   and tool-call envelopes hand their path down.
//! - `lines` lists every line of a contiguous range as `N:TAG` (newlines,
//!   commas or an array between them; text after a tag, copied from the
//!   view, is ignored). A gap is `malformed`. `insert_after` with `line: 0`
//!   and no tag inserts at the top.
//! - `new` is a string (a final `\n` ends its last line; `""` is no lines)
//!   or an array of lines.
//! - Numbers and tags refer to the view the model was shown, whatever the
//!   order of the edits; every tag is checked before anything is applied,
//!   and a mismatch is `stale_tag` with the current `N:TAG` lines of the
//!   region. Tag length and line hashing come from [`ParseOptions::tags`].
//! - A JSON edit cut off by the end of the output is `truncated`.
//!
//! Parsing is one pass over the output; rendering is one line diff.

use super::LineOp;
use super::{Format, ParseOptions};
pub use crate::apply::tags;
use crate::formats::prompt::{self, COUNT, EXAMPLE_BEFORE, EXAMPLE_PATH};
use crate::reading::json_edits::{self, field, number, text_lines};

use crate::apply::diff::changes_linear;
use crate::apply::tags::{tag, TagOptions};
use crate::apply::text::Text;
use crate::edit::{Check, Op, Parsed};
use serde_json::{Map, Value};

pub struct Hashline;

/// Keys that make a JSON object a hashline edit.
const KEYS: [&str; 3] = ["line", "lines", "tag"];

/// Text that was meant as a hashline edit, even if it does not parse.
pub fn edit_like(s: &str) -> bool {
    KEYS.iter().any(|k| s.contains(&format!("\"{k}\"")))
}

/// Whether an object is a hashline edit: it names a line by number and tag.
pub fn is_edit(m: &Map<String, Value>) -> bool {
    m.contains_key("tag")
        || m.contains_key("lines")
        || (m.contains_key("line") && !m.contains_key("command"))
}

/// One `N:TAG` entry (text after the tag is ignored).
fn entry(s: &str) -> Option<(usize, String)> {
    let (n, rest) = s.trim().split_once(':')?;
    let n: usize = n.trim().parse().ok()?;
    let t: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    let after = rest[t.len()..].chars().next();
    (!t.is_empty() && after.is_none_or(|c| c.is_whitespace() || c == ',')).then_some((n, t))
}

/// The `N:TAG` entries of a `lines` value.
fn entries(v: &Value) -> Result<Vec<(usize, String)>, String> {
    let bad = |s: &str| {
        format!(
            "`{}` is not `N:TAG` (a line number, a colon and the tag from the view)",
            s.trim()
        )
    };
    let mut out = vec![];
    match v {
        Value::String(s) => {
            for line in s.lines().filter(|l| !l.trim().is_empty()) {
                let toks: Vec<&str> = line
                    .split(|c: char| c.is_whitespace() || c == ',')
                    .filter(|t| !t.is_empty())
                    .collect();
                // A line of entries only (`11:aa, 12:bb`), or one entry
                // followed by the line's text as the view shows it.
                let all: Option<Vec<_>> = toks.iter().map(|t| entry(t)).collect();
                match all {
                    Some(v) if !v.is_empty() => out.extend(v),
                    _ => out.push(entry(line).ok_or_else(|| bad(line))?),
                }
            }
        }
        Value::Array(items) => {
            for it in items {
                match it {
                    Value::String(s) => out.push(entry(s).ok_or_else(|| bad(s))?),
                    Value::Object(m) => {
                        let n = m.get("line").and_then(number);
                        let t = m.get("tag").and_then(Value::as_str);
                        match (n, t) {
                            (Some(n), Some(t)) => out.push((n, clean_tag(t, n))),
                            _ => return Err("each entry of `lines` needs `line` and `tag`".into()),
                        }
                    }
                    other => return Err(bad(&other.to_string())),
                }
            }
        }
        other => return Err(bad(&other.to_string())),
    }
    if out.is_empty() {
        return Err("`lines` is empty; list the lines as `N:TAG`, one per line".into());
    }
    Ok(out)
}

/// A tag as the model wrote it, minus a copied `N:` prefix or line text.
fn clean_tag(t: &str, line: usize) -> String {
    let t = t.trim();
    let t = match t.split_once(':') {
        Some((n, rest)) if n.trim().parse() == Ok(line) => rest,
        _ => t,
    };
    t.split_whitespace().next().unwrap_or("").to_owned()
}

/// Sorts a range's entries and refuses gaps, zeros and contradictions.
fn contiguous(mut e: Vec<(usize, String)>) -> Result<Vec<(usize, String)>, String> {
    crate::order::sort(&mut e[..]);
    e.dedup();
    if e.first().is_some_and(|x| x.0 == 0) {
        return Err("line numbers start at 1 (`insert_after` line 0 is the top)".into());
    }
    for w in e.windows(2) {
        if w[0].0 == w[1].0 {
            return Err(format!(
                "line {} is listed with two tags, {} and {}",
                w[0].0, w[0].1, w[1].1
            ));
        }
        if w[1].0 != w[0].0 + 1 {
            return Err(format!(
                "lines {} and {} are not contiguous (line {} is missing); a range lists every line as `N:TAG`, or split it into several edits",
                w[0].0,
                w[1].0,
                w[0].0 + 1
            ));
        }
    }
    Ok(e)
}

fn kind(m: &Map<String, Value>) -> Result<LineOp, String> {
    let op = field(m, &["op", "action", "operation"])
        .and_then(Value::as_str)
        .unwrap_or("replace")
        .trim()
        .to_ascii_lowercase()
        .replace('-', "_");
    Ok(match op.as_str() {
        "replace" | "edit" | "set" | "change" | "update" => LineOp::Replace,
        "insert_after" | "insert" | "append" | "after" => LineOp::After,
        "insert_before" | "prepend" | "before" => LineOp::Before,
        "delete" | "remove" => LineOp::Delete,
        other => {
            return Err(format!(
                "unknown op {other:?}; use replace, insert_after, insert_before or delete"
            ))
        }
    })
}

/// The `Op` of one edit object.
fn op_of(m: &Map<String, Value>, opts: TagOptions) -> Result<Op, String> {
    let kind = kind(m)?;
    let line = m
        .get("line")
        .map(|v| number(v).ok_or_else(|| format!("`line` must be a line number, not {v}")));
    let line = line.transpose()?;
    let top = kind == LineOp::After && line == Some(0) && !m.contains_key("lines");
    let tags = if top {
        vec![]
    } else if let Some(v) = m.get("lines") {
        contiguous(entries(v)?)?
    } else {
        let n = line.ok_or("the edit names no line: give `line` and `tag` (or `lines`: \"N:TAG\\n...\") from the view")?;
        let t = m
            .get("tag")
            .and_then(Value::as_str)
            .map(|t| clean_tag(t, n));
        match t {
            Some(t) if !t.is_empty() => contiguous(vec![(n, t)])?,
            _ => return Err(format!("line {n} has no `tag`; copy it from the view (`{n}:TAG`), so the edit is checked against the line you saw")),
        }
    };
    let new = match field(m, &["new", "new_text", "text", "content", "replacement"]) {
        None => None,
        Some(v) => Some(text_lines(v).ok_or("`new` must be a string or an array of strings")?),
    };
    let (first, last) = match (tags.first(), tags.last()) {
        (Some(a), Some(b)) => (a.0, b.0),
        _ => (0, 0),
    };
    let (start, end, new) = match kind {
        LineOp::Replace => {
            match new {
                Some(new) => (first - 1, last, new),
                None => return Err(
                    "a replace needs `new` (the new text); to remove lines use \"op\": \"delete\""
                        .into(),
                ),
            }
        }
        LineOp::Delete => match new {
            Some(new) if !new.is_empty() => {
                return Err(
                    "a delete takes no `new` text; use \"op\": \"replace\" to change lines".into(),
                )
            }
            _ => (first - 1, last, vec![]),
        },
        LineOp::After | LineOp::Before => {
            let new = new
                .filter(|n| !n.is_empty())
                .ok_or("an insert needs `new`, the lines to insert")?;
            if kind == LineOp::After {
                (last, last, new)
            } else {
                (first - 1, first - 1, new)
            }
        }
    };
    Ok(Op::Lines {
        start,
        end,
        new,
        check: Check::Tags { tags, opts },
    })
}

/// Whether a JSON object names lines by tag: a `tag`, or a `lines` list of
/// `N:TAG` entries (several, or a tag that is not all digits: a single
/// `N:M` of digits is the `lines` format's range).
pub fn names_tags(m: &Map<String, Value>) -> bool {
    m.contains_key("tag") || m.get("lines").is_some_and(tagged_lines)
}

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

impl Format for Hashline {
    fn json_keys(&self) -> &'static [&'static str] {
        &["\"tag\"", "\"line"]
    }

    fn json_claim(&self, m: &Map<String, Value>) -> Option<(f64, &'static str)> {
        (names_tags(m) && !super::tool_call::is_call(m))
            .then_some((0.95, "JSON edits naming lines by `N:TAG`"))
    }

    fn cut_json_claim(&self, text: &str) -> Option<(f64, &'static str)> {
        (text.contains("\"tag\"") && !text.contains("\"command\""))
            .then_some((0.6, "an unfinished JSON edit"))
    }

    super::json_stream::stream_methods!();

    fn view(&self) -> super::View {
        super::View::Tagged
    }

    fn prompt(&self) -> prompt::Prompt {
        let t = tag("    print(\"Hello, \" + name)", 2, TagOptions::default());
        prompt::Prompt {
            instructions: format!("The file is shown as `LINE:TAG content`. Edit by line and tag, never by retyping old text: JSON objects, one per line: {{\"op\": \"replace\", \"line\": N, \"tag\": \"TAG\", \"new\": \"...\"}}, a range {{\"op\": \"replace\", \"lines\": \"N:TAG\\nN+1:TAG\", \"new\": \"...\"}}, {{\"op\": \"insert_after\", \"line\": N, \"tag\": \"TAG\", \"new\": \"...\"}}, {{\"op\": \"delete\", \"line\": N, \"tag\": \"TAG\"}}. Line numbers and tags always refer to the view you were shown. {COUNT}"),
            example_view: format!("{EXAMPLE_PATH}\n{}", tags::view(EXAMPLE_BEFORE, TagOptions::default())),
            example_reply: format!("EDITS: 1\n{{\"op\": \"replace\", \"path\": \"app.py\", \"line\": 2, \"tag\": \"{t}\", \"new\": \"    print(f\\\"Hello, {{name}}!\\\")\"}}\n"),
        }
    }

    fn id(&self) -> crate::formats::FormatName {
        crate::formats::FormatName::Hashline
    }

    fn parse(&self, output: &str, opt: &ParseOptions) -> Parsed {
        json_edits::parse_edits(output, &edit_like, &is_edit, &|m| op_of(m, opt.tags))
    }

    fn render(&self, path: &str, before: &str, after: &str) -> String {
        let opts = TagOptions::default();
        let (b, a) = (Text::new(before), Text::new(after));
        let (bl, al) = (b.lines(), a.lines());
        let range = |lo: usize, hi: usize| -> Vec<String> {
            (lo..hi)
                .map(|i| format!("{}:{}", i + 1, tag(bl[i], i + 1, opts)))
                .collect()
        };
        let js = |s: &str| Value::String(s.to_owned()).to_string();
        let mut objs = vec![];
        for c in changes_linear(bl, al) {
            let new: Vec<String> = al[c.new.clone()].iter().map(|s| s.to_string()).collect();
            let new = json_edits::text_value(&new).to_string();
            let at = |lo: usize, hi: usize| {
                if hi - lo == 1 {
                    format!(
                        "\"line\": {}, \"tag\": {}",
                        lo + 1,
                        js(&tag(bl[lo], lo + 1, opts))
                    )
                } else {
                    format!("\"lines\": {}", js(&range(lo, hi).join("\n")))
                }
            };
            let p = js(path);
            objs.push(if c.old.is_empty() {
                if c.old.start == 0 {
                    format!(
                        "{{\"op\": \"insert_after\", \"path\": {p}, \"line\": 0, \"new\": {new}}}"
                    )
                } else {
                    let l = c.old.start - 1;
                    format!(
                        "{{\"op\": \"insert_after\", \"path\": {p}, {}, \"new\": {new}}}",
                        at(l, l + 1)
                    )
                }
            } else if c.new.is_empty() {
                format!(
                    "{{\"op\": \"delete\", \"path\": {p}, {}}}",
                    at(c.old.start, c.old.end)
                )
            } else {
                format!(
                    "{{\"op\": \"replace\", \"path\": {p}, {}, \"new\": {new}}}",
                    at(c.old.start, c.old.end)
                )
            });
        }
        // No change renders nothing, as in the other formats: a fenced empty
        // array would read as a whole file under `auto`.
        if objs.is_empty() {
            return String::new();
        }
        format!("```json\n[\n{}\n]\n```\n", objs.join(",\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::Code;

    fn one(out: &str) -> Op {
        let p = Hashline.parse_default(out);
        assert_eq!(p.edits.len(), 1, "{p:?}");
        p.edits[0].op.clone()
    }

    fn tags(v: &[(usize, &str)]) -> Check {
        Check::Tags {
            tags: v.iter().map(|(n, t)| (*n, t.to_string())).collect(),
            opts: TagOptions::default(),
        }
    }

    #[test]
    fn seed_shapes() {
        let op = one("{\n  \"tool\": \"edit\",\n  \"path\": \"/tmp/example.c\",\n  \"line\": 10,\n  \"tag\": \"Q8fA\",\n  \"new\": \"int count = 11;\"\n}");
        assert_eq!(
            op,
            Op::Lines {
                start: 9,
                end: 10,
                new: vec!["int count = 11;".into()],
                check: tags(&[(10, "Q8fA")])
            }
        );
        let op = one(
            r#"{"tool": "edit", "lines": "11:rA3_\n12:Kq9z\n13:PX0b", "new": "if (count > limit)\n    return limit;"}"#,
        );
        assert_eq!(
            op,
            Op::Lines {
                start: 10,
                end: 13,
                new: vec!["if (count > limit)".into(), "    return limit;".into()],
                check: tags(&[(11, "rA3_"), (12, "Kq9z"), (13, "PX0b")])
            }
        );
    }

    #[test]
    fn inserts_deletes_and_entry_forms() {
        let op = one(r#"{"op": "insert_after", "line": 0, "new": "top"}"#);
        assert_eq!(
            op,
            Op::Lines {
                start: 0,
                end: 0,
                new: vec!["top".into()],
                check: tags(&[])
            }
        );
        let op =
            one(r#"{"op": "insert_before", "line": 4, "tag": "4:abcd x = 1", "new": ["a", ""]}"#);
        assert_eq!(
            op,
            Op::Lines {
                start: 3,
                end: 3,
                new: vec!["a".into(), "".into()],
                check: tags(&[(4, "abcd")])
            }
        );
        let op = one(r#"{"op": "delete", "lines": ["3:aaaa", "2:bbbb"]}"#);
        assert_eq!(
            op,
            Op::Lines {
                start: 1,
                end: 3,
                new: vec![],
                check: tags(&[(2, "bbbb"), (3, "aaaa")])
            }
        );
        let op = one(r#"{"op": "delete", "lines": "2:bbbb, 3:aaaa"}"#);
        assert!(matches!(
            op,
            Op::Lines {
                start: 1,
                end: 3,
                ..
            }
        ));
        let op = one(r#"{"lines": "7:Ab-_ let x = a[1:2];\n8:zz99 }", "new": ""}"#);
        assert_eq!(
            op,
            Op::Lines {
                start: 6,
                end: 8,
                new: vec![],
                check: tags(&[(7, "Ab-_"), (8, "zz99")])
            }
        );
    }

    #[test]
    fn faults_are_malformed_or_truncated() {
        let code = |out: &str| match one(out) {
            Op::Invalid { code, message } => (code, message),
            other => panic!("{other:?}"),
        };
        let (c, m) = code(r#"{"lines": "11:aaaa\n13:bbbb", "new": "x"}"#);
        assert_eq!(c, Code::Malformed);
        assert!(m.contains("line 12 is missing"), "{m}");
        assert_eq!(code(r#"{"line": 3, "new": "x"}"#).0, Code::Malformed);
        assert_eq!(code(r#"{"line": 3, "tag": "abcd"}"#).0, Code::Malformed);
        assert_eq!(
            code(r#"{"op": "frobnicate", "line": 3, "tag": "abcd"}"#).0,
            Code::Malformed
        );
        let p = Hashline
            .parse_default("Here:\n```json\n{\"line\": 3, \"tag\": \"abcd\", \"new\": \"int x");
        assert!(p.truncated);
        assert_eq!(p.edits.len(), 1);
    }

    #[test]
    fn paths_from_wrappers_and_options() {
        let p = Hashline.parse(
            r#"{"path": "a.c", "edits": [{"line": 1, "tag": "xx", "new": "y"}, {"path": "b.c", "line": 2, "tag": "zz", "new": "w"}]}"#,
            &ParseOptions { tags: TagOptions { len: 2, with_line: true }, ..Default::default() },
        );
        assert_eq!(p.edits[0].path.as_deref(), Some("a.c"));
        assert_eq!(p.edits[1].path.as_deref(), Some("b.c"));
        assert!(
            matches!(&p.edits[0].op, Op::Lines { check: Check::Tags { opts, .. }, .. } if opts.len == 2 && opts.with_line)
        );
    }

    #[test]
    fn render_reads_back() {
        let before = "a\nb\nc\nd\n";
        let after = "top\na\nB\nc\nd\nend\n";
        let r = Hashline.render("f.txt", before, after);
        let p = Hashline.parse_default(&r);
        assert_eq!(p.edits.len(), 3, "{r}");
        assert!(r.contains("\"line\": 0"), "{r}");
        let r = Hashline.render("f.txt", before, "a\nd\n");
        assert!(r.contains("\"op\": \"delete\""), "{r}");
        assert!(
            r.contains(&format!(
                "2:{}\\n3:{}",
                tag("b", 2, TagOptions::default()),
                tag("c", 3, TagOptions::default())
            )),
            "{r}"
        );
    }
}
