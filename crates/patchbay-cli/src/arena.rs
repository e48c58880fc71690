//! `patchbay arena`: one task set across models, edit formats and trials,
//! each run through the same edit loop as `run` (in memory: nothing is
//! written), scored, and summed up per model and format in JSON and
//! Markdown. This is how a user finds out which format their model handles.

use crate::http::Model;
use crate::run::{default_url, drive, Show};
use crate::Failure;
use patchbay::edit_loop::wire::{ollama, ChatOptions, Provider};
use patchbay::edit_loop::{Decision, EditLoop, LoopConfig, Outcome, RoundRecord};
use patchbay::Code;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Everything `arena` needs; filled by the argument reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArenaOptions {
    pub tasks: PathBuf,
    pub models: Vec<String>,
    pub formats: Vec<String>,
    pub trials: usize,
    pub out: PathBuf,
    pub summary: Option<PathBuf>,
    pub url: Option<String>,
    pub provider: Provider,
    pub rounds: usize,
    pub num_ctx: Option<usize>,
    pub reply_limit: usize,
    pub seed: u64,
    pub think: bool,
    pub early_stop: bool,
}

/// The scores of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunScore {
    pub task: String,
    pub model: String,
    pub format: String,
    pub trial: usize,
    pub seed: u64,
    /// The first reply held edits and none was malformed or cut.
    pub well_formed: bool,
    pub applied_first_round: bool,
    /// The loop ended done, in any round.
    pub applied: bool,
    pub rounds: usize,
    /// The files equal the task's `after/`.
    pub matches_expected: bool,
    /// The server's counts, summed over rounds (where it gave them).
    pub prompt_tokens: usize,
    pub output_tokens: usize,
    pub wall_ms: u64,
    pub early_stops: usize,
    pub truncations: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The sums of one model and format.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub model: String,
    pub format: String,
    pub runs: usize,
    pub well_formed: usize,
    pub applied_first_round: usize,
    pub applied: usize,
    pub matches_expected: usize,
    pub rounds: usize,
    pub prompt_tokens: usize,
    pub output_tokens: usize,
    pub early_stops: usize,
    pub truncations: usize,
    pub errors: usize,
    pub wall_ms: u64,
}

struct Task {
    name: String,
    task: String,
    before: BTreeMap<String, String>,
    after: BTreeMap<String, String>,
}

pub fn run(o: &ArenaOptions) -> Result<i32, Failure> {
    for f in &o.formats {
        crate::run::check_format(f)?;
    }
    let tasks = load_tasks(&o.tasks).map_err(Failure::Io)?;
    if tasks.is_empty() {
        return Err(Failure::Io(format!(
            "no task folders (with a task.json) in {}",
            o.tasks.display()
        )));
    }
    let url = o.url.as_deref().unwrap_or(default_url(o.provider));
    let mut scores = vec![];
    for name in &o.models {
        let model = Model::new(url, o.provider, name);
        let facts = model.facts().map_err(Failure::Io)?;
        let num_ctx = o
            .num_ctx
            .unwrap_or_else(|| facts.context_length.map_or(8192, |c| c.min(8192)));
        let think = ollama::think_for(&facts.capabilities, o.think);
        if let Some(n) = &facts.note {
            eprintln!("patchbay: note: {n}");
        }
        for t in &tasks {
            for f in &o.formats {
                for trial in 0..o.trials {
                    let seed = o.seed + trial as u64;
                    let chat = ChatOptions {
                        seed: Some(seed),
                        think,
                        ..ChatOptions::default()
                    };
                    let s = one_run(o, &model, t, f, (num_ctx, facts.tokenizer), &chat);
                    eprintln!("{} {} {} #{}: {}", name, f, t.name, trial + 1, verdict(&s));
                    scores.push(RunScore {
                        trial: trial + 1,
                        seed,
                        ..s
                    });
                }
            }
        }
    }
    let summary = summarize(&scores);
    let md = markdown(&summary);
    let json = serde_json::json!({ "runs": scores, "summary": summary });
    let write = |p: &Path, text: &str| {
        fs::write(p, text).map_err(|e| Failure::Io(format!("cannot write {}: {e}", p.display())))
    };
    write(
        &o.out,
        &format!(
            "{}\n",
            serde_json::to_string_pretty(&json).unwrap_or_default()
        ),
    )?;
    write(
        &o.summary
            .clone()
            .unwrap_or_else(|| o.out.with_extension("md")),
        &md,
    )?;
    crate::out(&md);
    Ok(0)
}

fn verdict(s: &RunScore) -> String {
    match (&s.error, s.matches_expected, s.applied) {
        (Some(e), _, _) => format!("error: {e}"),
        (None, true, _) => format!("expected result in {} round(s)", s.rounds),
        (None, false, true) => format!(
            "applied, but not the expected result ({} round(s))",
            s.rounds
        ),
        (None, false, false) => format!("not applied ({} round(s))", s.rounds),
    }
}

