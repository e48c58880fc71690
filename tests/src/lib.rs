//! The corpus runner: one folder a case, run through one helper, [`check`].
//!
//! A case folder holds `before/` (the files as the model saw them),
//! `output.txt` (the model's reply), `case.json` (format, options, the one
//! correct outcome, and labels), and for applied cases `after/` (the exact
//! expected files). `PATCHBAY_BLESS=1` rewrites `after/` and the expected
//! outcome from what the engine does now; review the diff before committing.

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
    #[serde(default)]
    pub options: serde_json::Value,
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

/// The result of one case.
pub struct Outcome {
    pub case: Case,
    pub verdict: Verdict,
    /// Why the case does not pass (empty when it does).
    pub problem: String,
}

/// Runs one case folder; with `bless`, rewrites its expectations.
pub fn check(dir: &Path, bless: bool) -> Outcome {
    let mut case: Case =
        serde_json::from_str(&fs::read_to_string(dir.join("case.json")).expect("case.json"))
            .unwrap_or_else(|e| panic!("{}: case.json: {e}", dir.display()));
    let before = load_tree(&dir.join("before"));
    let output = fs::read_to_string(dir.join("output.txt")).expect("output.txt");
    let mut opt: ApplyOptions = if case.options.is_null() {
        ApplyOptions::default()
    } else {
        serde_json::from_value(case.options.clone()).expect("options")
    };
    opt.format = case.format.clone();
    let report = patchbay::apply(&output, &before, &opt).expect("known format");
    let got = result_tree(&before, &report);
    let got_status = status_name(report.status);
    let got_code = first_code(&report);
    let any_applied = report
        .receipts()
        .iter()
        .any(|r| r.status == EditStatus::Applied);

    if bless {
        case.expect = Expect {
            status: got_status.into(),
            code: if report.status == Status::Applied {
                None
            } else {
                got_code.clone()
            },
        };
        fs::write(
            dir.join("case.json"),
            serde_json::to_string_pretty(&case).unwrap() + "\n",
        )
        .unwrap();
        let after = dir.join("after");
        let _ = fs::remove_dir_all(&after);
        if report.status == Status::Applied {
            for (p, c) in &got {
                let fp = after.join(p);
                fs::create_dir_all(fp.parent().unwrap()).unwrap();
                fs::write(fp, c).unwrap();
            }
        }
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
