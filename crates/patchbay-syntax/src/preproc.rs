//! The C and C++ texts an outline parses: configurations of the
//! preprocessor's conditionals, and no stand-alone macro lines.
//!
//! tree-sitter parses the source as written, `#if` and `#else` branches
//! side by side. When branches hold unbalanced braces (`#if A` / `if (a) {`
//! / `#else` / `if (b) {` / `#endif`, as libstdc++'s member functions do)
//! or a line is a macro the grammar cannot know (libstdc++'s
//! `_GLIBCXX_BEGIN_NAMESPACE_VERSION` before a class), the parse of the
//! whole enclosing class fails: it comes out as one free function spanning
//! the class, its methods gone. So the outline parses views of the text in
//! which the conditional directives, all branches of each conditional but
//! one, lines holding only an upper-case macro name and GNU attributes
//! before an initializer (see [`without_attributes`]) are blanked: each
//! of their bytes but line breaks becomes a space, so byte offsets, lines
//! and columns are the original's and every span points into the real
//! text. Keeping one branch, any one, is what makes the braces balance.
//!
//! View 0 keeps the branches the header's author wrote first (include
//! guards, `__cplusplus >= 201103L`); the later views keep the other
//! branches, so that every branch is in some view along with the branches
//! around it ([`plan`]). That matters where libstdc++ puts whole headers:
//! `#if __cplusplus < 201103L` / `# include <bits/c++0x_warning.h>` /
//! `#else` / the header, with its own conditionals / `#endif`. Under `#if 0`
//! the first branch is dead code by convention (old code, often not even
//! balanced) and no view keeps it. [`views`] makes at most [`MAX_VIEWS`]
//! views; `merge.rs` joins their outlines.
//!
//! Cost: one pass over the bytes, then one a view, `O(N)` each; the nesting is a
//! counter, so 100,000 nested `#if`s cost no more than 100,000 lines.

use std::borrow::Cow;
use std::ops::Range;

/// Most views parsed; each is one more parse of the file. Branches that
/// need more (see [`plan`]) are in no view. Of libstdc++ 12's headers,
/// <mutex> needs the most: 4.
pub(crate) const MAX_VIEWS: usize = 8;

/// The bytes all views of one text may add up to, so that a large file is
/// parsed at most twice (each parse is linear, about 1,000-1,600
/// instructions a byte).
const VIEW_BYTES: usize = 64 * 1024 * 1024;

/// What a line is to the pre-pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    /// `#if`, `#ifdef`, `#ifndef`.
    Open,
    /// `#if 0`: its first branch is dead code by convention, so no view
    /// keeps it.
    OpenDead,
    /// `#elif`, `#elifdef`, `#elifndef`, `#else`.
    Branch,
    Close,
    /// Any other directive (`#define`, `#include`): kept when live.
    Other,
    /// The next line of a directive ending in `\`: of a conditional
    /// directive (never kept) or of another one (kept when live).
    Continued {
        nesting: bool,
    },
    /// A line of only an upper-case macro name (`_GLIBCXX20_CONSTEXPR`).
    Macro,
    Code,
}

/// Reads lines one by one and says what each is: tracks block comments
/// (a directive inside one is text) and directives continued over lines.
#[derive(Default)]
struct Lexer {
    in_comment: bool,
    /// The previous line was a directive ending in `\`: whether that
    /// directive was a conditional one.
    continued: Option<bool>,
}

impl Lexer {
    fn next(&mut self, line: &str) -> Line {
        let more = line.trim_end_matches(['\n', '\r']).ends_with('\\');
        if let Some(nesting) = self.continued {
            self.continued = more.then_some(nesting);
            return Line::Continued { nesting };
        }
        let kind = if self.in_comment {
            Line::Code
        } else {
            classify(line)
        };
        self.in_comment = comment_state(line, self.in_comment);
        match kind {
            Line::Other => self.continued = more.then_some(false),
            Line::Open | Line::OpenDead | Line::Branch | Line::Close => {
                self.continued = more.then_some(true)
            }
            _ => {}
        }
        kind
    }
}

/// One conditional as the first pass saw it.
#[derive(Debug, Clone, Default)]
struct Conditional {
    /// Its branches (`#if` and each `#elif`/`#else`).
    branches: usize,
    /// It is `#if 0`: its first branch is in no view.
    dead_first: bool,
    /// The conditional and the branch it sits in (`None`: the top level).
    parent: Option<(usize, usize)>,
    /// The views that keep each branch (see [`plan`]).
    views: Vec<Range<usize>>,
}

