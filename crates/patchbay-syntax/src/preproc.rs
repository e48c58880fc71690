//! The C and C++ text an outline parses: one configuration of the
//! preprocessor's conditionals, and no stand-alone macro lines.
//!
//! tree-sitter parses the source as written, `#if` and `#else` branches
//! side by side. When branches hold unbalanced braces (`#if A` / `if (a) {`
//! / `#else` / `if (b) {` / `#endif`, as libstdc++'s member functions do)
//! or a line is a macro the grammar cannot know (libstdc++'s
//! `_GLIBCXX_BEGIN_NAMESPACE_VERSION` before a class), the parse of the
//! whole enclosing class fails: it came out as one free function spanning
//! the class, its methods gone. So the outline parses a view of the text
//! in which the conditional directives, every `#elif`/`#else` branch and
//! lines holding only an upper-case macro name are blanked: each of their
//! bytes but line breaks becomes a space, so byte offsets, lines and
//! columns are the original's and every span points into the real text.
//! The first branch is kept: it is the one the header's author wrote
//! first (include guards, `__cplusplus >= 201103L`), and keeping one
//! branch, any one, is what makes the braces balance; but under `#if 0`
//! the next branch is kept, the first being dead code by convention.
//!
//! Cost: one pass over the bytes, `O(N)`; the nesting is a counter, so
//! 100,000 nested `#if`s cost no more than 100,000 lines.

use std::borrow::Cow;

/// What a line is to the pre-pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    /// `#if`, `#ifdef`, `#ifndef`.
    Open,
    /// `#if 0`: its first branch is dead code by convention (old code,
    /// often not even balanced), so the next branch is the one kept.
    OpenDead,
    /// `#elif`, `#elifdef`, `#elifndef`, `#else`.
    Branch,
    Close,
    /// Any other directive (`#define`, `#include`): kept when live.
    Other,
    /// A line of only an upper-case macro name (`_GLIBCXX20_CONSTEXPR`).
    Macro,
    Code,
}

/// The text the outline parses (see the module docs); borrowed when no
/// line needs blanking.
pub(crate) fn view(text: &str) -> Cow<'_, str> {
    if !text.contains('#') && !text.contains('_') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut st = State::default();
    for line in text.split_inclusive('\n') {
        if st.keep(line) {
            out.push_str(line);
        } else {
            changed = true;
            blank(line, &mut out);
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

/// The pre-pass between lines.
#[derive(Default)]
struct State {
    in_comment: bool,
    /// The conditionals open: (a branch was kept, the current one is).
    open: Vec<(bool, bool)>,
    /// How many of `open` are in a dropped branch (a line is live when
    /// none is).
    dead: usize,
    /// The previous line was a directive ending in `\`; and whether that
    /// directive was kept.
    continued: Option<bool>,
}

impl State {
    /// Reads one line; returns whether it stays in the view.
    fn keep(&mut self, line: &str) -> bool {
        let more = line.trim_end_matches(['\n', '\r']).ends_with('\\');
        if let Some(kept) = self.continued {
            self.continued = more.then_some(kept);
            return kept;
        }
        let kind = if self.in_comment {
            Line::Code
        } else {
            classify(line)
        };
        self.in_comment = comment_state(line, self.in_comment);
        let live = self.dead == 0;
        match kind {
            Line::Code => live,
            Line::Macro => false,
            Line::Other => {
                self.continued = more.then_some(live);
                live
            }
            nesting => {
                self.nest(nesting);
                self.continued = more.then_some(false);
                false
            }
        }
    }

    /// Updates the nesting for `#if`, `#else` or `#endif`.
    fn nest(&mut self, kind: Line) {
        match kind {
            Line::Open => self.open.push((true, true)),
            Line::OpenDead => {
                self.open.push((false, false));
                self.dead += 1;
            }
            Line::Branch => match self.open.last_mut() {
                Some(f @ (true, true)) => {
                    f.1 = false;
                    self.dead += 1;
                }
                Some(f @ (false, false)) => {
                    *f = (true, true);
                    self.dead -= 1;
                }
                _ => {}
            },
            _ => {
                if let Some((_, false)) = self.open.pop() {
                    self.dead -= 1;
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
    use super::view;

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
