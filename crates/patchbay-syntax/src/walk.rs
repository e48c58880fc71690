//! The outline walk: the syntax tree in document order, definitions turned
//! into [`Symbol`]s with their qualified names, wrappers and leading
//! comments.
//!
//! tree-sitter nodes do not store their parent: `Node::parent` and
//! `Node::prev_sibling` descend from the root, which would make a file of
//! N top-level items cost `O(N²)`. So the walk carries what it needs down:
//! each expanded node's children are kept (a [`Level`]), and every node on
//! the stack knows its parent's kind, its position among its siblings and
//! the wrapper it sits in.
//!
//! Cost: `O(nodes)` outside function bodies (the walk does not enter them:
//! their definitions are locals), with an explicit stack, so no input can
//! overflow the call stack; the levels hold one `Node` per visited node.
//! Symbols nest at most [`MAX_DEPTH`] deep and a qualified name is cut at
//! [`MAX_QUALIFIED`] bytes: without both, `mod m {` nested 32,769 deep
//! built names of quadratic total length (6 GB) before anything printed.

use crate::rules;
use crate::symbol::{Kind, Span, Symbol};
use crate::Language;
use tree_sitter::{Node, TreeCursor};

/// The children of an expanded node (anonymous ones too: they separate a
/// comment from what follows), and where that node sits in its parent's.
struct Level<'t> {
    node: Node<'t>,
    kids: Vec<Node<'t>>,
    up: Pos,
}

/// Members deeper than this are not listed (their ancestors are). No
/// written code nests definitions 64 deep; generated or hostile input can,
/// and every level costs its members a longer qualified name.
pub const MAX_DEPTH: usize = 64;

/// Longest qualified name, in bytes; longer ones end in `…`. 64 levels of
/// `rules.rs`' 120-character names would make 7.8 KB names.
pub const MAX_QUALIFIED: usize = 1024;

/// `s` cut to at most [`MAX_QUALIFIED`] bytes on a char boundary, marked.
fn bounded(mut s: String) -> String {
    if s.len() > MAX_QUALIFIED {
        let mut cut = MAX_QUALIFIED - '…'.len_utf8();
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

/// (level, index among that level's children).
type Pos = Option<(usize, usize)>;

/// A node to visit.
struct Frame<'t> {
    node: Node<'t>,
    /// The enclosing symbol.
    parent: Option<usize>,
    /// The outermost node that only wraps this one (itself if none).
    outer: Node<'t>,
    /// Where `outer` sits among its siblings.
    pos: Pos,
    parent_kind: &'t str,
}

/// The 0-based row of a node's last character: a node that ends at column
/// 0 (a line comment with its newline) ends on the row before.
fn last_row(n: Node) -> usize {
    let (s, e) = (n.start_position(), n.end_position());
    if e.column == 0 && e.row > s.row {
        e.row - 1
    } else {
        e.row
    }
}

fn span_of(first: Node, last: Node, base: usize) -> Span {
    Span {
        bytes: [first.start_byte() + base, last.end_byte() + base],
        lines: [first.start_position().row + 1, last_row(last) + 1],
    }
}

/// Every definition under `root`, parents before members. `base` is added
/// to byte offsets (the BOM the parse skipped).
pub(crate) fn collect(root: Node, src: &str, base: usize, lang: Language) -> Vec<Symbol> {
    let sep = lang.separator();
    let join = |parts: &[&str]| {
        let kept: Vec<&str> = parts.iter().filter(|p| !p.is_empty()).copied().collect();
        bounded(kept.join(sep))
    };
    let mut out: Vec<Symbol> = Vec::new();
    // The prefix each symbol gives its members (its qualified name, or for
    // a Rust impl block the qualified name of its type).
    let mut member_prefix: Vec<String> = Vec::new();
    let mut levels: Vec<Level> = Vec::new();
    let mut cursor = root.walk();
    let mut stack = vec![Frame {
        node: root,
        parent: None,
        outer: root,
        pos: None,
        parent_kind: "",
    }];
    while let Some(f) = stack.pop() {
        let Some(def) = rules::classify(lang, f.node, f.parent_kind, src) else {
            expand(&mut levels, &mut stack, &mut cursor, f, lang);
            continue;
        };
        let prefix = f.parent.map_or(String::new(), |p| member_prefix[p].clone());
        let scope = def.scope.as_deref().unwrap_or("");
        let qualified = join(&[&prefix, scope, &def.name]);
        let kind = match (def.kind, f.parent) {
            (Kind::Function, Some(p)) if out[p].kind.has_methods() => Kind::Method,
            (k, _) => k,
        };
        let span = span_of(f.outer, f.outer, base);
        let leading = leading(&levels, f.pos, f.outer, f.node, lang, base, &mut cursor);
        let first_line = leading.map_or(span.lines[0], |l| l.lines[0].min(span.lines[0]));
        let idx = out.len();
        let depth = f.parent.map_or(0, |p| out[p].depth + 1);
        member_prefix.push(match &def.members {
            Some((_, Some(as_name))) => join(&[&prefix, as_name]),
            _ => qualified.clone(),
        });
        out.push(Symbol {
            name: def.name,
            qualified,
            kind,
            span,
            leading,
            lines: [first_line, span.lines[1]],
            parent: f.parent,
            depth,
            from: 0,
            to: 0,
        });
        if let Some((members, _)) = def.members.filter(|_| depth + 1 < MAX_DEPTH) {
            // The members' node among the definition's children, so that a
            // first member finds comments placed before it (see `leading`).
            let kids: Vec<Node> = f.node.children(&mut cursor).collect();
            let at = kids.iter().position(|k| *k == members);
            let li = levels.len();
            levels.push(Level {
                node: f.node,
                kids,
                up: if f.outer == f.node { f.pos } else { None },
            });
            stack.push(Frame {
                node: members,
                parent: Some(idx),
                outer: members,
                pos: at.map(|i| (li, i)),
                parent_kind: f.node.kind(),
            });
        }
    }
    out
}

/// Pushes a node's named children (first child on top), each with its
/// position, or with the wrapper it inherits.
fn expand<'t>(
    levels: &mut Vec<Level<'t>>,
    stack: &mut Vec<Frame<'t>>,
    cursor: &mut TreeCursor<'t>,
    f: Frame<'t>,
    lang: Language,
) {
    let kids: Vec<Node> = f.node.children(cursor).collect();
    let named: Vec<Node> = kids.iter().filter(|k| k.is_named()).copied().collect();
    let li = levels.len();
    let start = stack.len();
    for (i, &k) in kids.iter().enumerate().filter(|(_, k)| k.is_named()) {
        let (outer, pos) = if rules::wraps(lang, f.node.kind(), &named, k) {
            (f.outer, f.pos)
        } else {
            (k, Some((li, i)))
        };
        stack.push(Frame {
            node: k,
            parent: f.parent,
            outer,
            pos,
            parent_kind: f.node.kind(),
        });
    }
    stack[start..].reverse();
    levels.push(Level {
        node: f.node,
        kids,
        up: if f.outer == f.node { f.pos } else { None },
    });
}

