//! End-to-end tests of the `patchbay` binary: each test makes a fresh folder
//! under the system temp dir, runs the built binary in it and checks exit
//! code, printed output and the bytes on disk.

mod common;

use common::{block, run_in, Out, Sandbox};
use serde_json::Value;
use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};

/// Writes `output` to `out.txt` in the sandbox and runs `apply` on it with
/// the sandbox as the working directory (so the default root).
fn apply(sb: &Sandbox, output: &str, extra: &[&str]) -> Out {
    sb.write("out.txt", output);
    let mut args = vec!["apply", "--edits", "out.txt"];
    args.extend_from_slice(extra);
    run_in(&sb.dir, &args, None)
}

const APP: &str = "def f():\n    return 1\n\ndef g():\n    return 2\n";

#[test]
fn applies_and_writes_exactly() {
    let sb = Sandbox::new("cli");
    sb.write("src/app.py", APP);
    let o = apply(
        &sb,
        &block("src/app.py", "    return 1\n", "    return 10\n"),
        &[],
    );
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert_eq!(
        sb.read("src/app.py"),
        "def f():\n    return 10\n\ndef g():\n    return 2\n"
    );
    assert_eq!(o.stdout, "edited src/app.py\nAll 1 edit applied.\n");
    assert_eq!(
        sb.listing(""),
        ["out.txt", "src", "src/app.py"],
        "no temporary files left"
    );
}

#[cfg(unix)]
#[test]
fn keeps_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new("cli");
    let p = sb.write("run.sh", "#!/bin/sh\necho old\n");
    fs::set_permissions(&p, fs::Permissions::from_mode(0o751)).unwrap();
    let o = apply(&sb, &block("run.sh", "echo old\n", "echo new\n"), &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(sb.read("run.sh"), "#!/bin/sh\necho new\n");
    assert_eq!(
        fs::metadata(&p).unwrap().permissions().mode() & 0o7777,
        0o751
    );
}

