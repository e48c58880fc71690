//! The planner's greedy fill, tier by tier (see the module docs of
//! [`super`]). Each candidate is priced as the token count of the file's
//! excerpt with it added, exact for the chosen tokenizer; [`Pricer`] keeps
//! the excerpt's tallies, so a price costs `O(section)` and the fill is
//! linear in the file.

use super::price::Pricer;
use super::select::{self, Score};
use super::{
    chosen, line_index, FilePlan, Part, Plan, PlanError, PlanOptions, PlannedSection, Request,
    Totals,
};
use crate::reading::counts::output_size_warning;
use std::collections::BTreeSet;

/// How a candidate is priced: from the excerpt's tallies, or (the
/// reference the tests hold them to) by rendering and counting it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pricing {
    Tallies,
    #[cfg(test)]
    Rendered,
}

struct FileState<'a> {
    path: &'a str,
    lines: Vec<&'a str>,
    full_tokens: usize,
    index: Vec<PlannedSection>,
    scores: Vec<Score>,
    /// Sections the task matches, best first.
    ranked: Vec<usize>,
    /// The first line of each section, and the selected sections the task
    /// asked for (scored above 0), which neighbours are measured from.
    first_lines: Vec<usize>,
    anchors: BTreeSet<usize>,
    tokens: usize,
    options: &'a PlanOptions,
    pricer: Pricer,
    pricing: Pricing,
    /// Whether the whole file was too big for what was left (a small file
    /// sent as sections).
    trimmed_from: Option<usize>,
}

impl FileState<'_> {
    fn ranges(&self, set: &BTreeSet<usize>) -> Vec<(usize, usize)> {
        let sections: Vec<_> = self.index.iter().map(|p| p.section.clone()).collect();
        select::ranges(&sections, set)
    }

    fn render(&self, set: &BTreeSet<usize>) -> String {
        select::render(
            self.path,
            &self.lines,
            &self.ranges(set),
            self.options.line_numbers,
        )
    }

    /// Tokens of the excerpt with `k` added.
    fn cost_with(&self, k: usize) -> usize {
        let s = &self.index[k].section;
        match self.pricing {
            Pricing::Tallies => self.pricer.cost_with(s.start_line, s.end_line),
            #[cfg(test)]
            Pricing::Rendered => {
                let mut set = chosen(&self.index);
                set.insert(k);
                self.options.tokenizer.count(&self.render(&set))
            }
        }
    }

    /// The sections just before and after each selected run (the runs of
    /// the excerpt, looked up by line: sections cover the file in order).
    fn run_neighbours(&self) -> BTreeSet<usize> {
        let n = self.lines.len();
        let at = |line: usize| self.first_lines.partition_point(|&s| s <= line) - 1;
        let mut cands = BTreeSet::new();
        for (a, b) in self.pricer.runs() {
            if a > 1 {
                cands.insert(at(a - 1));
            }
            if b < n {
                cands.insert(at(b + 1));
            }
        }
        cands
    }

    /// [`FileState::run_neighbours`] and the anchors by a scan of every
    /// section (the reference).
    #[cfg(test)]
    fn scanned_neighbours(&self) -> (BTreeSet<usize>, BTreeSet<usize>) {
        let sel = chosen(&self.index);
        let mut cands = BTreeSet::new();
        for &k in &sel {
            if k > 0 && !sel.contains(&(k - 1)) {
                cands.insert(k - 1);
            }
            if k + 1 < self.index.len() && !sel.contains(&(k + 1)) {
                cands.insert(k + 1);
            }
        }
        let anchors = sel.into_iter().filter(|&k| self.scores[k].score > 0.0);
        (cands, anchors.collect())
    }

    fn select(&mut self, k: usize, tokens: usize, reason: String) {
        let s = &self.index[k].section;
        self.pricer.add(s.start_line, s.end_line);
        if self.scores[k].score > 0.0 {
            self.anchors.insert(k);
        }
        self.index[k].selected = true;
        if self.index[k].reason.is_empty() {
            self.index[k].reason = reason;
        }
        self.tokens = tokens;
    }
}

/// Replaces a part of `old` tokens by one of `new` when the room `left`
/// allows; an excerpt can shrink when a section joins two runs.
fn take(left: &mut usize, old: usize, new: usize) -> bool {
    if new <= old + *left {
        *left = *left + old - new;
        true
    } else {
        false
    }
}

