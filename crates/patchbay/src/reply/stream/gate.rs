//! The stream's view of a reasoning section ([`crate::reading::reasoning`]):
//! while one may be open, nothing is parsed or emitted; once it closes, its
//! bytes are masked in the stream's text (the raw bytes kept aside), so the
//! formats read the answer alone, at the offsets the whole reply has.

use super::NewLines;
use crate::reading::reasoning::{self, CloseScan, Tag};

/// Where the stream stands with respect to a reasoning section.
#[derive(Default)]
pub(super) enum Gate {
    /// The text so far is blank or part of an opening tag.
    #[default]
    Undecided,
    /// A section opened with `tag`; its close was searched up to `from`.
    Inside { tag: &'static Tag, from: usize },
    /// A section closed at `end`; what follows may open another.
    After { end: usize },
    /// No section opened: lines are read for the close of one that the
    /// chat template opened.
    Answer {
        lines: NewLines,
        start: usize,
        scan: CloseScan,
    },
    /// The section (if any) is settled.
    Settled,
}

/// What a chunk did to the gate.
pub(super) enum Step {
    /// Nothing may be parsed yet.
    Wait,
    /// Parse as usual.
    Pass,
    /// A section ended at this byte: mask it, then parse from the top.
    Masked(usize),
}

impl Gate {
    /// Takes the text after a chunk arrived.
    pub(super) fn advance(&mut self, buf: &str) -> Step {
        loop {
            match self {
                Gate::Undecided => match start_of(buf, 0) {
                    None => return Step::Wait,
                    Some(Some((tag, at))) => *self = inside(tag, at),
                    Some(None) => {
                        *self = Gate::Answer {
                            lines: NewLines::default(),
                            start: 0,
                            scan: CloseScan::default(),
                        }
                    }
                },
                Gate::Inside { tag, from } => {
                    let close = tag.close;
                    match buf[*from..].find(close) {
                        Some(k) => {
                            *self = Gate::After {
                                end: *from + k + close.len(),
                            }
                        }
                        None => {
                            // The tag may be arriving: search its length
                            // less one again, from a character's start.
                            let mut at = buf.len().saturating_sub(close.len() - 1).max(*from);
                            while !buf.is_char_boundary(at) {
                                at -= 1;
                            }
                            *from = at;
                            return Step::Wait;
                        }
                    }
                }
                Gate::After { end } => match start_of(buf, *end) {
                    None => return Step::Wait,
                    Some(Some((tag, at))) => *self = inside(tag, at),
                    Some(None) => {
                        let end = *end;
                        *self = Gate::Settled;
                        return Step::Masked(end);
                    }
                },
                Gate::Answer { lines, start, scan } => {
                    let step = answer(lines, start, scan, buf);
                    if matches!(step, Step::Masked(_)) {
                        *self = Gate::Settled;
                    }
                    return step;
                }
                Gate::Settled => return Step::Pass,
            }
        }
    }
}

/// A section opened at `at` with `tag`.
fn inside(tag: &'static Tag, at: usize) -> Gate {
    Gate::Inside {
        tag,
        from: at + tag.open.len(),
    }
}

/// What the text from `from` on starts with: `None` while undecided, an
/// opener with its position, or `Some(None)` for anything else.
#[allow(clippy::option_option)]
fn start_of(buf: &str, from: usize) -> Option<Option<(&'static Tag, usize)>> {
    let rest = &buf[from..];
    if reasoning::undecided(rest) {
        return None;
    }
    let at = from + rest.len() - rest.trim_start().len();
    Some(reasoning::opener(&buf[at..]).map(|tag| (tag, at)))
}

/// The complete new lines, read for a close tag.
fn answer(lines: &mut NewLines, start: &mut usize, scan: &mut CloseScan, buf: &str) -> Step {
    for (at, line) in lines.take(buf) {
        let from = *start;
        *start = at;
        if let Some((_, end)) = scan.line(line) {
            return Step::Masked(from + end);
        }
    }
    Step::Pass
}

#[cfg(test)]
mod tests {
    use super::{Gate, Step};

    /// Fed a byte at a time (multi-byte characters whole), the gate waits
    /// until the section closes, then masks exactly it.
    #[test]
    fn a_section_fed_in_pieces_is_found_whole() {
        let text = "<think>é日本語 </thin k></think>\nanswer\n";
        let mut gate = Gate::default();
        let mut got = None;
        let mut buf = String::new();
        for c in text.chars() {
            buf.push(c);
            match gate.advance(&buf) {
                Step::Masked(end) => got = got.or(Some((end, buf.len()))),
                Step::Wait => assert!(got.is_none()),
                Step::Pass => {}
            }
        }
        let end = text.find("</think>").unwrap() + "</think>".len();
        assert_eq!(got.map(|g| g.0), Some(end));
    }
}
