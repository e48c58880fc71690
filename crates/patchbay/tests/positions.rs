//! Receipts' positions (`fromPos`, `toPos`, `resultFromPos`,
//! `resultToPos`, a failed edit's closest region) are right in an editor
//! that keeps its text its own way: CodeMirror turns every `\r\n` into one
//! character and Monaco drops a BOM. The oracle is such an editor's text,
//! built here without the engine: the file without its BOM, split at `\n`
//! and `\r\n`; a position is an offset into it, which must be the
//! receipt's raw UTF-16 offset with the BOM and the `\r` of each `\r\n`
//! before it taken out, and the lines there must be the edit's own.

use patchbay::{apply, ApplyOptions, Code, EditStatus, Position, Receipt, Report};
use proptest::prelude::*;

mod support;
use support::{one_file as files, PATH};

/// The text as an editor holds it: lines without breaks or BOM.
fn editor_lines(text: &str) -> Vec<Vec<u16>> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).encode_utf16().collect())
        .collect()
}

/// The editor's offset of a position (its lines joined by one break), or
/// `None` when the position is off its text.
fn editor_offset(lines: &[Vec<u16>], p: Position) -> Option<usize> {
    let line = lines.get(p.line.checked_sub(1)?)?;
    (p.col <= line.len()).then(|| {
        lines[..p.line - 1]
            .iter()
            .map(|l| l.len() + 1)
            .sum::<usize>()
            + p.col
    })
}

/// A raw UTF-16 offset of `text` as the editor counts it: without the BOM
/// and the `\r` of every `\r\n` before it.
fn normalised(text: &str, offset: usize) -> usize {
    let u: Vec<u16> = text.encode_utf16().collect();
    let bom = usize::from(u.first() == Some(&0xfeff));
    let crs = (0..offset.min(u.len()))
        .filter(|&i| u[i] == u16::from(b'\r') && u.get(i + 1) == Some(&u16::from(b'\n')))
        .count();
    offset - bom.min(offset) - crs
}

fn run(text: &str, reply: &str) -> Report {
    let opt = ApplyOptions {
        format: patchbay::FormatName::SearchReplace,
        ..Default::default()
    };
    apply(reply, &files(text), &opt)
}

fn block(old: &[&str], new: &[&str]) -> String {
    let new: String = new.iter().map(|l| format!("{l}\n")).collect();
    format!(
        "{PATH}\n<<<<<<< SEARCH\n{}\n=======\n{new}>>>>>>> REPLACE\n",
        old.join("\n")
    )
}

/// Every position of `r` is its offset as the editor counts it.
fn check_receipt(original: &str, content: &str, r: &Receipt) {
    let (old, new) = (editor_lines(original), editor_lines(content));
    let pairs = [
        (r.from, r.from_pos, original, &old),
        (r.to, r.to_pos, original, &old),
        (r.result_from, r.result_from_pos, content, &new),
        (r.result_to, r.result_to_pos, content, &new),
    ];
    for (offset, pos, text, lines) in pairs {
        assert_eq!(offset.is_some(), pos.is_some(), "{r:?}");
        if let (Some(o), Some(p)) = (offset, pos) {
            assert_eq!(
                editor_offset(lines, p),
                Some(normalised(text, o)),
                "{p:?} for offset {o} in {text:?}"
            );
        }
    }
}

/// The editor's text of `lines` from `a` to `b`, with `\n` breaks.
fn slice(lines: &[Vec<u16>], a: Position, b: Position) -> String {
    let flat: Vec<u16> = lines.join(&u16::from(b'\n'));
    let (x, y) = (
        editor_offset(lines, a).unwrap(),
        editor_offset(lines, b).unwrap(),
    );
    String::from_utf16(&flat[x..y]).unwrap()
}

/// Texts whose positions editors count differently: each has the lines `keep`,
/// `old 😀 日本 e\u{301}` and `tail`, and the edit replaces the middle one.
const TEXTS: &[(&str, &str)] = &[
    ("lf", "keep\nold 😀 日本 e\u{301}\ntail\n"),
    ("crlf", "keep\r\nold 😀 日本 e\u{301}\r\ntail\r\n"),
    ("mixed", "keep\r\nold 😀 日本 e\u{301}\ntail\r\n"),
    ("no final newline", "keep\nold 😀 日本 e\u{301}\ntail"),
    ("bom", "\u{feff}keep\r\nold 😀 日本 e\u{301}\r\ntail\n"),
];

#[test]
fn each_text_kind_places_the_edit_on_its_line() {
    let old_line = "old 😀 日本 e\u{301}";
    for (kind, text) in TEXTS {
        let report = run(text, &block(&[old_line], &["new 🎉 中文"]));
        let r = &report.files[0].edits[0];
        assert_eq!(r.status, EditStatus::Applied, "{kind}: {}", report.feedback);
        let at = |line, col| Some(Position { line, col });
        assert_eq!((r.from_pos, r.to_pos), (at(2, 0), at(3, 0)), "{kind}");
        assert_eq!(
            (r.result_from_pos, r.result_to_pos),
            (at(2, 0), at(3, 0)),
            "{kind}"
        );
        let content = report.files[0].content.as_deref().unwrap();
        check_receipt(text, content, r);
        let new = editor_lines(content);
        assert_eq!(
            slice(&new, r.result_from_pos.unwrap(), r.result_to_pos.unwrap()),
            "new 🎉 中文\n",
            "{kind}"
        );
    }
}

