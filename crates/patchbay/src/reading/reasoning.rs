//! Reasoning sections: the draft a reasoning model (DeepSeek-R1, Qwen3, QwQ,
//! ...) writes before its answer when the server does not split it off.
//! A draft may hold edits the model then decides against, so no format
//! parses, detects, counts or applies anything inside one: the section's
//! bytes are masked (every byte but a line break becomes a space) before
//! any format reads the reply, which keeps every offset and line number of
//! the answer as it is in the reply.
//!
//! Two shapes are recognised:
//! - **opened**: the reply's first non-blank text is `<think>` (or
//!   `<thinking>`, `<reasoning>`); the section runs to the matching close
//!   tag, wherever it stands. Sections that follow one another are one.
//!   One that never closes means the reply was cut before its answer.
//! - **closed only**: the chat template opened the tag, so the reply holds
//!   only the close. The first line outside a Markdown fence that is a
//!   close tag alone ends a section that started with the reply, unless an
//!   opening tag stood before it (the close is then that tag's).
//!
//! A tag anywhere else (inside a block, a fence, or after the answer
//! began) is content.

pub use crate::edit::Reasoning;
use std::borrow::Cow;
use std::ops::Range;

/// A tag a reasoning section is written in: its name, opener and close.
pub(crate) struct Tag {
    pub name: &'static str,
    pub open: &'static str,
    pub close: &'static str,
}

/// The tags a reasoning section is written in (written out, not formatted:
/// every reply is searched for them).
const TAGS: [Tag; 3] = [
    Tag {
        name: "think",
        open: "<think>",
        close: "</think>",
    },
    Tag {
        name: "thinking",
        open: "<thinking>",
        close: "</thinking>",
    },
    Tag {
        name: "reasoning",
        open: "<reasoning>",
        close: "</reasoning>",
    },
];

impl Reasoning {
    fn new(output: &str, bytes: Range<usize>, tag: &str, opened: bool, closed: bool) -> Self {
        let first = 1 + memchr::memchr_iter(b'\n', &output.as_bytes()[..bytes.start]).count();
        let inside = &output.as_bytes()[bytes.start..bytes.end];
        let breaks = memchr::memchr_iter(b'\n', inside.strip_suffix(b"\n").unwrap_or(inside));
        Reasoning {
            lines: [first, first + breaks.count()],
            tag: tag.to_owned(),
            opened,
            closed,
            bytes,
        }
    }

    /// A sentence for a person: what was skipped.
    pub fn describe(&self) -> String {
        let [a, b] = self.lines;
        let state = if self.closed { "" } else { ", never closed" };
        format!(
            "skipped the reasoning section <{}> (reply lines {a}-{b}{state})",
            self.tag
        )
    }
}

/// The reply's reasoning section, if it starts with one.
pub fn find(output: &str) -> Option<Reasoning> {
    opened(output).or_else(|| closed_only(output))
}

/// The reply with its reasoning section masked (same length and line
/// breaks), and the section.
pub fn mask(output: &str) -> (Cow<'_, str>, Option<Reasoning>) {
    match find(output) {
        Some(r) => (Cow::Owned(masked(output, r.bytes.clone())), Some(r)),
        None => (Cow::Borrowed(output), None),
    }
}

/// `output` with the bytes of `range` (on character boundaries) turned to
/// spaces, line breaks kept: the same length, the same lines.
pub fn masked(output: &str, range: Range<usize>) -> String {
    let mut out = String::with_capacity(output.len());
    out.push_str(&output[..range.start]);
    for c in output[range.clone()].chars() {
        match c {
            '\n' | '\r' => out.push(c),
            _ => out.extend(std::iter::repeat_n(' ', c.len_utf8())),
        }
    }
    out.push_str(&output[range.end..]);
    out
}

/// The tag whose opener `s` starts with.
pub(crate) fn opener(s: &str) -> Option<&'static Tag> {
    TAGS.iter().find(|t| s.starts_with(t.open))
}

/// Whether the text so far may still turn out to open a section (it is
/// blank, or a proper prefix of an opener): a stream waits on it.
pub fn undecided(output: &str) -> bool {
    let t = output.trim_start();
    TAGS.iter()
        .any(|tag| tag.open.len() > t.len() && tag.open.starts_with(t))
}

