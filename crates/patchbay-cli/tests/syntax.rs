//! End-to-end tests of `patchbay outline`, `slice`, `splice` and
//! `apply --check-syntax`: the built binary in a fresh temporary folder,
//! checking exit codes, output and the bytes on disk.

mod common;

use common::{run_in, Out, Sandbox};
use serde_json::Value;
use std::fs;
use std::io::Write;
use std::path::Path;

fn patchbay(dir: &Path, args: &[&str], stdin: &str) -> Out {
    run_in(dir, args, Some(stdin))
}

const LIB: &str = "/// A greeter.\npub struct Greeter;\n\nimpl Greeter {\n    /// Says hello.\n    pub fn hello(&self) -> &'static str {\n        \"hello\"\n    }\n\n    pub fn bye(&self) -> &'static str {\n        \"bye\"\n    }\n}\n";

#[test]
fn outline_lists_symbols_as_text_and_json() {
    let sb = Sandbox::new("syntax");
    sb.write("src/lib.rs", LIB);
    let o = patchbay(&sb.dir, &["outline", "src/lib.rs"], "");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.stdout,
        "        1-2  struct     Greeter\n       4-13  impl       impl Greeter\n        5-8  method       Greeter::hello\n      10-12  method       Greeter::bye\n"
    );
    let o = patchbay(&sb.dir, &["outline", "src/lib.rs", "--json"], "");
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["language"], "rust");
    assert_eq!(v["symbols"][2]["qualified"], "Greeter::hello");
    assert_eq!(
        v["symbols"][2]["leading"]["lines"],
        serde_json::json!([5, 5])
    );
    // No language for a .txt file, unless one is named.
    sb.write("notes.txt", "def f():\n    pass\n");
    let o = patchbay(&sb.dir, &["outline", "notes.txt"], "");
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("no language"), "{}", o.stderr);
    let o = patchbay(
        &sb.dir,
        &["outline", "notes.txt", "--language", "python"],
        "",
    );
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "        1-2  function   f\n")
    );
}

#[test]
fn slice_prints_the_symbol_dedented_or_with_its_origin() {
    let sb = Sandbox::new("syntax");
    sb.write("lib.rs", LIB);
    let o = patchbay(&sb.dir, &["slice", "lib.rs", "Greeter::hello"], "");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.stdout,
        "/// Says hello.\npub fn hello(&self) -> &'static str {\n    \"hello\"\n}\n"
    );
    // By line: the innermost symbol around line 11.
    let o = patchbay(&sb.dir, &["slice", "lib.rs", "11", "--json"], "");
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["symbol"], "Greeter::bye");
    assert_eq!(v["lines"], serde_json::json!([10, 12]));
    assert_eq!(v["indent"], "    ");
    assert_eq!(v["fileCrc"], patchbay::file_crc(LIB));
    let o = patchbay(&sb.dir, &["slice", "lib.rs", "Greeter::nope"], "");
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("no symbol named `Greeter::nope`"),
        "{}",
        o.stderr
    );
}

#[test]
fn splice_writes_the_edited_slice_back_atomically() {
    let sb = Sandbox::new("syntax");
    sb.write("lib.rs", LIB);
    let o = patchbay(&sb.dir, &["slice", "lib.rs", "hello", "--json"], "");
    let mut v: Value = serde_json::from_str(&o.stdout).unwrap();
    let text = v["text"]
        .as_str()
        .unwrap()
        .replace("\"hello\"", "\"hi there\"");
    v["text"] = Value::String(text);
    sb.write("slice.json", v.to_string());
    let o = patchbay(
        &sb.dir,
        &["splice", "lib.rs", "Greeter::hello", "slice.json"],
        "",
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.stdout,
        "spliced Greeter::hello into lib.rs (lines 5-8, +0 lines)\n"
    );
    assert_eq!(sb.read("lib.rs"), LIB.replace("\"hello\"", "\"hi there\""));
    assert_eq!(
        sb.listing(""),
        ["lib.rs", "slice.json"],
        "no temporary left"
    );
}

