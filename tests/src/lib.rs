//! The corpus runner: one folder a case, run through one helper, [`check`].
//!
//! A case folder holds `before/` (the files as the model saw them),
//! `output.txt` (the model's reply), `case.json` (format, options, the one
//! correct outcome, and labels), and for applied cases `after/` (the exact
//! expected files). [`load`] reads a case for every runner (the corpus, the
//! cut and streaming tests).
//!
//! `PATCHBAY_BLESS=1` rewrites `after/` and the expected outcome from what
//! the engine does now, but only for cases written by hand: the outcome of
//! a generated case (`gen-*`, written by `tests/tools/`) is computed by its
//! generator from the change it meant, independently of the engine, and
//! stays the oracle; fix the engine or the generator instead.

use patchbay::{ApplyOptions, EditStatus, FileStatus, Report, Status};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The one correct outcome of a case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expect {
    /// `applied`, `failed` or `truncated`.
    pub status: String,
    /// For refusals: the code of the first failed edit (or the report's).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub code: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Case {
    pub format: String,
    pub expect: Expect,
    /// The fault injected (`none` for clean replies).
    #[serde(default = "none")]
    pub fault: String,
    /// Whether a similar but wrong place exists in the file.
    #[serde(default)]
    pub trap: bool,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub source: String,
    /// `ApplyOptions` as JSON (absent: the defaults); last, as the
    /// hand-written cases have it, so that blessing them rewrites nothing
    /// but what changed.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub options: serde_json::Value,
}

fn none() -> String {
    "none".into()
}

/// How a case came out, in the four classes the conformance table counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// Applied, and the files equal the expected ones.
    Correct,
    /// Refused with the expected code and nothing changed.
    RefusedRight,
    /// Refused, but with another code or status (or should have applied).
    RefusedWrong,
    /// Claimed success (some edit applied) with files that differ from the
    /// expected ones: the one outcome that must never happen.
    Misapplied,
}

/// Reads every file below `dir` as path (with `/`) -> text.
pub fn load_tree(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = rd.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                let rel = p.strip_prefix(base).expect("below base");
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                out.insert(rel, fs::read_to_string(&p).expect("corpus files are UTF-8"));
            }
        }
    }
    walk(dir, dir, &mut out);
    out
}

/// The files after a report's changes are applied to `before`.
pub fn result_tree(before: &BTreeMap<String, String>, report: &Report) -> BTreeMap<String, String> {
    let mut t = before.clone();
    for f in &report.files {
        if f.status == FileStatus::Deleted {
            t.remove(&f.path);
        } else if let Some(c) = &f.content {
            t.insert(f.path.clone(), c.clone());
        }
    }
    t
}

fn first_code(report: &Report) -> Option<String> {
    report
        .receipts()
        .iter()
        .find(|r| r.status == EditStatus::Failed)
        .and_then(|r| r.code)
        .or(report.code)
        .map(|c| c.as_str().to_owned())
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Applied => "applied",
        Status::Failed => "failed",
        Status::Truncated => "truncated",
    }
}

/// The corpus folder.
pub fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// One case, read: what a runner needs to apply it.
pub struct Loaded {
    pub dir: PathBuf,
    pub case: Case,
    /// The files as the model saw them.
    pub before: BTreeMap<String, String>,
    /// The model's reply.
    pub output: String,
}

impl Loaded {
    /// The case's options, with `format` (the case's own, or `auto`).
    pub fn options(&self, format: &str) -> ApplyOptions {
        let mut opt: ApplyOptions = if self.case.options.is_null() {
            ApplyOptions::default()
        } else {
            serde_json::from_value(self.case.options.clone())
                .unwrap_or_else(|e| panic!("{}: options: {e}", self.dir.display()))
        };
        opt.format = format.parse().unwrap_or_else(|e| panic!("{e}"));
        opt
    }

    /// The expected files of a case that applies.
    pub fn after(&self) -> BTreeMap<String, String> {
        load_tree(&self.dir.join("after"))
    }
}

