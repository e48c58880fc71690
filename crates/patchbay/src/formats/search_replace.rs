//! `search-replace`: Aider's SEARCH/REPLACE blocks.
//!
//! ````text
//! src/app.py
//! ```python
//! <<<<<<< SEARCH
//! old lines
//! =======
//! new lines
//! >>>>>>> REPLACE
//! ```
//! ````
//!
//! Markers take 5 to 9 `<`, `=` or `>`. The path is a line above the fence
//! (or above `<<<<<<< SEARCH`), blank lines and a few short lines of prose
//! between them allowed ([`crate::reading::scan::path_above`]); a block without one
//! reuses the previous block's path (Aider does the same), else the default
//! file, unless the prose above it names another file: then it is refused
//! as `path_unclear` rather than applied to the wrong file. An empty SEARCH
//! creates the file, or appends to it when it exists (Aider's rule). A block
//! cut off by the end of the output is `truncated`.
//!
//! Marker lines in the text (a Markdown underline `=======`, a conflict
//! marker): markers pair by length, so the renderer writes markers of a
//! length the text does not hold (8 or 9 around 7-character ones) and the
//! parser takes the divider and tail as long as the head. Several candidate
//! dividers in one block become readings ([`Op::OneOf`]) the file decides
//! between; a `>>>>>>> REPLACE` right after a block means the block ended
//! at a line of its own text (or the marker was doubled) and is refused.
//! One pass, `O(len)`.

use super::Format;
use crate::apply::diff::unique_blocks;
use crate::apply::feedback::Words;
use crate::apply::matcher::Level;
use crate::apply::text::Text;
use crate::edit::Reading;
use crate::edit::{Code, Edit, Op, Parsed};
use crate::formats::prompt::{self, COUNT};
use crate::reading::scan::{fence_open, out_lines, path_above, OutLine, PathAbove};
use crate::reading::sniff::{Reply, Sniff};

pub struct SearchReplace;

/// The run length of a marker line (`<<<<<<< SEARCH` is 7), or `None`.
fn marker(line: &str, ch: char, word: &str) -> Option<usize> {
    let t = line.trim_end();
    let n = t.chars().take_while(|&c| c == ch).count();
    if !(5..=9).contains(&n) {
        return None;
    }
    let rest = t[n..].trim();
    (rest == word || (word == "SEARCH" && rest == "SEARCH>")).then_some(n)
}

fn head_len(line: &str) -> Option<usize> {
    marker(line, '<', "SEARCH")
}
fn divider_len(line: &str) -> Option<usize> {
    let t = line.trim_end();
    ((5..=9).contains(&t.len()) && t.chars().all(|c| c == '=')).then_some(t.len())
}
fn tail_len(line: &str) -> Option<usize> {
    marker(line, '>', "REPLACE")
}

/// `<<<<<<< SEARCH`
pub fn is_head(line: &str) -> bool {
    head_len(line).is_some()
}
/// `=======`
pub fn is_divider(line: &str) -> bool {
    divider_len(line).is_some()
}
/// `>>>>>>> REPLACE`
pub fn is_tail(line: &str) -> bool {
    tail_len(line).is_some()
}

/// More `=======` lines than this in one block are refused rather than
/// each tried as the divider.
const MAX_DIVIDERS: usize = 8;

/// Where a block that starts with a head of `n` characters at `h` ends.
enum End {
    /// Its `>>>>>>> REPLACE` line.
    Tail(usize),
    /// A new head of the same length at this line, before any tail.
    Head(usize),
    /// The output ends first (at this line count).
    Eof(usize),
}

/// The block's end: the first tail as long as its head (a marker line of
/// another length is content: the renderer writes longer markers around
/// text that holds 7-character ones). A tail of another length ends the
/// block only when a new head as long follows (a model that miscounted
/// its markers); at the end of the output it does not, so that a rendered
/// block cut after a marker line of its text is still `truncated`.
fn block_end(lines: &[OutLine], h: usize, n: usize) -> End {
    let mut other = None;
    for (j, l) in lines.iter().enumerate().skip(h + 1) {
        if let Some(k) = tail_len(l.text) {
            if k == n {
                return End::Tail(j);
            }
            other = other.or(Some(j));
        } else if head_len(l.text) == Some(n) {
            return other.map_or(End::Head(j), End::Tail);
        }
    }
    End::Eof(lines.len())
}

