//! JSON edit objects in model prose, for the formats whose edits are JSON
//! (`hashline`, the JSON form of `lines`): one object, an array, or one per
//! line; fenced or bare; prose around them.
//!
//! Values are found where an object (`{"`) or an array of objects (`[{`)
//! starts, delimited by bracket matching that knows strings, and validated
//! by `serde_json`. Models' two common slips are repaired: raw newlines or
//! tabs inside strings, and trailing commas. A value that reaches the end of
//! the output, valid as far as it goes, is truncated when it starts like an
//! edit, starts a line, or follows an edit (a reply cut inside its first
//! object has named no edit key yet); one that does not parse is malformed.
//! [`leaves`] unwraps arrays, `{"edits": [...]}` and tool-call envelopes
//! (`input`, `arguments` as an object or a JSON string, `function`,
//! `tool_calls`), handing the path of a wrapper down.
//!
//! Cost: one pass over the output. Where each bracket closes and whether a
//! cut value is JSON so far are learnt once per bracket (`memo`), whatever
//! candidate start reads them; starts inside a parsed value are skipped.

use crate::edit::{Code, Edit, Op, Parsed};
use serde_json::{Map, Value};
use std::ops::Range;

mod memo;
mod prefix;

use memo::Memo;

/// The nesting `serde_json` reads (its recursion limit); deeper values are
/// not JSON to it.
const SERDE_DEPTH: u32 = 127;

/// What was found at one place of the output.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// A JSON value and its byte range.
    Value(Value, Range<usize>),
    /// A value that starts like an edit and is cut off by the end.
    Truncated(Range<usize>),
    /// A value that starts like an edit but is not JSON.
    Broken(String, Range<usize>),
}

/// Whether a candidate starts at `i`: `{` then `"`, or `[` then `{`
/// (whitespace allowed between).
fn starts_value(b: &[u8], i: usize) -> bool {
    let want = match b[i] {
        b'{' => b'"',
        b'[' => b'{',
        _ => return false,
    };
    b[i + 1..]
        .iter()
        .find(|c| !c.is_ascii_whitespace())
        .is_some_and(|&c| c == want)
}

