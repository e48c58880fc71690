//! `whole`: the whole new file in a fence, its path on a line above (blank
//! lines and a few short lines of prose may stand between them) or in the
//! fence's info string.
//!
//! Fences may be backticks or tildes of any length; a file that itself holds
//! fences survives when the model fences it with a longer run, and nested
//! fences that carry a language are tracked. Placeholders such as
//! `# ... rest of the file unchanged` are refused by the transaction as
//! `elided` (see [`crate::apply::elision`]); an unclosed fence is `truncated`.
//! Fenced blocks without a path are ignored when another block names one
//! (they are examples or shell commands); when none names a path, a single
//! block targets the default file. One pass, `O(len)`.

use super::Format;
use crate::apply::text::Text;
use crate::edit::{Code, Edit, Op, Parsed};
use crate::formats::prompt::{self, COUNT, EXAMPLE_AFTER};
use crate::reading::scan::{
    fence_open, find_fence_close, out_lines, path_above, path_from_info, OutLine, PathAbove,
};
use crate::reading::sniff::{Reply, Sniff};

pub struct Whole;

impl Format for Whole {
    /// The fallback: any fenced block (and no marker of another format,
    /// which would come before `usize::MAX`).
    fn sniff(&self, reply: &Reply) -> Option<Sniff> {
        let fenced = reply.any_line(|t| crate::reading::scan::fence_open(t).is_some());
        Some(Sniff {
            at: usize::MAX,
            confidence: if fenced { 0.6 } else { 0.1 },
            reason: if fenced {
                "has a fenced block and no other edit markers"
            } else {
                "no edit markers found"
            }
            .into(),
        })
    }

    fn prompt(&self) -> prompt::Prompt {
        prompt::Prompt {
            instructions: format!("Reply with the complete new content of every file you change: the file path on a line, then the whole file in a fenced block. Never abbreviate: no `...` and no comments like `rest of the file unchanged`. {COUNT}"),
            example_view: prompt::plain_view(),
            example_reply: format!("EDITS: 1\napp.py\n```python\n{EXAMPLE_AFTER}```\n"),
        }
    }

    fn id(&self) -> crate::formats::FormatName {
        crate::formats::FormatName::Whole
    }

    /// A block opens and closes with a fence, and which blocks count (an
    /// unnamed one only when no other names a file) changes only then.
    fn turn(&self, line: &str) -> super::Turn {
        match super::fence_like(line) {
            true => super::Turn::Ends,
            false => super::Turn::Plain,
        }
    }

    fn parse(&self, output: &str, opt: &super::ParseOptions) -> Parsed {
        self.parse_lines(output, &out_lines(output), opt)
    }

    fn parse_lines(&self, output: &str, lines: &[OutLine], _opt: &super::ParseOptions) -> Parsed {
        let mut parsed = Parsed::default();
        // Blocks that name no file, with the file the prose above names.
        let mut unnamed: Vec<(Edit, Option<String>)> = vec![];
        let mut i = 0;
        let mut floor = 0;
        while i < lines.len() {
            let Some(f) = fence_open(lines[i].text) else {
                i += 1;
                continue;
            };
            let above = match path_from_info(f.info) {
                Some(p) => PathAbove::Named(p),
                None => path_above(lines, i, floor),
            };
            if matches!(above, PathAbove::Bare(_)) {
                parsed.unsure.push(parsed.edits.len());
            }
            let (path, mention) = match above {
                PathAbove::Named(p) | PathAbove::Bare(p) => (Some(p), None),
                PathAbove::Mentioned(m) => (None, Some(m)),
                PathAbove::Nothing => (None, None),
            };
            match find_fence_close(lines, i) {
                Some(close) => {
                    let text: Vec<String> = lines[i + 1..close]
                        .iter()
                        .map(|l| l.text.to_owned())
                        .collect();
                    let edit = Edit {
                        path: path.clone(),
                        op: Op::Write { text },
                        span: lines[i].start..lines[close].end,
                    };
                    if path.is_some() {
                        parsed.edits.push(edit);
                    } else {
                        unnamed.push((edit, mention));
                    }
                    i = close + 1;
                    floor = i;
                }
                None => {
                    parsed.truncated = true;
                    parsed.edits.push(Edit {
                        path,
                        op: Op::invalid(Code::Truncated, format!(
                                "the fence opened on output line {} is never closed; the reply was cut off",
                                i + 1
                            )),
                        span: lines[i].start..output.len(),
                    });
                    break;
                }
            }
        }
        if parsed.edits.is_empty() {
            take_unnamed(&mut parsed, unnamed);
        }
        parsed
    }