/// One task with one model in one format: the loop to its end, scored.
fn one_run(
    o: &ArenaOptions,
    model: &Model,
    t: &Task,
    format: &str,
    (num_ctx, tokenizer): (usize, patchbay::budget::tokens::Tokenizer),
    chat: &ChatOptions,
) -> RunScore {
    let mut s = RunScore {
        task: t.name.clone(),
        model: model.name.clone(),
        format: format.to_owned(),
        ..RunScore::default()
    };
    let cfg = LoopConfig {
        task: t.task.clone(),
        format: format.to_owned(),
        context_length: num_ctx,
        reply_limit: o.reply_limit,
        rounds: o.rounds,
        early_stop: o.early_stop,
        tokenizer,
        ..LoopConfig::default()
    };
    let started = Instant::now();
    let mut lp = match EditLoop::new(cfg, t.before.clone()) {
        Ok(l) => l,
        Err(e) => {
            s.error = Some(e.to_string());
            return s;
        }
    };
    let result = drive(&mut lp, model, chat, &mut |_| Ok(()), Show::Quiet);
    s.wall_ms = started.elapsed().as_millis() as u64;
    match result {
        Ok(outcomes) => score(&mut s, &outcomes),
        Err(e) => s.error = Some(e),
    }
    s.matches_expected = s.error.is_none() && *lp.files() == t.after;
    s
}

fn score(s: &mut RunScore, outcomes: &[Outcome]) {
    let records: Vec<&RoundRecord> = outcomes.iter().map(|o| &o.record).collect();
    s.rounds = records.len();
    s.applied = outcomes
        .last()
        .is_some_and(|o| o.decision == Decision::Done);
    s.applied_first_round = s.applied && s.rounds == 1;
    s.well_formed = records.first().is_some_and(|r| well_formed(r));
    s.prompt_tokens = records.iter().filter_map(|r| r.ending.prompt_tokens).sum();
    s.output_tokens = records.iter().filter_map(|r| r.ending.output_tokens).sum();
    s.early_stops = records.iter().filter(|r| r.early_stop).count();
    s.truncations = records.iter().filter(|r| r.cut).count();
}

/// A reply is well-formed when it was not cut, held edits, and none of
/// them was unreadable.
fn well_formed(r: &RoundRecord) -> bool {
    let bad =
        |c: Option<Code>| matches!(c, Some(Code::Malformed | Code::Truncated | Code::NoEdits));
    if r.cut {
        return false;
    }
    match &r.report {
        Some(rep) => !bad(rep.code) && !rep.receipts().iter().any(|x| bad(x.code)),
        None => !r.events.is_empty() && !r.events.iter().any(|e| bad(e.receipt.code)),
    }
}

/// Sums per model and format, in the order met.
pub fn summarize(scores: &[RunScore]) -> Vec<Summary> {
    let mut out: Vec<Summary> = vec![];
    for s in scores {
        let k = match out
            .iter()
            .position(|x| x.model == s.model && x.format == s.format)
        {
            Some(k) => k,
            None => {
                out.push(Summary {
                    model: s.model.clone(),
                    format: s.format.clone(),
                    ..Summary::default()
                });
                out.len() - 1
            }
        };
        let x = &mut out[k];
        x.runs += 1;
        x.well_formed += usize::from(s.well_formed);
        x.applied_first_round += usize::from(s.applied_first_round);
        x.applied += usize::from(s.applied);
        x.matches_expected += usize::from(s.matches_expected);
        x.rounds += s.rounds;
        x.prompt_tokens += s.prompt_tokens;
        x.output_tokens += s.output_tokens;
        x.early_stops += s.early_stops;
        x.truncations += s.truncations;
        x.errors += usize::from(s.error.is_some());
        x.wall_ms += s.wall_ms;
    }
    out
}

/// The Markdown table: one row per model and format.
pub fn markdown(rows: &[Summary]) -> String {
    let mut md = String::from("| model | format | runs | well-formed | applied 1st round | applied | expected result | mean rounds | prompt tokens | output tokens | early stops | truncations | errors | mean wall s |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        let mean = |n: usize| {
            if r.runs == 0 {
                0.0
            } else {
                n as f64 / r.runs as f64
            }
        };
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {:.2} |\n",
            r.model,
            r.format,
            r.runs,
            r.well_formed,
            r.applied_first_round,
            r.applied,
            r.matches_expected,
            mean(r.rounds),
            r.prompt_tokens,
            r.output_tokens,
            r.early_stops,
            r.truncations,
            r.errors,
            mean(r.wall_ms as usize) / 1000.0
        ));
    }
    md
}

/// The task folders of `dir`: `task.json`, `before/`, `after/`.
fn load_tasks(dir: &Path) -> Result<Vec<Task>, String> {
    let list = fs::read_dir(dir).map_err(|e| format!("--tasks {}: {e}", dir.display()))?;
    let mut names: Vec<String> = list
        .flatten()
        .filter(|e| e.path().join("task.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let d = dir.join(&name);
            let meta = fs::read_to_string(d.join("task.json"))
                .map_err(|e| format!("{name}/task.json: {e}"))?;
            let meta: serde_json::Value =
                serde_json::from_str(&meta).map_err(|e| format!("{name}/task.json: {e}"))?;
            let task = meta["task"]
                .as_str()
                .ok_or_else(|| format!("{name}/task.json: no \"task\" text"))?
                .to_owned();
            let before = read_tree(&d.join("before"))?;
            let after = if d.join("after").is_dir() {
                read_tree(&d.join("after"))?
            } else {
                before.clone()
            };
            Ok(Task {
                name,
                task,
                before,
                after,
            })
        })
        .collect()
}

/// Every file under `dir`, by its `/`-separated path relative to it.
fn read_tree(dir: &Path) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let list = fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for e in list.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p
                .strip_prefix(dir)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            let bytes = fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            out.insert(rel.clone(), crate::fsio::editable_text(bytes, &rel)?);
        }
    }
    Ok(out)
}