fn part(kind: &str, name: &str, tokens: usize, status: &str, reason: String) -> Part {
    Part {
        kind: kind.into(),
        name: name.into(),
        tokens,
        status: status.into(),
        reason,
    }
}

pub(super) fn run(req: &Request, pricing: Pricing) -> Result<Plan, PlanError> {
    let opt = &req.options;
    let tok = opt.tokenizer;
    let window = req.window;
    let (system, task) = (tok.count(&req.system), tok.count(&req.task));
    let fixed = system + task + req.reserve + opt.overhead;
    let mut parts = fixed_parts(req, system, task)?;
    let terms = select::terms(&req.task);
    let mut warnings = vec![];
    let mut files: Vec<FileState> = req
        .files
        .iter()
        .map(|f| file_state(f, &terms, req, pricing))
        .collect();

    // 1. The minimum: each file's target section.
    let (need, mins) = reserve_targets(&mut files, &mut warnings);
    let need = fixed + need;
    if need > window {
        return Err(PlanError::DoesNotFit {
            need,
            window,
            message: format!(
                "even the minimum does not fit: system prompt ({system}) + task ({task}) + reply reserve ({}) + target sections [{}] need {need} tokens, more than the window of {window}",
                req.reserve + opt.overhead,
                mins.join(", ")
            ),
        });
    }
    let mut left = window - need;

    // 2. The code the task wants.
    for f in &mut files {
        add_wanted(f, req, &mut left);
    }

    // 3. Memory, newest first; 4. context, in order.
    let (memory_kept, context_kept) = add_notes(req, &mut left, &mut parts);

    // 5. Sections that use the task's identifiers, then neighbours of what
    // was chosen, until the budget is spent.
    for f in &mut files {
        add_the_rest(f, &mut left);
    }

    let mut out_files = vec![];
    let mut code = 0;
    for f in files {
        code += f.tokens;
        let (file, p) = file_plan(f, req, &mut warnings);
        parts.push(p);
        out_files.push(file);
    }
    if let Some(e) = opt.expected_output {
        warnings.extend(output_size_warning(e.per_item, e.items, req.reserve));
    }
    let totals = Totals {
        system,
        task,
        reserve: req.reserve,
        overhead: opt.overhead,
        memory: memory_kept,
        context: context_kept,
        code,
        free: left,
        code_budget: window - fixed - memory_kept - context_kept,
    };
    Ok(Plan {
        window,
        tokenizer: tok,
        totals,
        parts,
        files: out_files,
        warnings,
    })
}

/// The parts that are always kept (system prompt, task, reply reserve, the
/// chat template's overhead), or why they alone do not fit.
fn fixed_parts(req: &Request, system: usize, task: usize) -> Result<Vec<Part>, PlanError> {
    let opt = &req.options;
    let window = req.window;
    let fixed = system + task + req.reserve + opt.overhead;
    let mut parts = vec![
        part("system", "system prompt", system, "kept", String::new()),
        part("task", "task", task, "kept", String::new()),
        part(
            "reserve",
            "reply reserve",
            req.reserve,
            "kept",
            String::new(),
        ),
    ];
    if opt.overhead > 0 {
        parts.push(part(
            "overhead",
            "chat template",
            opt.overhead,
            "kept",
            String::new(),
        ));
    }
    if fixed > window {
        return Err(PlanError::DoesNotFit {
            need: fixed,
            window,
            message: format!(
                "the system prompt ({system}), task ({task}) and reply reserve ({}) need {fixed} tokens, more than the window of {window}",
                req.reserve + opt.overhead
            ),
        });
    }
    Ok(parts)
}

/// Steps 3 and 4: memory, newest first, then context in order. Each stops
/// at the first entry that does not fit, so what goes is the oldest memory
/// and the last context. The tokens of memory and of context kept.
fn add_notes(req: &Request, left: &mut usize, parts: &mut Vec<Part>) -> (usize, usize) {
    let tok = req.options.tokenizer;
    let memory: Vec<(String, usize)> = (req.memory.iter().enumerate().rev())
        .map(|(i, m)| {
            (
                format!("memory {} of {}", i + 1, req.memory.len()),
                tok.count(m),
            )
        })
        .collect();
    let (memory_kept, mut mem_parts) = fit_in_order(
        "memory",
        &memory,
        left,
        "older than a memory entry that did not fit (oldest go first)",
        "were left after the code (memory goes before code; oldest first)",
    );
    mem_parts.reverse();
    let context: Vec<(String, usize)> = (req.context.iter())
        .map(|c| (c.name.clone(), tok.count(&c.text)))
        .collect();
    let (context_kept, context_parts) = fit_in_order(
        "context",
        &context,
        left,
        "after a context entry that did not fit",
        "were left after the code and memory (folder context goes first)",
    );
    parts.extend(context_parts);
    parts.extend(mem_parts);
    (memory_kept, context_kept)
}

