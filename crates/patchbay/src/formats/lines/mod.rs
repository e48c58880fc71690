//! `lines`: edits by plain line numbers and ranges, checked against what
//! the model was shown (see [`crate::apply::seen`] for the views and the check).
//!
//! Text form: a header line, the new lines, and `@@ end` after the last
//! block (or the end of the fence the blocks are in):
//!
//! ```text
//! @@ src/app.py 10:23 crc32=1a2b3c4d
//! the new lines 10 to 23 (any number of them; none deletes)
//! @@ src/app.py 40
//! the new line 40
//! @@ src/app.py after 50
//! lines inserted after line 50 (`after 0` is the top; `before N` too)
//! @@ src/app.py delete 60:62
//! @@ end
//! ```
//!
//! - A range is `N:M`, `N-M` or a contiguous list `11,12,13` (a gap is
//!   `malformed`); a single line is `N`. Numbers refer to the view the model
//!   was shown, whatever the order of the blocks.
//! - The path is optional: a header without one uses the previous header's,
//!   then the file of a copied view header (`# file: src/app.py ...`), then
//!   the caller's default file. A path with spaces is written in backticks
//!   (`` @@ `docs/read me.md` 3 ``) or double quotes.
//! - The new lines are taken verbatim up to the next `@@` line: blank lines
//!   in them are kept. A line starting with `@@ ` that is not a header is
//!   refused as `malformed` (this format cannot write such lines). Inside a
//!   fence, the closing fence also ends a block, so a file that holds fences
//!   needs a longer one around the blocks.
//! - An output that ends inside a block, without `@@ end` or the closing
//!   fence, is `truncated`: the new lines could be cut short.
//!
//! JSON form (used when there is no `@@` header), one object, an array or
//! one per line: `{"path": "src/app.py", "lines": "10:23", "new": "...",
//! "crc32": "1a2b3c4d"}`, `{"line": 40, "new": ...}`, `{"op": "insert_after",
//! "line": 50, "new": ...}`, `{"op": "delete", "lines": "60:62"}`; `lines`
//! may also be a list of numbers; `new` is a string or an array of lines.
//!
//! Checks (docs/formats.md, `lines`): `file-crc` when the edit (header token, a
//! copied `# file: PATH crc32=...` view header, or the JSON `crc32`) carries
//! the file's CRC-32: any change to the file refuses the edit (`stale_tag`).
//! Otherwise the numbers are plain ([`Check::Snapshot`]) and the transaction
//! holds them to the caller's `seen` snapshot (`seen-lines`: `not_shown`,
//! `stale_tag`, a moved block followed; or a CRC the caller kept). With
//! neither a CRC nor a snapshot nothing can be checked, and the edit is
//! refused as `malformed` rather than trusted.
//!
//! Parsing is one pass over the output; rendering is one line diff.

mod header;

pub use crate::apply::seen;

use super::LineOp;
use super::{Format, ParseOptions};
use crate::apply::diff::changes_linear;
use crate::apply::text::file_crc;
use crate::apply::text::parse_crc;
use crate::apply::text::Text;
use crate::edit::{Check, Code, Edit, Op, Parsed};
use crate::formats::prompt::{self, COUNT, EXAMPLE_BEFORE, EXAMPLE_PATH};
use crate::reading::json_edits::{self, field, number, text_lines};
use crate::reading::scan::{fence_closes, fence_open, out_lines, Fence, OutLine};
use crate::reading::sniff::{Reply, Sniff};
pub use header::is_header;
use header::{header, header_path, list, range, verb, view_header, Header};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub struct Lines;

fn op(
    kind: LineOp,
    first: usize,
    last: usize,
    new: Vec<String>,
    check: Check,
) -> Result<Op, String> {
    let (start, end) = match kind {
        LineOp::Replace | LineOp::Delete => (first - 1, last),
        LineOp::After => (first, first),
        LineOp::Before => (first - 1, first - 1),
    };
    if kind == LineOp::Delete && !new.is_empty() {
        return Err(
            "a delete block takes no new lines; to change lines, give their range without `delete`"
                .into(),
        );
    }
    if matches!(kind, LineOp::After | LineOp::Before) && new.is_empty() {
        return Err("an insert block needs the lines to insert".into());
    }
    Ok(Op::Lines {
        start,
        end,
        new,
        check,
    })
}

