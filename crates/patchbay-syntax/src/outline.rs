//! The outline of a file: its definitions in document order, each with a
//! qualified name, a kind, byte and line ranges, and the range of its
//! leading doc comments and attributes or decorators. Also lookups (by
//! qualified name, by line) and the flat [`sections`] view.
//!
//! Cost: one parse, then one walk over the nodes outside function bodies
//! (see `walk.rs`), `O(nodes)`; lookups are linear in the symbols.

use crate::lang::{self, Language};
pub use crate::symbol::{Kind, Span, Symbol};
use crate::Error;
use serde::{Deserialize, Serialize};

/// The definitions of a file, in document order (parents before members).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Outline {
    pub language: Language,
    pub symbols: Vec<Symbol>,
    /// Why the outline may miss definitions: an outline without symbols of
    /// a file that is not blank always says why (syntax errors, code under
    /// `#if 0`, or only declarations). Absent when there is nothing to say.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional, as = "Option<Vec<String>>"))]
    pub notes: Vec<String>,
}

/// One entry of [`sections`]: what a budget planner needs of a symbol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Section {
    /// The qualified name.
    pub name: String,
    pub kind: Kind,
    /// 1-based, inclusive, leading comments and attributes included.
    pub start_line: usize,
    pub end_line: usize,
}

/// Outlines `text`. Syntax errors do not stop it: tree-sitter recovers and
/// the definitions it still recognises are listed. A text over
/// [`MAX_SOURCE_BYTES`](crate::MAX_SOURCE_BYTES) is refused
/// ([`Error::TooLarge`]) before anything is parsed.
pub fn outline(text: &str, lang: Language) -> Result<Outline, Error> {
    lang::check_size(text)?;
    let (body, base) = crate::body(text);
    // C and C++ are parsed as configurations of their conditionals, with
    // the same offsets, and their outlines joined (see `preproc.rs`).
    let views = match lang {
        Language::C | Language::Cpp => crate::preproc::views(body),
        _ => crate::preproc::Views::one(body),
    };
    let mut symbols: Vec<Symbol> = Vec::new();
    let mut first_error = None;
    for (k, view) in views.texts.iter().enumerate() {
        let tree = lang::parse(view, lang)?;
        let found = crate::walk::collect(tree.root_node(), view, base, lang);
        if k == 0 {
            first_error = crate::check::first_error_line(&tree);
            symbols = found;
        } else {
            symbols = crate::merge::join(symbols, found);
        }
    }
    let bytes: Vec<usize> = symbols.iter().flat_map(|s| s.span.bytes).collect();
    let units = patchbay::apply::text::utf16_offsets(text, &bytes);
    for (s, u) in symbols.iter_mut().zip(units.chunks(2)) {
        (s.from, s.to) = (u[0], u[1]);
    }
    let mut notes = Vec::new();
    if symbols.is_empty() && !body.trim().is_empty() {
        notes.push(why_empty(first_error, views.dead_lines, lang));
    }
    Ok(Outline {
        language: lang,
        symbols,
        notes,
    })
}

/// What an outline without symbols says about a file that is not blank.
fn why_empty(first_error: Option<usize>, dead_lines: usize, lang: Language) -> String {
    let mut why = Vec::new();
    if let Some(line) = first_error {
        why.push(format!(
            "tree-sitter could not parse parts of the file as {lang} (the first syntax error is at line {line}), and definitions there are not recognised"
        ));
    }
    if dead_lines > 0 {
        why.push(format!(
            "{dead_lines} lines are under `#if 0`, which the outline does not parse"
        ));
    }
    if why.is_empty() {
        why.push(
            "the file has no definition of the kinds an outline lists (functions and methods with a body, classes, structs, unions, enums, traits, interfaces, modules, type aliases, macros with parameters); declarations, prototypes and variables are not listed"
                .to_owned(),
        );
    }
    format!("no symbols: {}", why.join("; "))
}

/// Every symbol of `text` as a flat list of sections, in document order
/// (members follow their parent and lie within its lines).
pub fn sections(text: &str, lang: Language) -> Result<Vec<Section>, Error> {
    Ok(outline(text, lang)?
        .symbols
        .into_iter()
        .map(|s| Section {
            name: s.qualified,
            kind: s.kind,
            start_line: s.lines[0],
            end_line: s.lines[1],
        })
        .collect())
}

