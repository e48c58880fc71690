//! `patchbay tokens`, `compare` and `budget` as a user runs them.

mod common;

use common::{stdout, Sandbox};
use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_patchbay"))
        .args(args)
        .output()
        .unwrap()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

/// A Rust file of `n` small functions (7 lines each).
fn handlers(n: usize) -> String {
    let mut s = String::from("use std::collections::HashMap;\n\n");
    for k in 0..n {
        s.push_str(&format!(
            "/// Handles case {k}.\npub fn handler_{k}(input: &str, table: &mut HashMap<String, usize>) -> usize {{\n    let key = format!(\"{{}}-{k}\", input.trim());\n    *table.entry(key).or_insert(0) += {k};\n    0\n}}\n\n"
        ));
    }
    s
}

fn repo_file(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn tokens_counts_with_the_estimator_and_exact_vocabularies() {
    let d = Sandbox::new(concat!("tokens-", "count"));
    let hello = d.write_arg("hello.txt", "hello world");
    let o = run(&["tokens", &hello, "--tokenizer", "o200k_base"]);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        "           2  ".to_string() + &hello + "\n           2  total (o200k_base)\n"
    );

    let src = repo_file("tests/tools/sources/textwrap.py");
    let o = run(&["tokens", &src, &hello, "--json"]);
    let v = json(&o);
    let est = v["files"][0]["tokens"]["estimate:o200k_base"]
        .as_u64()
        .unwrap();
    let exact = json(&run(&["tokens", &src, "--json", "--tokenizer=o200k_base"]))["files"][0]
        ["tokens"]["o200k_base"]
        .as_u64()
        .unwrap();
    // The estimator lands within 6% of the exact count on this file.
    assert!(est.abs_diff(exact) * 100 <= exact * 6, "{est} vs {exact}");
    assert_eq!(
        v["total"]["estimate:o200k_base"].as_u64().unwrap(),
        est + v["files"][1]["tokens"]["estimate:o200k_base"]
            .as_u64()
            .unwrap()
    );

    // `all`: every estimator family and every exact vocabulary, one column each.
    let o = run(&["tokens", &hello, "--tokenizer", "all"]);
    let out = stdout(&o);
    for col in [
        "est:gemma",
        "est:qwen2",
        "o200k",
        "cl100k",
        "llama3",
        "qwen2",
        "deepseek_v3",
    ] {
        assert!(out.lines().next().unwrap().contains(col), "{out}");
    }
}

