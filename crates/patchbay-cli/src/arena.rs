//! `patchbay arena`: one task set across models, edit formats and trials,
//! each run through the same edit loop as `run` (in memory: nothing is
//! written), scored, and summed up per model and format in JSON and
//! Markdown. This is how a user finds out which format their model handles.
//! The scoring is the core's (`patchbay::edit_loop::arena`, shared with the
//! page); this file loads the tasks, drives the runs over HTTP and writes
//! the files.

use crate::args::ArenaArgs;
use crate::http::Model;
use crate::run::{drive, Show};
use crate::term::shown;
use crate::Failure;
use patchbay::edit_loop::arena::{self, Results, RunScore};
use patchbay::edit_loop::wire::{ollama, ChatOptions};
use patchbay::edit_loop::{EditLoop, LoopConfig};
use patchbay::FormatName;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::Instant;

struct Task {
    name: String,
    task: String,
    before: BTreeMap<String, String>,
    after: BTreeMap<String, String>,
}

pub fn run(o: &ArenaArgs) -> Result<i32, Failure> {
    let s = &o.server;
    let formats: Vec<FormatName> = match o.formats.is_empty() {
        true => patchbay::formats::all().iter().map(|f| f.id()).collect(),
        false => o.formats.clone(),
    };
    let tasks = load_tasks(&o.tasks).map_err(Failure::Io)?;
    if tasks.is_empty() {
        return Err(Failure::Io(format!(
            "no task folders (with a task.json) in {}",
            o.tasks.display()
        )));
    }
    let mut scores = vec![];
    for name in &o.models {
        let model = Model::new(s.address(), s.provider, name, s.idle_timeout);
        let facts = model.facts().map_err(Failure::Io)?;
        let ctx =
            patchbay::edit_loop::wire::choose_context(s.provider, s.num_ctx, facts.context_length);
        if let Some(w) = &ctx.warning {
            eprintln!("patchbay: warning: {}: {}", shown(name), shown(w));
        }
        let num_ctx = ctx.num_ctx;
        let think = ollama::think_for(&facts.capabilities, s.think);
        if let Some(n) = &facts.note {
            eprintln!("patchbay: note: {}", shown(n));
        }
        for t in &tasks {
            for &f in &formats {
                for trial in 0..o.trials {
                    let seed = o.seed + trial as u64;
                    let chat = ChatOptions {
                        seed: Some(seed),
                        think,
                        ..ChatOptions::default()
                    };
                    let cfg = s.loop_config(&t.task, f, num_ctx, facts.tokenizer);
                    let score = one_run(cfg, &model, t, &chat);
                    eprintln!(
                        "{} {} {} #{}: {}",
                        shown(name),
                        f,
                        shown(&t.name),
                        trial + 1,
                        shown(&arena::verdict(&score))
                    );
                    scores.push(RunScore {
                        trial: trial as usize + 1,
                        seed,
                        ..score
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
fn one_run(cfg: LoopConfig, model: &Model, t: &Task, chat: &ChatOptions) -> RunScore {
    let mut s = RunScore {
        task: t.name.clone(),
        model: model.name.clone(),
        format: cfg.format,
        ..RunScore::default()
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
