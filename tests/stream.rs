//! Streaming gives the same answers whatever the chunking: every corpus
//! reply, split at random places, emits the same early receipts as when it
//! arrives at once, and finishes with the same report as `apply`; after
//! every push the events so far are those of one push of the text so far.

use patchbay::reply::stream::{Event, Stream};
use patchbay::{apply, ApplyOptions, EditStatus, Status};
use patchbay_tests::{case_dirs, corpus_root, load};
use std::collections::{BTreeMap, HashMap};

/// A small deterministic generator (xorshift), so no dependency is needed:
/// chunks of 1 to `max` bytes.
fn splits(text: &str, seed: u64, max: u64) -> Vec<&str> {
    let mut x = seed | 1;
    let mut out = vec![];
    let mut at = 0;
    while at < text.len() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut end = (at + 1 + (x % max) as usize).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[at..end]);
        at = end;
    }
    out
}

#[test]
fn any_chunking_gives_the_same_receipts() {
    let mut early = 0;
    for dir in case_dirs(&corpus_root()) {
        let c = load(&dir);
        let (files, output) = (&c.before, &c.output);
        let opt = c.options(&c.case.format);
        let whole_report = apply(output, files, &opt);
        if template_opened(output) {
            continue;
        }
        let mut at_once = Stream::new(files.clone(), opt.clone());
        let events_once = at_once.push(output);
        assert_eq!(at_once.finish(), whole_report, "{}", dir.display());
        early += events_once.len();
        for seed in [1u64, 7, 99] {
            let mut s = Stream::new(files.clone(), opt.clone());
            let mut events = vec![];
            for chunk in splits(output, seed, 40) {
                events.extend(s.push(chunk));
            }
            assert_eq!(events, events_once, "{} seed {seed}", dir.display());
            assert_eq!(s.finish(), whole_report, "{} seed {seed}", dir.display());
        }
        // An early receipt agrees with the final one, except that the final
        // transaction may hold a located edit back or find an overlap.
        for e in &events_once {
            let fin = whole_report
                .receipts()
                .into_iter()
                .find(|r| r.index == e.receipt.index)
                .cloned()
                .unwrap();
            match e.receipt.status {
                EditStatus::Applied => {
                    assert!(
                        fin.status != EditStatus::Failed
                            || fin.code == Some(patchbay::Code::Overlap),
                        "{}",
                        dir.display()
                    );
                    assert_eq!(fin.lines, e.receipt.lines, "{}", dir.display());
                }
                _ => assert_eq!(
                    (fin.status, fin.code),
                    (e.receipt.status, e.receipt.code),
                    "{}",
                    dir.display()
                ),
            }
            if whole_report.status == Status::Applied {
                assert_eq!(e.receipt.status, EditStatus::Applied);
            }
        }
    }
    assert!(early > 50, "only {early} edits were judged early");
}

/// A reply whose reasoning section the chat template opened: a stream
/// reads its draft as the answer until the close arrives (see
/// `a_template_opened_section_is_read_again_from_its_close`).
fn template_opened(output: &str) -> bool {
    patchbay::reply::reasoning::find(output).is_some_and(|r| !r.opened)
}

/// One line a push: every line's [`patchbay::formats::Format::turn`] is
/// asked where it decides whether the stream re-reads.
fn by_line(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The events of one push of `text`, once per text.
struct AtOnce<'a> {
    files: &'a BTreeMap<String, String>,
    opt: &'a ApplyOptions,
    seen: HashMap<usize, Vec<Event>>,
}

impl AtOnce<'_> {
    fn events(&mut self, text: &str) -> &[Event] {
        let (files, opt) = (self.files, self.opt);
        self.seen
            .entry(text.len())
            .or_insert_with(|| Stream::new(files.clone(), opt.clone()).push(text))
    }
}

