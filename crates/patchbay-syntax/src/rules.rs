//! Which syntax nodes are definitions, per language, and how they are
//! named: the only place that knows the grammars' node kinds (pinned with
//! the grammar crates in Cargo.toml).
//!
//! Also here: the wrappers a definition sits in (`export`, Python's
//! decorators, C++ `template<...>`) and the nodes that lead it (comments,
//! attributes, decorators). Every function looks at one node and a few of
//! its neighbours: `O(1)` tree steps, plus the name's length.

use crate::symbol::Kind;
use crate::Language;
use tree_sitter::Node;

/// A definition found at a node.
pub(crate) struct Def<'t> {
    pub kind: Kind,
    pub name: String,
    /// A qualifier written in the definition itself: C++ `Greeter::hello`
    /// defined out of its class, a Go method's receiver type.
    pub scope: Option<String>,
    /// Where nested definitions are looked for, and the name that
    /// qualifies them instead of this symbol's own (a Rust `impl Greeter`
    /// qualifies its methods as `Greeter::...`). `None`: no members.
    pub members: Option<(Node<'t>, Option<String>)>,
}

/// Longest name kept: a computed JS property can hold any expression.
const MAX_NAME: usize = 120;

/// The source text of a node; empty if the range is not on char
/// boundaries (tree-sitter works on bytes; it never happens for UTF-8).
pub(crate) fn text<'s>(n: Node, src: &'s str) -> &'s str {
    src.get(n.byte_range()).unwrap_or("")
}

/// Whitespace collapsed to single spaces, cut at [`MAX_NAME`] chars.
fn clean(s: &str) -> String {
    let mut out = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some((i, _)) = out.char_indices().nth(MAX_NAME) {
        out.truncate(i);
        out.push('…');
    }
    out
}

fn field_text(n: Node, field: &str, src: &str) -> Option<String> {
    let t = clean(text(n.child_by_field_name(field)?, src));
    (!t.is_empty()).then_some(t)
}

fn leaf<'t>(kind: Kind, name: String) -> Def<'t> {
    Def {
        kind,
        name,
        scope: None,
        members: None,
    }
}

/// A definition whose members live in its `body` field.
fn container<'t>(kind: Kind, name: String, n: Node<'t>) -> Def<'t> {
    Def {
        kind,
        name,
        scope: None,
        members: n.child_by_field_name("body").map(|b| (b, None)),
    }
}

/// The definition at `n`, if it is one; `parent_kind` is its parent's
/// kind (`Node::parent` costs a descent from the root, so the walk passes
/// it down).
pub(crate) fn classify<'t>(
    lang: Language,
    n: Node<'t>,
    parent_kind: &str,
    src: &str,
) -> Option<Def<'t>> {
    match lang {
        Language::Rust => rust(n, src),
        Language::Python => python(n, src),
        Language::JavaScript | Language::TypeScript | Language::Tsx => js(n, parent_kind, src),
        Language::Go => go(n, src),
        Language::Java => java(n, src),
        Language::C | Language::Cpp => c_family(n, src),
    }
}

fn rust<'t>(n: Node<'t>, src: &str) -> Option<Def<'t>> {
    let name = || field_text(n, "name", src);
    Some(match n.kind() {
        "function_item" | "function_signature_item" => leaf(Kind::Function, name()?),
        "struct_item" => leaf(Kind::Struct, name()?),
        "enum_item" => leaf(Kind::Enum, name()?),
        "union_item" => leaf(Kind::Union, name()?),
        "type_item" => leaf(Kind::Type, name()?),
        "macro_definition" => leaf(Kind::Macro, name()?),
        "trait_item" => container(Kind::Trait, name()?, n),
        "mod_item" => container(Kind::Module, name()?, n),
        "impl_item" => {
            let base = rust_base(n.child_by_field_name("type")?, src);
            let name = match n.child_by_field_name("trait") {
                Some(t) => format!("impl {} for {base}", clean(text(t, src))),
                None => format!("impl {base}"),
            };
            Def {
                kind: Kind::Impl,
                name,
                scope: None,
                members: n.child_by_field_name("body").map(|b| (b, Some(base))),
            }
        }
        _ => return None,
    })
}

/// The type an impl block is for, without generics or references:
/// `impl<T> Display for &Wrap<T>` is for `Wrap`.
fn rust_base(t: Node, src: &str) -> String {
    match t.kind() {
        "generic_type" | "reference_type" | "pointer_type" => match t.child_by_field_name("type") {
            Some(inner) => rust_base(inner, src),
            None => clean(text(t, src)),
        },
        _ => clean(text(t, src)),
    }
}

fn python<'t>(n: Node<'t>, src: &str) -> Option<Def<'t>> {
    let name = field_text(n, "name", src);
    Some(match n.kind() {
        "function_definition" => leaf(Kind::Function, name?),
        "class_definition" => container(Kind::Class, name?, n),
        _ => return None,
    })
}

fn function_like(n: Node) -> bool {
    matches!(
        n.kind(),
        "arrow_function" | "function_expression" | "function" | "generator_function"
    )
}

