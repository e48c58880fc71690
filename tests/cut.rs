//! Cut real replies at every byte offset: with the edit count declared first
//! (`EDITS: N`), a cut reply is never judged complete, so nothing half-done
//! is ever applied. Every corpus case that applies is used, in every format.

use patchbay::{apply, parse_with, Status};
use patchbay_tests::{case_dirs, corpus_root, load, result_tree};

#[test]
fn a_cut_reply_never_claims_complete() {
    let (mut cases, mut cuts) = (0, 0);
    for dir in case_dirs(&corpus_root()) {
        let c = load(&dir);
        if c.case.expect.status != "applied" {
            continue;
        }
        let (before, after, output) = (&c.before, c.after(), &c.output);
        let opt = c.options(&c.case.format);
        let n = parse_with(output, opt.format, &opt.parse_options())
            .1
            .edits
            .len();
        // Replies that already declare a count keep theirs. The count is
        // the answer's: it follows a reasoning section the reply opens.
        let reply = if output.contains("EDITS:") {
            output.clone()
        } else {
            let at = patchbay::reply::reasoning::find(output).map_or(0, |r| r.bytes.end);
            format!("{}\nEDITS: {n}\n{}", &output[..at], &output[at..])
        };
        cases += 1;
        // A section the chat template opened shows only its close: cut
        // before it, the reply cannot be told from one without a section
        // (only the stop reason, `length`, tells the cut), so the cuts
        // start at its close.
        let from = patchbay::reply::reasoning::find(&reply)
            .filter(|r| !r.opened)
            .map_or(0, |r| r.bytes.end);
        // Long replies: every offset near the edges, a stride in between.
        let len = reply.len();
        let step = (len / 400).max(1);
        for at in (from..len)
            .filter(|&i| reply.is_char_boundary(i) && (i < 200 || i + 200 > len || i % step == 0))
        {
            let r = apply(&reply[..at], before, &opt);
            cuts += 1;
            if r.status == Status::Applied {
                // Only a cut that lost nothing of the edits (trailing prose or
                // a closing fence) may apply, and then to the exact result.
                assert_eq!(
                    result_tree(before, &r),
                    after,
                    "{} cut at {at} of {len} applied wrongly",
                    dir.display()
                );
            }
        }
    }
    println!("{cases} cases, {cuts} cuts with a declared count");
    assert!(cases >= 100 && cuts > 10_000, "{cases} cases, {cuts} cuts");
}

/// Without a declared count: a cut reply that applies must give the full
/// reply's result, unless the cut falls between two lines and what is left
/// is itself a complete reply (its last edit ended there). A cut inside a
/// line never applies anything else. Every format, forced and `auto`.
#[test]
fn a_cut_inside_a_line_never_applies_a_different_result() {
    let (mut cuts, mut bad) = (0, vec![]);
    for dir in case_dirs(&corpus_root()) {
        let c = load(&dir);
        if c.case.expect.status != "applied" {
            continue;
        }
        let (before, after, reply) = (&c.before, c.after(), &c.output);
        for format in [c.case.format.as_str(), "auto"] {
            let opt = c.options(format);
            // `auto` only where it reads the whole reply as the case's format.
            if format == "auto" && apply(reply, before, &opt).format.as_str() != c.case.format {
                continue;
            }
            let spans: Vec<_> = parse_with(reply, opt.format, &opt.parse_options())
                .1
                .edits
                .into_iter()
                .map(|e| e.span)
                .collect();
            let len = reply.len();
            let step = (len / 300).max(1);
            for at in (0..len).filter(|&i| {
                reply.is_char_boundary(i) && (i < 150 || i + 150 > len || i % step == 0)
            }) {
                let cut = &reply[..at];
                let r = apply(cut, before, &opt);
                cuts += 1;
                // At a line's end (its break not yet sent) counts as between.
                let rest = &reply[at..];
                let between_lines = cut.is_empty()
                    || cut.ends_with('\n')
                    || rest.starts_with('\n')
                    || rest.starts_with("\r\n");
                let in_edit = spans.iter().any(|s| s.start < at && at < s.end);
                if r.status == Status::Applied
                    && !between_lines
                    && (in_edit || structural(line_at(reply, at)))
                    && result_tree(before, &r) != after
                {
                    bad.push(format!("{} [{format}] cut at {at} of {len}", dir.display()));
                }
            }
        }
    }
    println!("{cuts} cuts of applying replies without a declared count, forced and auto: {} applied a different result", bad.len());
    assert!(cuts > 20_000, "{cuts} cuts");
    assert!(
        bad.is_empty(),
        "{} cuts applied a different result:\n{}",
        bad.len(),
        bad[..bad.len().min(40)].join("\n")
    );
}

/// The whole line of `text` that offset `at` falls in.
fn line_at(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    &text[start..end]
}

/// Whether a line of a reply is structure rather than prose: a fence, a
/// marker, a diff or patch header, JSON. Decided here from the line alone,
/// not by the engine. (A path line is prose: its first letters cannot be
/// told from a sentence's.)
fn structural(line: &str) -> bool {
    let t = line.trim();
    let starts = [
        "```",
        "~~~",
        "<<<<<",
        "=====",
        ">>>>>",
        "@@",
        "--- ",
        "+++ ",
        "diff --git",
        "*** ",
        "{",
        "[",
    ];
    starts.iter().any(|s| t.starts_with(s))
}
