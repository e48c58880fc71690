//! Unit tests of the diff reader.

use super::*;

fn kinds(h: &Hunk) -> String {
    h.lines
        .iter()
        .map(|l| match (l.kind, l.damage) {
            (_, Some(Damage::Blank)) => 'b',
            (_, Some(Damage::NoPrefix)) => 'u',
            (Prefix::Context, None) => ' ',
            (Prefix::Remove, None) => '-',
            (Prefix::Add, None) => '+',
        })
        .collect()
}

#[test]
fn git_headers_and_prefixes() {
    let out = "diff --git a/src/a.py b/src/a.py\nindex 1..2 100644\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1,3 +1,3 @@ def f():\n x\n-y\n+z\n w\n";
    let f = read(out);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].target(), Some("src/a.py"));
    assert!(f[0].git && f[0].headers);
    assert_eq!(f[0].hunks[0].header.old, Some((1, 3)));
    assert_eq!(kinds(&f[0].hunks[0]), " -+ ");
    assert!(!f[0].hunks[0].cut);
}

#[test]
fn plain_paths_timestamps_and_dev_null() {
    let out = "--- src/a.c\t2024-01-01 10:00:00\n+++ src/a.c\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n";
    let f = read(out);
    assert_eq!(f.len(), 3);
    assert_eq!(f[0].target(), Some("src/a.c"));
    assert!(f[1].created && f[1].target() == Some("new.txt"));
    assert!(f[2].deleted && f[2].target() == Some("old.txt"));
}

#[test]
fn rename_and_quoted_paths() {
    let out = "diff --git a/x.rs b/y.rs\nsimilarity index 90%\nrename from x.rs\nrename to y.rs\n--- a/x.rs\n+++ b/y.rs\n@@ -1 +1 @@\n-a\n+b\n";
    let f = read(out);
    assert_eq!(f[0].rename, Some(("x.rs".into(), "y.rs".into())));
    assert_eq!(f[0].target(), Some("x.rs"));
    assert_eq!(unquote("\"a/\\303\\251 x.txt\""), "a/é x.txt");
    let f = read("diff --git \"a/sp ace.txt\" \"b/sp ace.txt\"\n--- \"a/sp ace.txt\"\n+++ \"b/sp ace.txt\"\n@@ -1 +1 @@\n-a\n+b\n");
    assert_eq!(f[0].target(), Some("sp ace.txt"));
}

#[test]
fn numberless_headers_and_fences_with_path_lines() {
    let out = "Change this:\n\nsrc/app.py\n```diff\n@@ @@\n def f():\n-    return 1\n+    return 2\n```\nThat's it.\n";
    let f = read(out);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].target(), Some("src/app.py"));
    assert_eq!(f[0].hunks[0].header.old, None);
    assert_eq!(kinds(&f[0].hunks[0]), " -+");
    assert!(!f[0].hunks[0].cut);
}

#[test]
fn damaged_lines_are_recorded_not_repaired() {
    // A blank context line without its space, and `}` without its marker,
    // inside a fence: damaged hunk lines, not prose.
    let out = "```diff\n--- a/m.go\n+++ b/m.go\n@@ -1,4 +1,5 @@\n func f() {\n\n-\tx()\n+\ty()\n+\tz()\n}\n```\n";
    let h = &read(out)[0].hunks[0];
    assert_eq!(kinds(h), " b-++u");
    assert_eq!(h.lines[5].text, "}");
    assert_eq!(h.counts(), (4, 5));
}

#[test]
fn trailing_prose_is_cut_from_bare_diffs() {
    let out =
        "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\nThis renames b to c.\nHope it helps!\n";
    let h = &read(out)[0].hunks[0];
    assert_eq!(kinds(h), " -+");
    // Counts met and an unmarked line right after: prose too.
    let out = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\nDone.\n";
    assert_eq!(kinds(&read(out)[0].hunks[0]), " -+");
}

