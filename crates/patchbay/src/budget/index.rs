//! The line index: a file cut into named sections with line ranges, so a
//! plan can send the parts that matter instead of the whole file.
//!
//! The sections come from a language-agnostic heuristic (indentation and
//! brackets; Markdown headings), or from an outline passed in as
//! [`Section`]s (tree-sitter outlines from `patchbay-syntax`, an LSP, ...),
//! which [`normalize`] turns into the same shape: sorted, non-overlapping,
//! covering every line. Cost: `O(lines)` for the heuristic, `O(s log s)` to
//! normalise `s` sections.

use serde::{Deserialize, Serialize};

/// A part of a file: 1-based inclusive line range, a name (the symbol it
/// defines, when there is one) and a kind (`function`, `class`, `impl`,
/// `heading`, `imports`, `block`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Section {
    pub name: String,
    pub kind: String,
    pub start_line: usize,
    pub end_line: usize,
}

impl Section {
    pub fn new(name: &str, kind: &str, start_line: usize, end_line: usize) -> Section {
        Section {
            name: name.into(),
            kind: kind.into(),
            start_line,
            end_line,
        }
    }

    pub fn lines(&self) -> usize {
        self.end_line + 1 - self.start_line
    }
}

/// Units longer than this are split into the items of their body.
pub const SPLIT_LINES: usize = 60;

const KEYWORDS: &[&str] = &[
    "pub",
    "fn",
    "def",
    "class",
    "struct",
    "enum",
    "impl",
    "trait",
    "async",
    "static",
    "const",
    "let",
    "var",
    "function",
    "export",
    "default",
    "func",
    "type",
    "interface",
    "public",
    "private",
    "protected",
    "final",
    "abstract",
    "void",
    "unsafe",
    "extern",
    "mod",
    "package",
    "sub",
    "my",
    "our",
    "local",
    "crate",
    "super",
    "self",
    "inline",
    "override",
    "virtual",
    "union",
    "module",
    "namespace",
    "template",
    "typedef",
    "macro_rules",
    "where",
    "for",
    "dyn",
    "mut",
    "ref",
    "return",
    "new",
    "int",
    "char",
    "long",
    "unsigned",
    "signed",
    "bool",
    "use",
    "import",
    "from",
    "include",
    "require",
];

/// Sections of `text` by the heuristic; `path` only tells Markdown apart.
pub fn sections(text: &str, path: &str) -> Vec<Section> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return vec![];
    }
    let lower = path.to_ascii_lowercase();
    let mut out = if lower.ends_with(".md") || lower.ends_with(".markdown") {
        markdown(&lines)
    } else {
        let mut v = vec![];
        units(&lines, 0, lines.len(), 0, &mut v);
        v
    };
    merge_small(&mut out, &lines);
    out
}