#[test]
fn failed_edit_exits_1_and_leaves_file_untouched() {
    let sb = Sandbox::new("cli");
    sb.write("app.py", APP);
    let before = fs::read(sb.path("app.py")).unwrap();
    let o = apply(
        &sb,
        &block(
            "app.py",
            "def f():\n    return 9\n",
            "def f():\n    return 10\n",
        ),
        &[],
    );
    assert_eq!(o.code, 1);
    assert_eq!(fs::read(sb.path("app.py")).unwrap(), before);
    assert!(
        o.stdout
            .starts_with("Edit 1 (app.py, output lines 3-9) failed [not_found]"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("Closest region: lines 1-2"),
        "{}",
        o.stdout
    );
}

#[test]
fn all_or_nothing_across_files() {
    let sb = Sandbox::new("cli");
    sb.write("a.py", "a = 1\n");
    sb.write("b.py", "b = 1\n");
    let out = block("a.py", "a = 1\n", "a = 2\n") + &block("b.py", "nope\n", "b = 2\n");
    let o = apply(&sb, &out, &[]);
    assert_eq!(o.code, 1);
    assert_eq!(sb.read("a.py"), "a = 1\n");
    assert_eq!(sb.read("b.py"), "b = 1\n");
    assert!(o.stdout.contains("held back"), "{}", o.stdout);
}

#[test]
fn partial_writes_what_applied() {
    let sb = Sandbox::new("cli");
    sb.write("a.py", "a = 1\n");
    sb.write("b.py", "b = 1\n");
    let out = block("a.py", "a = 1\n", "a = 2\n") + &block("b.py", "nope\n", "b = 2\n");
    let o = apply(&sb, &out, &["--partial", "--json"]);
    assert_eq!(o.code, 1);
    assert_eq!(sb.read("a.py"), "a = 2\n");
    assert_eq!(sb.read("b.py"), "b = 1\n");
    let j = o.json();
    assert_eq!(j["status"], "failed");
    assert_eq!(j["files"][0]["status"], "applied");
    assert_eq!(j["files"][1]["edits"][0]["code"], "not_found");
}

#[test]
fn truncated_exits_3_and_writes_nothing() {
    let sb = Sandbox::new("cli");
    sb.write("a.py", "a = 1\nb = 1\n");
    let out = block("a.py", "a = 1\n", "a = 2\n") + "a.py\n<<<<<<< SEARCH\nb = 1\n=======\nb = ";
    for extra in [&[][..], &["--partial"]] {
        let o = apply(&sb, &out, extra);
        assert_eq!(o.code, 3, "{extra:?}");
        assert_eq!(sb.read("a.py"), "a = 1\nb = 1\n");
        assert!(o.stdout.contains("The output was cut off"), "{}", o.stdout);
    }
    let j = apply(&sb, &out, &["--json"]).json();
    assert_eq!(j["status"], "truncated");
    assert_eq!(j["files"][0]["edits"][1]["code"], "truncated");
    assert_eq!(j["files"][0]["edits"][0]["code"], "held_back");
}

#[test]
fn dry_run_reports_without_writing() {
    let sb = Sandbox::new("cli");
    sb.write("app.py", APP);
    let out =
        block("app.py", "    return 1\n", "    return 10\n") + &block("new.py", "", "x = 1\n");
    let o = apply(&sb, &out, &["--dry-run"]);
    assert_eq!(o.code, 0);
    assert_eq!(sb.read("app.py"), APP);
    assert!(!sb.path("new.py").exists());
    assert_eq!(
        o.stdout,
        "edited app.py\ncreated new.py\nAll 2 edits applied.\nDry run: nothing was written.\n"
    );
}

#[test]
fn json_shape() {
    let sb = Sandbox::new("cli");
    sb.write("app.py", APP);
    let o = apply(
        &sb,
        &block("app.py", "    return 9\n", "    return 10\n"),
        &["--json"],
    );
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stdout.trim_end().lines().count(),
        1,
        "one JSON object on one line"
    );
    let j = o.json();
    assert_eq!(j["status"], "failed");
    assert_eq!(j["format"], "search-replace");
    assert_eq!(j["files"][0]["path"], "app.py");
    assert_eq!(j["files"][0]["status"], "failed");
    assert_eq!(j["files"][0]["edits"][0]["code"], "not_found");
    assert_eq!(j["files"][0]["edits"][0]["status"], "failed");
    assert!(j["feedback"].as_str().unwrap().contains("[not_found]"));
    assert!(
        j["files"][0].get("content").is_none(),
        "contents stay out of the CLI's JSON"
    );

    let o = apply(
        &sb,
        &block("app.py", "    return 1\n", "    return 10\n"),
        &["--json"],
    );
    assert_eq!(o.code, 0);
    let j = o.json();
    assert_eq!(j["status"], "applied");
    assert_eq!(j["files"][0]["edits"][0]["status"], "applied");
    assert_eq!(j["files"][0]["edits"][0]["strategy"], "exact");
    assert_eq!(
        j["files"][0]["edits"][0]["lines"],
        serde_json::json!([2, 2])
    );
    assert!(j["files"][0].get("content").is_none());
    assert_eq!(
        sb.read("app.py"),
        "def f():\n    return 10\n\ndef g():\n    return 2\n"
    );
}