/// Sections opened by their tags at the reply's start, one after another.
fn opened(output: &str) -> Option<Reasoning> {
    let mut at = output.len() - output.trim_start().len();
    let first = opener(&output[at..])?;
    let mut last = first;
    loop {
        let body = at + last.open.len();
        // `str::find`, not `memmem`: the module's first part already holds
        // the standard searcher, and memmem's would add its own.
        let Some(k) = output[body..].find(last.close) else {
            return Some(Reasoning::new(
                output,
                0..output.len(),
                first.name,
                true,
                false,
            ));
        };
        let end = body + k + last.close.len();
        let rest = &output[end..];
        let next = end + rest.len() - rest.trim_start().len();
        match opener(&output[next..]) {
            Some(tag) => (at, last) = (next, tag),
            None => return Some(Reasoning::new(output, 0..end, first.name, true, true)),
        }
    }
}

/// A section the chat template opened: the reply holds only its close.
fn closed_only(output: &str) -> Option<Reasoning> {
    let mut scan = CloseScan::default();
    let mut start = 0;
    for line in output.split_inclusive('\n') {
        if let Some((tag, end)) = scan.line(line) {
            return Some(Reasoning::new(output, 0..start + end, tag, false, true));
        }
        start += line.len();
    }
    None
}

/// Finds the close tag of a section the chat template opened, a line at a
/// time, outside Markdown fences; a stream feeds it lines as they arrive.
#[derive(Debug, Default, Clone)]
pub struct CloseScan {
    /// The open fence's character and run length.
    fence: Option<(char, usize)>,
    /// An opening tag stood outside a fence: a close after it is its own,
    /// not the end of a section the template opened.
    opener_seen: bool,
}

impl CloseScan {
    /// The tag and the byte just past it, when `line` ends a section.
    pub fn line(&mut self, line: &str) -> Option<(&'static str, usize)> {
        let t = line.trim();
        if let Some((ch, len)) = self.fence {
            if t.len() >= len && t.chars().all(|c| c == ch) {
                self.fence = None;
            }
            return None;
        }
        if let Some(f) = crate::reading::scan::fence_open(line.trim_end()) {
            if f.ch != '<' {
                self.fence = Some((f.ch, f.len));
                return None;
            }
        }
        if self.opener_seen {
            return None;
        }
        if TAGS.iter().any(|tag| t.contains(tag.open)) {
            self.opener_seen = true;
            return None;
        }
        let tag = TAGS.iter().find(|tag| t == tag.close)?;
        let end = line.trim_end().len();
        Some((tag.name, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opened_section_runs_to_its_close() {
        let reply = "<think>\nmaybe f\n</think>\nanswer\n";
        let r = find(reply).expect("a section");
        assert_eq!((r.lines, r.opened, r.closed), ([1, 3], true, true));
        assert_eq!(&reply[r.bytes.clone()], "<think>\nmaybe f\n</think>");
        let (m, _) = mask(reply);
        assert_eq!(m.len(), reply.len());
        assert_eq!(m.lines().nth(3), Some("answer"));
        assert!(!m.contains("maybe"));
    }

    #[test]
    fn sections_in_a_row_are_one_and_an_open_one_is_cut() {
        let reply = "  <thinking>a</thinking>\n<reasoning>b\n</reasoning>\nx\n";
        let r = find(reply).expect("a section");
        assert_eq!(
            &reply[r.bytes.clone()],
            &reply[..reply.find("\nx").unwrap()]
        );
        let cut = find("<think>\nstill thinking").expect("a section");
        assert!(!cut.closed);
    }

    #[test]
    fn a_close_without_an_opener_ends_a_template_opened_section() {
        let reply = "the bug is in g\n</think>\n\ng.py\n";
        let r = find(reply).expect("a section");
        assert_eq!(
            (r.lines, r.opened, r.tag.as_str()),
            ([1, 2], false, "think")
        );
        assert_eq!(&reply[r.bytes.clone()], "the bug is in g\n</think>");
    }

    #[test]
    fn tags_in_content_are_content() {
        for reply in [
            "a.py\n<<<<<<< SEARCH\n<think>\n=======\nx\n>>>>>>> REPLACE\n",
            "```html\n</think>\n```\n",
            "I removed the `</think>` tag.\n",
            "a.py\n<<<<<<< SEARCH\nx\n=======\nx  # strip </think>\n>>>>>>> REPLACE\n",
            "answer first\n<think>later</think>\n",
        ] {
            assert_eq!(find(reply), None, "{reply:?}");
        }
    }

    #[test]
    fn a_stream_waits_while_an_opener_may_be_arriving() {
        assert!(undecided("  <thin"));
        assert!(undecided("\n"));
        assert!(!undecided("<think>"));
        assert!(!undecided("hello"));
    }
}
