use super::*;
use crate::test_support::{apply_in, files};
use crate::{EditStatus, Status};
use std::collections::BTreeMap;

fn parse(out: &str) -> Parsed {
    ApplyPatch.parse_default(out)
}

fn run(out: &str, pairs: &[(&str, &str)]) -> crate::Report {
    apply_in("apply-patch", out, &files(pairs), false)
}

fn replace(old: &[&str], new: &[&str], anchors: &[&str], at_end: bool) -> Op {
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    Op::Replace {
        old: v(old),
        new: v(new),
        hint: None,
        anchors: v(anchors),
        at_end,
    }
}

#[test]
fn sections_chunks_and_prose() {
    let out = "Here it is:\n\n```\n*** Begin Patch  \n  *** Update File: src/a.py\n@@ class A:\n@@     def f(self):\n         x = 1\n-        return x\n+        return x + 1\n@@\n y\n-z\n*** Add File: b.txt\n+hello\n\n+world\n\n*** Delete File: c.txt\n*** End Patch\n```\nDone.\n";
    let p = parse(out);
    assert!(!p.truncated);
    let ops: Vec<&Op> = p.edits.iter().map(|e| &e.op).collect();
    assert_eq!(
        ops,
        vec![
            &replace(
                &["        x = 1", "        return x"],
                &["        x = 1", "        return x + 1"],
                &["class A:", "def f(self):"],
                false
            ),
            &replace(&["y", "z"], &["y"], &[], false),
            &Op::Create {
                text: vec!["hello".into(), "".into(), "world".into()]
            },
            &Op::Delete,
        ]
    );
    assert_eq!(p.edits[0].path.as_deref(), Some("src/a.py"));
    assert_eq!(p.edits[3].path.as_deref(), Some("c.txt"));
}

#[test]
fn end_of_file_move_and_pure_additions() {
    let out = "*** Begin Patch\n*** Update File: a.rs\n*** Move to: b.rs\n last\n+tail\n*** End of File\n*** Update File: c.rs\n@@\n+appended\n@@ fn main() {\n+    start();\n*** End Patch\n";
    let p = parse(out);
    let ops: Vec<&Op> = p.edits.iter().map(|e| &e.op).collect();
    assert_eq!(
        ops,
        vec![
            &replace(&["last"], &["last", "tail"], &[], true),
            &Op::Rename { to: "b.rs".into() },
            &replace(&[], &["appended"], &[], true),
            &replace(&[], &["    start();"], &["fn main() {"], false),
        ]
    );
}

#[test]
fn cut_patch_is_truncated_and_keeps_complete_sections() {
    let out =
        "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Update File: b.py\n@@\n-p\n+q";
    let p = parse(out);
    assert!(p.truncated);
    assert_eq!(p.edits.len(), 2);
    assert_eq!(p.edits[0].op, replace(&["x"], &["y"], &[], false));
    assert!(matches!(
        &p.edits[1].op,
        Op::Invalid { code: Code::Truncated, message } if message.contains("b.py")
    ));
    let r = run(out, &[("a.py", "x\n"), ("b.py", "p\n")]);
    assert_eq!(r.status, Status::Truncated);
    assert!(r.files.iter().all(|f| f.content.is_none()));
    assert!(
        r.feedback.contains("do not resend: edit 1"),
        "{}",
        r.feedback
    );
}

#[test]
fn unified_headers_and_strict_mode() {
    let p = parse("*** Update File: a.py\n@@ -3,2 +3,3 @@ def f():\n-a\n+b\n*** End Patch\n");
    assert_eq!(p.edits[0].op, replace(&["a"], &["b"], &["def f():"], false));
    let strict = ParseOptions {
        strict: true,
        ..Default::default()
    };
    // Strict: no `*** Begin Patch`, no patch.
    let out = "*** Update File: a.py\n-a\n+b\n*** End Patch\n";
    assert!(ApplyPatch.parse(out, &strict).edits.is_empty());
    let out = "*** Begin Patch\n*** Update File: a.py\n@@\nno prefix\n-a\n+b\n*** End Patch\n";
    let p = ApplyPatch.parse(out, &strict);
    assert!(
        matches!(&p.edits[0].op, Op::Invalid { code: Code::Malformed, message } if message.contains("output line 4"))
    );
    // Lenient: the line without a prefix is context.
    assert_eq!(
        parse(out).edits[0].op,
        replace(&["no prefix", "a"], &["no prefix", "b"], &[], false)
    );
}