#[test]
fn dotdot_and_absolute_paths_escape() {
    let sb = Sandbox::new("cli");
    fs::create_dir(sb.path("root")).unwrap();
    let outside = sb.path("outside.py");
    let abs = sb.path("abs.py");
    let out = block("../outside.py", "", "x = 1\n") + &block(abs.to_str().unwrap(), "", "x = 1\n");
    let o = apply(&sb, &out, &["--root", "root", "--json"]);
    assert_eq!(o.code, 1);
    let j = o.json();
    assert_eq!(j["files"][0]["edits"][0]["code"], "path_escape");
    assert_eq!(j["files"][1]["edits"][0]["code"], "path_escape");
    assert!(!outside.exists() && !abs.exists());
    // Even with --partial nothing may land outside the root.
    let o = apply(&sb, &out, &["--root", "root", "--partial"]);
    assert_eq!(o.code, 1);
    assert!(!outside.exists() && !abs.exists());
    assert_eq!(sb.listing(""), ["out.txt", "root"]);
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_root_escape() {
    use std::os::unix::fs::symlink;
    let sb = Sandbox::new("cli");
    fs::create_dir(sb.path("root")).unwrap();
    sb.write("outside/secret.txt", "secret\n");
    symlink(sb.path("outside"), sb.path("root/dir")).unwrap();
    symlink(sb.path("outside/secret.txt"), sb.path("root/leak.txt")).unwrap();
    symlink(sb.path("nowhere"), sb.path("root/dangling")).unwrap();
    symlink("../nowhere.txt", sb.path("root/ghost.txt")).unwrap();
    let out = block("dir/new.txt", "", "x\n")
        + &block("leak.txt", "secret\n", "stolen\n")
        + &block("dangling/f.txt", "", "x\n")
        + &block("ghost.txt", "", "x\n");
    for extra in [&["--json"][..], &["--json", "--partial"]] {
        let mut args = vec!["--root", "root"];
        args.extend_from_slice(extra);
        let o = apply(&sb, &out, &args);
        assert_eq!(o.code, 1, "{}", o.stderr);
        let j = o.json();
        for f in 0..4 {
            assert_eq!(j["files"][f]["edits"][0]["code"], "path_escape", "{j}");
        }
        assert!(j["files"][0]["edits"][0]["message"]
            .as_str()
            .unwrap()
            .contains("symbolic link"));
        assert_eq!(sb.read("outside/secret.txt"), "secret\n");
        assert!(!sb.path("outside/new.txt").exists());
        assert!(!sb.path("nowhere").exists() && !sb.path("nowhere.txt").exists());
    }
}

#[cfg(unix)]
#[test]
fn symlink_inside_the_root_writes_its_target() {
    use std::os::unix::fs::symlink;
    let sb = Sandbox::new("cli");
    sb.write("real/a.py", "a = 1\n");
    symlink("real/a.py", sb.path("alias.py")).unwrap();
    let o = apply(&sb, &block("alias.py", "a = 1\n", "a = 2\n"), &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(sb.read("real/a.py"), "a = 2\n");
    assert!(fs::symlink_metadata(sb.path("alias.py"))
        .unwrap()
        .file_type()
        .is_symlink());
    // One file under two names in one output would be written twice.
    let out = block("alias.py", "a = 2\n", "a = 3\n") + &block("real/a.py", "a = 2\n", "a = 4\n");
    let o = apply(&sb, &out, &[]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("same file"), "{}", o.stderr);
    assert_eq!(sb.read("real/a.py"), "a = 2\n");
}

#[test]
fn io_error_on_one_path_writes_nothing() {
    let sb = Sandbox::new("cli");
    sb.write("a.txt", "a\n");
    let out = block("a.txt", "a\n", "b\n") + &block("a.txt/inner.txt", "", "x\n");
    let o = apply(&sb, &out, &["--json"]);
    assert_eq!(o.code, 2);
    assert_eq!(o.stdout, "");
    assert!(o.stderr.contains("not a directory"), "{}", o.stderr);
    assert_eq!(sb.read("a.txt"), "a\n");
}

#[test]
fn file_flag_targets_pathless_output() {
    let sb = Sandbox::new("cli");
    sb.write("lib/mod.rs", "fn a() {}\n");
    let whole = "```rust\nfn a() {}\nfn b() {}\n```\n";
    let o = apply(&sb, whole, &["--file", "lib/mod.rs"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert_eq!(sb.read("lib/mod.rs"), "fn a() {}\nfn b() {}\n");

    let sr = "<<<<<<< SEARCH\nfn b() {}\n=======\nfn c() {}\n>>>>>>> REPLACE\n";
    let abs = sb.path("lib/mod.rs");
    let o = apply(
        &sb,
        sr,
        &[
            "--file",
            abs.to_str().unwrap(),
            "--format",
            "search-replace",
        ],
    );
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert_eq!(sb.read("lib/mod.rs"), "fn a() {}\nfn c() {}\n");

    let elsewhere = std::env::temp_dir().join("patchbay-not-in-root.rs");
    let o = apply(&sb, sr, &["--file", elsewhere.to_str().unwrap()]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("is not inside --root"), "{}", o.stderr);
    assert!(!elsewhere.exists());

    // Without --file the edit names no file: a typed failure, not a guess.
    let j = apply(&sb, sr, &["--json"]).json();
    assert_eq!(j["files"][0]["edits"][0]["code"], "malformed");
}

#[test]
fn empty_search_creates_file_and_folders() {
    let sb = Sandbox::new("cli");
    let o = apply(&sb, &block("pkg/sub/new.py", "", "print('hi')\n"), &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(sb.read("pkg/sub/new.py"), "print('hi')\n");
    assert_eq!(o.stdout, "created pkg/sub/new.py\nAll 1 edit applied.\n");
    assert_eq!(
        sb.listing(""),
        ["out.txt", "pkg", "pkg/sub", "pkg/sub/new.py"]
    );
}

#[test]
fn crlf_survives() {
    let sb = Sandbox::new("cli");
    sb.write("w.txt", "one\r\ntwo\r\nthree\r\n");
    let o = apply(&sb, &block("w.txt", "two\n", "2\nzwei\n"), &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        fs::read(sb.path("w.txt")).unwrap(),
        b"one\r\n2\r\nzwei\r\nthree\r\n"
    );
}

#[test]
fn reads_output_from_stdin() {
    let sb = Sandbox::new("cli");
    sb.write("a.txt", "x\n");
    let o = run_in(
        &sb.dir,
        &["apply", "--edits", "-"],
        Some(&block("a.txt", "x\n", "y\n")),
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(sb.read("a.txt"), "y\n");
}

#[test]
fn whole_file_with_placeholder_is_elided() {
    let sb = Sandbox::new("cli");
    sb.write("m.py", "a = 1\nb = 2\nc = 3\n");
    let out = "m.py\n```python\na = 10\n# ... rest of the file unchanged\n```\n";
    let o = apply(&sb, out, &["--json"]);
    assert_eq!(o.code, 1);
    assert_eq!(o.json()["files"][0]["edits"][0]["code"], "elided");
    assert_eq!(sb.read("m.py"), "a = 1\nb = 2\nc = 3\n");
}

#[test]
fn no_edits_is_a_failure() {
    let sb = Sandbox::new("cli");
    let o = apply(
        &sb,
        "I could not find anything to change.\n",
        &["--json", "--format", "search-replace"],
    );
    assert_eq!(o.code, 1);
    let j = o.json();
    assert_eq!(j["code"], "no_edits");
    assert_eq!(j["files"], serde_json::json!([]));
}

#[test]
fn binary_and_non_utf8_files_are_refused() {
    let sb = Sandbox::new("cli");
    fs::write(sb.path("bin.dat"), b"ab\0cd\n").unwrap();
    fs::write(sb.path("latin.txt"), b"caf\xe9\n").unwrap();
    for (name, bytes, word) in [
        ("bin.dat", &b"ab\0cd\n"[..], "binary"),
        ("latin.txt", b"caf\xe9\n", "UTF-8"),
    ] {
        let o = apply(&sb, &block(name, "", "more\n"), &[]);
        assert_eq!(o.code, 2, "{name}");
        assert!(
            o.stderr.contains(name) && o.stderr.contains(word),
            "{}",
            o.stderr
        );
        assert_eq!(fs::read(sb.path(name)).unwrap(), bytes);
    }
}

#[test]
fn usage_errors_exit_2() {
    let sb = Sandbox::new("cli");
    sb.write("out.txt", block("a.txt", "", "x\n"));
    for args in [
        &[][..],
        &["apply"],
        &["apply", "--edits", "out.txt", "--bogus"],
        &["apply", "--edits", "out.txt", "--root"],
        &["frobnicate"],
        &["render", "--format", "whole", "only-one"],
    ] {
        let o = run_in(&sb.dir, args, None);
        assert_eq!(o.code, 2, "{args:?}");
        assert!(o.stderr.starts_with("error: "), "{args:?}: {}", o.stderr);
        assert_eq!(o.stdout, "");
    }
    let o = run_in(
        &sb.dir,
        &["apply", "--edits", "out.txt", "--format", "nope"],
        None,
    );
    assert_eq!(o.code, 2);
    // The message lists the valid names, whatever formats exist.
    for name in patchbay::formats::names() {
        assert!(o.stderr.contains(name), "{name}: {}", o.stderr);
    }
    let o = run_in(&sb.dir, &["apply", "--edits", "missing.txt"], None);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("missing.txt"), "{}", o.stderr);
    let o = run_in(
        &sb.dir,
        &["apply", "--edits", "out.txt", "--root", "no/such/dir"],
        None,
    );
    assert_eq!(o.code, 2);
    assert!(
        !sb.path("a.txt").exists(),
        "nothing written on usage errors"
    );
}

#[test]
fn help_and_version() {
    let sb = Sandbox::new("cli");
    let o = run_in(&sb.dir, &["--version"], None);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, concat!("patchbay ", env!("CARGO_PKG_VERSION"), "\n"))
    );
    for args in [
        &["--help"][..],
        &["apply", "--help"],
        &["render", "-h"],
        &["help", "apply"],
    ] {
        let o = run_in(&sb.dir, args, None);
        assert_eq!(o.code, 0, "{args:?}");
        assert!(o.stdout.contains("Usage: patchbay"), "{args:?}");
    }
    assert!(run_in(&sb.dir, &["apply", "-h"], None)
        .stdout
        .contains("--dry-run"));
}

/// `help --help` and `help COMMAND` are help too (exit 0, on stdout), and an
/// unknown command's help is a usage error.
#[test]
fn help_command_prints_what_flag_prints() {
    let sb = Sandbox::new("cli");
    let o = run_in(&sb.dir, &["help", "--help"], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("Usage: patchbay help"), "{}", o.stdout);
    for cmd in ["apply", "budget", "splice"] {
        let by_word = run_in(&sb.dir, &["help", cmd], None);
        let by_flag = run_in(&sb.dir, &[cmd, "--help"], None);
        assert_eq!(
            (by_word.code, &by_word.stdout),
            (0, &by_flag.stdout),
            "{cmd}"
        );
    }
    let o = run_in(&sb.dir, &["help", "frobnicate"], None);
    assert_eq!((o.code, o.stdout.as_str()), (2, ""));
    assert!(o.stderr.starts_with("error: "), "{}", o.stderr);
}

/// The completion scripts know every command and flag; each shell gets
/// its own syntax.
#[test]
fn completions_for_each_shell() {
    let sb = Sandbox::new("cli");
    for (shell, marker) in [
        ("bash", "complete -F _patchbay"),
        ("zsh", "#compdef patchbay"),
        ("fish", "complete -c patchbay"),
    ] {
        let o = run_in(&sb.dir, &["completions", shell], None);
        assert_eq!(o.code, 0, "{shell}: {}", o.stderr);
        assert!(o.stdout.contains(marker), "{shell}");
        for word in ["check-output", "fail-on-syntax", "tag-len"] {
            assert!(o.stdout.contains(word), "{shell}: {word}");
        }
    }
    let o = run_in(&sb.dir, &["completions", "cmd.exe"], None);
    assert_eq!(o.code, 2);
}

#[test]
fn render_prints_the_canonical_edit() {
    let sb = Sandbox::new("cli");
    let before = "a\nb\nc\n";
    let after = "a\nB\nc\n";
    sb.write("v1.txt", before);
    sb.write("v2.txt", after);
    for format in ["search-replace", "whole"] {
        let o = run_in(
            &sb.dir,
            &["render", "--format", format, "v1.txt", "v2.txt"],
            None,
        );
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert_eq!(
            o.stdout,
            patchbay::render(format.parse().unwrap(), "v1.txt", before, after).unwrap()
        );
    }
    // The rendered edit applies back to BEFORE and gives AFTER.
    let o = run_in(
        &sb.dir,
        &["render", "--format", "search-replace", "v1.txt", "v2.txt"],
        None,
    );
    let a = apply(&sb, &o.stdout, &[]);
    assert_eq!(a.code, 0, "{}", a.stdout);
    assert_eq!(sb.read("v1.txt"), after);
    let o = run_in(
        &sb.dir,
        &["render", "--format", "auto", "v1.txt", "v2.txt"],
        None,
    );
    assert_eq!(o.code, 2);
}

#[test]
fn strict_refuses_what_lenient_repairs() {
    let sb = Sandbox::new("cli");
    sb.write("app.py", "def f():\n    return 1  \n");
    // The SEARCH lost the trailing whitespace: lenient applies, strict refuses.
    let out = block("app.py", "    return 1\n", "    return 3\n");
    let o = apply(&sb, &out, &["--strict", "--dry-run", "--json"]);
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert_eq!(o.json()["files"][0]["edits"][0]["code"], "not_found");
    let o = apply(&sb, &out, &["--json"]);
    assert_eq!(o.code, 0, "{}", o.stdout);
    assert_eq!(o.json()["files"][0]["edits"][0]["strategy"], "trailing_ws");
    assert_eq!(sb.read("app.py"), "def f():\n    return 3\n");
}

#[test]
fn tag_prints_the_tagged_view() {
    let sb = Sandbox::new("cli");
    sb.write("a.txt", "123456789\r\nsecond  \n");
    let o = run_in(&sb.dir, &["tag", "a.txt"], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // CRC-32("123456789") = 0xCBF43926 -> base64url "y_Q5Jg"; the tag is its
    // first four characters (docs/contracts.md).
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines[0], "1:y_Q5 123456789");
    assert!(
        lines[1].starts_with("2:") && lines[1].ends_with(" second  "),
        "{}",
        lines[1]
    );
    let o = run_in(&sb.dir, &["tag", "a.txt", "--tag-len", "6"], None);
    // Beyond 5 characters a second CRC widens the hash; the first 5 stay.
    assert!(
        o.stdout.starts_with("1:y_Q5J")
            && o.stdout.lines().next().unwrap().len() == "1:y_Q5Jx 123456789".len(),
        "{}",
        o.stdout
    );
    let o = run_in(&sb.dir, &["tag", "a.txt", "--tag-len", "9"], None);
    assert_eq!(o.code, 2);
}

#[test]
fn check_output_exit_codes_and_continuation() {
    let sb = Sandbox::new("cli");
    let item = |n: usize| {
        format!(
            "## Item {n}/3\n- Location: a.rs:{n}\n- Severity: low\n- Claim: c{n}\n- Quote: q{n}\n"
        )
    };
    let full = format!(
        "Total: 3\nOrder: file order\n{}{}{}",
        item(1),
        item(2),
        item(3)
    );
    sb.write("full.txt", &full);
    let o = run_in(&sb.dir, &["check-output", "full.txt"], None);
    assert_eq!(o.code, 0, "{}", o.stdout);
    assert!(o.stdout.contains("verdict: complete"));
    sb.write("cut.txt", &full[..full.find("## Item 3").unwrap() + 12]);
    let o = run_in(
        &sb.dir,
        &[
            "check-output",
            "cut.txt",
            "--continuation",
            "--stop-reason",
            "length",
        ],
        None,
    );
    assert_eq!(o.code, 3, "{}", o.stdout);
    assert!(o.stdout.contains("truncated: 1 missing"), "{}", o.stdout);
    assert!(
        o.stdout.contains("a.rs:2") && o.stdout.contains("from 3/3"),
        "{}",
        o.stdout
    );
    let o = run_in(&sb.dir, &["check-output", "cut.txt", "--json"], None);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["declaredTotal"], 3);
    assert_eq!(v["verdict"], "truncated");
}

/// An empty reply is an input error (exit 2, "empty reply"), not
/// `truncated` (exit 3): no continuation can help it.
#[test]
fn check_output_of_an_empty_reply_says_so() {
    let sb = Sandbox::new("cli");
    for (name, text) in [("empty.txt", ""), ("blank.txt", " \n\n\t\n")] {
        sb.write(name, text);
        for json in [false, true] {
            let mut args = vec!["check-output", name];
            if json {
                args.push("--json");
            }
            let o = run_in(&sb.dir, &args, None);
            assert_eq!(o.code, 2, "{name}: {}", o.stdout);
            assert!(o.stderr.contains("empty reply"), "{}", o.stderr);
            assert_eq!(o.stdout, "");
        }
    }
    let o = run_in(&sb.dir, &["check-output", "-"], Some(""));
    assert_eq!(o.code, 2);
}

#[test]
fn stream_judges_each_edit_as_it_arrives_and_fails_fast() {
    use std::io::{BufRead, BufReader};
    let sb = Sandbox::new("cli");
    sb.write("app.py", APP);
    let mut child = Command::new(env!("CARGO_BIN_EXE_patchbay"))
        .args(["apply", "--edits", "-", "--stream", "--fail-fast"])
        .current_dir(&sb.dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    // The first block arrives; its receipt comes back while stdin is open.
    stdin
        .write_all(block("app.py", "    return 1\n", "    return 10\n").as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "edit 1: located app.py lines 2-2\n");
    // A failing block: the process stops reading and exits 1 at once.
    stdin
        .write_all(block("app.py", "    return 99\n", "    return 0\n").as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    line.clear();
    stdout.read_line(&mut line).unwrap();
    assert!(
        line.starts_with("edit 2: failed [not_found] app.py"),
        "{line}"
    );
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1));
    drop(stdin);
    assert_eq!(sb.read("app.py"), APP, "nothing is written");
}

#[test]
fn stream_writes_what_plain_apply_writes() {
    let sb = Sandbox::new("cli");
    sb.write("app.py", APP);
    let out = block("app.py", "    return 2\n", "    return 20\n")
        + &block("app.py", "    return 1\n", "    return 10\n");
    let o = run_in(
        &sb.dir,
        &["apply", "--edits", "-", "--stream", "--json"],
        Some(&out),
    );
    assert_eq!(o.code, 0, "{}", o.stdout);
    let lines: Vec<Value> = o
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "two events and the report: {}", o.stdout);
    assert_eq!(lines[0]["receipt"]["lines"], serde_json::json!([5, 5]));
    assert_eq!(lines[2]["status"], "applied");
    assert_eq!(
        sb.read("app.py"),
        "def f():\n    return 10\n\ndef g():\n    return 20\n"
    );
}

#[test]
fn diagnose_explains_repairs_and_simulates_fuzz() {
    let sb = Sandbox::new("cli");
    let file: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    sb.write("f.txt", &file);
    // The header says line 5 (the hunk is at 12) and a context line lost
    // its one-space prefix: strict fails, the lenient mode recovers.
    let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -5,3 +5,3 @@\nline 12\n-line 13\n+LINE 13\n line 14\n";
    sb.write("d.diff", diff);
    let o = run_in(&sb.dir, &["diagnose", "d.diff"], None);
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert!(o.stdout.contains("strict fails"), "{}", o.stdout);
    assert!(
        o.stdout.contains("lenient applies at lines 12-14"),
        "{}",
        o.stdout
    );
    let o = run_in(&sb.dir, &["diagnose", "d.diff", "--json"], None);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v[0]["strictOk"], false);
    assert_eq!(v[0]["lenientLines"], serde_json::json!([12, 14]));
    // The repaired diff applies strictly.
    let o = run_in(&sb.dir, &["diagnose", "d.diff", "--repair"], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("@@ -12,3 +12,3 @@"), "{}", o.stdout);
    sb.write("fixed.diff", &o.stdout);
    let o = run_in(&sb.dir, &["diagnose", "fixed.diff"], None);
    assert_eq!(o.code, 0, "{}", o.stdout);
    let o = run_in(
        &sb.dir,
        &[
            "apply",
            "--edits",
            "fixed.diff",
            "--format",
            "udiff",
            "--strict",
        ],
        None,
    );
    assert_eq!(o.code, 0, "{}", o.stdout);
    assert_eq!(sb.read("f.txt"), file.replace("line 13\n", "LINE 13\n"));
    // GNU patch with fuzz on the damaged diff: no place matches the hunk as
    // written, so wherever patch puts it, it is not a safe place.
    let o = run_in(&sb.dir, &["diagnose", "d.diff", "--fuzz", "--json"], None);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v[0]["safeLine"], Value::Null);
    assert_ne!(v[0]["verdict"], "agrees", "{}", o.stdout);
}