/// A file's line index, its sections scored against the task and ranked:
/// best first; among equals, nearest the best (the target) first, so that
/// what is added around it stays in one piece.
fn file_state<'a>(
    f: &'a super::FileInput,
    terms: &select::Terms,
    req: &'a Request,
    pricing: Pricing,
) -> FileState<'a> {
    let tok = req.options.tokenizer;
    let lines: Vec<&str> = f.text.lines().collect();
    let index = line_index(&f.path, &f.text, f.sections.clone(), tok);
    let sections: Vec<_> = index.iter().map(|p| p.section.clone()).collect();
    let scores = select::score(&sections, &lines, terms);
    let mut ranked: Vec<usize> = (0..index.len())
        .filter(|&k| scores[k].score > 0.0)
        .collect();
    let best = ranked
        .iter()
        .copied()
        .max_by(|&a, &b| scores[a].score.total_cmp(&scores[b].score).then(b.cmp(&a)));
    let dist = |k: usize| best.map_or(k, |t| k.abs_diff(t));
    crate::order::sort_by(&mut ranked[..], |&a, &b| {
        scores[b]
            .score
            .total_cmp(&scores[a].score)
            .then(dist(a).cmp(&dist(b)))
            .then(a.cmp(&b))
    });
    let pricer = Pricer::new(&f.path, &lines, req.options.line_numbers, tok);
    FileState {
        path: &f.path,
        full_tokens: pricer.whole(),
        options: &req.options,
        pricer,
        pricing,
        lines,
        index,
        first_lines: sections.iter().map(|s| s.start_line).collect(),
        anchors: BTreeSet::new(),
        scores,
        ranked,
        tokens: 0,
        trimmed_from: None,
    }
}

/// Step 1: each file's target section (a file without sections whole);
/// the tokens they need and a description of each target.
fn reserve_targets(files: &mut [FileState], warnings: &mut Vec<String>) -> (usize, Vec<String>) {
    let mut need = 0;
    let mut mins = vec![];
    for f in files {
        if f.index.is_empty() {
            f.tokens = f.full_tokens;
            need += f.tokens;
            continue;
        }
        let (target, reason) = match f.ranked.first() {
            Some(&k) => (k, format!("target: {}", f.scores[k].reason)),
            None => {
                warnings.push(format!(
                    "the task names nothing in {}: its first section of code stands in as the target",
                    f.path
                ));
                let k = f
                    .index
                    .iter()
                    .position(|p| !matches!(p.section.kind.as_str(), "imports" | "comment"))
                    .unwrap_or(0);
                (
                    k,
                    "target: first section of code (the task names nothing here)".into(),
                )
            }
        };
        let cost = f.cost_with(target);
        f.select(target, cost, reason);
        need += cost;
        let s = &f.index[target].section;
        mins.push(format!(
            "{} lines {}-{} ({cost})",
            f.path, s.start_line, s.end_line
        ));
    }
    (need, mins)
}

/// Step 2: a file under the line-index threshold whole, if it fits; else
/// the sections the task names strongly.
fn add_wanted(f: &mut FileState, req: &Request, left: &mut usize) {
    if f.index.is_empty() {
        return;
    }
    if f.lines.len() <= req.options.index_threshold {
        if take(left, f.tokens, f.full_tokens) {
            for k in 0..f.index.len() {
                f.select(k, f.full_tokens, "part of a file sent whole".into());
            }
            return;
        }
        f.trimmed_from = Some(*left + f.tokens);
    }
    for k in f.ranked.clone() {
        if f.index[k].selected || !f.scores[k].strong {
            continue;
        }
        let cost = f.cost_with(k);
        if take(left, f.tokens, cost) {
            let reason = f.scores[k].reason.clone();
            f.select(k, cost, reason);
        }
    }
}

