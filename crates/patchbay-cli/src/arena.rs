//! `patchbay arena`: one task set across models, edit formats and trials,
//! each run through the same edit loop as `run` (in memory: nothing is
//! written), scored, and summed up per model and format in JSON and
//! Markdown. This is how a user finds out which format their model handles.
//! The scoring is the core's (`patchbay::edit_loop::arena`, shared with the
//! page); this file loads the tasks, drives the runs over HTTP and writes
//! the files.

use crate::http::Model;
use crate::run::{default_url, drive, Show};
use crate::term::shown;
use crate::Failure;
use patchbay::edit_loop::arena::{self, Results, RunScore};
use patchbay::edit_loop::wire::{ollama, ChatOptions, Provider};
use patchbay::edit_loop::{EditLoop, LoopConfig};
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
    pub max_reply_bytes: Option<usize>,
    pub idle_timeout: std::time::Duration,
    pub seed: u64,
    pub think: bool,
    pub early_stop: bool,
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
        let model = Model::new(url, o.provider, name, o.idle_timeout);
        let facts = model.facts().map_err(Failure::Io)?;
        let ctx =
            patchbay::edit_loop::wire::choose_context(o.provider, o.num_ctx, facts.context_length);
        if let Some(w) = &ctx.warning {
            eprintln!("patchbay: warning: {}: {}", shown(name), shown(w));
        }
        let num_ctx = ctx.num_ctx;
        let think = ollama::think_for(&facts.capabilities, o.think);
        if let Some(n) = &facts.note {
            eprintln!("patchbay: note: {}", shown(n));
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
                    eprintln!(
                        "{} {} {} #{}: {}",
                        shown(name),
                        f,
                        shown(&t.name),
                        trial + 1,
                        shown(&arena::verdict(&s))
                    );
                    scores.push(RunScore {
                        trial: trial + 1,
                        seed,
                        ..s
                    });
                }
            }
        }
    }
    let results = Results::new(scores);
    let md = arena::markdown(&results.summary);
    let write = |p: &Path, text: &str| {
        fs::write(p, text).map_err(|e| Failure::Io(format!("cannot write {}: {e}", p.display())))
    };
    write(
        &o.out,
        &format!(
            "{}\n",
            serde_json::to_string_pretty(&results).unwrap_or_default()
        ),
    )?;
    write(
        &o.summary
            .clone()
            .unwrap_or_else(|| o.out.with_extension("md")),
        &md,
    )?;
    crate::out(&shown(&md));
    Ok(0)
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
        max_reply_bytes: o.max_reply_bytes,
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
    s.error = result.err();
    arena::score(s, &lp, Some(&t.after))
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