/// The stream re-reads its text only at lines that its format says can
/// change which edits are complete (`Format::turn`, `Stream::append`).
/// Held here to every format's parser on every corpus reply, under the
/// case's format and `auto`: after every push (one line a push, chunks of
/// 1 to 8 bytes on replies up to 4 KB, chunks of 1 to 40 bytes), the events
/// so far are exactly those of one push of the text so far, so no event
/// comes late or not at all; and `finish` is `apply`.
#[test]
fn after_every_push_the_events_are_those_of_the_text_so_far() {
    let (mut pushes, mut early) = (0, 0);
    for dir in case_dirs(&corpus_root()) {
        let c = load(&dir);
        let (files, output) = (&c.before, &c.output);
        for format in [c.case.format.as_str(), "auto"] {
            let opt = c.options(format);
            let whole_report = apply(output, files, &opt);
            if template_opened(output) {
                continue;
            }
            let mut once = AtOnce {
                files,
                opt: &opt,
                seen: HashMap::new(),
            };
            let mut chunkings = vec![by_line(output), splits(output, 5, 40)];
            if output.len() <= 4096 {
                chunkings.push(splits(output, 3, 8));
            }
            for (k, chunks) in chunkings.into_iter().enumerate() {
                let mut s = Stream::new(files.clone(), opt.clone());
                let (mut events, mut at) = (vec![], 0);
                for chunk in chunks {
                    events.extend(s.push(chunk));
                    at += chunk.len();
                    pushes += 1;
                    let want = once.events(&output[..at]);
                    assert_eq!(
                        events,
                        want,
                        "{} [{format}] chunking {k}, after {at} of {} bytes",
                        dir.display(),
                        output.len()
                    );
                }
                early += events.len();
                assert_eq!(s.finish(), whole_report, "{} [{format}]", dir.display());
            }
        }
    }
    println!("{pushes} pushes, {early} early events");
    assert!(early > 100, "only {early} edits were judged early");
}

/// A whole file in one of Aider's tag fences (`<source>` ... `</source>`)
/// is complete at its closing tag, as one in a Markdown fence is at its
/// closing fence: the event comes with that line, not at `finish`. (Under
/// `auto` a fenced block alone is not yet taken for a whole file while the
/// text may go on, with either fence; `finish` applies it.)
#[test]
fn a_tag_fenced_whole_file_is_judged_at_its_closing_tag() {
    let files = BTreeMap::from([("a.py".to_string(), "x = 1\n".to_string())]);
    for (open, close) in [
        ("```python", "```"),
        ("<source>python", "</source>"),
        ("<code>", "</code>"),
    ] {
        let reply = format!("a.py\n{open}\nx = 2\n{close}\n\nThat is all.\n");
        for format in ["whole", "auto"] {
            let opt = ApplyOptions {
                format: format.parse().unwrap(),
                ..Default::default()
            };
            let mut s = Stream::new(files.clone(), opt);
            let mut at = 0;
            let mut first = None;
            for line in by_line(&reply) {
                at += line.len();
                if !s.push(line).is_empty() && first.is_none() {
                    first = Some(at);
                }
            }
            let closed = reply.rfind(close).unwrap() + close.len() + 1;
            let want = (format == "whole").then_some(closed);
            assert_eq!(first, want, "{open} [{format}]");
            assert_eq!(s.finish().status, Status::Applied, "{open} [{format}]");
        }
    }
}

/// A format that resumes its parser after an edit (`Format::parse_after`)
/// reads what follows exactly as its parse of the whole reply does: on
/// every corpus reply, in every format, after every edit but the last (the
/// last may still be open). A damaged edit's message may count output
/// lines from the resumed start: for those only the code is compared; and
/// of the text's last edit only the path (the end of the text may cut it).
#[test]
fn a_resumed_parse_reads_like_the_whole_one() {
    use patchbay::{formats, Op};
    let mut resumed = 0;
    for dir in case_dirs(&corpus_root()) {
        let c = load(&dir);
        let text = &c.output;
        for f in formats::all() {
            let popt = c.options(f.name()).parse_options();
            let whole = f.parse(text, &popt);
            let n = whole.edits.len();
            for k in 0..n.saturating_sub(1) {
                let Some((from, p)) = f.parse_after(text, &whole.edits[k], &popt) else {
                    continue;
                };
                resumed += 1;
                let at = |s: &std::ops::Range<usize>| s.start + from..s.end + from;
                let got: Vec<_> = p.edits.iter().map(|e| (&e.path, at(&e.span))).collect();
                let want: Vec<_> = whole.edits[k + 1..]
                    .iter()
                    .map(|e| (&e.path, e.span.clone()))
                    .collect();
                let at_k = format!("{} [{}] after edit {k}", dir.display(), f.name());
                // The last edit may be cut, or not, by the end of the text:
                // only its path is compared.
                let paths =
                    |v: &[(&Option<String>, _)]| v.iter().map(|e| e.0.clone()).collect::<Vec<_>>();
                assert_eq!(paths(&got), paths(&want), "{at_k}");
                let m = got.len().saturating_sub(1);
                assert_eq!(got[..m], want[..m], "{at_k}");
                for (g, w) in p.edits[..m].iter().zip(&whole.edits[k + 1..]) {
                    match (&g.op, &w.op) {
                        (Op::Invalid { code: a, .. }, Op::Invalid { code: b, .. }) => {
                            assert_eq!(a, b, "{at_k}")
                        }
                        (a, b) => assert_eq!(a, b, "{at_k}"),
                    }
                }
                let mentions: Vec<_> = (whole.mentions.iter())
                    .filter(|(i, _)| *i > k)
                    .map(|(i, m)| (i - k - 1, m.clone()))
                    .collect();
                assert_eq!(p.mentions, mentions, "{at_k}");
            }
        }
    }
    println!("{resumed} resumed parses");
    assert!(resumed > 20, "only {resumed} resumed parses");
}