#[test]
fn malformed_sections() {
    let out = "*** Begin Patch\n*** Update File: a.py\n*** Add File: \n+x\n*** Add File: b.py\nnot added\n*** Delete File: c.py\n+what\n*** Update File: d.py\n@@ def g():\n*** End Patch\n";
    let codes: Vec<String> = parse(out)
        .edits
        .iter()
        .map(|e| match &e.op {
            Op::Invalid { message, .. } => message.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert!(codes[0].contains("has no chunks"), "{codes:?}");
    assert!(codes[1].contains("names no file"), "{codes:?}");
    assert!(codes[3].contains("starts with `+`"), "{codes:?}");
    assert!(
        codes.iter().any(|c| c.contains("takes no lines")),
        "{codes:?}"
    );
    assert!(
        codes.iter().any(|c| c.contains("has no lines after it")),
        "{codes:?}"
    );
}

#[test]
fn applies_with_anchors_and_refuses_ambiguity() {
    let file = "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n";
    let out = "*** Begin Patch\n*** Update File: m.py\n@@ class B:\n@@ def f(self):\n-        return 1\n+        return 2\n*** End Patch\n";
    let r = run(out, &[("m.py", file)]);
    assert_eq!(r.status, Status::Applied, "{}", r.feedback);
    assert_eq!(
        r.files[0].content.as_deref(),
        Some("class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 2\n")
    );
    let out = "*** Begin Patch\n*** Update File: m.py\n@@\n-        return 1\n+        return 2\n*** End Patch\n";
    let r = run(out, &[("m.py", file)]);
    assert_eq!(r.files[0].edits[0].code, Some(Code::Ambiguous));
    let out = "*** Begin Patch\n*** Update File: m.py\n@@ def f(self):\n-        return 1\n+        return 2\n*** End Patch\n";
    let r = run(out, &[("m.py", file)]);
    assert_eq!(r.files[0].edits[0].code, Some(Code::Ambiguous));
    assert!(r.feedback.contains("anchor"), "{}", r.feedback);
}

#[test]
fn end_of_file_must_be_the_end() {
    let file = "a\nb\na\nc\n";
    let at_end =
        "*** Begin Patch\n*** Update File: f\n a\n-c\n+d\n*** End of File\n*** End Patch\n";
    let r = run(at_end, &[("f", file)]);
    assert_eq!(r.files[0].content.as_deref(), Some("a\nb\na\nd\n"));
    let wrong = "*** Begin Patch\n*** Update File: f\n-a\n+x\n b\n*** End of File\n*** End Patch\n";
    let r = run(wrong, &[("f", file)]);
    assert_eq!(r.files[0].edits[0].code, Some(Code::NotFound));
    assert!(r.feedback.contains("End of File"), "{}", r.feedback);
    let append = "*** Begin Patch\n*** Update File: f\n+z\n*** End of File\n*** End Patch\n";
    let r = run(append, &[("f", "a\nb")]);
    assert_eq!(r.files[0].content.as_deref(), Some("a\nb\nz"));
    assert_eq!(r.files[0].edits[0].status, EditStatus::Applied);
}

#[test]
fn add_delete_move_apply() {
    let out = "*** Begin Patch\n*** Add File: new.txt\n+one\n*** Delete File: old.txt\n*** Update File: x.txt\n*** Move to: y.txt\n@@\n-1\n+2\n*** End Patch\n";
    let r = run(out, &[("old.txt", "bye\n"), ("x.txt", "1\n")]);
    assert_eq!(r.status, Status::Applied, "{}", r.feedback);
    let tree: BTreeMap<&str, Option<&str>> = r
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.content.as_deref()))
        .collect();
    assert_eq!(tree["new.txt"], Some("one\n"));
    assert_eq!(tree["y.txt"], Some("2\n"));
    assert_eq!(tree["old.txt"], None);
}

#[test]
fn render_round_trips_marker_lookalikes() {
    let before = "*** End Patch\n@@ x\nkeep\nold\n  *** Add File: z\n";
    let after = "*** End Patch\n@@ x\nkeep\nnew\n  *** Add File: z\n";
    let out = ApplyPatch.render("f.txt", before, after);
    let r = run(&out, &[("f.txt", before)]);
    assert_eq!(r.status, Status::Applied, "{out}\n{}", r.feedback);
    assert_eq!(r.files[0].content.as_deref(), Some(after));
    assert_eq!(ApplyPatch.render("f.txt", before, before), "");
    let created = ApplyPatch.render("n.txt", "", "a\n");
    assert_eq!(
        created,
        "*** Begin Patch\n*** Add File: n.txt\n+a\n*** End Patch\n"
    );
}
