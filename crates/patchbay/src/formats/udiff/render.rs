//! The canonical udiff between two versions of a file: git style
//! (`diff --git`, `a/` and `b/`, `@@ -s,c +s,c @@`), 3 lines of context,
//! grown where needed until every hunk's old lines are unique in the file
//! (so the engine never has to lean on the numbers), hunks merged where
//! their context meets. Lines keep their own terminators (a CRLF file gives
//! CRLF body lines, as `git diff` writes them), and a last line without a
//! newline is followed by `\ No newline at end of file`, so `git apply`
//! accepts the result as well as the engine does. An empty BEFORE renders a
//! creation (`--- /dev/null`).
//!
//! Cost: one Myers diff of the files, `O((N+M)·D)`, plus the uniqueness
//! growth of [`crate::apply::diff::unique_blocks`].

use crate::apply::diff::{changes_linear, unique_blocks};
use crate::apply::text::Text;
use std::borrow::Cow;

/// Quotes a path the way git does when it must (quotes, backslashes,
/// control characters); other paths, non-ASCII included, stay as they are.
pub fn quote(prefix: &str, path: &str) -> String {
    let plain = !path
        .chars()
        .any(|c| c == '"' || c == '\\' || c.is_control());
    if plain {
        return format!("{prefix}{path}");
    }
    let mut out = String::from("\"");
    for c in prefix.chars().chain(path.chars()) {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let mut b = [0u8; 4];
                for byte in c.encode_utf8(&mut b).bytes() {
                    out.push_str(&format!("\\{byte:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `@@ -s,c +s,c @@` with git's conventions: a count of 1 is left out, an
/// empty side names the line before it.
pub fn header(old_start: usize, old_count: usize, new_start: usize, new_count: usize) -> String {
    let side = |start: usize, count: usize| match count {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        c => format!("{},{c}", start + 1),
    };
    format!(
        "@@ -{} +{} @@\n",
        side(old_start, old_count),
        side(new_start, new_count)
    )
}

/// Appends one body line: marker, content, its terminator, and git's
/// marker when it has none.
pub fn push_line(out: &mut String, mark: char, content: &str, eol: &str) {
    out.push(mark);
    out.push_str(content);
    if eol.is_empty() {
        out.push_str("\n\\ No newline at end of file\n");
    } else {
        out.push_str(eol);
    }
}

/// Line keys for diffing: the content, and for a last line without a
/// newline a mark, so that adding or dropping the final newline is a change
/// (as it is for git).
fn keys<'a>(t: &Text<'a>) -> Vec<Cow<'a, str>> {
    (0..t.len())
        .map(|i| {
            if t.eol(i).is_empty() {
                Cow::Owned(format!("{}\u{0}", t.line(i)))
            } else {
                Cow::Borrowed(t.line(i))
            }
        })
        .collect()
}

pub fn render(path: &str, before: &str, after: &str) -> String {
    let (b, a) = (Text::new(before), Text::new(after));
    if before == after {
        return String::new();
    }
    let mut out = format!("diff --git {} {}\n", quote("a/", path), quote("b/", path));
    if b.is_empty() {
        out.push_str(&format!(
            "new file mode 100644\n--- /dev/null\n+++ {}\n",
            quote("b/", path)
        ));
        if !a.is_empty() {
            out.push_str(&header(0, 0, 0, a.len()));
            for i in 0..a.len() {
                push_line(&mut out, '+', a.line(i), a.eol(i));
            }
        }
        return out;
    }
    out.push_str(&format!(
        "--- {}\n+++ {}\n",
        quote("a/", path),
        quote("b/", path)
    ));
    let (bk, ak) = (keys(&b), keys(&a));
    let bl: Vec<&str> = bk.iter().map(|k| k.as_ref()).collect();
    let al: Vec<&str> = ak.iter().map(|k| k.as_ref()).collect();
    for block in unique_blocks(&bl, &al, 3) {
        let (os, ns) = (block.old.start, block.new.start);
        out.push_str(&header(os, block.old.len(), ns, block.new.len()));
        let mut i = os;
        let inner = changes_linear(&bl[block.old.clone()], &al[block.new.clone()]);
        for c in inner
            .iter()
            .chain(std::iter::once(&crate::apply::diff::Change {
                old: block.old.len()..block.old.len(),
                new: block.new.len()..block.new.len(),
            }))
        {
            while i < os + c.old.start {
                push_line(&mut out, ' ', b.line(i), b.eol(i));
                i += 1;
            }
            for k in os + c.old.start..os + c.old.end {
                push_line(&mut out, '-', b.line(k), b.eol(k));
            }
            for k in ns + c.new.start..ns + c.new.end {
                push_line(&mut out, '+', a.line(k), a.eol(k));
            }
            i = os + c.old.end;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_style_with_context_and_counts() {
        let before = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let after = "a\nb\nc\nd\nE\nf\ng\nh\n";
        let d = render("x.txt", before, after);
        assert_eq!(
            d,
            "diff --git a/x.txt b/x.txt\n--- a/x.txt\n+++ b/x.txt\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
    }

    #[test]
    fn no_final_newline_and_crlf() {
        let d = render("x", "a\r\nb", "a\r\nc");
        assert!(
            d.ends_with(
                " a\r\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
            ),
            "{d:?}"
        );
        let d = render("x", "a\n", "a");
        assert!(d.contains("-a\n+a\n\\ No newline"), "{d:?}");
    }

    #[test]
    fn creation_and_quoting() {
        let d = render("dir/n.txt", "", "x\n");
        assert!(
            d.contains("--- /dev/null\n+++ b/dir/n.txt\n@@ -0,0 +1 @@\n+x\n"),
            "{d}"
        );
        assert_eq!(quote("a/", "tab\there"), "\"a/tab\\there\"");
        assert_eq!(quote("a/", "é.txt"), "a/é.txt");
        assert_eq!(header(4, 0, 4, 2), "@@ -4,0 +5,2 @@\n");
    }
}
