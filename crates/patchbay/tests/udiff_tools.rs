//! The udiff format against the real tools: rendered and repaired diffs
//! must pass `git apply` (and give the same files as patchbay), and the
//! GNU `patch` simulation must place every hunk where `/usr/bin/patch`
//! does, with the same fuzz and offset, leaving the same files.
//!
//! Both binaries are required: `git` is everywhere; GNU `patch` comes with
//! Debian's `patch` package (`apt-get install patch`).

use patchbay::formats::udiff::{patch_fuzz_apply, repair, FuzzReport, FuzzVerdict};
use patchbay::{apply, render, ApplyOptions, Status};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A scratch folder (tempfile's: a unique name, removed when dropped).
struct Scratch(tempfile::TempDir);

impl Scratch {
    fn new(files: &BTreeMap<String, String>) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix("patchbay-udiff-")
            .tempdir()
            .unwrap();
        for (p, t) in files {
            let fp = dir.path().join(p);
            std::fs::create_dir_all(fp.parent().unwrap()).unwrap();
            std::fs::write(fp, t).unwrap();
        }
        Scratch(dir)
    }

    fn run(&self, cmd: &str, args: &[&str], stdin: Option<&str>) -> (bool, String) {
        let (status, text) = self.run_status(cmd, args, stdin);
        (status == Some(0), text)
    }

    /// [`Scratch::run`] with the exit code.
    fn run_status(&self, cmd: &str, args: &[&str], stdin: Option<&str>) -> (Option<i32>, String) {
        use std::io::Write;
        let mut c = Command::new(cmd);
        c.args(args).current_dir(self.0.path());
        c.stdin(std::process::Stdio::piped());
        c.stdout(std::process::Stdio::piped());
        c.stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap_or_else(|e| {
            panic!("cannot run {cmd} ({e}); install it (Debian: apt-get install {cmd})")
        });
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.unwrap_or("").as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    }

    fn read(&self, p: &str) -> Option<String> {
        std::fs::read_to_string(self.0.path().join(p)).ok()
    }
}

fn one(path: &str, text: &str) -> BTreeMap<String, String> {
    BTreeMap::from([(path.to_owned(), text.to_owned())])
}

/// Applies `diff` with `git apply` in a fresh repository holding `files`;
/// returns the files afterwards (`None` for a path that is gone).
fn git_apply(
    files: &BTreeMap<String, String>,
    diff: &str,
    paths: &[&str],
) -> BTreeMap<String, Option<String>> {
    let s = Scratch::new(files);
    assert!(s.run("git", &["init", "-q"], None).0, "git init");
    std::fs::write(s.0.path().join("change.diff"), diff).unwrap();
    let (ok, msg) = s.run("git", &["apply", "--check", "-v", "change.diff"], None);
    assert!(
        ok,
        "git apply --check refused:\n{msg}\n--- diff ---\n{diff}"
    );
    let (ok, msg) = s.run("git", &["apply", "change.diff"], None);
    assert!(ok, "git apply failed:\n{msg}");
    paths.iter().map(|p| (p.to_string(), s.read(p))).collect()
}

fn lenient(out: &str, files: &BTreeMap<String, String>) -> patchbay::Report {
    let opt = ApplyOptions {
        format: patchbay::FormatName::Udiff,
        ..Default::default()
    };
    apply(out, files, &opt)
}

fn source(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/tools/sources")
        .join(name);
    std::fs::read_to_string(p).unwrap()
}

/// Pairs of file versions for a rendered diff: real code, then CRLF, no
/// final newline, tabs, non-ASCII, the first and last lines, creation and
/// emptying.
fn render_cases() -> Vec<(&'static str, String, String)> {
    let py = source("textwrap.py");
    let go = source("strings_builder.go");
    let edit = |t: &str, from: &str, to: &str| t.replacen(from, to, 1);
    vec![
        (
            "src/textwrap.py",
            py.clone(),
            edit(
                &edit(&py, "import re", "import re\nimport sys"),
                "        self.width = width",
                "        self.width = int(width)",
            ),
        ),
        (
            "src/builder.go",
            go.clone(),
            edit(
                &go,
                "\tb.copyCheck()\n",
                "\tb.copyCheck() // checked\n\tb.checked = true\n",
            ),
        ),
        // CRLF, no final newline, tabs, non-ASCII, the first and last lines.
        (
            "crlf.txt",
            "a\r\nb\r\nc\r\nd\r\n".into(),
            "A\r\nb\r\nc\r\nD\r\n".into(),
        ),
        (
            "nofinal.txt",
            "one\ntwo\nthree".into(),
            "one\n2\nthree".into(),
        ),
        (
            "nofinal_end.txt",
            "one\ntwo\nthree".into(),
            "one\ntwo\nTHREE".into(),
        ),
        ("add_final.txt", "one\ntwo".into(), "one\ntwo\n".into()),
        (
            "tabs.go",
            "func f() {\n\tx := 1\n\treturn\n}\n".into(),
            "func f() {\n\tx := 2\n\t\ty := x\n\treturn\n}\n".into(),
        ),
        (
            "unicode/é.txt",
            "héllo\nwörld 😀\n¡olé!\n".into(),
            "héllo\nmünde 😀\n¡olé!\n".into(),
        ),
        ("created.txt", "".into(), "new\nfile\n".into()),
        ("emptied.txt", "x\ny\n".into(), "".into()),
        (
            "blank_lines.md",
            "# T\n\n\n\ntext\n\n\n\nmore\n".into(),
            "# T\n\n\n\ntext\n\nadded\n\nmore\n".into(),
        ),
    ]
}