/// A call with a function among its arguments (`memo(() => ...)`).
fn wraps_function(n: Node) -> bool {
    if n.kind() != "call_expression" {
        return false;
    }
    let Some(args) = n.child_by_field_name("arguments") else {
        return false;
    };
    let mut cursor = args.walk();
    let found = args.named_children(&mut cursor).any(function_like);
    found
}

/// JavaScript, TypeScript and TSX (one grammar family).
fn js<'t>(n: Node<'t>, parent_kind: &str, src: &str) -> Option<Def<'t>> {
    let name = || field_text(n, "name", src);
    Some(match n.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            leaf(Kind::Function, name()?)
        }
        "class_declaration" | "abstract_class_declaration" => container(Kind::Class, name()?, n),
        "method_definition" | "method_signature" | "abstract_method_signature" => {
            leaf(Kind::Method, name()?)
        }
        // Class fields holding a function: `handle = () => {...}`. The
        // TypeScript grammar names the field `name`, JavaScript `property`.
        "public_field_definition" | "field_definition" => {
            let value = n.child_by_field_name("value")?;
            if !function_like(value) {
                return None;
            }
            leaf(
                Kind::Method,
                name().or_else(|| field_text(n, "property", src))?,
            )
        }
        // `const f = () => {...}`, `let C = class {...}`, and a function
        // passed through a wrapper: `const Row = memo(function Row() {...})`.
        "variable_declarator" => {
            let id = n.child_by_field_name("name")?;
            if id.kind() != "identifier" {
                return None;
            }
            let value = n.child_by_field_name("value")?;
            if function_like(value) || wraps_function(value) {
                leaf(Kind::Function, clean(text(id, src)))
            } else if value.kind() == "class" {
                container(Kind::Class, clean(text(id, src)), value)
            } else {
                return None;
            }
        }
        // CommonJS: `module.exports = function (...) {...}`,
        // `Foo.prototype.bar = function () {...}`.
        "assignment_expression" if parent_kind == "expression_statement" => {
            let value = n.child_by_field_name("right")?;
            if !function_like(value) {
                return None;
            }
            leaf(Kind::Function, field_text(n, "left", src)?)
        }
        "interface_declaration" => container(Kind::Interface, name()?, n),
        "type_alias_declaration" => leaf(Kind::Type, name()?),
        "enum_declaration" => leaf(Kind::Enum, name()?),
        "internal_module" | "module" => {
            let raw = name()?;
            container(Kind::Module, raw.trim_matches(['"', '\'']).to_owned(), n)
        }
        // `export default function () {...}`: anonymous, named by its export.
        "export_statement" if n.child_by_field_name("declaration").is_none() => {
            let value = n.child_by_field_name("value")?;
            if function_like(value) {
                leaf(Kind::Function, "default".into())
            } else if value.kind() == "class" {
                container(Kind::Class, "default".into(), value)
            } else {
                return None;
            }
        }
        _ => return None,
    })
}

fn go<'t>(n: Node<'t>, src: &str) -> Option<Def<'t>> {
    let name = || field_text(n, "name", src);
    Some(match n.kind() {
        "function_declaration" => leaf(Kind::Function, name()?),
        "method_declaration" => {
            // The receiver's type without pointer or type arguments:
            // `func (b *Box[T]) Get()` is `Box.Get`.
            let receiver = n.child_by_field_name("receiver")?;
            Def {
                scope: first_of_kind(receiver, "type_identifier", src),
                ..leaf(Kind::Method, name()?)
            }
        }
        "type_spec" | "type_alias" => {
            let kind = match n.child_by_field_name("type").map(|t| t.kind()) {
                Some("struct_type") => Kind::Struct,
                Some("interface_type") => Kind::Interface,
                _ => Kind::Type,
            };
            leaf(kind, name()?)
        }
        _ => return None,
    })
}

/// Text of the first descendant of `kind` (pre-order, bounded depth).
fn first_of_kind(n: Node, kind: &str, src: &str) -> Option<String> {
    let mut stack = vec![(n, 0usize)];
    while let Some((x, depth)) = stack.pop() {
        if x.kind() == kind {
            return Some(clean(text(x, src)));
        }
        if depth < 8 {
            let mut cur = x.walk();
            let kids: Vec<Node> = x.named_children(&mut cur).collect();
            stack.extend(kids.into_iter().rev().map(|k| (k, depth + 1)));
        }
    }
    None
}

fn java<'t>(n: Node<'t>, src: &str) -> Option<Def<'t>> {
    let name = || field_text(n, "name", src);
    Some(match n.kind() {
        "class_declaration" | "record_declaration" => container(Kind::Class, name()?, n),
        "interface_declaration" | "annotation_type_declaration" => {
            container(Kind::Interface, name()?, n)
        }
        "enum_declaration" => container(Kind::Enum, name()?, n),
        "method_declaration" | "constructor_declaration" | "compact_constructor_declaration" => {
            leaf(Kind::Method, name()?)
        }
        _ => return None,
    })
}