fn check_of(crc: Option<u32>) -> Check {
    crc.map_or(Check::Snapshot, Check::FileCrc)
}

/// A block being read.
struct Open {
    path: Option<String>,
    head: Result<(LineOp, usize, usize, Option<u32>), String>,
    start: usize,
    end: usize,
    new: Vec<String>,
    fenced: bool,
}

fn parse_text(output: &str, lines: &[OutLine]) -> Option<Parsed> {
    if !lines.iter().any(|l| header(l.text).is_some()) {
        return None;
    }
    let mut r = TextReader::default();
    for l in lines {
        match header(l.text) {
            Some(h) => r.header(h, l.start, l.end),
            None => r.line(l.text, l.end),
        }
    }
    Some(r.finish(output.len()))
}

/// The text form read line by line: the block open, the path and CRCs the
/// lines so far gave, and the fence around them.
#[derive(Default)]
struct TextReader<'a> {
    parsed: Parsed,
    /// CRCs of copied view headers, by path (`None`: a view without one).
    crcs: BTreeMap<Option<String>, u32>,
    path: Option<String>,
    fence: Option<Fence<'a>>,
    open: Option<Open>,
}

impl<'a> TextReader<'a> {
    /// A block header (or `@@ end`) at `start..end`: the open block ends.
    fn header(&mut self, h: Result<Header, String>, start: usize, end: usize) {
        self.close();
        let head = match h {
            Ok(Header::End) => return,
            Ok(Header::Block {
                path,
                kind,
                first,
                last,
                crc,
            }) => {
                if path.is_some() {
                    self.path = path;
                }
                Ok((kind, first, last, crc))
            }
            Err(e) => Err(e),
        };
        self.open = Some(Open {
            path: self.path.clone(),
            head,
            start,
            end,
            new: vec![],
            fenced: self.fence.is_some(),
        });
    }

    /// Any other line, ending at `end`: a new line of the open block, a
    /// fence, or a view header a model copied.
    fn line(&mut self, text: &'a str, end: usize) {
        if let Some(f) = &self.fence {
            if fence_closes(text, f) {
                self.fence = None;
                self.close();
                return;
            }
        }
        if let Some(b) = self.open.as_mut() {
            b.new.push(text.to_owned());
            b.end = end;
            return;
        }
        if self.fence.is_none() {
            self.fence = fence_open(text);
        }
        if let Some((p, crc)) = view_header(text) {
            if let Some(c) = crc {
                self.crcs.insert(p.clone(), c);
            }
            if p.is_some() {
                self.path = p;
            }
        }
    }

    /// The open block becomes an edit.
    fn close(&mut self) {
        let Some(b) = self.open.take() else { return };
        let op = b.head.and_then(|(kind, first, last, crc)| {
            let crc = crc.or_else(|| self.crcs.get(&b.path).copied());
            op(kind, first, last, b.new, check_of(crc))
        });
        self.parsed.edits.push(Edit {
            path: b.path,
            op: op.unwrap_or_else(|message| Op::invalid(Code::Malformed, message)),
            span: b.start..b.end,
        });
    }

    /// The edits; a block still open at the end of the output (`len`
    /// bytes) is cut.
    fn finish(mut self, len: usize) -> Parsed {
        if let Some(b) = self.open.take() {
            let why = if b.fenced {
                "the fence around it is never closed"
            } else {
                "it has no `@@ end` after it"
            };
            self.parsed.truncated = true;
            self.parsed.edits.push(Edit {
                path: b.path,
                op: Op::invalid(Code::Truncated, format!("the output ends inside the last block ({why}), so its new lines may be cut short; end the last block with `@@ end`")),
                span: b.start..len,
            });
        }
        self.parsed
    }
}