#[test]
fn rendered_diffs_pass_git_apply() {
    for (path, before, after) in render_cases() {
        let diff = render(patchbay::FormatName::Udiff, path, &before, &after).unwrap();
        let files = if before.is_empty() {
            BTreeMap::new()
        } else {
            one(path, &before)
        };
        let got = git_apply(&files, &diff, &[path]);
        assert_eq!(
            got[path].as_deref(),
            Some(after.as_str()),
            "git result for {path}:\n{diff}"
        );
        // patchbay keeps the final-newline state by design: skip the one
        // case that changes only it.
        if path != "add_final.txt" {
            let r = lenient(&diff, &files);
            assert_eq!(r.status, Status::Applied, "{path}: {}", r.feedback);
            assert_eq!(r.files[0].content.as_deref().unwrap_or(""), after, "{path}");
        }
    }
}

/// Damaged model diffs: repaired, they pass `git apply`, which then gives
/// the same files as patchbay's lenient reading of the damaged diff.
#[test]
fn repaired_diffs_pass_git_apply() {
    let py = source("json_decoder.py");
    let rs = source("either_lib.rs");
    let c = source("ring_poly1305.c");
    let crlf = py.replace('\n', "\r\n");
    let nofinal = py.trim_end().to_owned();
    let files = BTreeMap::from([
        ("src/json_decoder.py".to_string(), py.clone()),
        ("src/either_lib.rs".to_string(), rs.clone()),
        ("src/poly.c".to_string(), c.clone()),
        ("src/crlf.py".to_string(), crlf),
        ("src/nofinal.py".to_string(), nofinal),
    ]);
    let cases = [
        // Wrong numbers and counts, lost one-space prefixes, a missing `+`.
        "```diff\n--- a/src/json_decoder.py\n+++ b/src/json_decoder.py\n@@ -1,3 +1,3 @@\n\"\"\"Implementation of JSONDecoder\n\"\"\"\n+# patched\nimport re\n```\n",
        // A numberless header on an indented block that lost its markers.
        "--- a/src/either_lib.rs\n+++ b/src/either_lib.rs\n@@ @@\n#[derive(Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]\npub enum Either<L, R> {\n    /// A value of type `L`.\n-    Left(L),\n+    Left(L), // left\n    /// A value of type `R`.\n",
        // No unchanged line after the change (git would anchor it at the end).
        "--- a/src/poly.c\n+++ b/src/poly.c\n@@ -19 +19,2 @@\n #include <ring-core/base.h>\n+#include <stdint.h>\n",
        // CRLF file, diff written with LF.
        "--- a/src/crlf.py\n+++ b/src/crlf.py\n@@ -9,2 +9,2 @@\n-import re\n+import re  # regex\n \n",
        // The last line of a file without a final newline.
        "--- a/src/nofinal.py\n+++ b/src/nofinal.py\n@@ @@\n # Use speedup if available\n-scanstring = c_scanstring or py_scanstring\n+scanstring = c_scanstring or py_scanstring  # fast\n",
        // Several files, a creation and a rename.
        "diff --git a/src/either_lib.rs b/src/either_lib.rs\n--- a/src/either_lib.rs\n+++ b/src/either_lib.rs\n@@ -30,1 +30,1 @@\n-    Left(L),\n+    Left(L),\n+    // two\ndiff --git a/src/new.txt b/src/new.txt\n--- /dev/null\n+++ b/src/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\ndiff --git a/src/poly.c b/src/poly2.c\nrename from src/poly.c\nrename to src/poly2.c\n",
    ];
    for (k, out) in cases.iter().enumerate() {
        let report = lenient(out, &files);
        assert_eq!(
            report.status,
            Status::Applied,
            "case {k}: {}",
            report.feedback
        );
        let fixed = repair(out, &files).unwrap_or_else(|e| panic!("case {k}: {e}"));
        let mut paths: Vec<String> = files.keys().cloned().collect();
        paths.extend(report.files.iter().map(|f| f.path.clone()));
        paths.sort();
        paths.dedup();
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        let got = git_apply(&files, &fixed, &refs);
        let mut want: BTreeMap<String, Option<String>> = files
            .iter()
            .map(|(p, t)| (p.clone(), Some(t.clone())))
            .collect();
        for f in &report.files {
            match f.status {
                patchbay::FileStatus::Deleted => {
                    want.insert(f.path.clone(), None);
                }
                _ => {
                    if let Some(c) = &f.content {
                        want.insert(f.path.clone(), Some(c.clone()));
                    }
                }
            }
        }
        for p in &paths {
            assert_eq!(
                got[p],
                want.get(p).cloned().flatten(),
                "case {k}, {p}:\n{fixed}"
            );
        }
    }
}