/// Where a block that has no `>>>>>>> REPLACE` before `limit` (the next
/// head, or the end of the output) ends when its new text was closed by a
/// second `=======` instead (Aider reads it so): that divider, when a blank
/// line, a fence or a new head follows it. A second divider that ends the
/// output is not taken: the reply may have been cut in its new text.
fn divider_end(lines: &[OutLine], h: usize, limit: usize, n: usize) -> Option<usize> {
    let same: Vec<usize> = (h + 1..limit)
        .filter(|&j| divider_len(lines[j].text) == Some(n))
        .take(2)
        .collect();
    let &[_, d] = &same[..] else {
        return None;
    };
    let next = lines.get(d + 1)?;
    let ends = next.text.trim().is_empty()
        || fence_open(next.text).is_some()
        || is_head(next.text)
        || next.text.trim().chars().all(|c| c == '`' || c == '~');
    ends.then_some(d)
}

/// The lines of `lines[from..to]` that may divide SEARCH from REPLACE:
/// those as long as the head, else any.
fn dividers(lines: &[OutLine], from: usize, to: usize, n: usize) -> Vec<usize> {
    let all: Vec<usize> = (from..to)
        .filter(|&j| divider_len(lines[j].text).is_some())
        .collect();
    let same: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&j| divider_len(lines[j].text) == Some(n))
        .collect();
    if same.is_empty() {
        all
    } else {
        same
    }
}

fn texts(lines: &[OutLine]) -> Vec<String> {
    lines.iter().map(|l| l.text.to_owned()).collect()
}

/// The edit of a complete block: the lines between head `h` and tail `t`.
/// Several candidate dividers make several readings, and the file decides
/// which one (see [`crate::apply::locate::readings`]): a Markdown underline or a conflict
/// marker in the text is a `=======` line too.
fn block_op(lines: &[OutLine], h: usize, t: usize, n: usize) -> Result<Op, String> {
    let mut ds = dividers(lines, h + 1, t, n);
    let blank = |from: usize, to: usize| lines[from..to].iter().all(|l| l.text.trim().is_empty());
    // Two dividers, the second right before the tail: a doubled marker
    // (`=======` then `>>>>>>> REPLACE`), so the new text ends there, as
    // Aider reads it. With three or more, one of them is the text's own (a
    // Markdown underline) and the readings below let the file decide.
    let mut t = t;
    if ds.len() == 2 && blank(ds[1] + 1, t) {
        t = ds.pop().expect("two");
    }
    let replace = |d: usize| Op::Replace {
        old: texts(&lines[h + 1..d]),
        new: texts(&lines[d + 1..t]),
        hint: None,
        anchors: vec![],
        at_end: false,
    };
    match ds[..] {
        [] => Err(format!(
            "line {}: `{}` before any `=======`; each block is `<<<<<<< SEARCH`, the old lines, `=======`, the new lines, `>>>>>>> REPLACE`",
            t + 1,
            lines[t].text.trim()
        )),
        // An empty SEARCH (Aider's rule), whatever the new text holds.
        [d, ..] if blank(h + 1, d) => Ok(Op::CreateOrAppend {
            text: texts(&lines[d + 1..t]),
        }),
        [d] => Ok(replace(d)),
        _ if ds.len() > MAX_DIVIDERS => Err(format!(
            "lines {}-{}: {} `=======` lines in one block, so where SEARCH ends cannot be told; split the change into blocks whose text holds no `=======` line",
            h + 1,
            t + 1,
            ds.len()
        )),
        _ => Ok(Op::OneOf(
            ds.iter()
                .map(|&d| Reading {
                    op: replace(d),
                    max_level: Level::Unicode,
                })
                .collect(),
        )),
    }
}

/// The edit of the block from head `h` to its end line `t` (a tail, or a
/// second divider that ended it).
fn block_edit(lines: &[OutLine], path: &Option<String>, h: usize, t: usize, n: usize) -> Edit {
    let op =
        block_op(lines, h, t, n).unwrap_or_else(|message| Op::invalid(Code::Malformed, message));
    Edit {
        path: path.clone(),
        op,
        span: lines[h].start..lines[t].end,
    }
}

/// How messages name the parts of a SEARCH/REPLACE block (and of the
/// formats that have no words of their own).
pub const WORDS: Words = Words {
    old: "the SEARCH text",
    short: "SEARCH",
    new: "the REPLACE text",
    create: "write a block with an empty SEARCH section",
    readings: "its text holds a `=======` line, so where SEARCH ends is unclear. Write the block with markers one character longer than any in its text (`<<<<<<<< SEARCH`, `========`, `>>>>>>>> REPLACE`)",
};

impl Format for SearchReplace {
    fn sniff(&self, reply: &Reply) -> Option<Sniff> {
        let i = reply.first_line(|_, t| is_head(t))?;
        let sure = reply.any_line(is_tail);
        Some(Sniff {
            at: reply.lines[i].start,
            confidence: if sure { 0.98 } else { 0.8 },
            reason: "has a `<<<<<<< SEARCH` marker".into(),
        })
    }