/// Reads `case.json` alone (the runners name and filter cases by it).
pub fn read_case(dir: &Path) -> Case {
    let text = fs::read_to_string(dir.join("case.json"))
        .unwrap_or_else(|e| panic!("{}: case.json: {e}", dir.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: case.json: {e}", dir.display()))
}

/// Reads a whole case folder.
pub fn load(dir: &Path) -> Loaded {
    Loaded {
        dir: dir.to_path_buf(),
        case: read_case(dir),
        before: load_tree(&dir.join("before")),
        output: fs::read_to_string(dir.join("output.txt")).expect("output.txt"),
    }
}

/// Whether a generator wrote the case (and so computed its outcome).
pub fn generated(dir: &Path) -> bool {
    dir.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("gen-"))
}

/// The result of one case.
pub struct Outcome {
    pub case: Case,
    pub verdict: Verdict,
    /// Why the case does not pass (empty when it does).
    pub problem: String,
}

/// Runs one case folder; with `bless`, rewrites the expectations of a
/// hand-written case (never of a generated one, see the module's note).
pub fn check(dir: &Path, bless: bool) -> Outcome {
    let loaded = load(dir);
    let opt = loaded.options(&loaded.case.format);
    let Loaded {
        mut case,
        before,
        output,
        ..
    } = loaded;
    let report = patchbay::apply(&output, &before, &opt);
    let got = result_tree(&before, &report);
    let got_status = status_name(report.status);
    let got_code = first_code(&report);
    let any_applied = report
        .receipts()
        .iter()
        .any(|r| r.status == EditStatus::Applied);
    if bless && !generated(dir) {
        case.expect = Expect {
            status: got_status.into(),
            code: if report.status == Status::Applied {
                None
            } else {
                got_code.clone()
            },
        };
        bless_case(dir, &case, report.status == Status::Applied, &got);
    }

    let expected_tree = if case.expect.status == "applied" {
        load_tree(&dir.join("after"))
    } else {
        before.clone()
    };
    let files_right = got == expected_tree;
    let (verdict, problem) = if case.expect.status == "applied" {
        if report.status == Status::Applied && files_right {
            (Verdict::Correct, String::new())
        } else if any_applied && !files_right {
            (Verdict::Misapplied, diff_trees(&expected_tree, &got))
        } else {
            (
                Verdict::RefusedWrong,
                format!(
                    "expected applied, got {got_status} {got_code:?}: {}",
                    report.feedback
                ),
            )
        }
    } else if any_applied && !files_right {
        (
            Verdict::Misapplied,
            format!(
                "expected {} {:?}, but files changed:\n{}",
                case.expect.status,
                case.expect.code,
                diff_trees(&expected_tree, &got)
            ),
        )
    } else if got_status == case.expect.status && got_code == case.expect.code && files_right {
        (Verdict::RefusedRight, String::new())
    } else {
        (
            Verdict::RefusedWrong,
            format!(
                "expected {} {:?}, got {got_status} {got_code:?}: {}",
                case.expect.status, case.expect.code, report.feedback
            ),
        )
    };
    Outcome {
        case,
        verdict,
        problem,
    }
}

/// Writes a hand-written case's new expectations: `case.json`, and
/// `after/` when it applies.
fn bless_case(dir: &Path, case: &Case, applied: bool, got: &BTreeMap<String, String>) {
    fs::write(
        dir.join("case.json"),
        serde_json::to_string_pretty(case).unwrap() + "\n",
    )
    .unwrap();
    let after = dir.join("after");
    let _ = fs::remove_dir_all(&after);
    if applied {
        for (p, c) in got {
            let fp = after.join(p);
            fs::create_dir_all(fp.parent().unwrap()).unwrap();
            fs::write(fp, c).unwrap();
        }
    }
}

fn diff_trees(want: &BTreeMap<String, String>, got: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    for k in want.keys().chain(got.keys()) {
        let (a, b) = (want.get(k), got.get(k));
        if a != b && !out.contains(&format!("--- {k}\n")) {
            out.push_str(&format!("--- {k}\n"));
            let (a, b) = (
                a.map(String::as_str).unwrap_or("<absent>"),
                b.map(String::as_str).unwrap_or("<absent>"),
            );
            for (i, (x, y)) in a.split('\n').zip(b.split('\n')).enumerate() {
                if x != y {
                    out.push_str(&format!(
                        "first difference at line {}:\n  want {x:?}\n  got  {y:?}\n",
                        i + 1
                    ));
                    break;
                }
            }
            if a.split('\n').count() != b.split('\n').count() {
                out.push_str(&format!(
                    "  line counts differ: want {}, got {}\n",
                    a.split('\n').count(),
                    b.split('\n').count()
                ));
            }
        }
    }
    out
}

/// Every case folder below `root` (folders holding a `case.json`), sorted.
pub fn case_dirs(root: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    fn walk(d: &Path, v: &mut Vec<PathBuf>) {
        if d.join("case.json").is_file() {
            v.push(d.to_path_buf());
            return;
        }
        if let Ok(rd) = fs::read_dir(d) {
            for e in rd.flatten() {
                if e.path().is_dir() {
                    walk(&e.path(), v);
                }
            }
        }
    }
    walk(root, &mut v);
    v.sort();
    v
}

pub mod double;