/// Runs the real GNU patch (`-f`: no questions, never assume reversed) and
/// compares it with the simulation: every hunk line patch prints, its
/// fatal error, its exit status and the whole tree afterwards.
fn check_against_patch(
    name: &str,
    files: &BTreeMap<String, String>,
    diff: &str,
) -> Vec<FuzzVerdict> {
    let s = Scratch::new(files);
    let (status, text) = s.run_status(
        "patch",
        &[
            "-p1",
            "-f",
            "--verbose",
            "--no-backup-if-mismatch",
            "-r",
            "/dev/null",
        ],
        Some(diff),
    );
    let run = patch_fuzz_apply(diff, files);
    let mut reports = run.reports.clone();
    reports.sort_by_key(|r| r.output_line);
    // Every line patch prints about a hunk (placement, fuzz, offset, or
    // failure), in order, and its fatal error.
    let real: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("Hunk #") || l.starts_with("patch: **** "))
        .collect();
    let mut want: Vec<String> = reports.iter().filter_map(hunk_line).collect();
    want.extend(run.fatal.iter().map(|f| format!("patch: **** {f}")));
    // What the simulation does not follow, patch must really do: what it
    // prints from there on (its hunks, ed's failure) and the file it edits
    // are not compared.
    let mut real = real;
    let mut unknown = None;
    if let Some((kind, file)) = &run.unsupported {
        let said = format!("ooks like {kind} to me");
        assert!(
            text.contains(&said),
            "{name}: patch does not read {kind}\n{text}"
        );
        real.truncate(want.len());
        unknown = file.as_deref();
    }
    // Read as the real output is (a CR before a line break goes).
    let want: Vec<&str> = want.iter().map(|l| l.trim_end_matches('\r')).collect();
    assert_eq!(
        real, want,
        "{name}: what patch prints\n{text}\n{reports:#?}"
    );
    if let Some(want) = run.status {
        assert_eq!(status, Some(want as i32), "{name}: exit status\n{text}");
    }
    // The whole tree afterwards: changed, created and removed files.
    let mut want = files.clone();
    for (p, t) in &run.files {
        match t {
            Some(t) => want.insert(p.clone(), t.clone()),
            None => want.remove(p),
        };
    }
    let got = tree(s.0.path());
    for p in want
        .keys()
        .chain(got.keys())
        .filter(|p| Some(p.as_str()) != unknown)
    {
        assert_eq!(
            got.get(p),
            want.get(p),
            "{name}: {p} differs from the simulation\n{text}"
        );
    }
    run.reports.iter().map(|r| r.verdict).collect()
}

/// What patch prints about a hunk the simulation says it placed, failed or
/// ignored.
fn hunk_line(r: &FuzzReport) -> Option<String> {
    let n = r.patch_hunk?;
    let at = r.patch_reported_line.unwrap_or(0);
    Some(match r.verdict {
        FuzzVerdict::Agrees | FuzzVerdict::Misplaced | FuzzVerdict::NoSafePlace => {
            let fuzz = match r.fuzz {
                0 => String::new(),
                f => format!(" with fuzz {f}"),
            };
            let offset = match r.offset {
                0 => String::new(),
                1 => " (offset 1 line)".into(),
                o => format!(" (offset {o} lines)"),
            };
            format!("Hunk #{n} succeeded at {at}{fuzz}{offset}.")
        }
        FuzzVerdict::Rejected => {
            let endings = if r.message.contains("(different line endings)") {
                " (different line endings)"
            } else {
                ""
            };
            format!("Hunk #{n} FAILED at {at}{endings}.")
        }
        FuzzVerdict::NoFile => format!("Hunk #{n} ignored at {at}."),
        _ => return None,
    })
}