    /// The path line, a fence opening, a blank line.
    fn tail_context(&self) -> Option<usize> {
        Some(3)
    }

    fn closes(&self, last: &str, _next: Option<&str>, fence: bool) -> bool {
        is_tail(last) || fence
    }

    /// A block starts at its head and ends at its tail (a stray tail right
    /// after a block is an edit of its own, complete at once); a second
    /// divider or a tail of another length ends a block only when a new
    /// head follows. The path and fence lines around it end nothing.
    fn turn(&self, line: &str) -> super::Turn {
        if is_tail(line) {
            super::Turn::Ends
        } else if is_head(line) {
            super::Turn::Opens
        } else {
            super::Turn::Plain
        }
    }

    fn prompt(&self) -> prompt::Prompt {
        prompt::Prompt {
            instructions: format!("Edit files with SEARCH/REPLACE blocks. For each change write the file path on a line, then a fenced block:\n<<<<<<< SEARCH\n(lines copied exactly from the file, enough to be unique)\n=======\n(the new lines)\n>>>>>>> REPLACE\nCopy SEARCH lines character for character, including indentation. Use several small blocks rather than one large one. An empty SEARCH creates a new file. {COUNT}"),
            example_view: prompt::plain_view(),
            example_reply: "EDITS: 1\napp.py\n```python\n<<<<<<< SEARCH\n    print(\"Hello, \" + name)\n=======\n    print(f\"Hello, {name}!\")\n>>>>>>> REPLACE\n```\n".into(),
        }
    }

    fn sequential(&self) -> bool {
        true
    }

    fn words(&self) -> &'static Words {
        &WORDS
    }

    fn id(&self) -> crate::formats::FormatName {
        crate::formats::FormatName::SearchReplace
    }

    fn parse(&self, output: &str, opt: &super::ParseOptions) -> Parsed {
        self.parse_lines(output, &out_lines(output), opt)
    }

    fn parse_lines(&self, output: &str, lines: &[OutLine], _opt: &super::ParseOptions) -> Parsed {
        read_blocks(output, lines, None, false)
    }

    /// What the parser carries from one block to the next is the path
    /// (a block without one reuses it) and whether a block just ended at
    /// its tail; the path of the next block is looked for only below the
    /// end of the block before, where this reading starts.
    fn parse_after(
        &self,
        text: &str,
        last: &Edit,
        _opt: &super::ParseOptions,
    ) -> Option<(usize, Parsed)> {
        let from = last.span.end;
        let span = text.get(last.span.clone())?;
        // A stray tail (an edit of one line) leaves the floor of the path
        // search at the block before it: read from above that instead.
        span.lines().nth(1)?;
        let after_block = span.lines().last().is_some_and(is_tail);
        let tail = text.get(from..)?;
        let lines = out_lines(tail);
        Some((
            from,
            read_blocks(tail, &lines, last.path.clone(), after_block),
        ))
    }

    fn render(&self, path: &str, before: &str, after: &str) -> String {
        let (b, a) = (Text::new(before), Text::new(after));
        let (bl, al) = (b.lines(), a.lines());
        let mut out = String::new();
        if bl.is_empty() {
            push_block(&mut out, path, &[], al);
            return out;
        }
        for c in unique_blocks(bl, al, 0) {
            push_block(&mut out, path, &bl[c.old], &al[c.new]);
        }
        out
    }
}