/// Width of the leading blanks (a tab counts 4).
fn indent(line: &str) -> usize {
    line.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

fn blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Comments, attributes and decorators: they belong to what follows.
fn trivia(line: &str) -> bool {
    let t = line.trim_start();
    ["//", "#", "/*", "*", "@", "--", ";", "\"\"\"", "'''"]
        .iter()
        .any(|p| t.starts_with(p))
}

/// Lines that close a unit rather than start one.
fn closer(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with(['}', ')', ']'])
        || matches!(
            t.split_whitespace().next(),
            Some("end" | "fi" | "done" | "esac" | "else" | "elif" | "except" | "finally")
        )
}

/// Whether the line leaves a statement open, so the next line continues it.
fn continues(line: &str) -> bool {
    let t = line.trim_end();
    t.ends_with([',', '(', '[', '\\', '=', '+', '|', '&'])
}

/// Splits lines `lo..hi` (0-based) into units at indentation `base`; a
/// unit longer than [`SPLIT_LINES`] is split again at its body's indent.
fn units(lines: &[&str], lo: usize, hi: usize, depth: usize, out: &mut Vec<Section>) {
    let mut starts = vec![];
    let mut prev_open = false;
    let base = base_indent(lines, lo, hi);
    for (i, line) in lines.iter().enumerate().take(hi).skip(lo) {
        if blank(line) {
            continue;
        }
        let at_base = indent(line) == base;
        if at_base && !closer(line) && !prev_open && !trivia(line) {
            // Comments and attributes right above belong to this unit.
            let mut s = i;
            while s > lo && !blank(lines[s - 1]) && trivia(lines[s - 1]) {
                s -= 1;
            }
            starts.push(s);
        }
        if !trivia(line) {
            prev_open = continues(line);
        }
    }
    if starts.first() != Some(&lo) {
        starts.insert(0, lo);
    }
    starts.dedup();
    for (k, &s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(hi);
        let (name, kind) = describe(&lines[s..e]);
        if e - s > SPLIT_LINES && depth < 2 {
            if let Some(body) = body_start(lines, s, e) {
                // The head (signature, fields before the first item) is a
                // section of its own, named like the unit.
                out.push(Section::new(&name, &kind, s + 1, body));
                units(lines, body, e, depth + 1, out);
                continue;
            }
        }
        out.push(Section::new(&name, &kind, s + 1, e));
    }
}

/// Smallest indentation of the non-blank lines of `lo..hi`, closing
/// lines left out (a body ends with its parent's `}`).
fn base_indent(lines: &[&str], lo: usize, hi: usize) -> usize {
    lines[lo..hi]
        .iter()
        .filter(|l| !blank(l) && !closer(l))
        .map(|l| indent(l))
        .min()
        .unwrap_or(0)
}

/// The first line of a unit's body where its items start: the first
/// line indented deeper than the unit's head, if there is one.
fn body_start(lines: &[&str], s: usize, e: usize) -> Option<usize> {
    let head = lines[s..e].iter().position(|l| !blank(l) && !trivia(l))? + s;
    let base = indent(lines[head]);
    let first = (head + 1..e).find(|&i| !blank(lines[i]) && indent(lines[i]) > base)?;
    // Items of the body start at the first line at the body's indentation
    // after the head; everything before stays with the head.
    Some(first)
}

/// Name and kind from a unit's first line that is not a comment.
fn describe(lines: &[&str]) -> (String, String) {
    let Some(line) = lines.iter().find(|l| !blank(l) && !trivia(l)) else {
        return (String::new(), "comment".into());
    };
    let t = line.trim();
    let words: Vec<&str> = t
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let kind = words
        .iter()
        .find_map(|w| match *w {
            "fn" | "def" | "func" | "function" | "sub" => Some("function"),
            "class" | "struct" | "enum" | "trait" | "interface" | "impl" | "type" | "union"
            | "mod" | "module" | "namespace" => Some(*w),
            "use" | "import" | "from" | "include" | "require" | "package" => Some("imports"),
            _ => None,
        })
        .unwrap_or("block");
    // A call-like identifier names a function (`static int foo(`, Go's
    // `func (r *R) Read(`); otherwise the first word that is no keyword.
    let name = call_name(t)
        .or_else(|| {
            words
                .iter()
                .find(|w| !KEYWORDS.contains(w) && !w.chars().next().unwrap_or('0').is_numeric())
                .map(|w| w.to_string())
        })
        .unwrap_or_default();
    (name, kind.into())
}

/// The last identifier directly followed by `(` before any `=` or `{`,
/// skipping control keywords.
fn call_name(t: &str) -> Option<String> {
    let head = t.split(['=', '{']).next().unwrap_or(t);
    let b = head.as_bytes();
    let mut best = None;
    for (i, &c) in b.iter().enumerate() {
        if c != b'(' {
            continue;
        }
        let end = i;
        let mut s = end;
        while s > 0 && (b[s - 1].is_ascii_alphanumeric() || b[s - 1] == b'_') {
            s -= 1;
        }
        let w = &head[s..end];
        if !w.is_empty()
            && !matches!(w, "if" | "for" | "while" | "switch" | "match" | "return")
            && !KEYWORDS.contains(&w)
        {
            best = Some(w.to_string());
            break;
        }
    }
    best
}

/// Markdown: a heading starts a section (outside fenced code).
fn markdown(lines: &[&str]) -> Vec<Section> {
    let mut out: Vec<Section> = vec![];
    let mut fence = false;
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
        }
        let heading = !fence && t.starts_with('#') && t.trim_start_matches('#').starts_with(' ');
        if heading || out.is_empty() {
            let name = if heading {
                t.trim_start_matches('#').trim()
            } else {
                ""
            };
            if let Some(last) = out.last_mut() {
                last.end_line = i;
            }
            let kind = if heading { "heading" } else { "text" };
            out.push(Section::new(name, kind, i + 1, lines.len()));
        }
    }
    out
}

/// Merges runs of tiny sections (one or two lines: imports, constants) so
/// the index does not list every `use` line.
fn merge_small(v: &mut Vec<Section>, lines: &[&str]) {
    let mut out: Vec<Section> = Vec::with_capacity(v.len());
    for s in v.drain(..) {
        let small = |x: &Section| {
            let code = (x.start_line..=x.end_line)
                .filter(|&l| !blank(lines[l - 1]))
                .count();
            code <= 2 && x.kind != "heading"
        };
        match out.last_mut() {
            Some(last) if small(last) && small(&s) && last.end_line + 1 == s.start_line => {
                last.end_line = s.end_line;
                if last.kind != s.kind {
                    last.kind = "block".into();
                }
            }
            _ => out.push(s),
        }
    }
    *v = out;
}

