//! Scripted replies for the arena's task set: for each model, task and
//! format, what the model "does" (a scenario), turned into the double's
//! replies. A perfect reply is the format's canonical edit from the task's
//! `before/` to its `after/` (`patchbay::render`); the other scenarios
//! differ only in what comes first, so the arena's table follows from the
//! scenarios alone (see [`Scenario::expected`]).

use super::{End, Reply, Script};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// What a scripted model does with a task in a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scenario {
    /// The right edits in the first reply.
    Perfect,
    /// A first reply without edits, then the right edits.
    Retry,
    /// A first reply cut by the reply limit before any edit, then the
    /// right edits in the continuation.
    Cut,
    /// Never an edit.
    Fail,
    /// A first reply whose first edit fails (the loop stops it early),
    /// then the right edits. Not for `whole`, where any file text applies.
    Stop,
}

/// Prose replies of the scenarios.
pub const NO_EDITS: &str = "I will make that change in the file now.\n";
pub const CUT: &str = "Let me go through the file first and then write the edits";
pub const REFUSAL: &str = "I am not able to make this change.\n";

/// `scenarios.json`: per model, a default and overrides by `task/format`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Plan {
    pub models: BTreeMap<String, ModelPlan>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelPlan {
    pub default: Scenario,
    pub runs: BTreeMap<String, Scenario>,
}

impl Default for ModelPlan {
    fn default() -> Self {
        ModelPlan {
            default: Scenario::Perfect,
            runs: BTreeMap::new(),
        }
    }
}

impl Plan {
    pub fn scenario(&self, model: &str, task: &str, format: &str) -> Scenario {
        self.models.get(model).map_or(Scenario::Fail, |m| {
            *m.runs
                .get(&format!("{task}/{format}"))
                .unwrap_or(&m.default)
        })
    }
}

/// One task of the set, as read from its folder.
#[derive(Debug, Clone)]
pub struct Task {
    pub name: String,
    pub task: String,
    pub before: BTreeMap<String, String>,
    pub after: BTreeMap<String, String>,
}

/// The tasks under `dir` (one folder each), by name.
pub fn tasks(dir: &Path) -> Result<Vec<Task>, String> {
    let mut out = vec![];
    let mut names: Vec<_> = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .filter(|e| e.path().join("task.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let d = dir.join(&name);
        let meta: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(d.join("task.json")).map_err(|e| e.to_string())?,
        )
        .map_err(|e| format!("{name}/task.json: {e}"))?;
        out.push(Task {
            task: meta["task"].as_str().unwrap_or("").to_owned(),
            before: files(&d.join("before"))?,
            after: files(&d.join("after"))?,
            name,
        });
    }
    Ok(out)
}

/// Every file under `dir`, by its path relative to `dir` (`/`-separated).
pub fn files(dir: &Path) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d)
            .map_err(|e| format!("{}: {e}", d.display()))?
            .flatten()
        {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(dir)
                    .unwrap_or(&p)
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(
                    rel,
                    fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?,
                );
            }
        }
    }
    Ok(out)
}

/// The format's canonical edits from `before` to `after`, every file in
/// one reply (V4A's files in one patch).
pub fn perfect_reply(format: &str, t: &Task) -> String {
    let mut parts = vec![];
    for (path, after) in &t.after {
        let before = t.before.get(path).map(String::as_str).unwrap_or("");
        if before != after {
            parts.push(
                patchbay::render(format.parse().unwrap_or_default(), path, before, after)
                    .unwrap_or_default(),
            );
        }
    }
    if format == "apply-patch" && parts.len() > 1 {
        let inner: Vec<&str> = parts
            .iter()
            .map(|p| {
                p.trim_start_matches("*** Begin Patch\n")
                    .trim_end()
                    .trim_end_matches("*** End Patch")
                    .trim_end()
            })
            .collect();
        return format!("*** Begin Patch\n{}\n*** End Patch\n", inner.join("\n"));
    }
    parts.concat()
}

/// An edit of the task's first file that cannot apply: it quotes lines
/// the file does not have (a wrong tag or CRC in the line formats).
pub fn failing_edit(format: &str, t: &Task) -> String {
    let path = t.after.keys().next().map_or("a.txt", String::as_str);
    let (before, after) = (
        "no such line here\nnor this one\n",
        "no such line here\nnor that one\n",
    );
    patchbay::render(format.parse().unwrap_or_default(), path, before, after).unwrap_or_default()
}