#[test]
fn splice_refuses_a_changed_file_and_another_symbol() {
    let sb = Sandbox::new("syntax");
    sb.write("lib.rs", LIB);
    let o = patchbay(&sb.dir, &["slice", "lib.rs", "bye", "--json"], "");
    sb.write("slice.json", &o.stdout);
    let o = patchbay(&sb.dir, &["splice", "lib.rs", "hello", "slice.json"], "");
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("the slice was cut from `Greeter::bye`"),
        "{}",
        o.stderr
    );
    let changed = LIB.replace("bye\"", "goodbye\"");
    sb.write("lib.rs", &changed);
    let o = patchbay(
        &sb.dir,
        &["splice", "lib.rs", "bye", "-"],
        &fs::read_to_string(sb.dir.join("slice.json")).unwrap(),
    );
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("lib.rs changed since the slice was cut"),
        "{}",
        o.stderr
    );
    assert_eq!(sb.read("lib.rs"), changed, "nothing written");
}

#[test]
fn a_plain_text_slice_replaces_the_symbol_and_syntax_errors_are_warned() {
    let sb = Sandbox::new("syntax");
    sb.write("lib.rs", LIB);
    // Dedented, as the model saw it; the closing brace is missing.
    let broken = "pub fn bye(&self) -> &'static str {\n    \"see you\"\n";
    let o = patchbay(
        &sb.dir,
        &["splice", "lib.rs", "bye", "-", "--dry-run"],
        broken,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("warning: lib.rs line"), "{}", o.stderr);
    assert_eq!(sb.read("lib.rs"), LIB, "dry run");
    let fixed = format!("{broken}}}\n");
    let o = patchbay(&sb.dir, &["splice", "lib.rs", "bye", "-"], &fixed);
    assert_eq!((o.code, o.stderr.as_str()), (0, ""));
    assert_eq!(sb.read("lib.rs"), LIB.replace("\"bye\"", "\"see you\""));
}

#[test]
fn apply_checks_syntax_when_asked() {
    let reply = "lib.rs\n<<<<<<< SEARCH\n        \"bye\"\n    }\n=======\n        \"bye\"\n>>>>>>> REPLACE\n";
    let sb = Sandbox::new("syntax");
    sb.write("lib.rs", LIB);
    sb.write("reply.txt", reply);
    let args = [
        "apply",
        "--edits",
        "reply.txt",
        "--fail-on-syntax",
        "--json",
    ];
    let o = patchbay(&sb.dir, &args, "");
    assert_eq!(o.code, 1, "{}", o.stdout);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["status"], "failed");
    assert_eq!(v["files"][0]["edits"][0]["code"], "syntax_error");
    assert_eq!(sb.read("lib.rs"), LIB, "nothing written");
    let o = patchbay(
        &sb.dir,
        &["apply", "--edits", "reply.txt", "--check-syntax"],
        "",
    );
    assert_eq!(o.code, 0, "{}", o.stdout);
    assert!(o.stdout.contains("Syntax check"), "{}", o.stdout);
    assert_ne!(sb.read("lib.rs"), LIB, "warnings do not stop the write");
}

/// A slice's JSON that is cut, out of range or forged is refused, not taken as plain text (or its indent as code) and written into FILE.
#[test]
fn splice_refuses_cut_invalid_and_forged_slices_writing_nothing() {
    let sb = Sandbox::new("syntax");
    sb.write("g.rs", LIB);
    let o = patchbay(&sb.dir, &["slice", "g.rs", "hello", "--json"], "");
    let good: Value = serde_json::from_str(&o.stdout).unwrap();
    let with = |key: &str, v: Value| {
        let mut s = good.clone();
        s[key] = v;
        s.to_string()
    };
    let mut lines = good["lines"].clone();
    lines[0] = serde_json::json!(-1);
    let full = good.to_string();
    let bad = [
        ("cut", full[..full.len() / 2].to_string()),
        ("negative line", with("lines", lines)),
        (
            "crc above u32",
            with("fileCrc", serde_json::json!(1u64 << 33)),
        ),
        (
            "indent with code",
            with("indent", Value::String("\n}\nfn evil() {}\n".into())),
        ),
        ("not an object", "{\"path\": 1}".to_string()),
    ];
    for (what, json) in &bad {
        sb.write("s.json", json);
        let o = patchbay(&sb.dir, &["splice", "g.rs", "Greeter::hello", "s.json"], "");
        assert_eq!(o.code, 1, "{what}: {}", o.stdout);
        assert!(o.stderr.contains("not a slice"), "{what}: {}", o.stderr);
        assert_eq!(sb.read("g.rs"), LIB, "{what}: nothing written");
        // The same through stdin, after leading blank lines.
        let o = patchbay(
            &sb.dir,
            &["splice", "g.rs", "hello", "-"],
            &format!("\n  {json}"),
        );
        assert_eq!(o.code, 1, "{what} (stdin)");
        assert_eq!(sb.read("g.rs"), LIB, "{what}: nothing written");
    }
}