/// Entries `(name, tokens)` kept in order while they fit; from the first
/// that does not, every later one is dropped too (`after` says why; `short`
/// ends the first one's reason). The tokens kept and a part per entry.
fn fit_in_order(
    kind: &str,
    entries: &[(String, usize)],
    left: &mut usize,
    after: &str,
    short: &str,
) -> (usize, Vec<Part>) {
    let mut kept = 0;
    let mut parts = vec![];
    let mut stopped = false;
    for (name, t) in entries {
        let t = *t;
        if !stopped && t <= *left {
            *left -= t;
            kept += t;
            parts.push(part(kind, name, t, "kept", String::new()));
        } else {
            let why = if stopped {
                after.to_string()
            } else {
                format!("needs {t} tokens, {left} {short}")
            };
            stopped = true;
            parts.push(part(kind, name, t, "dropped", why));
        }
    }
    (kept, parts)
}

/// Step 5: the other sections that use the task's identifiers, then the
/// neighbours of what was chosen, while they fit.
fn add_the_rest(f: &mut FileState, left: &mut usize) {
    for k in f.ranked.clone() {
        if f.index[k].selected {
            continue;
        }
        let cost = f.cost_with(k);
        if take(left, f.tokens, cost) {
            let reason = f.scores[k].reason.clone();
            f.select(k, cost, reason);
        }
    }
    while let Some((k, cost)) = next_neighbour(f, *left) {
        take(left, f.tokens, cost);
        f.select(k, cost, "next to the selected sections".into());
    }
}

/// What is sent of one file, and its part of the plan with the reason.
fn file_plan(f: FileState, req: &Request, warnings: &mut Vec<String>) -> (FilePlan, Part) {
    let opt = &req.options;
    let set = chosen(&f.index);
    let ranges = if f.index.is_empty() {
        vec![]
    } else {
        f.ranges(&set)
    };
    let whole = f.index.is_empty() || ranges == [(1, f.lines.len())];
    let reason = if whole {
        if let Some(w) = output_size_warning(f.full_tokens, 1, req.reserve) {
            warnings.push(format!("if the model rewrites {} whole: {w}", f.path));
        }
        String::new()
    } else if let Some(room) = f.trimmed_from {
        format!(
            "trimmed to the sections the task needs: the whole file needs {} tokens, {room} were left for it",
            f.full_tokens
        )
    } else {
        format!(
            "{} lines, over the line-index threshold of {}: sent the sections the task needs and their neighbours ({} of {} tokens)",
            f.lines.len(),
            opt.index_threshold,
            f.tokens,
            f.full_tokens
        )
    };
    let status = if whole { "kept" } else { "trimmed" };
    let p = part("file", f.path, f.tokens, status, reason);
    let excerpt = f.render(&set);
    let plan = FilePlan {
        path: f.path.to_string(),
        lines: f.lines.len(),
        full_tokens: f.full_tokens,
        tokens: f.tokens,
        mode: if whole {
            super::FileMode::Whole
        } else {
            super::FileMode::Sections
        },
        ranges,
        index: f.index,
        excerpt,
    };
    (plan, p)
}

/// The unselected section next to the selection that fits in `left`:
/// candidates are the sections just before and after each selected run,
/// the better scored first, then the nearest to what the task asked for
/// (in sections, so the context grows on both sides of the target in
/// turn), then the earlier. Returns it and the new excerpt cost.
fn next_neighbour(f: &FileState, left: usize) -> Option<(usize, usize)> {
    #[cfg(test)]
    let scanned;
    let (cands, anchors) = match f.pricing {
        Pricing::Tallies => (f.run_neighbours(), &f.anchors),
        #[cfg(test)]
        Pricing::Rendered => {
            let (cands, anchors) = f.scanned_neighbours();
            scanned = anchors;
            (cands, &scanned)
        }
    };
    let dist = |k: usize| {
        let below = anchors.range(..=k).next_back().map(|&a| k - a);
        let above = anchors.range(k..).next().map(|&a| a - k);
        below.into_iter().chain(above).min().unwrap_or(0)
    };
    let mut cands: Vec<usize> = cands.into_iter().collect();
    crate::order::sort_by(&mut cands[..], |&a, &b| {
        f.scores[b]
            .score
            .total_cmp(&f.scores[a].score)
            .then(dist(a).cmp(&dist(b)))
            .then(a.cmp(&b))
    });
    cands
        .into_iter()
        .map(|k| (k, f.cost_with(k)))
        .find(|&(_, cost)| cost <= f.tokens + left)
}
