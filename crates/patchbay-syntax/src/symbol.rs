//! The data of an outline: what a symbol is ([`Kind`]), where it is
//! ([`Span`]) and the symbol itself. Its own module so that the walk and the
//! node-kind rules, which build symbols, and the outline, which runs them,
//! all depend on it instead of on each other.

use serde::{Deserialize, Serialize};

/// What a symbol is. Names are lowercase in JSON and JS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SymbolKind"))]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Function,
    /// A function inside a class, struct, impl, trait or interface, or
    /// defined with a qualifier (C++ `Greeter::hello`, a Go receiver).
    Method,
    Class,
    Struct,
    Enum,
    Union,
    Trait,
    Interface,
    Impl,
    /// A module or namespace.
    Module,
    /// A type alias (TypeScript `type`, Rust `type`, Go `type X int`).
    Type,
    Macro,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Class => "class",
            Kind::Struct => "struct",
            Kind::Enum => "enum",
            Kind::Union => "union",
            Kind::Trait => "trait",
            Kind::Interface => "interface",
            Kind::Impl => "impl",
            Kind::Module => "module",
            Kind::Type => "type",
            Kind::Macro => "macro",
        }
    }

    /// Kinds whose functions are methods.
    pub(crate) fn has_methods(self) -> bool {
        matches!(
            self,
            Kind::Class
                | Kind::Struct
                | Kind::Union
                | Kind::Enum
                | Kind::Trait
                | Kind::Interface
                | Kind::Impl
        )
    }
}

/// A range of the file: `bytes` is half-open `[start, end)` in the text as
/// given (a BOM counts), `lines` is 1-based and inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Span {
    pub bytes: [usize; 2],
    pub lines: [usize; 2],
}

/// One definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "OutlineSymbol"))]
#[serde(rename_all = "camelCase")]
pub struct Symbol {
    pub name: String,
    /// The name with its enclosing symbols: `Greeter::hello` (Rust, C,
    /// C++), `Outer.Inner.method` (the others). A Rust impl block is named
    /// `impl Greeter` (`impl Display for Greeter`) and qualifies its
    /// members by the type alone.
    pub qualified: String,
    pub kind: Kind,
    /// The definition itself, with what wraps it (`export`, a Python
    /// `decorated_definition`, C++ `template<...>`, `const f = ...`).
    pub span: Span,
    /// Its leading doc comments and attributes, decorators or annotations
    /// (those inside the definition too, so it may overlap `span`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub leading: Option<Span>,
    /// The lines a slice of this symbol takes: from its first leading line
    /// to its last line, 1-based inclusive.
    pub lines: [usize; 2],
    /// Index of the enclosing symbol in [`crate::Outline::symbols`].
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub parent: Option<usize>,
    /// 0 for top-level symbols.
    pub depth: usize,
    /// `span` in UTF-16 offsets (JS string indices), for editors.
    #[serde(default)]
    pub from: usize,
    #[serde(default)]
    pub to: usize,
}