impl Conditional {
    /// The branch view `k` keeps (0 is the `#if`), if any.
    fn kept(&self, k: usize) -> Option<usize> {
        self.views.iter().position(|r| r.contains(&k))
    }
}

/// The conditionals of `text` in the order they open, and how many lines
/// that are not blank lie under `#if 0` (in no view). An `#else` or
/// `#endif` without its `#if` is ignored.
fn conditionals(text: &str) -> (Vec<Conditional>, usize) {
    let mut lexer = Lexer::default();
    let mut all: Vec<Conditional> = Vec::new();
    // The open ones: (index in `all`, current branch).
    let mut open: Vec<(usize, usize)> = Vec::new();
    // How many of `open` are in the first branch of an `#if 0`.
    let mut in_dead = 0usize;
    let mut dead_lines = 0;
    for line in text.split_inclusive('\n') {
        match lexer.next(line) {
            k @ (Line::Open | Line::OpenDead) => {
                all.push(Conditional {
                    branches: 1,
                    dead_first: k == Line::OpenDead,
                    parent: open.last().copied(),
                    views: Vec::new(),
                });
                open.push((all.len() - 1, 0));
                in_dead += usize::from(k == Line::OpenDead);
            }
            Line::Branch => {
                if let Some((i, cur)) = open.last_mut() {
                    in_dead -= usize::from(all[*i].dead_first && *cur == 0);
                    all[*i].branches += 1;
                    *cur += 1;
                }
            }
            Line::Close => {
                if let Some((i, cur)) = open.pop() {
                    in_dead -= usize::from(all[i].dead_first && cur == 0);
                }
            }
            _ => dead_lines += usize::from(in_dead > 0 && !line.trim().is_empty()),
        }
    }
    (all, dead_lines)
}

/// Decides which views keep which branch (`Conditional::views`) and
/// returns how many views there are, at most `max_views`.
///
/// A branch needs as many views as the most any conditional directly in
/// it needs (at least one), and a conditional the sum of its branches'
/// needs: then every branch is kept in some view together with the
/// branches around it (libstdc++'s `<mutex>` needs 4: a branch of the
/// `#else` of `__cplusplus < 201103L` holds conditionals of its own). The
/// views of a branch go to the conditionals inside it, split among their
/// branches in order: each live branch gets one view while they last, then
/// up to what it needs, and views left over keep the last live branch (a
/// view keeps one branch of every conditional, which balances the braces).
/// View 0 keeps every first live branch.
fn plan(conds: &mut [Conditional], max_views: usize) -> usize {
    let mut need: Vec<Vec<usize>> = conds
        .iter()
        .map(|c| {
            (0..c.branches)
                .map(|j| usize::from(!(c.dead_first && j == 0)))
                .collect()
        })
        .collect();
    let mut top = 1;
    // Children open after their parents: in reverse, each is done first.
    for i in (0..conds.len()).rev() {
        let total: usize = need[i].iter().sum();
        match conds[i].parent {
            Some((p, j)) => {
                if let Some(slot) = need[p].get_mut(j).filter(|n| **n > 0) {
                    *slot = (*slot).max(total);
                }
            }
            None => top = top.max(total),
        }
    }
    let views = top.clamp(1, max_views.max(1));
    for i in 0..conds.len() {
        let range = match conds[i].parent {
            None => 0..views,
            Some((p, j)) => conds[p].views.get(j).cloned().unwrap_or(0..0),
        };
        conds[i].views = split(range, &need[i]);
    }
    views
}

/// Splits `range` among branches that need `need` views each (see
/// [`plan`]).
fn split(range: Range<usize>, need: &[usize]) -> Vec<Range<usize>> {
    let mut left = range.len();
    let mut size = vec![0; need.len()];
    for (s, &n) in size.iter_mut().zip(need) {
        if n > 0 && left > 0 {
            *s = 1;
            left -= 1;
        }
    }
    for (s, &n) in size.iter_mut().zip(need) {
        let extra = n.saturating_sub(1).min(left);
        *s += extra;
        left -= extra;
    }
    if let Some(last) = need.iter().rposition(|&n| n > 0) {
        size[last] += left;
    }
    let mut at = range.start;
    size.iter()
        .map(|&s| {
            at += s;
            at - s..at
        })
        .collect()
}

/// The texts an outline parses, and what none of them holds.
pub(crate) struct Views<'a> {
    /// The distinct views, view 0 first.
    pub texts: Vec<Cow<'a, str>>,
    /// Lines that are not blank under `#if 0`.
    pub dead_lines: usize,
}