#[test]
fn tokens_usage_errors() {
    let o = run(&["tokens", "x", "--tokenizer", "gpt2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown tokenizer"));
    let o = run(&["tokens"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["tokens", "does-not-exist.txt"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["tokens", "x", "--tokenizer", "gemma"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("estimate:gemma"));
}

#[test]
fn compare_recommends_whole_for_short_files_and_a_cheap_edit_for_long_ones() {
    let d = Sandbox::new(concat!("tokens-", "compare"));
    let short = handlers(10);
    let b = d.write_arg("b.rs", &short);
    let a = d.write_arg("a.rs", short.replace("+= 3;", "+= 30;"));
    let o = run(&["compare", &b, &a]);
    assert!(o.status.success());
    let out = stdout(&o);
    // Every format of the registry has its row.
    for f in patchbay::formats::all().iter().map(|f| f.name()) {
        assert!(out.contains(&format!("\n{f} ")), "{f}: {out}");
    }
    assert!(out.contains("recommended: whole"), "{out}");

    // The threshold is an option: under 10 lines only.
    let v = json(&run(&["compare", &b, &a, "--whole-below", "10", "--json"]));
    let rec = v["recommendation"]["format"].as_str().unwrap();
    assert_ne!(rec, "whole");
    let formats = v["formats"].as_array().unwrap();
    let chosen = formats.iter().find(|f| f["format"] == rec).unwrap();
    assert_eq!(chosen["unambiguous"], true);
    let whole = formats.iter().find(|f| f["format"] == "whole").unwrap();
    assert!(whole["tokens"].as_u64() > chosen["tokens"].as_u64());
    // The edits name the file as a model would: by its name, not its path.
    assert!(chosen["edit"].as_str().unwrap().contains("b.rs"));
    assert!(!chosen["edit"]
        .as_str()
        .unwrap()
        .contains(&*d.dir.to_string_lossy()));

    let o = run(&["compare", &b, &a, "--whole-above", "150"]);
    assert_eq!(o.status.code(), Some(2));
}

/// The inputs of a `budget` run in a sandbox: a system prompt (~1050
/// tokens), two memory entries (~80 each), a folder context and a target
/// file of 80 handlers, with a task that names `handler_40`.
struct BudgetInputs {
    _dir: Sandbox,
    system: String,
    m1: String,
    m2: String,
    ctx: String,
    file: String,
}

impl BudgetInputs {
    fn new(tag: &str) -> BudgetInputs {
        let d = Sandbox::new(&format!("tokens-budget-{tag}"));
        BudgetInputs {
            system: d.write_arg(
                "system.txt",
                "You are a careful coding assistant. ".repeat(150),
            ),
            m1: d.write_arg(
                "m1.txt",
                "Memory: the user prefers small diffs. ".repeat(10),
            ),
            m2: d.write_arg("m2.txt", "Memory: tests live in tests/. ".repeat(10)),
            ctx: d.write_arg(
                "ctx.txt",
                "Folder src/ holds the request handlers. ".repeat(60),
            ),
            file: d.write_arg("handlers.rs", handlers(80)),
            _dir: d,
        }
    }

    /// `patchbay budget` with the inputs, a reserve of 1000, `extra` and
    /// the target file last.
    fn run(&self, extra: &[&str]) -> Output {
        let mut args = vec![
            "budget",
            "--system",
            &self.system,
            "--reserve",
            "1000",
            "--memory",
            &self.m1,
            "--memory",
            &self.m2,
            "--context",
            &self.ctx,
            "--task",
            "Fix the overflow in handler_40",
        ];
        args.extend(extra);
        args.push(&self.file);
        run(&args)
    }
}

#[test]
fn budget_plans_sections_that_sum_to_the_window() {
    let inputs = BudgetInputs::new("plan");
    let o = inputs.run(&["--window", "4096", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    let f = &v["files"][0];
    assert_eq!(f["mode"], "sections");
    assert!(f["excerpt"]
        .as_str()
        .unwrap()
        .contains("pub fn handler_40("));
    let t = &v["totals"];
    let sum: u64 = [
        "system", "task", "reserve", "memory", "context", "code", "free",
    ]
    .iter()
    .map(|k| t[k].as_u64().unwrap())
    .sum();
    assert_eq!(sum, 4096);
}

#[test]
fn budget_says_what_it_dropped() {
    let inputs = BudgetInputs::new("dropped");
    // Tighter: the folder context goes first, then the oldest memory
    // (system ~1050 + reserve 1000 + target ~90 + one memory entry ~80).
    let o = inputs.run(&["--window", "2260"]);
    assert!(o.status.success());
    let out = stdout(&o);
    let line = |needle: &str| {
        out.lines()
            .find(|l| l.contains(needle))
            .unwrap_or("")
            .to_string()
    };
    assert!(line("ctx.txt").contains("dropped: needs"), "{out}");
    assert!(line("memory 1 of 2").contains("dropped"), "{out}");
    assert!(line("memory 2 of 2").contains("kept"), "{out}");
    assert!(
        out.contains("lines ") && out.contains("target: `handler_40` is named in the task"),
        "{out}"
    );

    // --excerpt prints the text to send, with original line numbers.
    let out = stdout(&inputs.run(&["--window", "2500", "--excerpt"]));
    assert!(out.contains("[lines "), "{out}");
}

/// Too small for even the minimum: exit 1 and the numbers.
#[test]
fn budget_that_does_not_fit_says_so() {
    let inputs = BudgetInputs::new("small");
    let o = inputs.run(&["--window", "1500"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("does not fit: "), "{}", stdout(&o));
    let o = inputs.run(&["--window", "1500", "--json"]);
    assert_eq!(json(&o)["code"], "does_not_fit");
}

#[test]
fn budget_usage_and_help() {
    assert_eq!(run(&["budget", "x.rs"]).status.code(), Some(2));
    assert_eq!(
        run(&["budget", "--window", "many", "x.rs"]).status.code(),
        Some(2)
    );
    let o = run(&["help", "budget"]);
    assert!(stdout(&o).contains("--memory <FILE>"));
    let o = run(&["--help"]);
    for c in ["tokens", "compare", "budget"] {
        assert!(stdout(&o).contains(&format!("\n  {c} ")), "{c}");
    }
}