/// Three functions, two of them twins (`a` and `b`).
const TWINS: &str = "import x\n\ndef a(x):\n    y = x + 1\n    return y\n\ndef b(x):\n    y = x + 1\n    return y\n\ndef c(x):\n    return x\n";
/// A hunk of [`TWINS`] that changes `b`, stated at `b`.
const TWIN_HUNK: &str = "--- a/m.py\n+++ b/m.py\n@@ -6,5 +6,5 @@\n \n def b(x):\n     y = x + 1\n-    return y\n+    return y + 1\n \n";
/// A hunk of [`TWINS`] that changes `b`, without its leading blank line.
const SYM_HUNK: &str = "--- a/m.py\n+++ b/m.py\n@@ -7,4 +7,4 @@\n def b(x):\n     y = x + 1\n-    return y\n+    return y + 1\n \n";

#[test]
fn patch_simulation_matches_gnu_patch_on_twin_functions() {
    let m = one("m.py", TWINS);
    use FuzzVerdict::*;
    let v = check_against_patch(
        "twins, stated in a",
        &m,
        &TWIN_HUNK.replace("-6,5 +6,5", "-2,5 +2,5"),
    );
    assert_eq!(v, [Misplaced]);
    assert_eq!(
        check_against_patch("twins, stated right", &m, TWIN_HUNK),
        [Agrees]
    );
    let v = check_against_patch(
        "twins, wrong first line",
        &m,
        &TWIN_HUNK.replace(" def b(x):", " def bb(x):"),
    );
    assert_eq!(v, [NoSafePlace]);
    assert_eq!(
        check_against_patch(
            "twins, counts wrong",
            &m,
            &TWIN_HUNK.replace("-6,5", "-6,7")
        ),
        [Malformed]
    );
}

/// Real code: rendered hunks, then numbers shifted (offsets carried from
/// hunk to hunk), a hunk that matches nowhere.
#[test]
fn patch_simulation_matches_gnu_patch_on_shifted_hunks() {
    use FuzzVerdict::*;
    let py = source("textwrap.py");
    let mut after = py.replacen("import re", "import re\nimport sys", 1);
    after = after.replacen(
        "        self.width = width",
        "        self.width = int(width)",
        1,
    );
    after = after.replacen(
        "        self.max_lines = max_lines",
        "        self.max_lines = max_lines or None",
        1,
    );
    let diff = render(patchbay::FormatName::Udiff, "src/t.py", &py, &after).unwrap();
    let files = one("src/t.py", &py);
    assert!(check_against_patch("textwrap, exact", &files, &diff)
        .iter()
        .all(|v| *v == Agrees));
    let shifted = shift_numbers(&diff, 7);
    assert!(check_against_patch("textwrap, +7", &files, &shifted)
        .iter()
        .all(|v| *v == Agrees));
    let shifted = shift_numbers(&diff, -3);
    assert!(check_against_patch("textwrap, -3", &files, &shifted)
        .iter()
        .all(|v| *v == Agrees));
    let bad = diff.replacen(" class TextWrapper:", " class TextWrapperX:", 1);
    let v = check_against_patch("textwrap, one hunk hallucinated", &files, &bad);
    assert!(v.contains(&Agrees));
}

/// Real code: hunks at both ends of a file.
#[test]
fn patch_simulation_matches_gnu_patch_at_both_ends() {
    let go = source("strings_reader.go");
    let last: Vec<&str> = go.lines().collect();
    let n = last.len();
    let mut after: Vec<String> = last.iter().map(|s| s.to_string()).collect();
    after[0] = format!("{} // edited", after[0]);
    after[n - 1] = format!("{} // edited", after[n - 1]);
    let after = after.join("\n") + "\n";
    let diff = render(patchbay::FormatName::Udiff, "src/r.go", &go, &after).unwrap();
    let files = one("src/r.go", &go);
    assert!(check_against_patch("reader, both ends", &files, &diff)
        .iter()
        .all(|v| *v == FuzzVerdict::Agrees));
    let v = check_against_patch(
        "reader, both ends shifted",
        &files,
        &shift_numbers(&diff, 4),
    );
    assert_eq!(v.len(), 2);
}