/// Reads the blocks of `output` (split into `lines`), starting with the
/// path a block without one reuses and whether a block just ended at its
/// tail (a parse from the top starts with neither): just after a block, a
/// `>>>>>>> REPLACE` line means the block ended at a line of its own text
/// (or the marker was doubled).
fn read_blocks(
    output: &str,
    lines: &[OutLine],
    mut path: Option<String>,
    mut after_block: bool,
) -> Parsed {
    let mut parsed = Parsed::default();
    let mut i = 0;
    // The path of a block is looked for above it, down to the end of
    // the block before.
    let mut floor = 0;
    while i < lines.len() {
        let l = &lines[i];
        let Some(n) = head_len(l.text) else {
            if after_block && is_tail(l.text) {
                parsed.edits.push(invalid(
                        &path,
                        Code::Malformed,
                        format!(
                            "line {}: `{}` outside a block; if it belongs to the new text of the block above, that block ended at an earlier `>>>>>>> REPLACE` line (a SEARCH/REPLACE block cannot hold its own marker lines: split the change)",
                            i + 1,
                            l.text.trim()
                        ),
                        l.start..l.end,
                    ));
            }
            i += 1;
            continue;
        };
        match path_before(lines, i, floor) {
            PathAbove::Named(p) => path = Some(p),
            PathAbove::Bare(w) => {
                parsed.unsure.push(parsed.edits.len());
                path = Some(w);
            }
            PathAbove::Mentioned(m) => parsed.mentions.push((parsed.edits.len(), m)),
            PathAbove::Nothing => {}
        }
        match block_end(lines, i, n) {
            End::Tail(t) => {
                parsed.edits.push(block_edit(lines, &path, i, t, n));
                after_block = true;
                i = t + 1;
                floor = i;
            }
            End::Head(j) | End::Eof(j) if divider_end(lines, i, j, n).is_some() => {
                let t = divider_end(lines, i, j, n).expect("checked");
                parsed.edits.push(block_edit(lines, &path, i, t, n));
                after_block = false;
                i = t + 1;
                floor = i;
            }
            End::Head(j) => {
                let message = unclosed(lines, i, j, n);
                parsed.edits.push(invalid(
                    &path,
                    Code::Malformed,
                    message,
                    l.start..lines[j].start,
                ));
                after_block = false;
                i = j;
                floor = j;
            }
            End::Eof(_) => {
                parsed.truncated = true;
                parsed.edits.push(invalid(
                    &path,
                    Code::Truncated,
                    cut_off(lines, i, n),
                    l.start..output.len(),
                ));
                break;
            }
        }
    }
    parsed
}

/// Why the block opened at line `i` (markers of length `n`) ends at line
/// `j` without its tail: a stray line in its SEARCH section, or the next
/// block's head.
fn unclosed(lines: &[OutLine], i: usize, j: usize, n: usize) -> String {
    if dividers(lines, i + 1, j, n).is_empty() {
        format!("line {}: `{}` inside a SEARCH section; each block is `<<<<<<< SEARCH`, the old lines, `=======`, the new lines, `>>>>>>> REPLACE`", j + 1, lines[j].text.trim())
    } else {
        format!(
            "line {}: a new `<<<<<<< SEARCH` before the previous block's `>>>>>>> REPLACE`",
            j + 1
        )
    }
}

/// The message of a block opened at line `i` that the output's end cut.
fn cut_off(lines: &[OutLine], i: usize, n: usize) -> String {
    let missing = if dividers(lines, i + 1, lines.len(), n).is_empty() {
        "`=======` and `>>>>>>> REPLACE`"
    } else {
        "`>>>>>>> REPLACE`"
    };
    format!("the output ends inside a SEARCH/REPLACE block (no {missing}); the reply was cut off")
}

/// Aider's 7-character markers, unless the text holds a marker line of
/// that length: then the first length in 8, 9, 6, 5 that it does not hold,
/// so that the parser (which pairs markers by length) reads it back.
fn marker_len(old: &[&str], new: &[&str]) -> usize {
    let used = |n: usize| {
        old.iter()
            .chain(new)
            .any(|l| head_len(l) == Some(n) || divider_len(l) == Some(n) || tail_len(l) == Some(n))
    };
    [7, 8, 9, 6, 5].into_iter().find(|&n| !used(n)).unwrap_or(7)
}

fn push_block(out: &mut String, path: &str, old: &[&str], new: &[&str]) {
    let n = marker_len(old, new);
    out.push_str(path);
    out.push_str("\n```\n");
    out.push_str(&format!("{} SEARCH\n", "<".repeat(n)));
    for l in old {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&"=".repeat(n));
    out.push('\n');
    for l in new {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&format!("{} REPLACE\n```\n\n", ">".repeat(n)));
}

fn invalid(
    path: &Option<String>,
    code: Code,
    message: String,
    span: std::ops::Range<usize>,
) -> Edit {
    Edit {
        path: path.clone(),
        op: Op::invalid(code, message),
        span,
    }
}

