use super::*;
use crate::test_support::{apply_in, files};
use crate::{EditStatus, Status};

fn parse(out: &str) -> Parsed {
    ToolCall.parse_default(out)
}

fn run(out: &str, pairs: &[(&str, &str)]) -> crate::Report {
    apply_in("tool-call", out, &files(pairs), false)
}

fn message(op: &Op) -> &str {
    match op {
        Op::Invalid { message, .. } => message,
        _ => "",
    }
}

#[test]
fn commands_map_to_ops() {
    let out = r#"I'll make three calls.
```json
[
  {"command": "str_replace", "path": "a.py", "old_str": "x = 1", "new_str": "x = 2", "line_hint": 3},
  {"command": "insert", "path": "a.py", "insert_line": 0, "new_str": "import os\n"},
  {"command": "create", "path": "b.py", "file_text": "print(1)\n"}
]
```
{"command": "view", "path": "a.py", "view_range": [2, -1]}
{"command": "str_replace", "path": "a.py", "old_str": "y"}
"#;
    let p = parse(out);
    assert!(!p.truncated);
    let ops: Vec<&Op> = p.edits.iter().map(|e| &e.op).collect();
    assert_eq!(
        ops,
        vec![
            &Op::StrReplace {
                old: "x = 1".into(),
                new: "x = 2".into(),
                hint: Some(2)
            },
            &Op::Lines {
                start: 0,
                end: 0,
                new: vec!["import os".into()],
                check: Check::None
            },
            &Op::Create {
                text: vec!["print(1)".into()]
            },
            &Op::View {
                range: Some((2, None))
            },
            &Op::StrReplace {
                old: "y".into(),
                new: String::new(),
                hint: None
            },
        ]
    );
    assert!(p.edits.iter().all(|e| e.path.is_some()));
    // Each object of the array has its own span.
    assert!(out[p.edits[1].span.clone()].starts_with("{\"command\": \"insert\""));
}

#[test]
fn envelopes_and_other_tools() {
    let out = r#"{"type": "tool_use", "id": "toolu_1", "name": "str_replace_based_edit_tool", "input": {"command": "view", "path": "a.py"}}
{"name": "str_replace_editor", "input": {"command": "create", "path": "c.py", "file_text": ""}}
{"name": "bash", "input": {"command": "ls -la"}}
{"name": "package", "version": "1.0.0"}
"#;
    let p = parse(out);
    let ops: Vec<&Op> = p.edits.iter().map(|e| &e.op).collect();
    assert_eq!(
        ops,
        vec![&Op::View { range: None }, &Op::Create { text: vec![] }]
    );
}

#[test]
fn refusals_are_malformed_with_reasons() {
    let out = r#"{"command": "undo_edit", "path": "a.py"}
{"command": "replace", "path": "a.py", "old_str": "a"}
{"path": "a.py", "old_str": "a", "new_str": "b"}
{"command": "insert", "path": "a.py", "insert_line": -1, "new_str": "x"}
{"command": "view", "path": "a.py", "view_range": [5, 2]}
{"command": "str_replace", "path": "a.py", "old_str": "a", "line_hint": 0}
{"command": "str_replace", "path": "a.py" "old_str": "a"}
"#;
    let p = parse(out);
    let msgs: Vec<&str> = p.edits.iter().map(|e| message(&e.op)).collect();
    assert_eq!(msgs.len(), 7, "{msgs:?}");
    assert!(msgs[0].contains("undo_edit"));
    assert!(msgs[1].contains("unknown command `replace`"));
    assert!(msgs[2].contains("no `command`"));
    assert!(msgs[3].contains("insert_line"));
    assert!(msgs[4].contains("view_range"));
    assert!(msgs[5].contains("1-based"));
    assert!(msgs[6].contains("output line 7, column"), "{}", msgs[6]);
    assert_eq!(p.edits[6].path.as_deref(), Some("a.py"));
}

