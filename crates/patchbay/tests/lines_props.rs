//! Property tests of the line-addressed formats: a seen-lines edit never
//! replaces lines other than the ones the model was shown, follows a block
//! that only moved, and refuses a changed one; a hashline edit with a wrong
//! tag never applies; JSON and header soup keeps the invariants of any
//! reply (`support::apply_checked`).

use patchbay::formats::hashline::tags::{tag, TagOptions};
use patchbay::{apply, seen_view, ApplyOptions, Code, EditStatus, Status};
use proptest::prelude::*;

mod support;
use support::{apply_checked, one_file as files, PATH};

/// Lines from a small vocabulary, so that repeated blocks are common.
fn line() -> impl Strategy<Value = String> {
    support::line_of(
        &["", "  ", "    "],
        &["x = 1", "y = 2", "return x", "}", "if a:", "call()", ""],
    )
}

/// Lines that look like the formats' own syntax.
fn tricky() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "@@ x 1",
        "@@ end",
        "@@ -1 +1 @@",
        "{\"line\": 1}",
        "[{",
        "\"",
        "\\n",
        "```",
        "# file: a crc32=1",
        "x = 1",
        "",
        "  }",
        "\t\"tag\": \"ab\"",
    ])
    .prop_map(str::to_owned)
}

fn text(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[derive(Debug, Clone)]
enum Change {
    None,
    /// Lines added at the top.
    InsertTop(Vec<String>),
    /// `k` lines deleted from the top (only above the shown lines).
    DeleteTop(usize),
    /// Line `r` (0-based) replaced.
    Rewrite(usize, String),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        Just(Change::None),
        prop::collection::vec(line(), 1..4).prop_map(Change::InsertTop),
        (1..4usize).prop_map(Change::DeleteTop),
        (0..40usize, line()).prop_map(|(r, l)| Change::Rewrite(r, format!("{l} changed"))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn seen_lines_never_edit_unseen_text(
        file in prop::collection::vec(line(), 6..40),
        seen in (0..40usize, 0..40usize),
        edit in (0..40usize, 0..4usize),
        new in prop::collection::vec(line(), 0..3),
        ch in change(),
    ) {
        let n = file.len();
        let (lo, hi) = { let (a, b) = (seen.0 % n, seen.1 % n); (a.min(b), a.max(b)) };
        // The edit: original lines a..b (0-based, end exclusive) inside the shown ones.
        let a = lo + edit.0 % (hi - lo + 1);
        let b = (a + edit.1).min(hi + 1);
        prop_assume!(a < b);
        let original = text(&file);
        let (_, snapshot) = seen_view(PATH, &original, &[(lo + 1, hi + 1)]);
        // The file as it is when the edit arrives, and where each original
        // line went (None: gone or rewritten).
        let mut now = file.clone();
        let mut map: Vec<Option<usize>> = (0..n).map(Some).collect();
        match &ch {
            Change::None => {}
            Change::InsertTop(add) => {
                now.splice(0..0, add.iter().cloned());
                map = (0..n).map(|i| Some(i + add.len())).collect();
            }
            Change::DeleteTop(k) => {
                prop_assume!(*k <= lo);
                now.drain(0..*k);
                map = (0..n).map(|i| i.checked_sub(*k)).collect();
            }
            Change::Rewrite(r, l) => {
                let r = r % n;
                prop_assume!(now[r].trim_end() != l.trim_end());
                now[r] = l.clone();
                map[r] = None;
            }
        }
        let current = text(&now);
        let mut out = format!("@@ {PATH} {}:{}\n", a + 1, b);
        for l in &new {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str("@@ end\n");
        let opt = ApplyOptions { format: patchbay::FormatName::Lines, transaction: patchbay::Options { seen: Some(snapshot), ..Default::default() }, ..Default::default() };
        let report = apply(&out, &files(&current), &opt);
        let r = &report.files[0].edits[0];
        if report.status == Status::Applied {
            // Whatever the engine decided, the lines it replaced are exactly
            // the lines the model was shown there.
            let [s1, e] = r.lines.unwrap();
            let s = s1 - 1;
            prop_assert_eq!(e - s, b - a);
            for k in 0..(b - a) {
                prop_assert_eq!(now[s + k].trim_end(), file[a + k].trim_end(), "{:?}", r);
            }
            let mut want = now.clone();
            want.splice(s..e, new.iter().cloned());
            let want = text(&want);
            prop_assert_eq!(report.files[0].content.as_deref(), Some(want.as_str()));
            // A block that only moved lands where it moved to.
            if !matches!(ch, Change::Rewrite(..)) {
                prop_assert_eq!(Some(s), map[a], "{:?}", r);
            }
        } else {
            let code = r.code.unwrap();
            match &ch {
                // Only the file changed: nothing to refuse.
                Change::None => prop_assert!(false, "refused an unchanged file: {:?}", r),
                // A pure move is found again unless it became ambiguous.
                Change::InsertTop(_) | Change::DeleteTop(_) => prop_assert_eq!(code, Code::Ambiguous, "{:?}", r),
                Change::Rewrite(..) => prop_assert!(matches!(code, Code::StaleTag | Code::Ambiguous), "{:?}", r),
            }
        }
    }

    #[test]
    fn unshown_lines_are_refused(
        file in prop::collection::vec(line(), 6..30),
        shown in (0..30usize, 0..5usize),
        at in 0..30usize,
    ) {
        let n = file.len();
        let lo = shown.0 % n;
        let hi = (lo + shown.1).min(n - 1);
        let at = at % n;
        prop_assume!(at < lo || at > hi);
        let t = text(&file);
        let (_, snapshot) = seen_view(PATH, &t, &[(lo + 1, hi + 1)]);
        let out = format!("@@ {PATH} {}\nz\n@@ end\n", at + 1);
        let opt = ApplyOptions { format: patchbay::FormatName::Lines, transaction: patchbay::Options { seen: Some(snapshot), ..Default::default() }, ..Default::default() };
        let report = apply(&out, &files(&t), &opt);
        prop_assert_eq!(report.files[0].edits[0].code, Some(Code::NotShown));
    }

    #[test]
    fn wrong_tags_never_apply(
        file in prop::collection::vec(line(), 1..30),
        start in 0..30usize,
        len in 1..4usize,
        bad in 0..4usize,
        with_line in any::<bool>(),
        junk in "[A-Za-z0-9_-]{4}",
    ) {
        let n = file.len();
        let start = start % n;
        let end = (start + len).min(n);
        let opts = TagOptions { len: 4, with_line };
        let mut entries: Vec<(usize, String)> =
            (start..end).map(|i| (i + 1, tag(&file[i], i + 1, opts))).collect();
        let k = bad % entries.len();
        prop_assume!(entries[k].1 != junk);
        entries[k].1 = junk.clone();
        let lines: Vec<String> = entries.iter().map(|(n, t)| format!("{n}:{t}")).collect();
        let out = serde_json::json!({"path": PATH, "lines": lines.join("\n"), "new": "z"}).to_string();
        let opt = ApplyOptions { format: patchbay::FormatName::Hashline, tags: opts, ..Default::default() };
        let report = apply(&out, &files(&text(&file)), &opt);
        let r = &report.files[0].edits[0];
        prop_assert_eq!(r.status, EditStatus::Failed);
        prop_assert_eq!(r.code, Some(Code::StaleTag));
        // The refusal shows the current tag of the line it complains about.
        let want = format!("{}:{}", entries[k].0, tag(&file[entries[k].0 - 1], entries[k].0, opts));
        prop_assert!(r.message.as_deref().unwrap_or("").contains(&want), "{:?}", r);
    }

    #[test]
    fn rendered_edits_with_tricky_lines_apply_back(
        before in prop::collection::vec(tricky(), 1..20),
        after in prop::collection::vec(tricky(), 1..20),
    ) {
        let (b, a) = (text(&before), text(&after));
        prop_assume!(b != a);
        for format in ["hashline", "lines"] {
            let out = patchbay::render(format.parse().unwrap(), PATH, &b, &a).unwrap();
            let opt = ApplyOptions { format: format.parse().unwrap(), ..Default::default() };
            let report = apply(&out, &files(&b), &opt);
            prop_assert_eq!(report.status, Status::Applied, "{}\n{}\n{}", format, out, report.feedback);
            prop_assert_eq!(report.files[0].content.as_deref(), Some(a.as_str()), "{}\n{}", format, out);
        }
    }

    #[test]
    fn json_and_header_soup_keeps_the_invariants(parts in prop::collection::vec(prop::sample::select(vec![
        "{", "}", "[", "]", ",", "\"", ":", "\n", "{\"line\": ", "\"tag\": \"", "\"lines\": \"", "1:ab\\n2:cd",
        "\"new\": ", "\"op\": \"delete\"", "\"op\": \"insert_after\"", "0", "3", "99999999999999999999", "-1",
        "\"path\": \"src/f.txt\"", "\"path\": \"../x\"", "@@ src/f.txt 2:3\n", "@@ 1,3\n", "@@ after 0\n",
        "@@ delete 2\n", "@@ end\n", "crc32=zz", " crc32=00000000", "```\n", "```json\n", "x = 1\n",
        "\"edits\": [", "\"arguments\": \"{", "\\\"", "\t", "# file: src/f.txt crc32=1 lines=3\n", "\u{feff}",
    ]), 0..40)) {
        let out: String = parts.concat();
        let t = "x = 1\ny = 2\n}\n".to_string();
        let (_, seen) = seen_view(PATH, &t, &[(1, 2)]);
        for format in ["hashline", "lines", "auto"] {
            for seen in [None, Some(seen.clone())] {
                let opt = ApplyOptions { format: format.parse().unwrap(), transaction: patchbay::Options { default_path: Some(PATH.into()), seen, ..Default::default() }, ..Default::default() };
                apply_checked(&out, &files(&t), &opt)?;
            }
        }
    }
}

/// Tags that only moved are refused, and the refusal says where they went.
#[test]
fn moved_tags_are_refused_with_their_new_place() {
    let before = "a\nb\nc\nd\n";
    let opts = TagOptions::default();
    let out = serde_json::json!({"path": PATH, "lines": format!("2:{}\n3:{}", tag("b", 2, opts), tag("c", 3, opts)), "new": "X"}).to_string();
    let now = format!("new\n{before}");
    let report = apply(
        &out,
        &files(&now),
        &ApplyOptions {
            format: patchbay::FormatName::Hashline,
            ..Default::default()
        },
    );
    let r = &report.files[0].edits[0];
    assert_eq!(r.code, Some(Code::StaleTag));
    let msg = r.message.as_deref().unwrap();
    assert!(msg.contains("now at lines 3-4 (1 line down)"), "{msg}");
    // With line numbers hashed, moved tags cannot match anywhere else.
    let lo = TagOptions {
        len: 4,
        with_line: true,
    };
    let out = serde_json::json!({"path": PATH, "line": 2, "tag": tag("b", 2, lo), "new": "X"})
        .to_string();
    let report = apply(
        &out,
        &files(&now),
        &ApplyOptions {
            format: patchbay::FormatName::Hashline,
            tags: lo,
            ..Default::default()
        },
    );
    assert!(!report.files[0].edits[0]
        .message
        .as_deref()
        .unwrap()
        .contains("now at lines"));
}