/// The `Op` of one JSON edit object.
fn json_op(m: &Map<String, Value>) -> Result<Op, String> {
    let name = field(m, &["op", "action"])
        .and_then(Value::as_str)
        .unwrap_or("replace");
    let kind = verb(name).ok_or_else(|| {
        format!("unknown op {name:?}; use replace, insert_after, insert_before or delete")
    })?;
    let (first, last) = if let Some(v) = m.get("lines") {
        match v {
            Value::String(s) => range(s.trim())
                .unwrap_or_else(|| Err(format!("`{s}` is not a line range; write \"N:M\""))),
            Value::Array(a) => {
                let nums: Option<Vec<usize>> = a.iter().map(number).collect();
                list(&nums.ok_or("`lines` must list line numbers")?)
            }
            other => number(other)
                .map(|n| (n, n))
                .ok_or_else(|| "`lines` must be a range such as \"10:23\"".to_owned()),
        }?
    } else if let (Some(a), b) = (
        field(m, &["line", "start", "start_line"]).and_then(number),
        field(m, &["end", "end_line"]).and_then(number),
    ) {
        (a, b.unwrap_or(a))
    } else {
        return Err("the edit names no line: give `lines` (\"N:M\") or `line`".into());
    };
    if first > last || (first == 0 && kind != LineOp::After) {
        return Err(format!(
            "{first}:{last} is not a valid range; lines count from 1"
        ));
    }
    let new = match field(m, &["new", "new_text", "text", "content"]) {
        None if kind == LineOp::Replace => {
            return Err(
                "a replace needs `new` (the new lines); to remove lines use \"op\": \"delete\""
                    .into(),
            )
        }
        None => vec![],
        Some(v) => text_lines(v).ok_or("`new` must be a string or an array of strings")?,
    };
    let crc = match field(m, &["crc32", "crc"]) {
        None => None,
        Some(v) => Some(
            v.as_str()
                .and_then(parse_crc)
                .ok_or("`crc32` must be the 8 hex digits from the view header")?,
        ),
    };
    op(kind, first, last, new, check_of(crc))
}

fn parse_json(output: &str) -> Parsed {
    let like = |s: &str| s.contains("\"line") || s.contains("\"new\"");
    let is_edit = |m: &Map<String, Value>| {
        m.contains_key("lines") || m.contains_key("line") || m.contains_key("start_line")
    };
    json_edits::parse_edits(output, &like, &is_edit, &json_op)
}

impl Format for Lines {
    /// A block header that is not a diff's hunk; JSON line ranges when the
    /// reply has no header.
    fn sniff(&self, reply: &Reply) -> Option<Sniff> {
        let header = reply.first_line(|i, t| is_header(t) && !super::udiff::claims_line(reply, i));
        match header {
            Some(i) => Some(Sniff {
                at: reply.lines[i].start,
                confidence: 0.9,
                reason: "has `@@ PATH N:M` line-range block headers".into(),
            }),
            None => reply.first_json(self.id()),
        }
    }