#[test]
fn blank_context_kept_only_as_counts_need() {
    let out = "```diff\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n\n\n```\n";
    let h = &read(out)[0].hunks[0];
    assert_eq!(kinds(h), " -+b");
    let out = "```diff\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\n```\n";
    assert_eq!(kinds(&read(out)[0].hunks[0]), " -+");
}

#[test]
fn cut_hunks_and_headers() {
    let h = &read("--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n a\n-b\n+c")[0].hunks[0];
    assert!(h.cut);
    // An unclosed fence cuts the hunk even when its counts are met.
    assert!(read("```diff\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n")[0].hunks[0].cut);
    // Wrong counts followed by prose: not cut.
    assert!(
        !read("--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n a\n-b\n+c\n\nThat's all.\n")[0].hunks[0].cut
    );
    assert!(read("Here:\n--- a/x\n+++ b/x\n")[0].cut);
}

#[test]
fn fence_lines_inside_a_markdown_hunk() {
    let out = "````diff\n--- a/r.md\n+++ b/r.md\n@@ -1,3 +1,3 @@\n ```rust\n-a\n+b\n ```\n````\n";
    let h = &read(out)[0].hunks[0];
    assert_eq!(kinds(h), " -+ ");
    let out = "```diff\n--- a/r.md\n+++ b/r.md\n@@ -1,3 +1,3 @@\n ```rust\n-a\n+b\n ```\n```\n";
    assert_eq!(kinds(&read(out)[0].hunks[0]), " -+ ");
}

#[test]
fn no_newline_marker_and_crlf() {
    let out = "--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n\\ No newline at end of file\r\n+b\r\n\\ No newline at end of file\r\n";
    let h = &read(out)[0].hunks[0];
    assert_eq!(kinds(h), "-+");
    assert!(h.lines.iter().all(|l| l.no_newline && l.cr));
    assert_eq!(h.lines[1].text, "b");
}

#[test]
fn several_hunks_and_files() {
    let out = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n@@ -9 +9 @@\n-c\n+d\ndiff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -2 +2 @@\n-e\n+f\n";
    let f = read(out);
    assert_eq!((f.len(), f[0].hunks.len(), f[1].hunks.len()), (2, 2, 1));
    assert_eq!(f[0].hunks[1].header.old, Some((9, 1)));
}

#[test]
fn header_numbers() {
    let h = parse_header("@@ -10,7 +10,8 @@ fn x() {");
    assert_eq!((h.old, h.new), (Some((10, 7)), Some((10, 8))));
    let h = parse_header("@@ -3 +3,0 @@");
    assert_eq!((h.old, h.new), (Some((3, 1)), Some((3, 0))));
    let h = parse_header("@@ ... @@");
    assert_eq!((h.old, h.new), (None, None));
}

#[test]
fn header_only_parts_cut_or_complete() {
    // Cut inside the fence right after `new file mode`: not an empty file.
    assert!(read("```diff\ndiff --git a/n.js b/n.js\nnew file mode 100644\n")[0].cut);
    // git's own empty-file creation and a pure rename are complete.
    assert!(
        !read("diff --git a/n.js b/n.js\nnew file mode 100644\nindex 0000000..e69de29\n")[0].cut
    );
    assert!(!read("```diff\ndiff --git a/x b/y\nrename from x\nrename to y\n```\n")[0].cut);
    // A creation's `---`/`+++` with no hunk after it: cut.
    assert!(read("diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n")[0].cut);
}

#[test]
fn sql_comments_are_not_file_headers_while_counts_are_open() {
    let out = "--- a/q.sql\n+++ b/q.sql\n@@ -1,3 +1,3 @@\n SELECT 1;\n--- old note\n+++ new note\n SELECT 2;\n";
    let f = read(out);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].hunks[0].lines[1].text, "-- old note");
    // An overstated count does not swallow the next file's header.
    let out =
        "--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n a\n-b\n+c\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-d\n+e\n";
    let f = read(out);
    assert_eq!((f.len(), f[1].target()), (2, Some("y")));
}