/// The path written before a block: in the info string of its fence, or
/// above the fence (or above the head when there is none), where prose
/// may stand between the path line and the block (see [`path_above`]).
fn path_before(lines: &[OutLine], head: usize, floor: usize) -> PathAbove {
    let Some(prev) = head.checked_sub(1).filter(|&p| p >= floor) else {
        return PathAbove::Nothing;
    };
    match fence_open(lines[prev].text) {
        Some(f) => match crate::reading::scan::path_from_info(f.info) {
            Some(p) => PathAbove::Named(p),
            None => path_above(lines, prev, floor),
        },
        None => path_above(lines, head, floor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_blocks_paths_and_prose() {
        let out = "Sure! Here is the change.\n\nsrc/a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\nAnd another:\n\n```python\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n>>>>>>> REPLACE\n```\n";
        let p = SearchReplace.parse(out, &Default::default());
        assert!(!p.truncated);
        assert_eq!(p.edits.len(), 2);
        assert_eq!(p.edits[0].path.as_deref(), Some("src/a.py"));
        assert_eq!(p.edits[1].path.as_deref(), Some("src/a.py"));
        assert_eq!(
            p.edits[0].op,
            Op::Replace {
                old: vec!["x = 1".into()],
                new: vec!["x = 2".into()],
                hint: None,
                anchors: vec![],
                at_end: false,
            }
        );
    }

    #[test]
    fn marker_lengths() {
        assert!(is_head("<<<<< SEARCH"));
        assert!(is_head("<<<<<<<<< SEARCH"));
        assert!(!is_head("<<<< SEARCH"));
        assert!(!is_head("<<<<<<<<<< SEARCH"));
        assert!(is_tail(">>>>>>> REPLACE  "));
        assert!(is_divider("======="));
        assert!(!is_divider("==="));
    }

    #[test]
    fn cut_block_is_truncated() {
        let p = SearchReplace.parse_default("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n");
        assert!(p.truncated);
        assert!(matches!(
            &p.edits[0].op,
            Op::Invalid {
                code: Code::Truncated,
                ..
            }
        ));
    }

    #[test]
    fn empty_search_is_create_or_append() {
        let p = SearchReplace
            .parse_default("new.txt\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n");
        assert_eq!(
            p.edits[0].op,
            Op::CreateOrAppend {
                text: vec!["hello".into()]
            }
        );
    }

    #[test]
    fn marker_lines_in_the_text_get_longer_markers() {
        let r = SearchReplace.render("a.md", "=======\n", "=======\n}\n");
        assert!(
            r.contains("<<<<<<<< SEARCH\n") && r.contains("\n========\n"),
            "{r}"
        );
        let p = SearchReplace.parse_default(&r);
        assert_eq!(
            p.edits[0].op,
            Op::Replace {
                old: vec!["=======".into()],
                new: vec!["=======".into(), "}".into()],
                hint: None,
                anchors: vec![],
                at_end: false,
            }
        );
        // The text holds 7- and 8-character markers: 9.
        let r = SearchReplace.render("a", "a\n", "a\n>>>>>>> REPLACE\n<<<<<<<< SEARCH\n");
        assert!(r.contains(">>>>>>>>> REPLACE\n"), "{r}");
        assert!(!SearchReplace.parse_default(&r).truncated);
    }

    #[test]
    fn several_dividers_are_readings() {
        let p = SearchReplace
            .parse_default("a.md\n<<<<<<< SEARCH\nT\n=======\n=======\nU\n>>>>>>> REPLACE\n");
        match &p.edits[0].op {
            Op::OneOf(r) => assert_eq!(r.len(), 2),
            other => panic!("{other:?}"),
        }
        // An empty SEARCH stays Aider's create-or-append.
        let p = SearchReplace
            .parse_default("n.md\n<<<<<<< SEARCH\n=======\nT\n=======\nU\n>>>>>>> REPLACE\n");
        assert_eq!(
            p.edits[0].op,
            Op::CreateOrAppend {
                text: vec!["T".into(), "=======".into(), "U".into()]
            }
        );
    }

    #[test]
    fn a_second_divider_ends_the_new_text_as_aider_reads_it() {
        let replace = |old: &str, new: &str| Op::Replace {
            old: vec![old.into()],
            new: vec![new.into()],
            hint: None,
            anchors: vec![],
            at_end: false,
        };
        // Doubled before the tail: the divider is a marker, not text.
        let p = SearchReplace
            .parse_default("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n=======\n>>>>>>> REPLACE\n");
        assert_eq!(p.edits[0].op, replace("x", "y"));
        // No tail at all: the second divider ends the block, then prose.
        let p = SearchReplace.parse_default(
            "a.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n=======\n\nThis changes x.\n",
        );
        assert!(!p.truncated);
        assert_eq!(p.edits[0].op, replace("x", "y"));
        // A second divider that ends the output may be a cut in the new text.
        let p = SearchReplace.parse_default("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n=======\n");
        assert!(p.truncated);
    }

    #[test]
    fn missing_divider_is_malformed() {
        let p = SearchReplace.parse_default("a.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n");
        assert!(matches!(
            &p.edits[0].op,
            Op::Invalid {
                code: Code::Malformed,
                ..
            }
        ));
        assert!(!p.truncated);
    }
}
