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
//! Markers take 5 to 9 `<`, `=` or `>`. The path is the line before the fence
//! or before `<<<<<<< SEARCH`; a block without one reuses the previous
//! block's path (Aider does the same), else the default file. An empty SEARCH
//! creates the file, or appends to it when it exists (Aider's rule). A block
//! cut off by the end of the output is `truncated`. One pass, `O(len)`.

use super::Format;
use crate::diff::unique_blocks;
use crate::edit::{Code, Edit, Op, Parsed};
use crate::scan::{fence_open, out_lines, path_from_line};
use crate::text::Text;

pub struct SearchReplace;

fn marker(line: &str, ch: char, word: &str) -> bool {
    let t = line.trim_end();
    let n = t.chars().take_while(|&c| c == ch).count();
    if !(5..=9).contains(&n) {
        return false;
    }
    let rest = t[n..].trim();
    rest == word || (word == "SEARCH" && rest == "SEARCH>")
}

/// `<<<<<<< SEARCH`
pub fn is_head(line: &str) -> bool {
    marker(line, '<', "SEARCH")
}
/// `=======`
pub fn is_divider(line: &str) -> bool {
    let t = line.trim_end();
    (5..=9).contains(&t.len()) && t.chars().all(|c| c == '=')
}
/// `>>>>>>> REPLACE`
pub fn is_tail(line: &str) -> bool {
    marker(line, '>', "REPLACE")
}

enum State {
    Outside,
    Search,
    Replace,
}

impl Format for SearchReplace {
    fn name(&self) -> &'static str {
        "search-replace"
    }

    fn parse(&self, output: &str, _opt: &super::ParseOptions) -> Parsed {
        let lines = out_lines(output);
        let mut parsed = Parsed::default();
        let mut path: Option<String> = None;
        let mut state = State::Outside;
        let (mut old, mut new): (Vec<String>, Vec<String>) = (vec![], vec![]);
        let mut start = 0;
        for (i, l) in lines.iter().enumerate() {
            match state {
                State::Outside => {
                    if is_head(l.text) {
                        if let Some(p) = path_before(&lines, i) {
                            path = Some(p);
                        }
                        state = State::Search;
                        start = l.start;
                        old.clear();
                        new.clear();
                    }
                }
                State::Search => {
                    if is_divider(l.text) {
                        state = State::Replace;
                    } else if is_tail(l.text) || is_head(l.text) {
                        parsed.edits.push(invalid(
                            &path,
                            Code::Malformed,
                            format!(
                                "line {}: `{}` inside a SEARCH section; each block is `<<<<<<< SEARCH`, the old lines, `=======`, the new lines, `>>>>>>> REPLACE`",
                                i + 1,
                                l.text.trim()
                            ),
                            start..l.end,
                        ));
                        if is_head(l.text) {
                            start = l.start;
                            old.clear();
                        } else {
                            state = State::Outside;
                        }
                    } else {
                        old.push(l.text.to_owned());
                    }
                }
                State::Replace => {
                    if is_tail(l.text) {
                        let op = if old.iter().all(|s| s.trim().is_empty()) {
                            Op::CreateOrAppend {
                                text: std::mem::take(&mut new),
                            }
                        } else {
                            Op::Replace {
                                old: std::mem::take(&mut old),
                                new: std::mem::take(&mut new),
                                hint: None,
                                anchors: vec![],
                                at_end: false,
                            }
                        };
                        parsed.edits.push(Edit {
                            path: path.clone(),
                            op,
                            span: start..l.end,
                        });
                        state = State::Outside;
                    } else if is_head(l.text) {
                        parsed.edits.push(invalid(
                            &path,
                            Code::Malformed,
                            format!("line {}: a new `<<<<<<< SEARCH` before the previous block's `>>>>>>> REPLACE`", i + 1),
                            start..l.start,
                        ));
                        state = State::Search;
                        start = l.start;
                        old.clear();
                        new.clear();
                    } else {
                        new.push(l.text.to_owned());
                    }
                }
            }
        }
        if !matches!(state, State::Outside) {
            let missing = if matches!(state, State::Search) {
                "`=======` and `>>>>>>> REPLACE`"
            } else {
                "`>>>>>>> REPLACE`"
            };
            parsed.truncated = true;
            parsed.edits.push(invalid(
                &path,
                Code::Truncated,
                format!("the output ends inside a SEARCH/REPLACE block (no {missing}); the reply was cut off"),
                start..output.len(),
            ));
        }
        parsed
    }

    fn render(&self, path: &str, before: &str, after: &str) -> String {
        let (b, a) = (Text::new(before), Text::new(after));
        let (bl, al) = (b.lines(), a.lines());
        let mut out = String::new();
        if bl.is_empty() {
            push_block(&mut out, path, &[], &al);
            return out;
        }
        for c in unique_blocks(&bl, &al, 0) {
            push_block(&mut out, path, &bl[c.old], &al[c.new]);
        }
        out
    }
}

fn push_block(out: &mut String, path: &str, old: &[&str], new: &[&str]) {
    out.push_str(path);
    out.push_str("\n```\n<<<<<<< SEARCH\n");
    for l in old {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str("=======\n");
    for l in new {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(">>>>>>> REPLACE\n```\n\n");
}

fn invalid(
    path: &Option<String>,
    code: Code,
    message: String,
    span: std::ops::Range<usize>,
) -> Edit {
    Edit {
        path: path.clone(),
        op: Op::Invalid { code, message },
        span,
    }
}

/// The path written just before a block: on the previous line, or on the
/// line before the opening fence.
fn path_before(lines: &[crate::scan::OutLine], head: usize) -> Option<String> {
    let prev = head.checked_sub(1)?;
    if let Some(f) = fence_open(lines[prev].text) {
        if let Some(p) = crate::scan::path_from_info(f.info) {
            return Some(p);
        }
        let before = prev.checked_sub(1)?;
        return path_from_line(lines[before].text);
    }
    path_from_line(lines[prev].text)
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