#[test]
fn patch_simulation_matches_gnu_patch_on_doubtful_context() {
    use FuzzVerdict::*;
    let m = one("m.py", TWINS);
    // Duplicated context: patch takes the copy nearest the stated line.
    let dup = format!("{TWINS}\ndef b(x):\n    y = x + 1\n    return y\n\n");
    let v = check_against_patch(
        "duplicate",
        &one("m.py", &dup),
        &SYM_HUNK.replace("-7,4 +7,4", "-12,4 +12,4"),
    );
    assert_eq!(v, [NoSafePlace]);
    // A hallucinated context line: patch drops it (fuzz 1) and reports
    // success; nothing matches in full.
    let v = check_against_patch(
        "hallucinated",
        &m,
        &SYM_HUNK.replace("    y = x + 1", "    y = x + 2"),
    );
    assert_eq!(v, [NoSafePlace]);
    // A removed line that is not there: rejected at every fuzz.
    let v = check_against_patch(
        "nowhere",
        &m,
        &SYM_HUNK.replace("-    return y", "-    return z"),
    );
    assert_eq!(v, [Rejected]);
}

/// Adds `by` to every hunk header's start lines.
fn shift_numbers(diff: &str, by: isize) -> String {
    diff.lines()
        .map(|l| {
            if !l.starts_with("@@ ") {
                return format!("{l}\n");
            }
            let parts: Vec<String> = l
                .split(' ')
                .map(
                    |w| match w.strip_prefix('-').or_else(|| w.strip_prefix('+')) {
                        Some(r) if r.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
                            let (s, rest) = r
                                .split_once(',')
                                .map_or((r, String::new()), |(a, b)| (a, format!(",{b}")));
                            let s: isize = s.parse().unwrap();
                            format!("{}{}{rest}", &w[..1], (s + by).max(1))
                        }
                        _ => w.to_owned(),
                    },
                )
                .collect();
            parts.join(" ") + "\n"
        })
        .collect()
}

