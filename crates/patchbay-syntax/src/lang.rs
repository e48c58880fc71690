//! Languages: which grammar a file gets (by extension or by name), whether
//! that grammar was compiled in (each one is a cargo feature), and parsing.
//!
//! Cost: choosing a language is a table lookup; [`parse`] is tree-sitter's
//! parse, linear in the text for these grammars (a few ms per 1,000 lines,
//! about 1,000-1,600 instructions a byte; see `docs/benchmarks.md`).

use crate::Error;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A language patchbay-syntax knows. Every variant exists whatever the
/// features; one whose grammar is not compiled in fails with
/// [`Error::LanguageDisabled`] when it is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Java,
    C,
    Cpp,
}

/// Every language, in the order of [`Language`].
pub const ALL: [Language; 9] = [
    Language::Rust,
    Language::Python,
    Language::JavaScript,
    Language::TypeScript,
    Language::Tsx,
    Language::Go,
    Language::Java,
    Language::C,
    Language::Cpp,
];

impl Language {
    /// The name used everywhere (CLI, JSON, JS): `rust`, `python`,
    /// `javascript`, `typescript`, `tsx`, `go`, `java`, `c`, `cpp`.
    pub fn name(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Go => "go",
            Language::Java => "java",
            Language::C => "c",
            Language::Cpp => "cpp",
        }
    }

    /// A language by name, case-insensitive, with the usual aliases
    /// (`js`, `ts`, `py`, `rs`, `c++`, `golang`, ...).
    pub fn from_name(name: &str) -> Option<Language> {
        let n = name.trim().to_ascii_lowercase();
        Some(match n.as_str() {
            "rust" | "rs" => Language::Rust,
            "python" | "py" | "python3" => Language::Python,
            "javascript" | "js" | "jsx" | "node" => Language::JavaScript,
            "typescript" | "ts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "go" | "golang" => Language::Go,
            "java" => Language::Java,
            "c" => Language::C,
            "cpp" | "c++" | "cxx" | "cc" => Language::Cpp,
            _ => return None,
        })
    }

    /// The language of a path, by its extension (case-insensitive). `.h`
    /// is C: the C grammar reads most headers, C++ ones use `.hpp`/`.hh`.
    pub fn from_path(path: &str) -> Option<Language> {
        let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let (_, ext) = file.rsplit_once('.')?;
        Some(match ext.to_ascii_lowercase().as_str() {
            "rs" => Language::Rust,
            "py" | "pyi" | "pyw" => Language::Python,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "go" => Language::Go,
            "java" => Language::Java,
            "c" | "h" => Language::C,
            "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "ipp" | "tpp" => {
                Language::Cpp
            }
            _ => return None,
        })
    }

    /// The language of `path`, or the one named by `name` when given.
    pub fn resolve(path: &str, name: Option<&str>) -> Result<Language, Error> {
        match name.filter(|n| !n.trim().is_empty()) {
            Some(n) => Language::from_name(n).ok_or_else(|| Error::UnknownLanguage(n.to_owned())),
            None => {
                Language::from_path(path).ok_or_else(|| Error::UnknownLanguage(path.to_owned()))
            }
        }
    }

    /// Whether this language's grammar is compiled in.
    pub fn enabled(self) -> bool {
        self.grammar().is_some()
    }

    /// Separator of qualified names: `Greeter::hello` in Rust and the C
    /// family, `Outer.Inner.method` elsewhere.
    pub fn separator(self) -> &'static str {
        match self {
            Language::Rust | Language::C | Language::Cpp => "::",
            _ => ".",
        }
    }

    /// The tree-sitter grammar, when compiled in.
    pub fn grammar(self) -> Option<tree_sitter::Language> {
        match self {
            #[cfg(feature = "rust")]
            Language::Rust => Some(tree_sitter_rust::LANGUAGE.into()),
            #[cfg(feature = "python")]
            Language::Python => Some(tree_sitter_python::LANGUAGE.into()),
            #[cfg(feature = "javascript")]
            Language::JavaScript => Some(tree_sitter_javascript::LANGUAGE.into()),
            #[cfg(feature = "typescript")]
            Language::TypeScript => Some(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
            #[cfg(feature = "typescript")]
            Language::Tsx => Some(tree_sitter_typescript::LANGUAGE_TSX.into()),
            #[cfg(feature = "go")]
            Language::Go => Some(tree_sitter_go::LANGUAGE.into()),
            #[cfg(feature = "java")]
            Language::Java => Some(tree_sitter_java::LANGUAGE.into()),
            #[cfg(feature = "c")]
            Language::C => Some(tree_sitter_c::LANGUAGE.into()),
            #[cfg(feature = "cpp")]
            Language::Cpp => Some(tree_sitter_cpp::LANGUAGE.into()),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The languages compiled into this build.
pub fn enabled() -> Vec<Language> {
    ALL.into_iter().filter(|l| l.enabled()).collect()
}

/// Refuses a text over [`crate::MAX_SOURCE_BYTES`] ([`Error::TooLarge`]).
pub fn check_size(text: &str) -> Result<(), Error> {
    match text.len() {
        n if n > crate::MAX_SOURCE_BYTES => Err(Error::TooLarge {
            bytes: n,
            limit: crate::MAX_SOURCE_BYTES,
        }),
        _ => Ok(()),
    }
}

/// Parses `text`. Fails when the grammar is not compiled in, when the
/// text is over [`crate::MAX_SOURCE_BYTES`] ([`Error::TooLarge`]: the tree
/// would take about 15 times its size in memory) or when tree-sitter
/// refuses it (an ABI mismatch); syntax errors are part of the tree (ERROR
/// and MISSING nodes), which the syntax check reports.
pub fn parse(text: &str, lang: Language) -> Result<tree_sitter::Tree, Error> {
    check_size(text)?;
    let grammar = lang.grammar().ok_or(Error::LanguageDisabled(lang))?;
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&grammar)
        .map_err(|e| Error::Parser(format!("{lang}: {e}")))?;
    // `None` only happens with a timeout, a cancellation flag or no
    // language, none of which is set here.
    parser
        .parse(text, None)
        .ok_or_else(|| Error::Parser(format!("{lang}: tree-sitter returned no tree")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 300 MB needs more than 4 GiB inside tree-sitter: a text over
    /// the limit is refused by every entry point before it is parsed.
    #[test]
    fn texts_over_the_limit_are_refused_before_parsing() {
        let limit = crate::MAX_SOURCE_BYTES;
        let at = "x".repeat(limit);
        assert_eq!(check_size(&at), Ok(()));
        let over = at + "y";
        let refused = Err(Error::TooLarge {
            bytes: limit + 1,
            limit,
        });
        assert_eq!(check_size(&over), refused);
        let started = std::time::Instant::now();
        assert_eq!(crate::outline(&over, Language::Cpp).map(|_| ()), refused);
        assert_eq!(parse(&over, Language::C).map(|_| ()), refused);
        assert_eq!(
            crate::slice::slice("a.c", &over, Language::C, "f").map(|_| ()),
            refused
        );
        assert_eq!(
            crate::check::issues(&over, Language::Rust).map(|_| ()),
            refused
        );
        assert!(started.elapsed().as_secs() < 5, "something parsed it");
        let e = Error::TooLarge {
            bytes: limit + 1,
            limit,
        };
        assert_eq!(e.code(), "too_large");
        assert!(e.to_string().contains("at most 33554432 bytes (32 MiB)"));
    }

    #[test]
    fn names_round_trip_and_paths_choose() {
        for l in ALL {
            assert_eq!(Language::from_name(l.name()), Some(l));
        }
        assert_eq!(Language::from_path("src/lib.rs"), Some(Language::Rust));
        assert_eq!(Language::from_path("a/b.test.TSX"), Some(Language::Tsx));
        assert_eq!(Language::from_path("x.h"), Some(Language::C));
        assert_eq!(Language::from_path("x.hpp"), Some(Language::Cpp));
        assert_eq!(Language::from_path("Makefile"), None);
        assert_eq!(Language::from_path("dir.rs/README"), None);
        assert_eq!(
            Language::resolve("a.txt", Some("C++")).ok(),
            Some(Language::Cpp)
        );
        assert!(matches!(
            Language::resolve("a.txt", None),
            Err(Error::UnknownLanguage(_))
        ));
    }
}