/// Makes outline sections (possibly nested, overlapping, out of order or
/// out of range) into a flat cover of lines `1..=n_lines`: the innermost
/// section owns each line, and lines no section owns become unnamed
/// `block` sections.
pub fn normalize(mut given: Vec<Section>, n_lines: usize) -> Vec<Section> {
    given.retain(|s| s.start_line >= 1 && s.start_line <= s.end_line && s.start_line <= n_lines);
    for s in &mut given {
        s.end_line = s.end_line.min(n_lines);
    }
    // Wider sections first, so narrower (inner) ones overwrite them.
    crate::order::sort_by_key(&mut given[..], |s| std::cmp::Reverse(s.lines()));
    let mut owner: Vec<Option<usize>> = vec![None; n_lines + 1];
    for (k, s) in given.iter().enumerate() {
        for o in &mut owner[s.start_line..=s.end_line] {
            *o = Some(k);
        }
    }
    let mut out: Vec<Section> = vec![];
    let mut owners: Vec<Option<usize>> = vec![];
    for (line, &o) in owner.iter().enumerate().skip(1) {
        if owners.last() == Some(&o) {
            if let Some(last) = out.last_mut() {
                last.end_line = line;
            }
            continue;
        }
        let (name, kind) = o
            .map(|k| (given[k].name.as_str(), given[k].kind.as_str()))
            .unwrap_or(("", "block"));
        out.push(Section::new(name, kind, line, line));
        owners.push(o);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covers(v: &[Section], n: usize) {
        let mut next = 1;
        for s in v {
            assert_eq!(s.start_line, next, "{v:?}");
            assert!(s.end_line >= s.start_line);
            next = s.end_line + 1;
        }
        assert_eq!(next, n + 1, "{v:?}");
    }

    #[test]
    fn rust_items_with_doc_comments() {
        let text = "use std::fmt;\nuse std::io;\n\n/// Adds.\n#[inline]\npub fn add(a: i32) -> i32 {\n    a + 1\n}\n\nstruct Point {\n    x: i32,\n}\n";
        let v = sections(text, "lib.rs");
        covers(&v, 12);
        let add = v.iter().find(|s| s.name == "add").unwrap();
        assert_eq!(
            (add.kind.as_str(), add.start_line, add.end_line),
            ("function", 4, 9)
        );
        assert!(v.iter().any(|s| s.name == "Point" && s.kind == "struct"));
        assert_eq!(v[0].kind, "imports");
    }

    #[test]
    fn python_class_split_into_methods_when_long() {
        let mut text = String::from("class Big:\n    x = 1\n\n");
        for m in 0..8 {
            text.push_str(&format!("    def m{m}(self):\n"));
            for _ in 0..8 {
                text.push_str("        pass\n");
            }
        }
        let v = sections(&text, "big.py");
        covers(&v, text.lines().count());
        assert_eq!(v[0].name, "Big");
        assert!(v.iter().any(|s| s.name == "m5" && s.kind == "function"));
    }

    #[test]
    fn go_method_named_after_receiver_list() {
        let v = sections(
            "func (r *Reader) Read(b []byte) (int, error) {\n\treturn 0, nil\n}\n",
            "r.go",
        );
        assert_eq!(v[0].name, "Read");
    }

    #[test]
    fn markdown_headings() {
        let v = sections(
            "intro\n# One\ntext\n```\n# not a heading\n```\n## Two\nmore\n",
            "README.md",
        );
        let names: Vec<&str> = v.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["", "One", "Two"]);
        covers(&v, 8);
    }

    #[test]
    fn normalize_nested_outline() {
        let given = vec![
            Section::new("Outer", "class", 2, 10),
            Section::new("inner", "function", 4, 6),
            Section::new("bad", "function", 30, 20),
        ];
        let v = normalize(given, 12);
        covers(&v, 12);
        let kinds: Vec<(&str, usize, usize)> = v
            .iter()
            .map(|s| (s.name.as_str(), s.start_line, s.end_line))
            .collect();
        assert_eq!(
            kinds,
            [
                ("", 1, 1),
                ("Outer", 2, 3),
                ("inner", 4, 6),
                ("Outer", 7, 10),
                ("", 11, 12)
            ]
        );
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for t in ["", "\n", "}", "   \n\t\n", "(((", "#", "a\n\tb\n  c\n}"] {
            let v = sections(t, "x");
            covers(&v, t.lines().count());
        }
    }
}