/// Every corpus reply that opens a reasoning section: nothing is emitted
/// before its close arrives, whatever the chunking; then the events are
/// those of the answer, numbered as the final report numbers them, and
/// `finish` is `apply`.
#[test]
fn nothing_is_emitted_from_an_opened_reasoning_section() {
    let mut cases = 0;
    for dir in case_dirs(&corpus_root()) {
        let c = load(&dir);
        let (files, output) = (&c.before, &c.output);
        let Some(r) = patchbay::reply::reasoning::find(output).filter(|r| r.opened) else {
            continue;
        };
        cases += 1;
        let opt = c.options(&c.case.format);
        let whole_report = apply(output, files, &opt);
        for seed in [2u64, 11] {
            let mut s = Stream::new(files.clone(), opt.clone());
            let mut at = 0;
            let mut events = vec![];
            for chunk in splits(output, seed, 30) {
                let got = s.push(chunk);
                at += chunk.len();
                if at < r.bytes.end {
                    assert!(
                        got.is_empty(),
                        "{} emitted inside the section",
                        dir.display()
                    );
                }
                events.extend(got);
            }
            for e in &events {
                let [first, _] = e.receipt.output_lines.unwrap();
                assert!(
                    first > r.lines[1],
                    "{}: an event from the section",
                    dir.display()
                );
            }
            assert_eq!(s.finish(), whole_report, "{}", dir.display());
        }
    }
    assert!(
        cases >= 20,
        "only {cases} corpus replies open a reasoning section"
    );
}

/// A section the chat template opened shows only its close: until it
/// arrives the stream reads the draft as the answer; the close makes it
/// read again from the top, the events after it numbered as the final
/// report numbers them, and `finish` is `apply`.
#[test]
fn a_template_opened_section_is_read_again_from_its_close() {
    let mut cases = 0;
    for dir in case_dirs(&corpus_root()) {
        let c = load(&dir);
        let (files, output) = (&c.before, &c.output);
        if !template_opened(output) {
            continue;
        }
        cases += 1;
        let close = patchbay::reply::reasoning::find(output).unwrap();
        let opt = c.options(&c.case.format);
        let whole_report = apply(output, files, &opt);
        let mut s = Stream::new(files.clone(), opt.clone());
        let mut after = vec![];
        let mut at = 0;
        for line in by_line(output) {
            let got = s.push(line);
            at += line.len();
            if at > close.bytes.end {
                after.extend(got);
            }
        }
        for e in &after {
            let fin = whole_report
                .receipts()
                .into_iter()
                .find(|r| r.index == e.receipt.index)
                .cloned();
            let fin = fin.unwrap_or_else(|| panic!("{}: no such edit", dir.display()));
            assert_eq!(
                fin.output_lines,
                e.receipt.output_lines,
                "{}",
                dir.display()
            );
        }
        assert_eq!(s.finish(), whole_report, "{}", dir.display());
    }
    assert!(cases >= 8, "only {cases} template-opened corpus replies");
}