#[test]
fn an_edit_of_the_last_line_without_newline_ends_on_that_line() {
    let text = "a\r\nb 😀\r\nlast é";
    let report = run(text, &block(&["last é"], &["end 日本"]));
    let r = &report.files[0].edits[0];
    let content = report.files[0].content.as_deref().unwrap();
    assert_eq!(content, "a\r\nb 😀\r\nend 日本");
    assert_eq!(r.to_pos, Some(Position { line: 3, col: 6 }));
    // `end 日本` is six UTF-16 units.
    assert_eq!(r.result_to_pos, Some(Position { line: 3, col: 6 }));
    check_receipt(text, content, r);
}

#[test]
fn deleting_the_last_lines_of_a_file_without_newline_ends_at_its_end() {
    let text = "a 😀\nb\nc";
    let report = run(text, &block(&["b", "c"], &[]));
    let r = &report.files[0].edits[0];
    let content = report.files[0].content.as_deref().unwrap();
    check_receipt(text, content, r);
    assert_eq!(r.result_from_pos, r.result_to_pos);
}

#[test]
fn a_missed_edit_carries_its_closest_region_as_data() {
    let text = "\u{feff}intro\r\nfn f() {\r\n    let s = \"日本😀\";\r\n}\r\n";
    let report = run(
        text,
        &block(&["fn f() {", "    let s = \"日本😀!\";"], &["x"]),
    );
    let r = &report.files[0].edits[0];
    assert_eq!(r.code, Some(Code::NotFound));
    let c = r.closest.as_ref().expect("a closest region");
    assert_eq!(c.lines, [2, 3]);
    assert_eq!(
        (c.from_pos, c.to_pos),
        (Position { line: 2, col: 0 }, Position { line: 4, col: 0 })
    );
    let raw: Vec<u16> = text.encode_utf16().collect();
    assert_eq!(
        String::from_utf16(&raw[c.from..c.to]).unwrap(),
        "fn f() {\r\n    let s = \"日本😀\";\r\n"
    );
    let d = c.first_difference.expect("a first difference");
    // `    let s = "日本😀` is 16 characters and 17 UTF-16 units (the
    // emoji is two): the data counts units from 0, the message characters
    // from 1.
    assert_eq!(
        (d.file_line, d.file_col, d.edit_line, d.edit_col),
        (3, 17, 2, 17)
    );
    assert!(c.similarity > 80 && c.similarity < 100, "{}", c.similarity);
    let msg = r.message.as_deref().unwrap();
    assert!(
        msg.contains(&format!(
            "Closest region: lines 2-3 ({}% similar)",
            c.similarity
        )),
        "{msg}"
    );
    assert!(
        msg.contains("First difference at line 3 (SEARCH line 2), column 17"),
        "{msg}"
    );
}

/// Lines of the property: distinct, with characters of two UTF-16 units,
/// CJK and a combining mark.
fn line(i: usize) -> String {
    match i % 4 {
        0 => format!("line {i}"),
        1 => format!("日本 {i}"),
        2 => format!("emoji 😀 {i}"),
        _ => format!("e\u{301} {i}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn positions_are_the_editors_offsets(
        n in 1..20usize,
        breaks in prop::collection::vec(any::<bool>(), 20),
        picks in prop::collection::vec((0..20usize, 1..3usize, 0..3usize), 1..4),
        bom in any::<bool>(),
        final_nl in any::<bool>(),
    ) {
        let lines: Vec<String> = (0..n).map(line).collect();
        let mut text = String::from(if bom { "\u{feff}" } else { "" });
        for (i, l) in lines.iter().enumerate() {
            text.push_str(l);
            if i + 1 < n || final_nl {
                text.push_str(if breaks[i] { "\r\n" } else { "\n" });
            }
        }
        let mut reply = String::new();
        let mut free = 0;
        let mut picks = picks;
        picks.sort();
        for (start, del, add) in picks {
            if start < free || start >= n {
                continue;
            }
            let del = del.min(n - start);
            let old: Vec<&str> = lines[start..start + del].iter().map(String::as_str).collect();
            let new: Vec<String> = (0..add).map(|k| format!("new 😀 {start} {k}")).collect();
            let new: Vec<&str> = new.iter().map(String::as_str).collect();
            reply.push_str(&block(&old, &new));
            free = start + del;
        }
        prop_assume!(!reply.is_empty());
        let report = run(&text, &reply);
        let content = report.files[0].content.clone().unwrap_or_else(|| text.clone());
        for r in &report.files[0].edits {
            prop_assert_eq!(r.status, EditStatus::Applied, "{}", &report.feedback);
            check_receipt(&text, &content, r);
        }
    }
}

#[test]
fn a_created_file_is_an_insertion_into_an_empty_one() {
    let reply = "new.txt\n<<<<<<< SEARCH\n=======\nfirst 😀\nsecond\n>>>>>>> REPLACE\n";
    let report = apply(
        reply,
        &support::files("other.txt", "x\n"),
        &ApplyOptions {
            format: patchbay::FormatName::SearchReplace,
            ..Default::default()
        },
    );
    let f = &report.files[0];
    let content = f.content.as_deref().unwrap();
    assert_eq!(content, "first 😀\nsecond\n");
    let r = &f.edits[0];
    assert_eq!(r.status, EditStatus::Applied, "{}", report.feedback);
    let start = Some(Position { line: 1, col: 0 });
    assert_eq!(
        (r.from, r.to, r.from_pos, r.to_pos),
        (Some(0), Some(0), start, start)
    );
    check_receipt("", content, r);
    let new = editor_lines(content);
    assert_eq!(
        slice(&new, r.result_from_pos.unwrap(), r.result_to_pos.unwrap()),
        "first 😀\nsecond\n"
    );
}