/// The reply texts of each round of a scenario and how each ends;
/// `failing` is [`failing_edit`]'s text.
pub fn rounds(s: Scenario, perfect: &str, failing: &str, max_rounds: usize) -> Vec<(String, End)> {
    match s {
        Scenario::Stop => vec![
            (format!("{failing}{perfect}"), End::Stop),
            (perfect.to_owned(), End::Stop),
        ],
        Scenario::Perfect => vec![(perfect.to_owned(), End::Stop)],
        Scenario::Retry => vec![
            (NO_EDITS.to_owned(), End::Stop),
            (perfect.to_owned(), End::Stop),
        ],
        Scenario::Cut => vec![
            (CUT.to_owned(), End::Length),
            (perfect.to_owned(), End::Stop),
        ],
        Scenario::Fail => (0..max_rounds)
            .map(|_| (REFUSAL.to_owned(), End::Stop))
            .collect(),
    }
}

/// What the arena must score for a run of scenario `s` (whose right
/// reply is `perfect`) with `max_rounds` rounds, derived from the
/// scenario alone: the double's `eval_count` is the number of chunks of
/// each reply, and a reply stopped early never reaches its final chunk, so
/// it counts none. Prompt tokens are 0: the scripts give none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Expected {
    pub well_formed: usize,
    pub applied_first_round: usize,
    pub applied: usize,
    pub rounds: usize,
    pub matches_expected: usize,
    pub truncations: usize,
    pub output_tokens: usize,
    pub early_stops: usize,
}

impl Scenario {
    pub fn expected(self, perfect: &str, max_rounds: usize) -> Expected {
        let chunks = |t: &str| t.chars().count().div_ceil(CHUNK_CHARS);
        let p = chunks(perfect);
        let [well_formed, applied_first_round, applied, rounds, matches_expected, truncations, output_tokens, early_stops] =
            match self {
                Scenario::Perfect => [1, 1, 1, 1, 1, 0, p, 0],
                Scenario::Retry => [0, 0, 1, 2, 1, 0, chunks(NO_EDITS) + p, 0],
                Scenario::Cut => [0, 0, 1, 2, 1, 1, chunks(CUT) + p, 0],
                Scenario::Fail => [0, 0, 0, max_rounds, 0, 0, max_rounds * chunks(REFUSAL), 0],
                Scenario::Stop => [1, 0, 1, 2, 1, 0, p, 1],
            };
        Expected {
            well_formed,
            applied_first_round,
            applied,
            rounds,
            matches_expected,
            truncations,
            output_tokens,
            early_stops,
        }
    }
}

/// One run's expected scores, named by model, task and format.
#[derive(Debug, Clone, Serialize)]
pub struct ExpectedRun {
    pub model: String,
    pub task: String,
    pub format: String,
    #[serde(flatten)]
    pub scores: Expected,
}

/// The expected scores of every run of `plan` over `tasks` in `formats`,
/// model by model, task by task, format by format.
pub fn expected_runs(
    tasks: &[Task],
    formats: &[&str],
    plan: &Plan,
    max_rounds: usize,
) -> Vec<ExpectedRun> {
    let mut out = vec![];
    for model in plan.models.keys() {
        for t in tasks {
            for f in formats {
                let perfect = perfect_reply(f, t);
                out.push(ExpectedRun {
                    model: model.clone(),
                    task: t.name.clone(),
                    format: (*f).to_owned(),
                    scores: plan
                        .scenario(model, &t.name, f)
                        .expected(&perfect, max_rounds),
                });
            }
        }
    }
    out
}

/// Characters a scripted chunk carries (the double's `eval_count` is the
/// number of chunks).
pub const CHUNK_CHARS: usize = 24;

/// The double's script for `plan` over `tasks` in `formats`.
pub fn script(tasks: &[Task], formats: &[&str], plan: &Plan, max_rounds: usize) -> Script {
    let mut s = Script {
        models: plan
            .models
            .keys()
            .map(|m| super::ModelDef {
                name: m.clone(),
                ..super::ModelDef::default()
            })
            .collect(),
        ..Script::default()
    };
    for t in tasks {
        for f in formats {
            let Some(kit) = patchbay::budget::prompts::kit(f.parse().unwrap_or_default()) else {
                continue;
            };
            let perfect = perfect_reply(f, t);
            for model in plan.models.keys() {
                let sc = plan.scenario(model, &t.name, f);
                let failing = failing_edit(f, t);
                for (k, (text, end)) in rounds(sc, &perfect, &failing, max_rounds)
                    .into_iter()
                    .enumerate()
                {
                    s.replies.push(Reply {
                        model: Some(model.clone()),
                        task: Some(format!("Task: {}\n", t.task)),
                        system: Some(kit.instructions.clone()),
                        round: Some(k + 1),
                        text,
                        end,
                        chunk_chars: Some(CHUNK_CHARS),
                        ..Reply::default()
                    });
                }
            }
        }
    }
    s
}