#[test]
fn cut_call_is_truncated() {
    let out = "{\"command\": \"str_replace\", \"path\": \"a.py\", \"old_str\": \"x = 1\", \"new_str\": \"x =";
    let p = parse(out);
    assert!(p.truncated);
    assert_eq!(p.edits[0].path.as_deref(), Some("a.py"));
    let r = run(out, &[("a.py", "x = 1\n")]);
    assert_eq!(r.status, Status::Truncated);
}

#[test]
fn applies_str_replace_insert_and_view() {
    let file = "a\nb\nc\n";
    let out = r#"{"command": "view", "path": "f.txt", "view_range": [2, 3]}
{"command": "str_replace", "path": "f.txt", "old_str": "b", "new_str": "B"}
{"command": "insert", "path": "f.txt", "insert_line": 3, "new_str": "d"}"#;
    let r = run(out, &[("f.txt", file)]);
    assert_eq!(r.status, Status::Applied, "{}", r.feedback);
    assert_eq!(r.files[0].content.as_deref(), Some("a\nB\nc\nd\n"));
    assert_eq!(r.files[0].edits[0].message.as_deref(), Some("2\tb\n3\tc"));
    // A view is read-only: it stays applied when another edit fails.
    let out = r#"{"command": "view", "path": "f.txt"}
{"command": "insert", "path": "f.txt", "insert_line": 9, "new_str": "z"}"#;
    let r = run(out, &[("f.txt", file)]);
    assert_eq!(r.status, Status::Failed);
    assert_eq!(r.files[0].edits[0].status, EditStatus::Applied);
    assert_eq!(r.files[0].edits[1].code, Some(Code::OutOfRange));
    let msg = r.files[0].edits[1].message.as_deref().unwrap();
    assert!(
        msg.contains("after line 0 (the top) to after line 3"),
        "{msg}"
    );
}

#[test]
fn duplicates_and_hints() {
    let file = "x = 1\ny\nx = 1\n";
    let out = r#"{"command": "str_replace", "path": "f", "old_str": "x = 1", "new_str": "x = 2"}"#;
    let r = run(out, &[("f", file)]);
    assert_eq!(r.files[0].edits[0].code, Some(Code::Ambiguous));
    assert!(r.feedback.contains("lines 1, 3"), "{}", r.feedback);
    // Overlapping occurrences are two places too.
    let out = r#"{"command": "str_replace", "path": "f", "old_str": "a\na", "new_str": "b"}"#;
    let r = run(out, &[("f", "a\na\na\n")]);
    assert_eq!(r.files[0].edits[0].code, Some(Code::Ambiguous));
    let out = r#"{"command": "create", "path": "f", "file_text": "new"}"#;
    let r = run(out, &[("f", file)]);
    assert_eq!(r.files[0].edits[0].code, Some(Code::FileExists));
}

#[test]
fn render_round_trips() {
    let cases = [
        ("x = 1\n    x = 1\ny\n", "x = 2\n    x = 1\ny\n"),
        ("a\nb\na\nb\n", "a\nb\na\nc\n"),
        ("a\nb\nc\n", "a\nc\n"),
        ("p\nq\n", "p\nq\nr\n"),
        ("only\n", ""),
    ];
    for (before, after) in cases {
        let out = ToolCall.render("f.txt", before, after);
        let r = run(&out, &[("f.txt", before)]);
        assert_eq!(r.status, Status::Applied, "{out}\n{}", r.feedback);
        assert_eq!(r.files[0].content.as_deref(), Some(after), "{out}");
    }
    assert_eq!(
        ToolCall.render("n.txt", "", "a\n"),
        "{\"command\":\"create\",\"path\":\"n.txt\",\"file_text\":\"a\\n\"}\n"
    );
}

#[test]
fn line_cursor_counts_like_a_scan_from_the_top() {
    let out = "ab\né {\"x\n\n  ü{ z";
    let mut c = LineCursor::default();
    for at in (0..=out.len()).filter(|&k| out.is_char_boundary(k)) {
        let line = out[..at].matches('\n').count() + 1;
        let start = out[..at].rfind('\n').map_or(0, |p| p + 1);
        let want = (line, out[start..at].chars().count());
        assert_eq!(c.line_of(out, at), want, "at {at}");
    }
    assert_eq!(c.line_of(out, 0), (1, 0));
}