    fn render(&self, path: &str, _before: &str, after: &str) -> String {
        let t = Text::new(after);
        let lines = t.lines();
        // A fence longer than any backtick run at the start of a line inside.
        let longest = lines
            .iter()
            .map(|l| l.trim_start().chars().take_while(|&c| c == '`').count())
            .max()
            .unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        let mut out = format!("{path}\n{fence}\n");
        for l in lines {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str(&fence);
        out.push('\n');
        out
    }
}

/// Blocks that name no file, when none does: a single one targets the
/// default file (refused as `path_unclear` by the transaction if the prose
/// above it names another), several are `malformed`.
fn take_unnamed(parsed: &mut Parsed, mut unnamed: Vec<(Edit, Option<String>)>) {
    match unnamed.len() {
        0 => {}
        1 => {
            let (edit, mention) = unnamed.pop().expect("one");
            if let Some(m) = mention {
                parsed.mentions.push((0, m));
            }
            parsed.edits.push(edit);
        }
        n => parsed.edits.push(Edit {
            path: None,
            op: Op::invalid(Code::Malformed, format!(
                    "{n} fenced blocks and none names its file; put the file path on the line before each fence"
                )),
            span: unnamed[0].0.span.start..unnamed[n - 1].0.span.end,
        }),
    }
}

/// Whether a path line names the block of the fence at `fence` (blank
/// lines and a few short lines of prose may stand between them).
pub(crate) fn named_above(lines: &[crate::reading::scan::OutLine], fence: usize) -> bool {
    matches!(path_above(lines, fence, 0), PathAbove::Named(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_named_blocks_and_ignores_examples() {
        let out = "Run this:\n```sh\ncargo test\n```\nsrc/lib.rs\n```rust\nfn a() {}\n```\n";
        let p = Whole.parse(out, &Default::default());
        assert_eq!(p.edits.len(), 1);
        assert_eq!(p.edits[0].path.as_deref(), Some("src/lib.rs"));
        assert_eq!(
            p.edits[0].op,
            Op::Write {
                text: vec!["fn a() {}".into()]
            }
        );
    }

    #[test]
    fn four_backticks_keep_inner_fences() {
        let out = "README.md\n````markdown\n# T\n```\ncode\n```\n````\n";
        let p = Whole.parse(out, &Default::default());
        assert_eq!(
            p.edits[0].op,
            Op::Write {
                text: vec!["# T".into(), "```".into(), "code".into(), "```".into()]
            }
        );
    }

    #[test]
    fn unclosed_is_truncated() {
        let p = Whole.parse_default("a.py\n```python\nx = 1\n");
        assert!(p.truncated);
    }

    #[test]
    fn single_unnamed_block_goes_to_default() {
        let p = Whole.parse_default("```\nx\n```\n");
        assert_eq!(p.edits.len(), 1);
        assert_eq!(p.edits[0].path, None);
    }

    #[test]
    fn render_picks_a_longer_fence() {
        let r = Whole.render("a.md", "", "```\nx\n```\n");
        assert!(r.starts_with("a.md\n````\n"));
        assert_eq!(
            Whole.parse(&r, &Default::default()).edits[0].op,
            Op::Write {
                text: vec!["```".into(), "x".into(), "```".into()]
            }
        );
    }
}