    fn json_keys(&self) -> &'static [&'static str] {
        &["\"line"]
    }

    fn json_claim(&self, m: &Map<String, Value>) -> Option<(f64, &'static str)> {
        let has = |k: &str| m.contains_key(k);
        let ranges = has("lines") || has("crc32") || (has("line") && (has("new") || has("op")));
        let others = super::tool_call::is_call(m) || super::hashline::names_tags(m);
        (ranges && !others).then_some((0.85, "JSON edits naming plain line numbers or ranges"))
    }

    fn cut_json_claim(&self, text: &str) -> Option<(f64, &'static str)> {
        (!text.contains("\"command\"") && !text.contains("\"tag\""))
            .then_some((0.6, "an unfinished JSON edit"))
    }

    fn closes(&self, last: &str, next: Option<&str>, fence: bool) -> bool {
        last == "@@ end" || next == Some("@@ end") || fence
    }

    /// A block header or `@@ end`, a fence, a copied view header, or a
    /// line of the JSON form (a bracket) may end an edit; the new lines of
    /// a block end nothing.
    fn turn(&self, line: &str) -> super::Turn {
        let t = line.trim_start();
        let json = line.contains(['{', '}', '[', ']']);
        match t.starts_with("@@") || t.starts_with('#') || super::fence_like(t) || json {
            true => super::Turn::Ends,
            false => super::Turn::Plain,
        }
    }

    fn view(&self) -> super::View {
        super::View::Numbered
    }

    fn prompt(&self) -> prompt::Prompt {
        let crc = crate::apply::text::file_crc(EXAMPLE_BEFORE);
        prompt::Prompt {
            instructions: format!("The file is shown with numbered lines under a header `# file: PATH crc32=HEX8`. Replace lines by number: a header line `@@ PATH FIRST:LAST crc32=HEX8` (HEX8: the 8 hex digits copied from the view), then the new lines, then `@@ end`. Use `FIRST:FIRST` for one line; numbers always refer to the view you were shown. {COUNT}"),
            example_view: crate::apply::seen::crc_view(EXAMPLE_PATH, EXAMPLE_BEFORE),
            example_reply: format!("EDITS: 1\n@@ app.py 2:2 crc32={crc:08x}\n    print(f\"Hello, {{name}}!\")\n@@ end\n"),
        }
    }

    fn id(&self) -> crate::formats::FormatName {
        crate::formats::FormatName::Lines
    }

    fn parse(&self, output: &str, opt: &ParseOptions) -> Parsed {
        self.parse_lines(output, &out_lines(output), opt)
    }

    fn parse_lines(&self, output: &str, lines: &[OutLine], _opt: &ParseOptions) -> Parsed {
        parse_text(output, lines).unwrap_or_else(|| parse_json(output))
    }

    fn render(&self, path: &str, before: &str, after: &str) -> String {
        let (b, a) = (Text::new(before), Text::new(after));
        let (bl, al) = (b.lines(), a.lines());
        let crc = format!("crc32={:08x}", file_crc(before));
        let span = |lo: usize, hi: usize| {
            if hi == lo {
                lo.to_string()
            } else {
                format!("{lo}:{hi}")
            }
        };
        let cs = changes_linear(bl, al);
        // New lines that read as `@@` lines cannot be written in the text
        // form; the JSON form carries them.
        if cs
            .iter()
            .any(|c| al[c.new.clone()].iter().any(|l| header(l).is_some()))
        {
            return render_json(path, &crc[6..], &cs, al);
        }
        let mut out = String::new();
        for c in cs {
            let head = if c.old.is_empty() {
                format!("after {}", c.old.start)
            } else if c.new.is_empty() {
                format!("delete {}", span(c.old.start + 1, c.old.end))
            } else {
                span(c.old.start + 1, c.old.end)
            };
            out.push_str(&format!("@@ {} {head} {crc}\n", header_path(path)));
            for l in &al[c.new] {
                out.push_str(l);
                out.push('\n');
            }
        }
        out.push_str("@@ end\n");
        out
    }
}