/// Every unified-diff reply of the corpus (the cases a model wrote, with
/// their faults) through the real GNU patch and the simulation: the same
/// placement, fuzz and offset for every hunk, and the same files.
#[test]
fn patch_simulation_matches_gnu_patch_on_the_corpus() {
    let cases = udiff_cases();
    let mut wrong = vec![];
    for (name, output, files) in &cases {
        if let Err(e) = std::panic::catch_unwind(|| check_against_patch(name, files, output)) {
            wrong.push(format!("{name}: {}", panic_text(&e)));
        }
    }
    assert!(cases.len() >= 100, "only {} udiff cases", cases.len());
    assert!(
        wrong.is_empty(),
        "{} of {} cases disagree with GNU patch:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

/// The files below `dir` as path -> text.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                let rel = p
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The playground's examples. "Wrong numbers and a lost space": patch
/// drops the damaged context line (fuzz 2) and lands where the hunk
/// belongs, so the simulation must not warn of a misapply.
#[test]
fn patch_simulation_on_the_playground_examples() {
    let app = "\"\"\"Greets people.\"\"\"\n\n\ndef greet(name):\n    name = name.strip()\n    print(\"Hello, \" + name)\n\n\ndef farewell(name):\n    name = name.strip()\n    print(\"Goodbye, \" + name)\n\n\nif __name__ == \"__main__\":\n    greet(\"world\")\n";
    let reply = "Capitalise the greeting:\n\n```diff\n--- a/src/app.py\n+++ b/src/app.py\n@@ -14,3 +14,3 @@\n def greet(name):\n    name = name.strip()\n-    print(\"Hello, \" + name)\n+    print(\"Hello, \" + name.title())\n```\n";
    let files = one("src/app.py", app);
    assert_eq!(
        check_against_patch("playground, lost space", &files, reply),
        [FuzzVerdict::Agrees]
    );
    let run = patch_fuzz_apply(reply, &files);
    let want = app.replace("name)\n\n\ndef f", "name.title())\n\n\ndef f");
    assert_eq!(run.files["src/app.py"].as_deref(), Some(want.as_str()));

    // "A unified diff GNU patch would misapply": it edits `net`.
    let prices = "import math\n\ndef net(amount):\n    value = amount * 1.0\n    return round(value, 2)\n\ndef gross(amount):\n    value = amount * 1.0\n    return round(value, 2)\n\ndef tax(amount):\n    return gross(amount) - net(amount)\n";
    let reply = "Add the 20% tax in `gross`:\n\n```diff\n--- a/src/prices.py\n+++ b/src/prices.py\n@@ -2,5 +2,5 @@\n \n def gross(amount):\n     value = amount * 1.0\n-    return round(value, 2)\n+    return round(value * 1.2, 2)\n \n```\n";
    assert_eq!(
        check_against_patch("playground, misapply", &one("src/prices.py", prices), reply),
        [FuzzVerdict::Misplaced]
    );
}

/// How patch reads and treats the text around and inside hunks, each
/// checked against the real patch.
#[test]
fn patch_simulation_matches_gnu_patch_on_reading_rules() {
    use FuzzVerdict::*;
    let f = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n";
    let files = one("f", f);
    let head = "--- a/f\n+++ b/f\n";
    let cases: &[(&str, String, &[FuzzVerdict])] = &[
        // Read by the counts: the surplus line is garbage after the hunk.
        ("short count", format!("{head}@@ -2,2 +2,2 @@\n l2\n-l3\n+L3\n l4\n"), &[Agrees]),
        ("comment skipped", format!("{head}@@ -2,3 +2,3 @@\n l2\n# note\n-l3\n+L3\n l4\n"), &[Agrees]),
        // Lines patch reads as unchanged though they lost their space; it
        // skips them with fuzz and lands where the engine puts the hunk.
        ("tab line is context", format!("{head}@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n\tl4\n"), &[Agrees]),
        ("empty line is context", format!("{head}@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n\n"), &[Agrees]),
        ("blank lines chopped at the end", format!("{head}@@ -2,4 +2,4 @@\n l2\n-l3\n+L3\n l4\n"), &[Agrees]),
        ("too short at the end", format!("{head}@@ -2,7 +2,7 @@\n l2\n-l3\n+L3\n l4\n"), &[Malformed]),
        ("unmarked line", format!("{head}@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\nd\n"), &[Malformed]),
        // The last line has no line break: patch ignores it and, as for
        // chopped blank lines, reads an empty unchanged line instead.
        ("no newline at the end", format!("{head}@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4"), &[Agrees]),
        ("no numbers", format!("{head}@@ @@\n l2\n-l3\n+L3\n l4\n"), &[Skipped]),
        ("missing number", format!("{head}@@ -x +2 @@\n l2\n-l3\n+L3\n l4\n"), &[Malformed]),
        ("no header", "@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n".into(), &[Skipped]),
        ("changes nothing", format!("{head}@@ -2,2 +2,2 @@\n l2\n l3\n"), &[Malformed]),
        ("two hunks, second after prose", format!("{head}@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\nthen\n@@ -6,3 +6,3 @@\n l6\n-l7\n+L7\n l8\n"), &[Agrees, Skipped]),
        ("misordered", format!("{head}@@ -6,3 +6,3 @@\n l6\n-l7\n+L7\n l8\n@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n"), &[Agrees, Rejected]),
        ("indented", "  --- a/f\n  +++ b/f\n  @@ -2,3 +2,3 @@\n   l2\n  -l3\n  +L3\n   l4\n".into(), &[Agrees]),
        ("crlf diff", format!("{head}@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n").replace('\n', "\r\n"), &[Agrees]),
        ("missing file", "--- a/g\n+++ b/g\n@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n".into(), &[NoFile]),
        ("creation", "--- /dev/null\n+++ b/new/g\n@@ -0,0 +1,2 @@\n+n1\n+n2\n".into(), &[Agrees]),
        ("creation over a file", "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+n1\n+n2\n".into(), &[Rejected]),
        ("deletion", format!("--- a/f\n+++ /dev/null\n@@ -1,8 +0,0 @@\n{}", f.lines().map(|l| format!("-{l}\n")).collect::<String>()), &[Agrees]),
        ("deletion, lines left", "--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-l1\n-l2\n".into(), &[Agrees]),
        ("git rename", "diff --git a/f b/g\nsimilarity index 90%\nrename from f\nrename to g\n--- a/f\n+++ b/g\n@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n".into(), &[Agrees]),
        ("git, second malformed", "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -6,3 +6,3 @@\n l6\n-l7\nG\n l8\n".into(), &[Agrees, Malformed]),
        ("path escape", "--- a/../f\n+++ b/../f\n@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n".into(), &[NoFile]),
    ];
    for (name, diff, want) in cases {
        let v = check_against_patch(name, &files, diff);
        assert_eq!(v, *want, "{name}");
    }
    // Lines patch takes for another kind of diff, which it then applies
    // as such: an ed command alone on a line (" d" in a numberless hunk),
    // a normal diff's "2c2" and "< ". A unified hunk before the end wins.
    let ed = one("f", "l1\nd\nl3\n");
    let other: &[(&str, &str, &[FuzzVerdict])] = &[
        (
            "ed script",
            "--- a/f\n+++ b/f\n@@ @@\n l1\n d\n-l3\n+L3\n",
            &[Unsupported],
        ),
        ("normal diff", "--- a/f\n+++ b/f\n2c2\n< d\n---\n> D\n", &[]),
        (
            "ed line, then a hunk",
            "--- a/f\n+++ b/f\nd\n@@ -1,3 +1,3 @@\n l1\n d\n-l3\n+L3\n",
            &[Agrees],
        ),
    ];
    for (name, diff, want) in other {
        assert_eq!(check_against_patch(name, &ed, diff), *want, "{name}");
    }
    assert!(patch_fuzz_apply(other[1].1, &ed).unsupported.is_some());
    // A CR LF file and an LF diff: compared byte for byte, they differ.
    let crlf = one("f", &f.replace('\n', "\r\n"));
    let v = check_against_patch(
        "crlf file",
        &crlf,
        &format!("{head}@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n"),
    );
    assert_eq!(v, [Rejected]);
}

/// Which files patch reads and writes, and how hunks follow each other,
/// each checked against the real patch.
#[test]
fn patch_simulation_matches_gnu_patch_on_files() {
    use FuzzVerdict::*;
    let f = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n";
    let mut files = one("f", f);
    files.insert("src/g.txt".into(), "g1\ng2\ng3\n".into());
    files.insert("empty".into(), String::new());
    files.insert("open".into(), "o1\no2".into());
    let hunk = "@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n";
    let cases: &[(&str, String, &[FuzzVerdict])] = &[
        ("missing, then present", format!("--- a/nope\n+++ b/nope\n{hunk}--- a/f\n+++ b/f\n{hunk}"), &[NoFile, Agrees]),
        ("same file twice", format!("--- a/f\n+++ b/f\n{hunk}--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n l2\n-L3\n+M3\n l4\n"), &[Agrees, Agrees]),
        ("git new file", "diff --git a/n.txt b/n.txt\nnew file mode 100644\nindex 0000000..3b18e51\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hello\n".into(), &[Agrees]),
        ("plain names create", "--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+n1\n+n2\n".into(), &[Agrees]),
        ("creation over an empty file", "--- /dev/null\n+++ b/empty\n@@ -0,0 +1,2 @@\n+n1\n+n2\n".into(), &[Agrees]),
        ("deletion of a missing file", "--- a/gone\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-l1\n-l2\n".into(), &[Rejected]),
        ("git deletion", "diff --git a/src/g.txt b/src/g.txt\ndeleted file mode 100644\nindex 3b18e51..0000000\n--- a/src/g.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-g1\n-g2\n-g3\n".into(), &[Agrees]),
        ("no newline at end of file", "--- a/open\n+++ b/open\n@@ -1,2 +1,2 @@\n o1\n-o2\n\\ No newline at end of file\n+O2\n\\ No newline at end of file\n".into(), &[Agrees]),
        ("newline added", "--- a/open\n+++ b/open\n@@ -1,2 +1,2 @@\n o1\n-o2\n\\ No newline at end of file\n+O2\n".into(), &[Agrees]),
        ("equals marker", "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n=l2\n-l3\n+L3\n l4\n".into(), &[Agrees]),
        ("insertion without context", "--- a/f\n+++ b/f\n@@ -3,0 +4,2 @@\n+n1\n+n2\n".into(), &[NoSafePlace]),
        // -p1 leaves no name of "f": nothing to patch.
        ("index header only", format!("Index: f\n{hunk}"), &[NoFile]),
        ("index header", format!("Index: a/f\n{hunk}"), &[Agrees]),
        ("second stated before the first", "--- a/f\n+++ b/f\n@@ -5,3 +5,3 @@\n l5\n-l6\n+L6\n l7\n@@ -9,3 +9,3 @@\n l2\n-l3\n+L3\n l4\n".into(), &[Agrees, Rejected]),
        ("git rename only", "diff --git a/src/g.txt b/src/h.txt\nsimilarity index 100%\nrename from src/g.txt\nrename to src/h.txt\n".into(), &[]),
        // A fatal error: the file before is written, but nothing removed.
        ("deletion, then malformed", "--- a/src/g.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-g1\n-g2\n-g3\n--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n l2\n-l3\nL3\n l4\n".into(), &[Agrees, Malformed]),
        ("git rename, then malformed", "diff --git a/src/g.txt b/src/h.txt\nrename from src/g.txt\nrename to src/h.txt\n--- a/src/g.txt\n+++ b/src/h.txt\n@@ -1,3 +1,3 @@\n g1\n-g2\n+G2\n g3\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n l2\n-l3\nL3\n l4\n".into(), &[Agrees, Malformed]),
        // Without `rename to` it is no rename: the file is patched in place.
        ("half a rename", "diff --git a/src/g.txt b/src/h.txt\nrename from src/g.txt\n--- a/src/g.txt\n+++ b/src/h.txt\n@@ -1,3 +1,3 @@\n g1\n-g2\n+G2\n g3\n".into(), &[Agrees]),
        // The second time, neither name is on disk yet: "Cannot rename".
        ("the same rename twice", "diff --git a/src/g.txt b/src/h.txt\nrename from src/g.txt\nrename to src/h.txt\n--- a/src/g.txt\n+++ b/src/h.txt\n@@ -1,3 +1,3 @@\n g1\n-g2\n+G2\n g3\n".repeat(2), &[Agrees, NoFile]),
        ("fenced, prose after", format!("Here:\n\n```diff\n--- a/f\n+++ b/f\n{hunk}```\n\nDone.\n"), &[Agrees]),
    ];
    for (name, diff, want) in cases {
        let v = check_against_patch(name, &files, diff);
        assert_eq!(v, *want, "{name}");
    }
}

/// The corpus replies damaged further (CR LF, indented, given twice, cut,
/// a line dropped, a comment inserted, without `a/`/`b/`, with dates) and
/// two replies one after the other: the simulation must still agree with
/// the real patch on every one.
#[test]
fn patch_simulation_matches_gnu_patch_on_damaged_corpus_replies() {
    let cases = udiff_cases();
    let mut wrong = vec![];
    let mut runs = 0;
    for (i, (name, output, files)) in cases.iter().enumerate() {
        let mut variants = damaged(output);
        // Another case's reply after this one, when their files agree.
        let (other, next, more) = &cases[(i + 1) % cases.len()];
        let mut both = files.clone();
        if more
            .iter()
            .all(|(p, t)| both.insert(p.clone(), t.clone()).is_none_or(|x| x == *t))
        {
            variants.push((format!("then {other}"), format!("{output}{next}")));
        }
        for (how, out) in variants {
            runs += 1;
            let label = format!("{name}, {how}");
            let fs = if how.starts_with("then ") {
                &both
            } else {
                files
            };
            if let Err(e) = std::panic::catch_unwind(|| check_against_patch(&label, fs, &out)) {
                wrong.push(format!("{label}: {}", panic_text(&e)));
            }
        }
    }
    assert!(runs > 900, "only {runs} runs");
    assert!(
        wrong.is_empty(),
        "{} of {runs} disagree:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Every udiff case of the corpus: name, reply, files before.
fn udiff_cases() -> Vec<(String, String, BTreeMap<String, String>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    let mut out = vec![];
    for dir in dirs {
        let case = std::fs::read_to_string(dir.join("case.json")).unwrap();
        let output = std::fs::read_to_string(dir.join("output.txt")).unwrap();
        let udiff = case.contains("\"format\": \"udiff\"")
            || (case.contains("\"format\": \"auto\"")
                && patchbay::detect(&output).format == "udiff");
        if udiff {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, output, tree(&dir.join("before"))));
        }
    }
    out
}

/// The reply damaged in the ways patch reads specially.
fn damaged(output: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = output.split_inclusive('\n').collect();
    let mid = lines.len() / 2;
    let headers = |tail: &str| -> String {
        let mark = |l: &str| l.starts_with("--- ") || l.starts_with("+++ ");
        lines
            .iter()
            .map(|l| match mark(l) {
                true => format!("{}{tail}\n", l.trim_end_matches('\n')),
                false => l.to_string(),
            })
            .collect()
    };
    let with = |k: usize, extra: Option<&str>| -> String {
        let mut v = lines.clone();
        match extra {
            Some(x) => v.insert(k, x),
            None => drop(v.remove(k)),
        }
        v.concat()
    };
    vec![
        ("CR LF".into(), output.replace('\n', "\r\n")),
        (
            "indented".into(),
            lines.iter().map(|l| format!("    {l}")).collect(),
        ),
        ("twice".into(), format!("{output}{output}")),
        (
            "no final line break".into(),
            output.trim_end_matches('\n').into(),
        ),
        (
            "no a/ b/".into(),
            output.replace("--- a/", "--- ").replace("+++ b/", "+++ "),
        ),
        (
            "dated".into(),
            headers("\t2024-01-01 00:00:00.000000000 +0000"),
        ),
        ("cut".into(), lines[..mid].concat()),
        ("line dropped".into(), with(mid, None)),
        ("comment".into(), with(mid, Some("# note\n"))),
    ]
}

fn panic_text(e: &Box<dyn std::any::Any + Send>) -> String {
    let msg = e
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    msg.lines().next().unwrap_or("").to_owned()
}