/// The end (exclusive) of the value (object, array or string) starting at
/// `i`, found by bracket matching that respects strings, or `None` when the
/// output ends inside it. Also used on cut JSON lists by the declared counts.
pub(crate) fn extent(b: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_str = false;
    let mut esc = false;
    for (k, &c) in b.iter().enumerate().skip(i) {
        if in_str {
            match (esc, c) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') if depth == 0 => return Some(k + 1),
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Escapes raw control characters inside strings and drops trailing commas
/// before `}` or `]`: what models get wrong in otherwise valid JSON.
fn repair(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    let mut in_str = false;
    let mut esc = false;
    let chars: Vec<char> = s.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        if in_str {
            match (esc, c) {
                (true, _) => esc = false,
                (false, '\\') => esc = true,
                (false, '"') => in_str = false,
                (false, '\n') => {
                    out.push_str("\\n");
                    continue;
                }
                (false, '\r') => {
                    out.push_str("\\r");
                    continue;
                }
                (false, '\t') => {
                    out.push_str("\\t");
                    continue;
                }
                _ => {}
            }
            out.push(c);
            continue;
        }
        if c == '"' {
            in_str = true;
        }
        if c == ',' {
            let next = chars[k + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

fn parse(s: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str(s).or_else(|e| serde_json::from_str(&repair(s)).map_err(|_| e))
}

/// Whether only whitespace stands before byte `i` on its line.
fn starts_line(b: &[u8], i: usize) -> bool {
    b[..i]
        .iter()
        .rev()
        .take_while(|&&c| c != b'\n')
        .all(|c| c.is_ascii_whitespace())
}

/// Finds the JSON values of an output, for a format whose edits are JSON.
/// `edit_like` tells whether a piece of text that failed to parse was meant
/// as an edit (it then becomes `Truncated` or `Broken`; otherwise it is
/// prose and skipped); it must look for markers (`contains`), so that when
/// a text has none, no later part of it has. A value that reaches the end
/// of the output, valid as far as it goes, is also `Truncated` when it
/// starts a line or follows an edit: a reply cut inside its first object
/// (`{"op": "`) has named no edit key yet, and a cut object must never let
/// the complete edits before it apply. So is a last line that is only `{`.
/// The objects of a top-level array are found one by one, each with its own
/// range, so that the complete ones of a cut-off array are still known.
/// The pieces come one at a time: a caller turns each value into edits and
/// drops it before the next is parsed (collected first, the values of a
/// reply of 80,000 hashline edits would hold 50 MB).
pub fn scan<'a>(output: &'a str, edit_like: &'a dyn Fn(&str) -> bool) -> Scan<'a> {
    Scan {
        output,
        edit_like,
        memo: Memo::default(),
        edit_seen: false,
        prose_from: None,
        prose_in: (0, 0),
        at: 0,
        cut_array: false,
        last_end: 0,
        done: false,
    }
}

/// The state of one [`scan`], and the iterator of its pieces.
pub struct Scan<'a> {
    output: &'a str,
    edit_like: &'a dyn Fn(&str) -> bool,
    memo: Memo,
    /// Whether a value found so far was meant as an edit.
    edit_seen: bool,
    /// An offset from which the rest of the output is known not to look
    /// like an edit (`edit_like` is false for every later suffix too).
    prose_from: Option<usize>,
    /// A range known not to look like an edit, nor any part of it.
    prose_in: (usize, usize),
    /// Where the search for the next candidate goes on.
    at: usize,
    /// Whether a top-level array was cut by the end of the output.
    cut_array: bool,
    /// The end of the last piece found (0 before the first).
    last_end: usize,
    /// Whether the last piece was given.
    done: bool,
}

impl Iterator for Scan<'_> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        if self.done {
            return None;
        }
        let piece = self.find().or_else(|| {
            // A cut array's complete objects came out one by one; the rest
            // of the output after the last of them is its cut part.
            self.done = true;
            let len = self.output.len();
            self.cut_array
                .then_some(Piece::Truncated(self.last_end..len))
        });
        if let Some(Piece::Value(_, r) | Piece::Broken(_, r) | Piece::Truncated(r)) = &piece {
            self.last_end = r.end;
        }
        piece
    }
}

impl Scan<'_> {
    /// The next piece from `self.at` on, `None` at the end of the output.
    /// A piece cut by the end is the last one.
    fn find(&mut self) -> Option<Piece> {
        let b = self.output.as_bytes();
        let len = b.len();
        while self.at < len {
            // Only a `{` or a `[` can start a value or be a lone brace: jump
            // to the next one (a vector search, where a byte loop cost a
            // tenth of a long SEARCH/REPLACE reply's `auto` apply in
            // WebAssembly).
            let i = self.at + memchr::memchr2(b'{', b'[', &b[self.at..])?;
            self.at = i + 1;
            if !starts_value(b, i) {
                if b[i] == b'{' && self.lone_brace(i) {
                    self.done = true;
                    return Some(Piece::Truncated(i..len));
                }
                continue;
            }
            let end = self.memo.extent(b, i);
            if b[i] == b'[' {
                // Step inside: its objects are the next candidates.
                self.cut_array |= end.is_none() && self.truncated(i);
                continue;
            }
            match end {
                Some(end) => {
                    if let Some(piece) = self.value(i, end) {
                        self.at = end;
                        return Some(piece);
                    }
                }
                None if self.truncated(i) => {
                    self.done = true;
                    return Some(Piece::Truncated(i..len));
                }
                None => {}
            }
        }
        None
    }

    /// The piece for a closed value at `i..end`, or `None` for prose.
    /// A value nested deeper than `serde_json` reads is not parsed at all
    /// (each level inside it is a candidate of its own: parsing each would
    /// be quadratic), and a value inside prose is prose too.
    fn value(&mut self, i: usize, end: usize) -> Option<Piece> {
        let slice = &self.output[i..end];
        let parsed = if self.memo.depth(i) > SERDE_DEPTH {
            Err(format!("nested deeper than {SERDE_DEPTH} levels"))
        } else {
            parse(slice).map_err(|e| e.to_string())
        };
        match parsed {
            Ok(v) => {
                self.edit_seen = self.edit_seen || (self.edit_like)(slice);
                Some(Piece::Value(v, i..end))
            }
            Err(e) if self.slice_like(i, end) => {
                self.edit_seen = true;
                Some(Piece::Broken(e, i..end))
            }
            Err(_) => None,
        }
    }

    /// `edit_like` on `i..end`, known false inside a range where it was.
    fn slice_like(&mut self, i: usize, end: usize) -> bool {
        let (a, b) = self.prose_in;
        if a <= i && end <= b {
            return false;
        }
        let like = (self.edit_like)(&self.output[i..end]);
        if !like {
            self.prose_in = (i, end);
        }
        like
    }

    /// Whether the value at `i`, which the end of the output cuts, is a
    /// truncated edit: valid as far as it goes (prose whose quotes never
    /// close is not), and meant as an edit.
    fn truncated(&mut self, i: usize) -> bool {
        let b = self.output.as_bytes();
        self.memo.valid_prefix(b, i) && (self.edit_seen || starts_line(b, i) || self.rest_like(i))
    }

    /// `edit_like` on the rest of the output from `i`, remembering where it
    /// was false so that a later start does not read the rest again.
    fn rest_like(&mut self, i: usize) -> bool {
        if self.prose_from.is_some_and(|p| p <= i) {
            return false;
        }
        let like = (self.edit_like)(&self.output[i..]);
        if !like {
            self.prose_from = Some(i);
        }
        like
    }

    /// A `{` with nothing but whitespace after it, on a line of its own or
    /// after an edit: the reply was cut right after it.
    fn lone_brace(&self, i: usize) -> bool {
        let b = self.output.as_bytes();
        b[i + 1..].iter().all(u8::is_ascii_whitespace) && (self.edit_seen || starts_line(b, i))
    }
}

/// Adds the failed edit for a piece that is not a value: `Broken` is
/// malformed, `Truncated` is truncated (and marks the output so). Its path
/// is the one it names before the damage, else the previous edit's.
pub fn push_damaged(output: &str, piece: Piece, parsed: &mut Parsed) {
    let (code, message, span) = match piece {
        Piece::Value(..) => return,
        Piece::Broken(e, span) => (
            Code::Malformed,
            format!("this edit is not valid JSON ({e}); write each edit as one JSON object"),
            span,
        ),
        Piece::Truncated(span) => {
            parsed.truncated = true;
            (
                Code::Truncated,
                "the output ends inside a JSON edit; the reply was cut off".to_owned(),
                span,
            )
        }
    };
    let path = partial_path(&output[span.clone()])
        .or_else(|| parsed.edits.last().and_then(|e| e.path.clone()));
    parsed.edits.push(Edit {
        path,
        op: Op::invalid(code, message),
        span,
    });
}

/// A JSON object of a reply.
type Object = Map<String, Value>;

/// The edits of a reply whose edits are JSON objects in prose (hashline,
/// the `lines` format's JSON form): each leaf object `is_edit` claims
/// becomes the edit `op_of` reads from it, or a malformed one with its
/// message; damaged pieces become failed edits ([`push_damaged`]). An
/// object without a path of its own takes its wrapper's.
pub fn parse_edits(
    output: &str,
    edit_like: &dyn Fn(&str) -> bool,
    is_edit: &dyn Fn(&Object) -> bool,
    op_of: &dyn Fn(&Object) -> Result<Op, String>,
) -> Parsed {
    let mut parsed = Parsed::default();
    for piece in scan(output, edit_like) {
        let Piece::Value(v, span) = piece else {
            push_damaged(output, piece, &mut parsed);
            continue;
        };
        for (m, path) in leaves(v).into_iter().filter(|(m, _)| is_edit(m)) {
            let op = op_of(&m).unwrap_or_else(|message| Op::invalid(Code::Malformed, message));
            parsed.edits.push(Edit {
                path: path.or_else(|| path_of(&m)),
                op,
                span: span.clone(),
            });
        }
    }
    parsed
}

/// The edit objects inside a value, each with the path a wrapper gave.
/// Takes the value: its objects move out whole, never copied.
pub fn leaves(v: Value) -> Vec<(Map<String, Value>, Option<String>)> {
    let mut out = vec![];
    walk(v, None, 0, &mut out);
    out
}

fn walk(
    v: Value,
    path: Option<String>,
    depth: usize,
    out: &mut Vec<(Map<String, Value>, Option<String>)>,
) {
    if depth > 8 {
        return;
    }
    match v {
        Value::Array(items) => {
            for it in items {
                walk(it, path.clone(), depth + 1, out);
            }
        }
        Value::Object(mut m) => {
            let here = path_of(&m).or(path);
            if let Some(list) = m.remove("edits").or_else(|| m.remove("tool_calls")) {
                walk(list, here, depth + 1, out);
                return;
            }
            let inner = ["input", "arguments", "parameters", "function"]
                .iter()
                .find_map(|k| m.remove(*k));
            match inner {
                // OpenAI function calls carry their arguments as a string.
                Some(Value::String(s)) => {
                    if let Ok(v) = parse(&s) {
                        walk(v, here, depth + 1, out);
                    }
                }
                Some(other) => walk(other, here, depth + 1, out),
                None => out.push((m, here)),
            }
        }
        _ => {}
    }
}

/// The path an object names (`path`, `file`, `file_path`, `filename`).
pub fn path_of(m: &Map<String, Value>) -> Option<String> {
    ["path", "file_path", "file", "filename"]
        .iter()
        .find_map(|k| m.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
}

/// The path a cut-off or broken edit names before the damage, so that its
/// receipt is filed under the right file.
pub fn partial_path(s: &str) -> Option<String> {
    ["\"path\"", "\"file_path\"", "\"file\""]
        .iter()
        .find_map(|k| {
            let rest = s[s.find(k)? + k.len()..].trim_start().strip_prefix(':')?;
            let rest = rest.trim_start().strip_prefix('"')?;
            let end = rest.find('"')?;
            let p = &rest[..end];
            (!p.is_empty() && !p.contains('\\')).then(|| p.to_owned())
        })
}

/// A line number: a JSON number or a numeric string.
pub fn number(v: &Value) -> Option<usize> {
    match v {
        Value::Number(n) => n.as_u64().and_then(|n| usize::try_from(n).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The first of `keys` the object has.
pub fn field<'a>(m: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().find_map(|k| m.get(*k))
}

/// New text as lines: a string, read like a file's text (split on `\n`; a
/// final `\n` ends the last line rather than starting an empty one, so `""`
/// is no lines and `"\n"` one empty line), or an array of strings, one line
/// each (an element holding `\n` is split the same way). `None` when it is
/// neither.
pub fn text_lines(v: &Value) -> Option<Vec<String>> {
    fn split(s: &str, out: &mut Vec<String>) {
        if s.is_empty() {
            return;
        }
        let s = s.strip_suffix('\n').unwrap_or(s);
        out.extend(
            s.split('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned()),
        );
    }
    let mut out = vec![];
    match v {
        Value::String(s) => split(s, &mut out),
        Value::Array(items) => {
            for it in items {
                match it {
                    // An array element is one line even when it is empty.
                    Value::String(s) if s.is_empty() => out.push(String::new()),
                    Value::String(s) => split(s, &mut out),
                    _ => return None,
                }
            }
        }
        Value::Null => {}
        _ => return None,
    }
    Some(out)
}

/// Renders lines as a JSON value for `new`: a string when that reads back
/// the same, else an array.
pub fn text_value(lines: &[String]) -> Value {
    let last_blank = lines.last().is_some_and(|l| l.is_empty());
    if lines.is_empty() || (!last_blank && !lines.iter().any(|l| l.contains('\r'))) {
        Value::String(lines.join("\n"))
    } else {
        Value::Array(lines.iter().cloned().map(Value::String).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn any(_: &str) -> bool {
        true
    }

    fn scan(out: &str, like: &dyn Fn(&str) -> bool) -> Vec<Piece> {
        super::scan(out, like).collect()
    }

    #[test]
    fn finds_values_in_prose_and_fences() {
        let out = "Sure {not json}.\n```json\n{\"line\": 3, \"new\": \"x\"}\n```\nand [{\"a\": 1}, {\"b\": 2}]\n{\"c\": 3}\n";
        let p = scan(out, &any);
        assert_eq!(p.len(), 4, "{p:?}");
        match &p[0] {
            Piece::Value(v, r) => {
                assert_eq!(v["line"], 3);
                assert_eq!(&out[r.clone()], "{\"line\": 3, \"new\": \"x\"}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&p[2], Piece::Value(v, _) if v["b"] == 2));
    }

    #[test]
    fn cut_array_keeps_complete_objects() {
        let p = scan("[\n{\"line\": 1},\n{\"line\": 2},\n", &any);
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(matches!(p[2], Piece::Truncated(_)));
        let p = scan("[{\"line\": 1}, {\"line\": 2, \"new\": \"ab", &any);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(matches!(p[1], Piece::Truncated(_)));
    }

    #[test]
    fn repairs_raw_newlines_and_trailing_commas() {
        let out = "{\"new\": \"a\n\tb\", \"line\": 2,}";
        match &scan(out, &any)[0] {
            Piece::Value(v, _) => assert_eq!(v["new"], "a\n\tb"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn truncated_and_broken() {
        let p = scan("Here:\n{\"line\": 2, \"new\": \"abc", &any);
        assert!(matches!(p[0], Piece::Truncated(_)), "{p:?}");
        let p = scan("{\"line\": 2 \"new\": 1}", &any);
        assert!(matches!(p[0], Piece::Broken(..)), "{p:?}");
        // Prose with a stray quote is not an edit.
        let line = |s: &str| s.contains("\"line\"");
        assert!(scan("say {\"hi there", &line).is_empty());
        // Cut before any edit key: at the start of a line, or after an edit.
        let p = scan("```json\n[\n{\"op", &line);
        assert!(matches!(p[..], [Piece::Truncated(_)]), "{p:?}");
        let p = scan("{\"line\": 1} and {\"op", &line);
        assert!(
            matches!(p[..], [Piece::Value(..), Piece::Truncated(_)]),
            "{p:?}"
        );
    }

    #[test]
    fn paths_of_cut_edits() {
        assert_eq!(
            partial_path("{\"path\" : \"a/b.rs\", \"new\": \"x").as_deref(),
            Some("a/b.rs")
        );
        assert_eq!(partial_path("{\"path\": \"a/b"), None);
        assert_eq!(partial_path("{\"new\": 1"), None);
    }

    #[test]
    fn envelopes_and_paths() {
        let v: Value = serde_json::from_str(
            r#"{"name": "edit", "arguments": "{\"path\": \"a.py\", \"edits\": [{\"line\": 1}, {\"line\": 2, \"path\": \"b.py\"}]}"}"#,
        )
        .unwrap();
        let l = leaves(v);
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].1.as_deref(), Some("a.py"));
        assert_eq!(l[1].1.as_deref(), Some("b.py"));
    }

    #[test]
    fn new_text() {
        let s = |x: &str| text_lines(&Value::String(x.into())).unwrap();
        assert_eq!(s(""), Vec::<String>::new());
        assert_eq!(s("a\n"), vec!["a"]);
        assert_eq!(s("a\n\nb"), vec!["a", "", "b"]);
        assert_eq!(s("\n"), vec![""]);
        let lines = vec!["a".to_string(), String::new()];
        assert_eq!(text_lines(&text_value(&lines)).unwrap(), lines);
        let one = vec!["x".to_string(), "y".to_string()];
        assert_eq!(text_value(&one), Value::String("x\ny".into()));
    }

    /// The depth past which values are not handed to serde is serde's own
    /// limit: a value one level deeper never parsed anyway.
    #[test]
    fn serde_reads_exactly_serde_depth_levels() {
        let nest = |d: u32| format!("{}1{}", "[".repeat(d as usize), "]".repeat(d as usize));
        assert!(serde_json::from_str::<Value>(&nest(SERDE_DEPTH)).is_ok());
        assert!(serde_json::from_str::<Value>(&nest(SERDE_DEPTH + 1)).is_err());
        let obj = |d: usize| format!("{}1{}", "{\"line\":".repeat(d), "}".repeat(d));
        let p = scan(&obj(SERDE_DEPTH as usize), &|s: &str| {
            s.contains("\"line\"")
        });
        assert!(matches!(p[..], [Piece::Value(..)]), "{p:?}");
        let p = scan(&obj(SERDE_DEPTH as usize + 1), &|s: &str| {
            s.contains("\"line\"")
        });
        assert!(
            matches!(&p[..], [Piece::Broken(e, _)] if e.contains("nested deeper")),
            "{p:?}"
        );
    }
}