/// A block whose path only the prose names, while the previous block's
/// file also holds its SEARCH text: refused, nothing written (the
/// previous block's file is not edited in its place).
#[test]
fn a_block_whose_file_only_the_prose_names_is_path_unclear() {
    let sb = Sandbox::new("cli");
    sb.write("a.py", "import os\nx = 1\n");
    sb.write("b.py", "import os\ny = 2\n");
    let reply = format!(
        "{}\nNow update `b.py` as well:\n\n```python\n<<<<<<< SEARCH\nimport os\n=======\nimport sys\n>>>>>>> REPLACE\n```\n",
        block("a.py", "x = 1\n", "x = 10\n")
    );
    let o = apply(&sb, &reply, &["--json"]);
    assert_eq!(o.code, 1, "{}", o.stdout);
    let codes: Vec<Value> = (o.json()["files"].as_array().unwrap().iter())
        .flat_map(|f| f["edits"].as_array().unwrap().clone())
        .map(|e| e["code"].clone())
        .collect();
    assert!(codes.contains(&Value::from("path_unclear")), "{codes:?}");
    assert_eq!(sb.read("a.py"), "import os\nx = 1\n");
    assert_eq!(sb.read("b.py"), "import os\ny = 2\n");
}

/// `--stop-reason`: `length` refuses a complete-looking reply (exit 3),
/// `stop` lets a diff whose counts overstate its lines apply.
#[test]
fn the_stop_reason_settles_cut_or_complete() {
    let sb = Sandbox::new("cli");
    sb.write("d.txt", "a\nb\nc\n");
    let diff = "--- a/d.txt\n+++ b/d.txt\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n";
    let o = apply(&sb, diff, &[]);
    assert_eq!(o.code, 3, "{}", o.stdout);
    assert!(o.stdout.contains("counts are wrong"), "{}", o.stdout);
    let o = apply(&sb, diff, &["--stop-reason", "length"]);
    assert_eq!(o.code, 3, "{}", o.stdout);
    assert_eq!(sb.read("d.txt"), "a\nb\nc\n");
    let o = apply(&sb, diff, &["--stop-reason", "stop"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert_eq!(sb.read("d.txt"), "a\nB\nc\n");
    let o = apply(&sb, diff, &["--stop-reason", "maybe"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
}

/// `--overwrite` is Codex's rule for an added file that exists.
#[test]
fn overwrite_lets_an_added_file_replace_an_existing_one() {
    let sb = Sandbox::new("cli");
    sb.write("dup.txt", "old\n");
    let patch = "*** Begin Patch\n*** Add File: dup.txt\n+new\n*** End Patch\n";
    assert_eq!(apply(&sb, patch, &[]).code, 1);
    assert_eq!(sb.read("dup.txt"), "old\n");
    assert_eq!(apply(&sb, patch, &["--overwrite"]).code, 0);
    assert_eq!(sb.read("dup.txt"), "new\n");
}

/// `tag --crc` prints the view the `lines` format's edits are checked
/// against, and a `lines` edit written from it applies.
#[test]
fn tag_crc_prints_the_view_lines_edits_refer_to() {
    let sb = Sandbox::new("cli");
    sb.write("f.txt", "one\ntwo\n");
    let o = run_in(&sb.dir, &["tag", "--crc", "f.txt"], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let header = o.stdout.lines().next().unwrap();
    let crc = header
        .split("crc32=")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    assert_eq!(o.stdout.lines().nth(2), Some("2\ttwo"), "{}", o.stdout);
    let reply = format!("@@ f.txt 2:2 crc32={crc}\nTWO\n@@ end\n");
    let o = apply(&sb, &reply, &["--format", "lines"]);
    assert_eq!(o.code, 0, "{}", o.stdout);
    assert_eq!(sb.read("f.txt"), "one\nTWO\n");
}

/// A created file's name and a failed edit's text come from the reply: a
/// terminal escape in them reaches the terminal as visible text, never as
/// the control sequence (which would retitle or clear it).
#[test]
fn terminal_escapes_from_a_reply_are_printed_visible() {
    let sb = Sandbox::new("term");
    sb.write("app.py", APP);
    let name = "t\x1b]0;TITLE\x07.py";
    let created = apply(&sb, &block(name, "", "x = 1\n"), &[]);
    assert_eq!(created.code, 0, "{}", created.stderr);
    assert!(sb.dir.join(name).exists());
    let failed = apply(
        &sb,
        &block("app.py", "def f():\n    return 1\x1b[2J\n", "x\n"),
        &[],
    );
    assert_eq!(failed.code, 1);
    for out in [&created, &failed] {
        let all = format!("{}{}", out.stdout, out.stderr);
        assert!(!all.contains('\x1b') && !all.contains('\x07'), "{all:?}");
        assert!(all.contains("\\u{1b}"), "{all:?}");
    }
}

/// On a terminal, what `--stream` prints as each edit completes (its path
/// and message come from the reply) shows control characters as escapes;
/// the same command into a pipe writes the bytes as they are. The terminal
/// is a pseudo-terminal from util-linux's `script`.
#[test]
fn stream_receipts_on_a_terminal_show_escapes() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let sb = Sandbox::new("term-stream");
    sb.write("app.py", APP);
    sb.write(
        "out.txt",
        block("app.py", "def f():\n    return 9\x1b[2J\n", "x\n"),
    );
    let cmd = format!(
        "{} apply --edits out.txt --stream",
        env!("CARGO_BIN_EXE_patchbay")
    );
    let o = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(&sb.dir)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&o.stdout);
    assert!(shown.contains("failed [not_found]"), "{shown}");
    assert!(
        !shown.contains('\x1b') && shown.contains("\\u{1b}"),
        "{shown:?}"
    );
    let piped = apply(
        &sb,
        &block("app.py", "def f():\n    return 9\x1b[2J\n", "x\n"),
        &["--stream"],
    );
    assert!(piped.stdout.contains('\x1b'), "{:?}", piped.stdout);
}