/// C and C++ (the C++ grammar extends the C one).
fn c_family<'t>(n: Node<'t>, src: &str) -> Option<Def<'t>> {
    let specifier = |k: &str| match k {
        "struct_specifier" => Some(Kind::Struct),
        "union_specifier" => Some(Kind::Union),
        "enum_specifier" => Some(Kind::Enum),
        "class_specifier" => Some(Kind::Class),
        _ => None,
    };
    Some(match n.kind() {
        "function_definition" => {
            let id = declarator_name(n)?;
            let id = macro_declarator(n, id, src).unwrap_or(id);
            let full = clean(text(id, src));
            // `void outer::Greeter::hello()`: the last segment is the name.
            match (id.kind(), full.rsplit_once("::")) {
                ("qualified_identifier", Some((scope, last))) => Def {
                    scope: Some(scope.trim().to_owned()),
                    ..leaf(Kind::Method, last.trim().to_owned())
                },
                _ => leaf(Kind::Function, full),
            }
        }
        "namespace_definition" => container(
            Kind::Module,
            field_text(n, "name", src).unwrap_or_else(|| "(anonymous)".into()),
            n,
        ),
        "preproc_function_def" => leaf(Kind::Macro, field_text(n, "name", src)?),
        // `typedef struct {...} point;`: the struct, named by the typedef
        // when it has no tag of its own.
        "type_definition" => {
            let spec = n.child_by_field_name("type")?;
            let kind = specifier(spec.kind())?;
            let body = spec.child_by_field_name("body")?;
            let name =
                field_text(spec, "name", src).or_else(|| field_text(n, "declarator", src))?;
            Def {
                kind,
                name,
                scope: None,
                members: Some((body, None)),
            }
        }
        k => {
            let kind = specifier(k)?;
            n.child_by_field_name("body")?;
            container(kind, field_text(n, "name", src)?, n)
        }
    })
}

/// `size() const _GLIBCXX_NOEXCEPT { ... }`: a macro after the parameters,
/// which the grammar cannot know, is taken for the declarator, and the
/// real one lands in an ERROR before it. Then the name is the ERROR's.
fn macro_declarator<'t>(n: Node<'t>, id: Node<'t>, src: &str) -> Option<Node<'t>> {
    if !crate::preproc::is_macro_name(text(id, src)) {
        return None;
    }
    let mut cursor = n.walk();
    let error = n.children(&mut cursor).find(|c| c.is_error())?;
    let mut cursor = error.walk();
    let real = error
        .named_children(&mut cursor)
        .find(|c| c.kind() == "function_declarator")?;
    real.child_by_field_name("declarator")
}

/// The name node of a function definition's declarator, through pointer,
/// reference and parenthesised declarators.
fn declarator_name(n: Node) -> Option<Node> {
    let mut d = n.child_by_field_name("declarator")?;
    for _ in 0..16 {
        match d.kind() {
            "function_declarator"
            | "pointer_declarator"
            | "reference_declarator"
            | "parenthesized_declarator"
            | "attributed_declarator" => {
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))?;
            }
            _ => return Some(d),
        }
    }
    None
}

/// Whether a node of `parent_kind` only wraps the definition `def` (one
/// of its `named` children), so that the definition's text starts with the
/// wrapper (`export`, decorators, `template<...>`, `const f = ...`).
pub(crate) fn wraps(lang: Language, parent_kind: &str, named: &[Node], def: Node) -> bool {
    let only_child = named.len() == 1;
    let last = named.last() == Some(&def);
    match (lang, parent_kind) {
        (Language::Python, "decorated_definition") => last,
        (Language::JavaScript | Language::TypeScript | Language::Tsx, k) => match k {
            "export_statement" | "ambient_declaration" => last,
            "lexical_declaration" | "variable_declaration" | "expression_statement" => only_child,
            _ => false,
        },
        (Language::Go, "type_declaration") => only_child,
        (Language::Cpp, "template_declaration") => last,
        _ => false,
    }
}

/// Nodes that lead a definition as its siblings: comments, and attributes
/// or decorators that grammars put beside rather than inside it. A Rust
/// inner doc comment (`//!`) documents the enclosing module, not the next
/// item.
pub(crate) fn leads(lang: Language, n: Node) -> bool {
    match (lang, n.kind()) {
        (Language::Rust, "line_comment" | "block_comment") => {
            n.child_by_field_name("inner").is_none()
        }
        (Language::Rust, "attribute_item") => true,
        (Language::Java, "line_comment" | "block_comment") => true,
        (Language::JavaScript | Language::TypeScript | Language::Tsx, "decorator") => true,
        (Language::Cpp, "attribute_declaration") => true,
        (_, "comment") => true,
        _ => false,
    }
}

/// Decorators and annotations inside a definition (or its wrapper).
pub(crate) fn is_decorator(n: Node) -> bool {
    matches!(n.kind(), "decorator" | "annotation" | "marker_annotation")
}
