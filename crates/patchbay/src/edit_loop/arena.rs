//! The format arena's scoring: what one run of the edit loop (a task, a
//! model, a format, a trial) earned, and the sums per model and format.
//! Written once for the CLI's `patchbay arena` and the page's arena panel;
//! they only load the tasks, move bytes and write the results.

use super::{Decision, EditLoop, RoundRecord};
use crate::edit::Code;
use crate::formats::FormatName;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The scores of one run. The caller fills which run it was (task, model,
/// format, trial, seed), its wall time and the error that ended it, if
/// any; [`score`] fills the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct RunScore {
    pub task: String,
    pub model: String,
    #[cfg_attr(feature = "ts", ts(type = "FormatName"))]
    pub format: FormatName,
    pub trial: usize,
    pub seed: u64,
    /// The first reply held edits and none was malformed or cut.
    pub well_formed: bool,
    pub applied_first_round: bool,
    /// The loop ended done, in any round.
    pub applied: bool,
    pub rounds: usize,
    /// The files equal the task's expected files.
    pub matches_expected: bool,
    /// The server's counts, summed over rounds (where it gave them).
    pub prompt_tokens: usize,
    pub output_tokens: usize,
    pub wall_ms: u64,
    pub early_stops: usize,
    pub truncations: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
}

/// The sums of one model and format.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ArenaSummary"))]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub model: String,
    #[cfg_attr(feature = "ts", ts(type = "FormatName"))]
    pub format: FormatName,
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

impl Summary {
    /// Rounds per run (0 without runs).
    pub fn mean_rounds(&self) -> f64 {
        per_run(self.rounds as f64, self.runs)
    }

    /// Wall seconds per run (0 without runs).
    pub fn mean_wall_seconds(&self) -> f64 {
        per_run(self.wall_ms as f64 / 1000.0, self.runs)
    }
}

fn per_run(total: f64, runs: usize) -> f64 {
    if runs == 0 {
        0.0
    } else {
        total / runs as f64
    }
}

/// An arena's results as `patchbay arena --out` writes them and the page
/// downloads them: every run, then the sums.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ArenaResults"))]
pub struct Results {
    pub runs: Vec<RunScore>,
    pub summary: Vec<Summary>,
}

impl Results {
    pub fn new(runs: Vec<RunScore>) -> Results {
        let summary = summarize(&runs);
        Results { runs, summary }
    }
}

/// `run` scored from the loop as it ended against the task's `expected`
/// files (none: a task without an expected result never matches). A run
/// that ended in an error (the transport's) scores nothing but its wall
/// time and the error.
pub fn score(
    run: RunScore,
    lp: &EditLoop,
    expected: Option<&BTreeMap<String, String>>,
) -> RunScore {
    if run.error.is_some() {
        return RunScore {
            matches_expected: false,
            ..run
        };
    }
    let mut s = score_rounds(run, lp.records());
    s.matches_expected = expected.is_some_and(|e| lp.files() == e);
    s
}

/// What the rounds' records say: rounds, applied, well-formed, tokens,
/// early stops, cuts.
fn score_rounds(run: RunScore, records: &[RoundRecord]) -> RunScore {
    let applied = records.last().is_some_and(|r| r.decision == Decision::Done);
    RunScore {
        rounds: records.len(),
        applied,
        applied_first_round: applied && records.len() == 1,
        well_formed: records.first().is_some_and(well_formed),
        prompt_tokens: records.iter().filter_map(|r| r.ending.prompt_tokens).sum(),
        output_tokens: records.iter().filter_map(|r| r.ending.output_tokens).sum(),
        early_stops: records.iter().filter(|r| r.early_stop).count(),
        truncations: records.iter().filter(|r| r.cut).count(),
        ..run
    }
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

/// One line on a run's result, for progress.
pub fn verdict(s: &RunScore) -> String {
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
                    format: s.format,
                    ..Summary::default()
                });
                out.len() - 1
            }
        };
        add(&mut out[k], s);
    }
    out
}

fn add(x: &mut Summary, s: &RunScore) {
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

/// The Markdown table: one row per model and format.
pub fn markdown(rows: &[Summary]) -> String {
    let mut md = String::from("| model | format | runs | well-formed | applied 1st round | applied | expected result | mean rounds | prompt tokens | output tokens | early stops | truncations | errors | mean wall s |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {:.2} |\n",
            r.model,
            r.format,
            r.runs,
            r.well_formed,
            r.applied_first_round,
            r.applied,
            r.matches_expected,
            r.mean_rounds(),
            r.prompt_tokens,
            r.output_tokens,
            r.early_stops,
            r.truncations,
            r.errors,
            r.mean_wall_seconds()
        ));
    }
    md
}

#[cfg(test)]
mod tests;
