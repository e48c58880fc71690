//! `patchbay arena` over the shipped task set against the double, whose
//! scripted models follow `tests/arena/scenarios.json`. The expected table
//! is computed from the scenarios alone (`Scenario::expected`: what each
//! one means in rounds, results and reply chunks, shared with the page's
//! arena test), not from the arena's output.

mod common;

use common::Sandbox;
use patchbay_tests::double::arena::{self, Plan, Scenario};
use patchbay_tests::double::Double;
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

const ROUNDS: usize = 3;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// A scenario's expected scores in the order of [`FIELDS`].
fn expected(s: Scenario, perfect: &str) -> [usize; 8] {
    let e = s.expected(perfect, ROUNDS);
    [
        e.well_formed,
        e.applied_first_round,
        e.applied,
        e.rounds,
        e.matches_expected,
        e.truncations,
        e.output_tokens,
        e.early_stops,
    ]
}

const FORMATS: [&str; 7] = [
    "search-replace",
    "udiff",
    "whole",
    "hashline",
    "apply-patch",
    "tool-call",
    "lines",
];

/// A run's score fields, in the order of [`expected`].
const FIELDS: [&str; 8] = [
    "wellFormed",
    "appliedFirstRound",
    "applied",
    "rounds",
    "matchesExpected",
    "truncations",
    "outputTokens",
    "earlyStops",
];

/// Runs `patchbay arena` over the shipped tasks against the double at
/// `url`; it must exit 0. Returns its output and `results.json`.
fn run_arena(sb: &Sandbox, url: &str) -> (Output, Value) {
    let out = sb.path("results.json");
    let o = Command::new(env!("CARGO_BIN_EXE_patchbay"))
        .args([
            "arena",
            "--tasks",
            repo("tests/arena/tasks").to_str().unwrap(),
            "--models",
            "coder:7b,tiny:1b",
            "--formats",
            &FORMATS.join(","),
            "--url",
            url,
            "--out",
            out.to_str().unwrap(),
            "--rounds",
            "3",
            "--reply-limit",
            "2048",
            "--num-ctx",
            "8192",
        ])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let results: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    (o, results)
}

/// The scores of one run of the results, booleans as 0 or 1.
fn scores(run: &Value) -> Vec<usize> {
    FIELDS
        .iter()
        .map(|k| match &run[k] {
            Value::Bool(b) => usize::from(*b),
            v => v.as_u64().unwrap() as usize,
        })
        .collect()
}

/// The expected scores summed over the tasks, by model and format, with
/// the number of runs summed.
#[derive(Default)]
struct ExpectedTable {
    rows: Vec<(String, String, [usize; 8], usize)>,
}

impl ExpectedTable {
    fn add(&mut self, model: &str, format: &str, want: [usize; 8]) {
        match self.rows.iter_mut().find(|r| r.0 == model && r.1 == format) {
            Some(r) => {
                for (a, b) in r.2.iter_mut().zip(want) {
                    *a += b;
                }
                r.3 += 1;
            }
            None => self.rows.push((model.into(), format.into(), want, 1)),
        }
    }

    /// The rows of `results.md` these sums give: every column but the wall
    /// time; prompt tokens are 0: the double's scripts give none.
    fn markdown_rows(&self) -> Vec<String> {
        self.rows
            .iter()
            .map(|(model, f, w, runs)| {
                let mean = w[3] as f64 / *runs as f64;
                let (wf, first, applied, matches) = (w[0], w[1], w[2], w[4]);
                let (out, stops, cuts) = (w[6], w[7], w[5]);
                format!("| {model} | {f} | {runs} | {wf} | {first} | {applied} | {matches} | {mean:.2} | 0 | {out} | {stops} | {cuts} | 0 |")
            })
            .collect()
    }
}

#[test]
fn the_arena_reaches_the_table_its_scripts_imply() {
    let tasks = arena::tasks(&repo("tests/arena/tasks")).unwrap();
    assert!(tasks.len() >= 12, "{} tasks", tasks.len());
    let plan: Plan =
        serde_json::from_str(&std::fs::read_to_string(repo("tests/arena/scenarios.json")).unwrap())
            .unwrap();
    let d = Double::start(arena::script(&tasks, &FORMATS, &plan, ROUNDS), 0).unwrap();
    let sb = Sandbox::new("arena");
    let (o, results) = run_arena(&sb, &d.url());
    let runs = results["runs"].as_array().unwrap();
    assert_eq!(runs.len(), tasks.len() * FORMATS.len() * 2);
    let mut table = ExpectedTable::default();
    for model in ["coder:7b", "tiny:1b"] {
        for t in &tasks {
            for f in FORMATS {
                let want = expected(
                    plan.scenario(model, &t.name, f),
                    &arena::perfect_reply(f, t),
                );
                let run = runs
                    .iter()
                    .find(|r| {
                        r["model"] == model && r["task"] == t.name.as_str() && r["format"] == f
                    })
                    .unwrap();
                assert_eq!(scores(run), want, "{model} {} {f}: {run}", t.name);
                table.add(model, f, want);
            }
        }
    }
    let md = std::fs::read_to_string(sb.path("results.md")).unwrap();
    for row in table.markdown_rows() {
        assert!(md.contains(&row), "missing {row} in\n{md}");
    }
    assert_eq!(String::from_utf8_lossy(&o.stdout), md);
}