/// The doc comments and attributes right above `outer` (no blank line in
/// between, not a trailing comment of the code before), and decorators or
/// annotations inside it.
fn leading<'t>(
    levels: &[Level<'t>],
    pos: Pos,
    outer: Node<'t>,
    def: Node<'t>,
    lang: Language,
    base: usize,
    cursor: &mut TreeCursor<'t>,
) -> Option<Span> {
    let mut first: Option<Node> = None;
    let mut last: Option<Node> = None;
    let mut top_row = outer.start_position().row;
    // A first child's comments may sit before the node that starts with it
    // (Python puts `class A:\n    # doc\n    def f` so): climb while the
    // node is its parent's first child and starts where the parent does.
    let mut pos = pos;
    let mut start = outer.start_byte();
    while let Some((l, 0)) = pos {
        if levels[l].node.start_byte() != start {
            break;
        }
        start = levels[l].node.start_byte();
        pos = levels[l].up;
    }
    if let Some((l, i)) = pos {
        let kids = &levels[l].kids;
        for j in (0..i).rev() {
            let s = kids[j];
            if !s.is_named() || !rules::leads(lang, s) || last_row(s) + 1 < top_row {
                break;
            }
            // A comment on the line where other code ends belongs to it.
            let trailing = j > 0 && {
                let p = kids[j - 1];
                !rules::leads(lang, p) && last_row(p) >= s.start_position().row
            };
            if trailing {
                break;
            }
            first = Some(s);
            last = last.or(Some(s));
            top_row = s.start_position().row;
        }
    }
    let mut inner = vec![outer];
    if def != outer {
        inner.push(def);
    }
    for n in inner {
        let kids: Vec<Node> = n.named_children(cursor).collect();
        for k in kids {
            let found: Vec<Node> = if k.kind() == "modifiers" {
                let v: Vec<Node> = k.named_children(cursor).collect();
                v.into_iter().filter(|m| rules::is_decorator(*m)).collect()
            } else if rules::is_decorator(k) {
                vec![k]
            } else {
                vec![]
            };
            for d in found {
                if first.is_none_or(|f| d.start_byte() < f.start_byte()) {
                    first = Some(d);
                }
                if last.is_none_or(|l| d.end_byte() > l.end_byte()) {
                    last = Some(d);
                }
            }
        }
    }
    Some(span_of(first?, last?, base))
}

#[cfg(test)]
mod tests {
    use crate::{outline, Language, MAX_DEPTH, MAX_QUALIFIED};

    #[test]
    fn nesting_and_qualified_names_are_bounded() {
        let n = 3 * MAX_DEPTH;
        let src = format!("{}fn f() {{}}{}", "mod m {".repeat(n), "}".repeat(n));
        let o = outline(&src, Language::Rust).unwrap();
        assert_eq!(o.symbols.len(), MAX_DEPTH, "deeper members are not listed");
        assert!(o.symbols.iter().all(|s| s.depth < MAX_DEPTH));
        assert_eq!(
            o.symbols.last().unwrap().qualified.matches("m").count(),
            MAX_DEPTH
        );
        o.render();
        let long = "a".repeat(100);
        let src = format!(
            "{}fn f() {{}}{}",
            format!("mod {long} {{").repeat(40),
            "}".repeat(40)
        );
        let o = outline(&src, Language::Rust).unwrap();
        let q = &o.symbols.last().unwrap().qualified;
        assert!(q.len() <= MAX_QUALIFIED && q.ends_with('…'), "{}", q.len());
    }
}