/// `mod m {` nested 32,769 deep once panicked in the
/// listing (a width argument out of range) after 6 GB of names.
#[test]
fn outline_of_deep_nesting_is_bounded_and_does_not_panic() {
    let sb = Sandbox::new("syntax");
    let n = 32_769;
    sb.write(
        "deep.rs",
        format!("{}fn f() {{}}{}\n", "mod m {".repeat(n), "}".repeat(n)),
    );
    let o = patchbay(&sb.dir, &["outline", "deep.rs"], "");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout.lines().count(), patchbay_syntax::MAX_DEPTH);
    assert!(o.stdout.lines().all(|l| l.len() < 4096));
    let o = patchbay(&sb.dir, &["slice", "deep.rs", "1", "--json"], "");
    assert_eq!(o.code, 0, "{}", o.stderr);
}

/// A 300 MB file's tree needs more than 4 GiB: tree-sitter aborts (exit
/// 134) before the outline is done. Over `MAX_SOURCE_BYTES` every syntax command
/// refuses it before reading: exit 2, code `too_large`, nothing written.
/// The file is sparse, so the test writes almost nothing.
#[test]
fn syntax_commands_refuse_a_file_over_the_limit_before_reading_it() {
    let sb = Sandbox::new("syntax");
    let limit = patchbay_syntax::MAX_SOURCE_BYTES;
    let big = sb.dir.join("big.c");
    let mut f = fs::File::create(&big).unwrap();
    f.write_all(b"int main(void) { return 0; }\n").unwrap();
    f.set_len(300 * 1024 * 1024).unwrap();
    sb.write("slice.json", "{}");
    let runs: [&[&str]; 4] = [
        &["outline", "big.c"],
        &["outline", "big.c", "--json"],
        &["slice", "big.c", "main"],
        &["splice", "big.c", "main", "slice.json"],
    ];
    let size = (300 * 1024 * 1024).to_string();
    for args in runs {
        let started = std::time::Instant::now();
        let o = patchbay(&sb.dir, args, "");
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(
            o.stderr.contains("too_large")
                && o.stderr.contains(&size)
                && o.stderr.contains(&limit.to_string()),
            "{args:?}: {}",
            o.stderr
        );
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(started.elapsed().as_secs() < 10, "{args:?} read the file");
    }
    assert_eq!(fs::metadata(&big).unwrap().len(), 300 * 1024 * 1024);
    // Stdin is read up to one byte past the limit, then refused.
    let line = "int x;\n";
    let over = line.repeat(limit / line.len() + 1);
    let o = patchbay(&sb.dir, &["outline", "-", "--language", "c"], &over);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("stdin is more than") && o.stderr.contains("too_large"));
}

/// An outline without symbols of a file that is not blank says why (on
/// stderr, and as `notes` in the JSON); a blank file has no note.
#[test]
fn an_empty_outline_says_why() {
    let sb = Sandbox::new("syntax");
    sb.write(
        "old.c",
        "#if 0\nint f(void) { return 1; }\nstruct s { int a; };\n#endif\n",
    );
    sb.write("decl.h", "extern int f(void);\nint g(int);\n");
    sb.write("blank.c", "\n\n");
    let o = patchbay(&sb.dir, &["outline", "old.c"], "");
    assert_eq!((o.code, o.stdout.as_str()), (0, ""), "{}", o.stderr);
    assert!(
        o.stderr.contains("note: old.c: no symbols")
            && o.stderr.contains("2 lines are under `#if 0`"),
        "{}",
        o.stderr
    );
    let o = patchbay(&sb.dir, &["outline", "decl.h", "--json"], "");
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["symbols"], Value::Array(vec![]));
    let note = v["notes"][0].as_str().unwrap();
    assert!(note.contains("declarations, prototypes"), "{note}");
    let o = patchbay(&sb.dir, &["outline", "blank.c", "--json"], "");
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(
        v.get("notes").is_none() && o.stderr.is_empty(),
        "{}",
        o.stdout
    );
}