impl Outline {
    /// The innermost symbol whose lines (leading lines included) contain
    /// the 1-based `line`.
    pub fn at_line(&self, line: usize) -> Option<&Symbol> {
        self.symbols
            .iter()
            .filter(|s| s.lines[0] <= line && line <= s.lines[1])
            .max_by_key(|s| (s.depth, usize::MAX - (s.lines[1] - s.lines[0])))
    }

    /// The symbol a query names: a 1-based line number (`42` or `:42`, the
    /// innermost symbol there); else an exact qualified name; else a
    /// unique symbol whose name is the query or whose qualified name ends
    /// with it (`hello` or `Greeter::hello`). Either separator is accepted.
    pub fn find(&self, query: &str) -> Result<&Symbol, Error> {
        let q = query.trim();
        let digits = q.strip_prefix(':').unwrap_or(q);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            let line = digits.parse::<usize>().unwrap_or(usize::MAX);
            return self.at_line(line).ok_or(Error::NoSymbolAtLine(line));
        }
        let sep = self.language.separator();
        let q = match sep {
            "::" => q.replace('.', "::"),
            _ => q.replace("::", "."),
        };
        let mut hits: Vec<&Symbol> = self.symbols.iter().filter(|s| s.qualified == q).collect();
        if hits.is_empty() {
            let tail = format!("{sep}{q}");
            hits = self
                .symbols
                .iter()
                .filter(|s| s.name == q || s.qualified.ends_with(&tail))
                .collect();
        }
        match hits.as_slice() {
            [one] => Ok(one),
            [] => Err(Error::SymbolNotFound {
                candidates: self.close_to(&q),
                query: q,
            }),
            many => Err(Error::AmbiguousSymbol {
                query: q,
                candidates: many
                    .iter()
                    .map(|s| (s.qualified.clone(), s.lines[0]))
                    .collect(),
            }),
        }
    }

    /// Qualified names that look like `q` (same last segment, ignoring
    /// case), else the first dozen symbols.
    fn close_to(&self, q: &str) -> Vec<String> {
        let sep = self.language.separator();
        let last = q.rsplit(sep).next().unwrap_or(q).to_lowercase();
        let mut v: Vec<String> = self
            .symbols
            .iter()
            .filter(|s| {
                let n = s.name.to_lowercase();
                !last.is_empty() && (n.contains(&last) || last.contains(&n))
            })
            .map(|s| s.qualified.clone())
            .collect();
        if v.is_empty() {
            v = self.symbols.iter().map(|s| s.qualified.clone()).collect();
        }
        v.truncate(12);
        v
    }

    /// A plain-text listing, one symbol a line, members indented:
    /// `  12-20  method     Greeter::hello`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for s in &self.symbols {
            let range = format!("{}-{}", s.lines[0], s.lines[1]);
            out.push_str(&format!(
                "{range:>11}  {:<9}  {:indent$}{}\n",
                s.kind.name(),
                "",
                s.qualified,
                // Depth is bounded by the walk; the cap keeps the width
                // argument in range even for a hand-made outline.
                indent = 2 * s.depth.min(crate::walk::MAX_DEPTH)
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_by_name_line_and_either_separator() {
        let src = "struct A;\nimpl A {\n    fn f(&self) {}\n    fn g(&self) {}\n}\nfn f() {}\n";
        let o = outline(src, Language::Rust).unwrap();
        let names: Vec<&str> = o.symbols.iter().map(|s| s.qualified.as_str()).collect();
        assert_eq!(names, ["A", "impl A", "A::f", "A::g", "f"]);
        assert_eq!(o.find("A.g").unwrap().qualified, "A::g");
        assert_eq!(o.find("g").unwrap().qualified, "A::g");
        assert_eq!(o.find("f").unwrap().lines, [6, 6], "exact beats suffix");
        assert_eq!(o.find("3").unwrap().qualified, "A::f");
        assert_eq!(o.find(":2").unwrap().qualified, "impl A");
        assert_eq!(o.find("99"), Err(Error::NoSymbolAtLine(99)));
        match o.find("nope") {
            Err(Error::SymbolNotFound { candidates, .. }) => assert_eq!(candidates.len(), 5),
            other => panic!("{other:?}"),
        }
        let twice = "impl A { fn f() {} }\nimpl B { fn f() {} }\n";
        let o = outline(twice, Language::Rust).unwrap();
        assert_eq!(
            o.find("f"),
            Err(Error::AmbiguousSymbol {
                query: "f".into(),
                candidates: vec![("A::f".into(), 1), ("B::f".into(), 2)]
            })
        );
        let r = o.render();
        assert_eq!(r.lines().next(), Some("        1-1  impl       impl A"));
    }
}