/// The JSON form of the changes `cs` (see [`Lines::render`]).
fn render_json(path: &str, crc: &str, cs: &[crate::apply::diff::Change], al: &[&str]) -> String {
    let objs: Vec<String> = cs
        .iter()
        .map(|c| {
            let new: Vec<String> = al[c.new.clone()].iter().map(|l| l.to_string()).collect();
            let mut o = serde_json::Map::new();
            o.insert("path".into(), path.into());
            if c.old.is_empty() {
                o.insert("op".into(), "insert_after".into());
                o.insert("line".into(), c.old.start.into());
            } else {
                let op = if new.is_empty() { "delete" } else { "replace" };
                o.insert("op".into(), op.into());
                o.insert(
                    "lines".into(),
                    format!("{}:{}", c.old.start + 1, c.old.end).into(),
                );
            }
            if !new.is_empty() {
                o.insert("new".into(), json_edits::text_value(&new));
            }
            o.insert("crc32".into(), crc.into());
            Value::Object(o).to_string()
        })
        .collect();
    format!("```json\n[\n{}\n]\n```\n", objs.join(",\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(out: &str) -> Vec<Op> {
        Lines
            .parse_default(out)
            .edits
            .into_iter()
            .map(|e| e.op)
            .collect()
    }

    fn lines_op(start: usize, end: usize, new: &[&str], check: Check) -> Op {
        Op::Lines {
            start,
            end,
            new: new.iter().map(|s| s.to_string()).collect(),
            check,
        }
    }

    #[test]
    fn text_blocks() {
        let out = "Changes:\n\n@@ src/a.py 10:12 crc32=0000abcd\nx = 1\n\ny = 2\n@@ 40\nz\n@@ src/a.py after 0\n# top\n@@ delete 5,6,7\n@@ end\nDone.\n";
        let p = Lines.parse_default(out);
        assert!(!p.truncated);
        let got: Vec<Op> = p.edits.iter().map(|e| e.op.clone()).collect();
        assert_eq!(
            got,
            vec![
                lines_op(9, 12, &["x = 1", "", "y = 2"], Check::FileCrc(0xabcd)),
                lines_op(39, 40, &["z"], Check::Snapshot),
                lines_op(0, 0, &["# top"], Check::Snapshot),
                lines_op(4, 7, &[], Check::Snapshot),
            ]
        );
        assert!(p
            .edits
            .iter()
            .all(|e| e.path.as_deref() == Some("src/a.py")));
    }

    #[test]
    fn view_header_gives_path_and_crc_and_fence_ends_block() {
        let out = "```\n# file: b.rs crc32=0badcafe lines=90\n@@ 3-4\nfn x() {}\n```\nThat's it.\n";
        let p = Lines.parse_default(out);
        assert!(!p.truncated, "{p:?}");
        assert_eq!(p.edits.len(), 1);
        assert_eq!(p.edits[0].path.as_deref(), Some("b.rs"));
        assert_eq!(
            p.edits[0].op,
            lines_op(2, 4, &["fn x() {}"], Check::FileCrc(0x0bad_cafe))
        );
    }

    #[test]
    fn faults() {
        let bad = |out: &str| match &ops(out)[0] {
            Op::Invalid { code, message } => (*code, message.clone()),
            other => panic!("{other:?}"),
        };
        let (c, m) = bad("@@ a.py 11,13\nx\n@@ end\n");
        assert_eq!(c, Code::Malformed);
        assert!(m.contains("line 12 is missing"), "{m}");
        assert_eq!(bad("@@ a.py 12:10\nx\n@@ end\n").0, Code::Malformed);
        assert_eq!(bad("@@ a.py delete 3\nx\n@@ end\n").0, Code::Malformed);
        assert_eq!(bad("@@ a.py 0\nx\n@@ end\n").0, Code::Malformed);
        assert_eq!(bad("@@ a.py 3 crc32=xyz\nx\n@@ end\n").0, Code::Malformed);
        let p = Lines.parse_default("@@ a.py 3:4\nx\n");
        assert!(p.truncated);
        // A udiff hunk header is not a lines header.
        assert!(!is_header("@@ -1,3 +1,4 @@"));
        assert!(is_header("@@ a.py 1:3"));
    }

    #[test]
    fn json_form() {
        let out = "```json\n[{\"path\": \"a.py\", \"lines\": \"10:12\", \"new\": \"x\", \"crc32\": \"0000abcd\"},\n{\"op\": \"delete\", \"lines\": [3, 4]},\n{\"op\": \"insert_after\", \"line\": 0, \"new\": [\"top\"]}]\n```\n";
        assert_eq!(
            ops(out),
            vec![
                lines_op(9, 12, &["x"], Check::FileCrc(0xabcd)),
                lines_op(2, 4, &[], Check::Snapshot),
                lines_op(0, 0, &["top"], Check::Snapshot),
            ]
        );
        assert!(
            Lines
                .parse_default("{\"lines\": \"3:4\", \"new\": \"ab")
                .truncated
        );
    }

    #[test]
    fn render_reads_back() {
        let r = Lines.render("f.txt", "a\nb\nc\n", "top\na\nc\nd\n");
        let crc = format!("crc32={:08x}", file_crc("a\nb\nc\n"));
        assert_eq!(
            r,
            format!("@@ f.txt after 0 {crc}\ntop\n@@ f.txt delete 2 {crc}\n@@ f.txt after 3 {crc}\nd\n@@ end\n")
        );
        assert_eq!(Lines.parse_default(&r).edits.len(), 3);
        // A new line that reads as a header switches to the JSON form.
        let r = Lines.render("f.txt", "a\nb\n", "a\n@@ x 1\n");
        assert!(r.starts_with("```json"), "{r}");
        assert_eq!(
            ops(&r),
            vec![lines_op(
                1,
                2,
                &["@@ x 1"],
                Check::FileCrc(file_crc("a\nb\n"))
            )]
        );
    }
}
