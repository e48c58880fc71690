//! Re-reading only the end of a streamed reply.
//!
//! The complete edits of the text so far cannot change (that is what makes
//! them complete), so a new chunk only needs the text from the last of them
//! on. A format that can resume its parser after that edit does
//! ([`Format::parse_after`]: SEARCH/REPLACE, udiff), and each edit is read
//! once. Otherwise the tail is parsed from a few lines before that edit (the context
//! its format reads there: a SEARCH/REPLACE block's path line and fence),
//! and is used only when it reads that edit exactly as the whole parse did:
//! then the parser is in the same state after it (the path a later block
//! inherits is that edit's), and every later edit is read the same. When it
//! does not agree, or for a format whose edits depend on text further up
//! (a diff's file header, `lines`' copied view headers, `whole`'s rule for
//! unnamed blocks), the stream parses the whole text as before.
//!
//! Messages of damaged edits can name output lines counted from the tail's
//! start, so a tail holding one is not used either, except as the last,
//! open edit: that one waits, and once it is complete the stream reads it
//! from the top. Refusing it there made a chunk that ends inside a block's
//! REPLACE text re-parse the whole reply.

use crate::edit::{Edit, Op, Parsed};
use crate::formats::{Format, ParseOptions};

/// Where to start reading: `lines` lines before the line of `at`, or `at`
/// itself for none.
fn start_before(buf: &str, at: usize, lines: usize) -> usize {
    if lines == 0 {
        return at;
    }
    let mut from = buf[..at].rfind('\n').map_or(0, |k| k + 1);
    for _ in 0..lines {
        if from == 0 {
            break;
        }
        from = buf[..from - 1].rfind('\n').map_or(0, |k| k + 1);
    }
    from
}

/// Whether an edit ends at `now` as it ended at `before`: the same place,
/// or with the line break that arrived after its closing marker (an edit
/// is complete once the marker is there, before its line ends).
fn same_end(buf: &str, now: usize, before: usize) -> bool {
    let added = buf.get(before..now);
    now == before || matches!(added, Some("\n" | "\r\n" | "\r"))
}

/// The edits after `stable` (the complete edits of the previous parse) in
/// the parse of `buf`, read from the tail; `None` when the whole text must
/// be parsed.
pub(super) fn resume(
    f: &dyn Format,
    popt: &ParseOptions,
    buf: &str,
    stable: &[Edit],
) -> Option<Parsed> {
    let last = stable.last()?;
    if let Some((from, parsed)) = f.parse_after(buf, last, popt) {
        return Some(shifted(parsed, from, 0)).filter(|p| !damaged_before_last(&p.edits));
    }
    let back = f.tail_context()?;
    // Leaves of one JSON value share its span: the group starts the tail.
    let a = stable
        .iter()
        .rposition(|e| e.span != last.span)
        .map_or(0, |k| k + 1);
    let anchor = stable[a].span.start;
    let from = start_before(buf, anchor.min(buf.len()), back);
    let parsed = f.parse(&buf[from..], popt);
    let tail = parsed.edits;
    let j = tail.iter().position(|e| e.span.start + from == anchor)?;
    let group = &stable[a..];
    let same = tail
        .get(j..j + group.len())?
        .iter()
        .zip(group)
        .all(|(t, s)| {
            t.path == s.path
                && t.op == s.op
                && t.span.start + from == s.span.start
                && same_end(buf, t.span.end + from, s.span.end)
        });
    if !same {
        return None;
    }
    let first = j + group.len();
    let parsed = Parsed {
        edits: tail,
        ..parsed
    };
    Some(shifted(parsed, from, first)).filter(|p| !damaged_before_last(&p.edits))
}

/// The edits of `parsed` (a parse of the text from byte `from` on) from
/// the `first` on, with their spans, mentions and bare-word paths counted in the whole text
/// and from the first of them.
fn shifted(parsed: Parsed, from: usize, first: usize) -> Parsed {
    let edits = parsed.edits.into_iter().skip(first);
    Parsed {
        edits: edits
            .map(|e| Edit {
                span: e.span.start + from..e.span.end + from,
                ..e
            })
            .collect(),
        truncated: false,
        // Indexes into the new edits.
        mentions: (parsed.mentions.into_iter())
            .filter(|(k, _)| *k >= first)
            .map(|(k, m)| (k - first, m))
            .collect(),
        unsure: (parsed.unsure.into_iter())
            .filter(|k| *k >= first)
            .map(|k| k - first)
            .collect(),
        // The stream reads the reply's lines and count itself.
        ..Parsed::default()
    }
}

/// A damaged edit before the last: its message may count output lines
/// from the tail's start. The last edit may be damaged: it is still open (a
/// block cut inside its REPLACE text reads as one without its marker), and
/// the stream reads it from the top once it is complete (`Stream::refresh`).
fn damaged_before_last(edits: &[Edit]) -> bool {
    edits[..edits.len().saturating_sub(1)]
        .iter()
        .any(|e| matches!(e.op, Op::Invalid { .. }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_starts_lines_above() {
        let buf = "a\nb\nc\nd\n";
        assert_eq!(start_before(buf, 6, 0), 6);
        assert_eq!(start_before(buf, 6, 1), 4);
        assert_eq!(start_before(buf, 6, 2), 2);
        assert_eq!(start_before(buf, 7, 5), 0);
    }
}
