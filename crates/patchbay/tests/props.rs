//! Property tests: rendered edits apply back exactly, exact matches are
//! applied where (and only where) they are unique, and any input, however
//! broken, gets one receipt an edit and changes nothing unless it applied
//! (`support::apply_checked`).

use patchbay::{apply, render, ApplyOptions, EditStatus, Level, Status};
use proptest::prelude::*;

mod support;
use support::{apply_checked, file_pair, formats, line, one_file as files, opts, PATH};

#[derive(Debug, Clone)]
struct Style {
    crlf: bool,
    final_nl: bool,
}

fn style() -> impl Strategy<Value = Style> {
    (any::<bool>(), any::<bool>()).prop_map(|(crlf, final_nl)| Style { crlf, final_nl })
}

fn join(lines: &[String], s: &Style) -> String {
    let eol = if s.crlf { "\r\n" } else { "\n" };
    let mut t = lines.join(eol);
    if s.final_nl && !lines.is_empty() {
        t.push_str(eol);
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn rendered_search_replace_applies_back((before, after) in file_pair(), st in style()) {
        // A change that only adds or drops the final newline is not an edit
        // (final-newline presence is preserved by design), so compare files
        // with the same style.
        prop_assume!(!after.is_empty());
        // Without a final newline, a last empty line would read as one.
        let ends_blank = |v: &[String]| v.last().is_some_and(|l| l.is_empty());
        prop_assume!(st.final_nl || (!ends_blank(&before) && !ends_blank(&after)));
        // A one-line file without a newline has no line-ending style to keep.
        prop_assume!(st.final_nl || before.len() > 1);
        let (b, a) = (join(&before, &st), join(&after, &st));
        prop_assume!(b != a);
        // SEARCH cannot quote a file of blank lines (an empty SEARCH means
        // create-or-append), so such files are left to `whole`.
        let quotable = before.iter().any(|l| !l.trim().is_empty());
        for format in formats() {
            // These quote old lines, and a block of blank lines cannot be quoted.
            if matches!(format, "search-replace" | "apply-patch" | "tool-call" | "udiff") && !quotable {
                continue;
            }
            let out = render(format.parse().unwrap(), PATH, &b, &a).unwrap();
            let report = apply(&out, &files(&b), &opts(format));
            prop_assert_eq!(report.status, Status::Applied, "{}\n{}\n{}", format, out, report.feedback);
            prop_assert_eq!(report.files[0].content.as_deref(), Some(a.as_str()), "{}\n{}", format, out);
        }
    }

    #[test]
    fn exact_blocks_apply_only_where_unique(
        file in prop::collection::vec(line(), 1..40),
        start in 0..40usize,
        len in 1..4usize,
        new in prop::collection::vec(line(), 0..3),
    ) {
        let start = start % file.len();
        let len = len.min(file.len() - start);
        let old: Vec<String> = file[start..start + len].to_vec();
        prop_assume!(old.iter().any(|l| !l.trim().is_empty()));
        let out = format!("{PATH}\n<<<<<<< SEARCH\n{}\n=======\n{}>>>>>>> REPLACE\n",
            old.join("\n"), new.iter().map(|l| format!("{l}\n")).collect::<String>());
        let text = join(&file, &Style { crlf: false, final_nl: true });
        let report = apply(&out, &files(&text), &opts("search-replace"));
        // Independent oracle: count exact occurrences of the block.
        let hits: Vec<usize> = (0..=file.len() - len).filter(|&s| file[s..s + len] == old[..]).collect();
        let r = &report.files[0].edits[0];
        if hits.len() == 1 {
            prop_assert_eq!(r.status, EditStatus::Applied);
            prop_assert_eq!(r.strategy, Some(Level::Exact));
            let mut expect = file.clone();
            expect.splice(hits[0]..hits[0] + len, new.clone());
            let expect_text = if expect.is_empty() { String::new() } else { join(&expect, &Style { crlf: false, final_nl: true }) };
            prop_assert_eq!(report.files[0].content.as_deref(), Some(expect_text.as_str()));
        } else {
            prop_assert_eq!(r.status, EditStatus::Failed, "{:?}", r);
        }
    }

    #[test]
    fn random_bytes_keep_the_invariants(bytes in prop::collection::vec(any::<u8>(), 0..400), file in prop::collection::vec(line(), 0..20)) {
        let out = String::from_utf8_lossy(&bytes);
        let text = join(&file, &Style { crlf: false, final_nl: true });
        for format in formats().into_iter().chain(["auto"]) {
            apply_checked(&out, &files(&text), &ApplyOptions { format: format.parse().unwrap(), transaction: patchbay::Options { default_path: Some(PATH.into()), ..Default::default() }, ..Default::default() })?;
        }
    }

    #[test]
    fn patch_and_tool_call_soup_keeps_the_invariants(parts in prop::collection::vec(prop::sample::select(vec![
        "*** Begin Patch\n", "*** End Patch\n", "*** Update File: src/f.txt\n", "*** Add File: a\n", "*** Delete File: src/f.txt\n",
        "*** Move to: b\n", "*** End of File\n", "@@\n", "@@ x = 1\n", "@@ -1,2 +1,3 @@ y\n", " x = 1\n", "-x = 1\n", "+z\n", "\n",
        "{\"command\": \"str_replace\", \"path\": \"src/f.txt\", \"old_str\": \"x", "\", \"new_str\": \"", "\"}\n", "[", "]", ",",
        "{\"command\": \"insert\", \"insert_line\": 99, \"new_str\": \"q\"}\n", "{\"command\": \"view\", \"view_range\": [2, -1]}\n",
        "{\"name\": \"e\", \"input\": ", "```json\n", "```\n",
    ]), 0..30)) {
        let out: String = parts.concat();
        let text = "x = 1\n    return x\ny = 2\n".to_string();
        for format in ["apply-patch", "tool-call", "auto"] {
            apply_checked(&out, &files(&text), &ApplyOptions { format: format.parse().unwrap(), transaction: patchbay::Options { default_path: Some(PATH.into()), ..Default::default() }, ..Default::default() })?;
        }
    }

    #[test]
    fn marker_soup_keeps_the_invariants(parts in prop::collection::vec(prop::sample::select(vec![
        "<<<<<<< SEARCH\n", "=======\n", ">>>>>>> REPLACE\n", "```\n", "```python\n", "src/f.txt\n", "x = 1\n",
        "\n", "../up.txt\n", "# ... rest unchanged\n", "    return x\n", "\r\n", "````\n",
    ]), 0..30)) {
        let out: String = parts.concat();
        let text = "x = 1\n    return x\n".to_string();
        for format in ["search-replace", "whole", "auto"] {
            apply_checked(&out, &files(&text), &ApplyOptions { format: format.parse().unwrap(), transaction: patchbay::Options { default_path: Some(PATH.into()), ..Default::default() }, ..Default::default() })?;
        }
    }

    /// Streaming reads only the tail after its last complete edit (issue
    /// 12); on replies of whole SEARCH/REPLACE blocks and JSON edits (some
    /// failing, some pathless, some cut) with prose between, split
    /// anywhere, it emits exactly the receipts of one push of the text so
    /// far after every push, and finishes with `apply`'s report. (Pieces
    /// that open strings they never close can change how earlier text
    /// reads, for any streaming; they are not generated.)
    #[test]
    fn stream_tail_reads_like_the_whole_text(parts in prop::collection::vec(prop::sample::select(vec![
        "src/f.txt\n<<<<<<< SEARCH\nx = 1\n=======\nx = 3\n>>>>>>> REPLACE\n",
        "<<<<<<< SEARCH\ny = 2\n=======\ny = 4\n>>>>>>> REPLACE\n",
        "src/g.txt\n```\n<<<<<<< SEARCH\nz\n=======\nw\n>>>>>>> REPLACE\n```\n",
        "<<<<<<< SEARCH\nx = 1\n",
        "{\"command\": \"str_replace\", \"path\": \"src/f.txt\", \"old_str\": \"x = 1\", \"new_str\": \"x = 5\"}\n",
        "{\"command\": \"str_replace\", \"path\": \"src/f.txt\", \"old_str\": \"nope\", \"new_str\": \"\"}\n",
        "{\"path\": \"src/f.txt\", \"line\": 1, \"tag\": \"AAAA\", \"new\": \"q\"}\n",
        "[{\"path\": \"src/f.txt\", \"line\": 2, \"tag\": \"BBBB\", \"new\": \"r\"}, ",
        "{\"line\": 1 \"tag\": 2}\n", "{\n", "Some prose.\n", "\n", "```json\n", "```\n",
    ]), 0..12), cuts in prop::collection::vec(1usize..12, 1..40)) {
        let out: String = parts.concat();
        for format in ["search-replace", "tool-call", "hashline", "auto"] {
            stream_reads_like_the_text_so_far(&out, format, &cuts)?;
        }
    }

    /// `Format::parse_after` resumes each format's parser after an edit
    /// as its parse of the whole text reads on (the stream reads each edit
    /// once with it), on soups of every format's marker lines.
    #[test]
    fn a_resumed_parse_reads_like_the_whole_one(parts in prop::collection::vec(prop::sample::select(vec![
        "<<<<<<< SEARCH\n", "=======\n", ">>>>>>> REPLACE\n", ">>>>>>>> REPLACE\n", "<<<<<<<< SEARCH\n",
        "src/f.txt\n", "src/g.txt:\n", "x = 1\n", "```\n", "```python\n", "Some prose.\n", "Now in `src/g.txt`:\n",
        "\n", "@@ -1,1 +1,1 @@\n", "--- a/src/f.txt\n", "+++ b/src/f.txt\n", "*** Begin Patch\n", "*** End Patch\n",
        "*** Update File: src/f.txt\n", "@@\n", "-x = 1\n", "+x = 2\n", "@@ end\n", " y = 2\n", "@@ -2 +2 @@\n",
        "diff --git a/src/g.txt b/src/g.txt\n", "\\ No newline at end of file\n", "y = 2\n", "~~~diff\n", "<source>\n",
    ]), 0..30), strict in any::<bool>(), complete in any::<bool>()) {
        let out: String = parts.concat();
        for f in patchbay::formats::all() {
            let popt = patchbay::ParseOptions { strict, complete, ..Default::default() };
            let whole = f.parse(&out, &popt);
            for k in 0..whole.edits.len().saturating_sub(1) {
                let Some((from, p)) = f.parse_after(&out, &whole.edits[k], &popt) else {
                    continue;
                };
                // The last edit may be cut, or not, by the end of the text.
                let read = |e: &patchbay::Edit, at: usize, last: bool| match last {
                    true => (e.path.clone(), None),
                    false => (e.path.clone(), Some((e.span.start + at..e.span.end + at, invalid_code(&e.op).ok_or(e.op.clone())))),
                };
                let n = p.edits.len();
                let got: Vec<_> = p.edits.iter().enumerate().map(|(i, e)| read(e, from, i + 1 == n)).collect();
                let want: Vec<_> = whole.edits[k + 1..].iter().enumerate().map(|(i, e)| read(e, 0, i + 1 == n)).collect();
                prop_assert_eq!(got, want, "{} {:?} after edit {}", f.name(), out, k);
                let mentions: Vec<_> = whole.mentions.iter()
                    .filter(|(i, _)| *i > k)
                    .map(|(i, m)| (i - k - 1, m.clone()))
                    .collect();
                prop_assert_eq!(&p.mentions, &mentions);
            }
        }
    }

    /// A stream re-reads only at lines its format says can change which
    /// edits are complete (`Format::turn`): on soups of every line
    /// format's marker lines (heads, tails, dividers, hunk and file
    /// headers, patch marks, `@@ end`, fences, paths and prose), split
    /// anywhere, the events after every push are those of one push of the
    /// text so far, in every format.
    #[test]
    fn stream_turns_agree_with_the_parsers(parts in prop::collection::vec(prop::sample::select(vec![
        "<<<<<<< SEARCH\n", "=======\n", ">>>>>>> REPLACE\n", ">>>>>>>> REPLACE\n", "src/f.txt\n", "x = 1\n",
        "```\n", "```diff\n", "~~~\n", "Some prose.\n", "Now in `src/g.txt`:\n", "\n",
        "diff --git a/src/f.txt b/src/f.txt\n", "deleted file mode 100644\n", "--- a/src/f.txt\n",
        "+++ b/src/f.txt\n", "--- /dev/null\n", "@@ -1,1 +1,1 @@\n", "@@ -2 +2 @@\n", "-x = 1\n", "+x = 2\n", " y = 2\n",
        "*** Begin Patch\n", "*** End Patch\n", "*** Update File: src/f.txt\n", "*** Delete File: src/g.txt\n",
        "*** End of File\n", "@@\n", "@@ src/f.txt 1:1 crc32=00000000\n", "@@ end\n", "@@ delete 2\n",
        "# file: src/f.txt crc32=00000000\n", "{\"path\": \"src/f.txt\", \"lines\": \"1:1\", \"new\": \"q\"}\n",
    ]), 0..30), cuts in prop::collection::vec(1usize..12, 1..40)) {
        let out: String = parts.concat();
        for format in ["search-replace", "whole", "udiff", "apply-patch", "lines", "auto"] {
            stream_reads_like_the_text_so_far(&out, format, &cuts)?;
        }
    }
}

/// Pushes `out` in chunks of the lengths `cuts` (cycled) and checks that
/// after every push the events so far are those of one push of the text so
/// far, and that `finish` is `apply`. Only while the text so far only adds
/// events: a later line can take back an edit that a shorter text held
/// complete (`auto` changing its mind, a `lines` header turning its JSON
/// form into the text form), for any streaming, which then emitted it
/// already; only `finish` is checked after that.
fn stream_reads_like_the_text_so_far(
    out: &str,
    format: &str,
    cuts: &[usize],
) -> Result<(), TestCaseError> {
    use patchbay::reply::stream::Stream;
    let text = "x = 1\ny = 2\n";
    let tree = || {
        let mut t = files(text);
        t.insert("src/g.txt".into(), "z\n".into());
        t
    };
    let opt = ApplyOptions {
        format: format.parse().unwrap(),
        ..Default::default()
    };
    let mut s = Stream::new(tree(), opt.clone());
    let (mut got, mut at, mut k, mut before) = (vec![], 0, 0, Some(vec![]));
    while at < out.len() {
        let mut end = (at + cuts[k % cuts.len()]).min(out.len());
        while !out.is_char_boundary(end) {
            end += 1;
        }
        got.extend(s.push(&out[at..end]));
        (at, k) = (end, k + 1);
        let want = Stream::new(tree(), opt.clone()).push(&out[..at]);
        before = before
            .filter(|b: &Vec<_>| want.starts_with(b))
            .map(|_| want);
        if let Some(want) = &before {
            prop_assert_eq!(&got, want, "{} {:?} after {}", format, out, at);
        }
    }
    prop_assert_eq!(s.finish(), apply(out, &tree(), &opt));
    Ok(())
}

/// The code of an edit the format could not read (its message may count
/// output lines from where the reading started).
fn invalid_code(op: &patchbay::Op) -> Option<patchbay::Code> {
    match op {
        patchbay::Op::Invalid { code, .. } => Some(*code),
        _ => None,
    }
}