impl<'a> Views<'a> {
    /// The text itself, as the one view (languages without a preprocessor).
    pub(crate) fn one(text: &'a str) -> Self {
        Views {
            texts: vec![Cow::Borrowed(text)],
            dead_lines: 0,
        }
    }
}

/// The views of `text` (see the module docs and [`plan`]), view 0 first;
/// each borrowed when no line needs blanking. A large text gets fewer
/// views: all of them together are at most [`VIEW_BYTES`] (or two views).
pub(crate) fn views(text: &str) -> Views<'_> {
    if !text.contains('#') && !text.contains('_') {
        return Views::one(text);
    }
    let (mut conds, dead_lines) = conditionals(text);
    let most = (VIEW_BYTES / text.len().max(1)).clamp(2, MAX_VIEWS);
    let n = plan(&mut conds, most);
    Views {
        texts: (0..n).map(|k| view_k(text, &conds, k)).collect(),
        dead_lines,
    }
}

/// View 0: the first live branch of every conditional.
#[cfg(test)]
pub(crate) fn view(text: &str) -> Cow<'_, str> {
    views(text).texts.swap_remove(0)
}

/// View `k` of `text`, whose conditionals are `conds`.
fn view_k<'a>(text: &'a str, conds: &[Conditional], k: usize) -> Cow<'a, str> {
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut st = State {
        conds,
        k,
        next: 0,
        open: Vec::new(),
        dead: 0,
        lexer: Lexer::default(),
        continued_kept: false,
    };
    let mut lines = text.split_inclusive('\n').peekable();
    let mut code = false;
    while let Some(line) = lines.next() {
        if !st.keep(line, &mut code) {
            changed = true;
            blank(line, &mut out);
        } else if code && line.contains(ATTRIBUTE) {
            let next = lines.peek().copied().unwrap_or("");
            changed |= without_attributes(line, next, &mut out);
        } else {
            out.push_str(line);
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

/// The GNU attribute keyword (see [`without_attributes`]).
const ATTRIBUTE: &str = "__attribute__";

/// Appends `line` with each `__attribute__((...))` that sits before an
/// initializer blanked (`int e __attribute__((unused)) = f(&a, b);`, the
/// `=` maybe on the `next` line); returns whether it blanked one.
/// tree-sitter-cpp loses a whole class to such a declaration in one of its
/// methods (libstdc++'s `__condvar`); without the attribute, which says
/// nothing about what is defined, it parses. Attributes elsewhere stay:
/// they are part of a definition's span (`__attribute__((__nonnull__))`
/// above a method), and the grammar reads them.
fn without_attributes(line: &str, next: &str, out: &mut String) -> bool {
    let mut rest = line;
    let mut blanked = false;
    while let Some(at) = rest.find(ATTRIBUTE) {
        let after = &rest[at + ATTRIBUTE.len()..];
        let open = after.len() - after.trim_start().len();
        let Some(len) = balanced(&after[open..]).filter(|&len| {
            let tail = after[open + len..].trim();
            let then = if tail.is_empty() { next.trim() } else { tail };
            then.starts_with('=') && !then.starts_with("==")
        }) else {
            out.push_str(&rest[..at + ATTRIBUTE.len()]);
            rest = after;
            continue;
        };
        out.push_str(&rest[..at]);
        blank(&rest[at..at + ATTRIBUTE.len() + open + len], out);
        rest = &after[open + len..];
        blanked = true;
    }
    out.push_str(rest);
    blanked
}

/// The length of the parenthesised group `s` starts with, if it closes.
fn balanced(s: &str) -> Option<usize> {
    if !s.starts_with('(') {
        return None;
    }
    let mut depth = 0usize;
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The pass that writes view `k`, between lines.
struct State<'c> {
    conds: &'c [Conditional],
    k: usize,
    /// The index of the next conditional to open.
    next: usize,
    /// The conditionals open: (the branch kept, the current branch).
    open: Vec<(Option<usize>, usize)>,
    /// How many of `open` are in a branch not kept (a line is live when
    /// none is).
    dead: usize,
    lexer: Lexer,
    /// Whether the directive a continued line belongs to was kept.
    continued_kept: bool,
}

impl State<'_> {
    /// Reads one line; returns whether it stays in the view. `code` is set
    /// to whether it is a live line of code (not a directive).
    fn keep(&mut self, line: &str, code: &mut bool) -> bool {
        let live = self.dead == 0;
        let kind = self.lexer.next(line);
        *code = live && kind == Line::Code;
        match kind {
            Line::Code => live,
            Line::Macro => false,
            Line::Other => {
                self.continued_kept = live;
                live
            }
            Line::Continued { nesting } => !nesting && self.continued_kept,
            nesting => {
                self.nest(nesting);
                false
            }
        }
    }

    /// Updates the nesting for `#if`, `#else` or `#endif`.
    fn nest(&mut self, kind: Line) {
        match kind {
            Line::Open | Line::OpenDead => {
                let kept = self.conds.get(self.next).and_then(|c| c.kept(self.k));
                self.next += 1;
                self.open.push((kept, 0));
                self.dead += usize::from(kept != Some(0));
            }
            Line::Branch => {
                if let Some((kept, cur)) = self.open.last_mut() {
                    let was = *kept != Some(*cur);
                    *cur += 1;
                    let is = *kept != Some(*cur);
                    self.dead = self.dead + usize::from(is) - usize::from(was);
                }
            }
            _ => {
                if let Some((kept, cur)) = self.open.pop() {
                    self.dead -= usize::from(kept != Some(cur));
                }
            }
        }
    }
}

/// What a line outside a comment is.
fn classify(line: &str) -> Line {
    let t = line.trim();
    let Some(d) = t.strip_prefix('#') else {
        return if is_macro_name(t) {
            Line::Macro
        } else {
            Line::Code
        };
    };
    let word: String = d
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    match word.as_str() {
        "if" if d.trim_start()[2..].trim() == "0" => Line::OpenDead,
        "if" | "ifdef" | "ifndef" => Line::Open,
        "elif" | "elifdef" | "elifndef" | "else" => Line::Branch,
        "endif" => Line::Close,
        _ => Line::Other,
    }
}

/// Whether `t` looks like the name of an object-like macro: upper case,
/// digits and underscores, with an underscore, not a number
/// (`_GLIBCXX_NOEXCEPT`, `__BEGIN_DECLS`, `Q_OBJECT`).
pub(crate) fn is_macro_name(t: &str) -> bool {
    t.len() >= 3
        && t.contains('_')
        && t.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && !t.as_bytes()[0].is_ascii_digit()
}

/// Whether a block comment is open at the end of `line`, given whether
/// one was at its start. Strings and character literals are skipped, and
/// a `//` comment ends the scan.
fn comment_state(line: &str, mut in_comment: bool) -> bool {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if in_comment {
            if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                in_comment = false;
                i += 1;
            }
        } else {
            match b[i] {
                b'/' if b.get(i + 1) == Some(&b'/') => return false,
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    in_comment = true;
                    i += 1;
                }
                q @ (b'"' | b'\'') => {
                    i += 1;
                    while i < b.len() && b[i] != q {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    in_comment
}

/// Appends `line` with every byte but `\n` and `\r` made a space.
fn blank(line: &str, out: &mut String) {
    out.extend(line.bytes().map(|b| match b {
        b'\n' | b'\r' => b as char,
        _ => ' ',
    }));
}

#[cfg(test)]
mod tests {
    use super::{view, views, MAX_VIEWS};

    /// The non-blank lines of each view.
    fn kept(text: &str) -> Vec<Vec<String>> {
        views(text)
            .texts
            .iter()
            .map(|v| {
                assert_eq!(v.len(), text.len());
                v.lines()
                    .map(|l| l.trim().to_owned())
                    .filter(|l| !l.is_empty())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn gnu_attributes_before_an_initializer_are_blanked() {
        let src = "int e __attribute__ ((unused, aligned (8))) = f(&a, b);\nint g __attribute__((unused))\n  = f(&a, b);\nstruct __attribute__((packed)) s {};\nint h __attribute__((x) == 1;\n#define A int a __attribute__((x)) = 1\n";
        let v = view(src);
        assert_eq!(v.len(), src.len());
        let lines: Vec<&str> = v.lines().collect();
        let spaces = |a: &str| " ".repeat(a.len());
        let a = "__attribute__ ((unused, aligned (8)))";
        assert_eq!(lines[0], format!("int e {} = f(&a, b);", spaces(a)));
        let b = "__attribute__((unused))";
        assert_eq!(lines[1], format!("int g {}", spaces(b)));
        // Elsewhere, unclosed, or in a directive: kept.
        assert_eq!(&lines[3..], &src.lines().collect::<Vec<_>>()[3..]);
    }

    #[test]
    fn later_views_keep_later_branches() {
        // libstdc++'s shape: the whole header in the `#else`.
        let stl = "#ifndef G\n#if __cplusplus < 201103L\nwarn\n#else\nclass a {};\n#ifdef T\nclass t {};\n#endif\n#endif\n#endif\n";
        assert_eq!(
            kept(stl),
            [vec!["warn"], vec!["class a {};", "class t {};"]]
        );
        // Four branches make four views; the shorter conditional keeps its
        // last branch in the views left over.
        let four =
            "#if A\na\n#elif B\nb\n#elif C\nc\n#else\nd\n#endif\n#if X\nx\n#else\ny\n#endif\n";
        assert_eq!(
            kept(four),
            [
                vec!["a", "x"],
                vec!["b", "y"],
                vec!["c", "y"],
                vec!["d", "y"]
            ]
        );
        // <mutex>'s shape: conditionals inside the `#else`, one inside
        // another; every branch is in a view with the branches around it.
        let nested = "#if O\nw\n#else\n#if T\nt1\n#else\nt2\n#endif\n#ifdef G\n#ifdef L\nl1\n#else\nl2\n#endif\n#else\ng2\n#endif\n#endif\n";
        assert_eq!(
            kept(nested),
            [
                vec!["w"],
                vec!["t1", "l1"],
                vec!["t2", "l2"],
                vec!["t2", "g2"]
            ]
        );
        // Past MAX_VIEWS branches, the later ones are in no view.
        let many: String = (0..MAX_VIEWS + 2)
            .map(|i| format!("{}\nb{i}\n", if i == 0 { "#if A" } else { "#elif B" }))
            .collect::<String>()
            + "#endif\n";
        let v = kept(&many);
        assert_eq!(v.len(), MAX_VIEWS);
        assert_eq!(v[MAX_VIEWS - 1], [format!("b{}", MAX_VIEWS - 1)]);
        // Nested 1,000 deep in `#else`s: the views stop at MAX_VIEWS, each
        // keeps the first branch at its own depth.
        let n = 1000;
        let deep: String = (0..n)
            .map(|i| format!("#if A{i}\ns{i}\n#else\n"))
            .chain(std::iter::once("z\n".to_owned()))
            .chain((0..n).map(|_| "#endif\n".to_owned()))
            .collect();
        let v = kept(&deep);
        assert_eq!(v.len(), MAX_VIEWS);
        for (k, lines) in v.iter().enumerate() {
            assert_eq!(lines, &[format!("s{k}")]);
        }
        // `#if 0` is in no view; with its `#else`, one view is enough.
        let zero = "#if 0\nold\n#else\nnew\n#endif\n#if 0\ndead\n\n#endif\n";
        let v = views(zero);
        assert_eq!((v.texts.len(), v.dead_lines), (1, 2));
        assert_eq!(kept(zero), [vec!["new"]]);
        // No conditional with a second branch: one view, borrowed.
        let one = views("#ifdef X\nint a;\n#endif\n");
        assert_eq!(one.texts.len(), 1);
    }

    #[test]
    fn first_branches_stay_and_offsets_do_not_move() {
        let src = "#ifndef G\n#define G\nint a;\n#if X\nint b() {\n#else\nint c() {\n#endif\n  return 1;\n}\n#endif\n";
        let v = view(src);
        assert_eq!(v.len(), src.len());
        assert_eq!(
            v.lines().map(str::trim_end).collect::<Vec<_>>(),
            [
                "",
                "#define G",
                "int a;",
                "",
                "int b() {",
                "",
                "",
                "",
                "  return 1;",
                "}",
                ""
            ]
        );
        // Nested conditionals in a dead branch stay dead until their own end.
        let nested = "#if A\na\n#else\n#if B\nb\n#endif\nc\n#endif\nd\n";
        let v = view(nested);
        let kept: Vec<&str> = v.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        assert_eq!(kept, ["a", "d"]);
        // A directive continued over lines; one inside a comment is text.
        let cont = "#if A && \\\n    B\nx\n#else\ny\n#endif\n/*\n#else\n*/\nz\n";
        let kept: Vec<String> = view(cont)
            .lines()
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(kept, ["x", "/*", "#else", "*/", "z"]);
        // Stand-alone macro lines; multi-byte text keeps its length.
        let m = "_GLIBCXX_BEGIN_NAMESPACE_VERSION\n  class é {};\nX\n";
        assert_eq!(view(m), format!("{}\n  class é {{}};\nX\n", " ".repeat(32)));
        assert!(matches!(view("int a;\n"), std::borrow::Cow::Borrowed(_)));
        // `#if 0` keeps its `#else`, and its `#elif` a later `#else` drops.
        let zero = "#if 0\nold {\n#else\nnew\n#endif\n#if 0\nx\n#elif B\ny\n#else\nz\n#endif\n";
        let v = view(zero);
        let kept: Vec<&str> = v.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        assert_eq!(kept, ["new", "y"]);
        // Unbalanced directives do not panic.
        assert_eq!(view("#endif\n#else\nq\n").len(), 15);
    }
}
