//! The arena's scores of loops driven by hand-written replies; every
//! expected figure is written out from what the replies are.

use super::*;
use crate::edit_loop::wire::Ending;
use crate::edit_loop::LoopConfig;

const APP: &str = "def greet(name):\n    print(\"Hello, \" + name)\n";
const DONE: &str = "def greet(name):\n    print(\"Hello, \" + name + \"!\")\n";
const GOOD: &str = "app.py\n<<<<<<< SEARCH\n    print(\"Hello, \" + name)\n=======\n    print(\"Hello, \" + name + \"!\")\n>>>>>>> REPLACE\n";
const MISSING: &str =
    "app.py\n<<<<<<< SEARCH\n    print(\"Bye\")\n=======\n    print(\"Bye!\")\n>>>>>>> REPLACE\n";

fn files(text: &str) -> BTreeMap<String, String> {
    BTreeMap::from([("app.py".to_string(), text.to_string())])
}

fn new_loop() -> EditLoop {
    let cfg = LoopConfig {
        task: "End the greeting with an exclamation mark.".into(),
        format: crate::FormatName::SearchReplace,
        context_length: 4096,
        reply_limit: 512,
        rounds: 3,
        ..LoopConfig::default()
    };
    EditLoop::new(cfg, files(APP)).unwrap()
}

/// An ending with the server's counts; `reason` `stop` or `length`.
fn ending(reason: &str, prompt: usize, output: usize) -> Ending {
    Ending {
        prompt_tokens: Some(prompt),
        output_tokens: Some(output),
        ..Ending::finished_with(reason)
    }
}

/// Runs the loop over `replies` (text, reason), stopping a reply when the
/// loop says so, and scores it against `expected`.
fn scored(replies: &[(&str, &str)], expected: &str) -> RunScore {
    let mut lp = new_loop();
    for (text, reason) in replies {
        lp.next_request().expect("a round");
        for line in text.split_inclusive('\n') {
            if lp.push(line).stop {
                break;
            }
        }
        lp.end(&ending(reason, 100, 10));
    }
    let run = RunScore {
        task: "t".into(),
        model: "m".into(),
        format: crate::FormatName::SearchReplace,
        trial: 1,
        wall_ms: 7,
        ..RunScore::default()
    };
    score(run, &lp, Some(&files(expected)))
}

/// (well-formed, applied first round, applied, rounds, expected result,
/// prompt tokens, output tokens, early stops, truncations).
fn figures(s: &RunScore) -> (bool, bool, bool, usize, bool, usize, usize, usize, usize) {
    (
        s.well_formed,
        s.applied_first_round,
        s.applied,
        s.rounds,
        s.matches_expected,
        s.prompt_tokens,
        s.output_tokens,
        s.early_stops,
        s.truncations,
    )
}

#[test]
fn the_right_edit_at_once_scores_everything() {
    let s = scored(&[(GOOD, "stop")], DONE);
    assert_eq!(figures(&s), (true, true, true, 1, true, 100, 10, 0, 0));
    assert_eq!((s.task.as_str(), s.trial, s.wall_ms), ("t", 1, 7));
}

#[test]
fn a_reply_without_edits_then_the_edit_is_applied_but_not_well_formed() {
    let s = scored(&[("I will do it.\n", "stop"), (GOOD, "stop")], DONE);
    assert_eq!(figures(&s), (false, false, true, 2, true, 200, 20, 0, 0));
}

#[test]
fn a_cut_reply_counts_a_truncation() {
    let s = scored(&[("Let me look first", "length"), (GOOD, "stop")], DONE);
    assert_eq!(figures(&s), (false, false, true, 2, true, 200, 20, 0, 1));
}

#[test]
fn a_failing_first_edit_is_well_formed_and_stopped_early() {
    let first = format!("{MISSING}{GOOD}");
    let s = scored(&[(&first, "stop"), (GOOD, "stop")], DONE);
    // The stopped reply ended unread: only the second round's counts.
    assert_eq!(figures(&s), (true, false, true, 2, true, 100, 10, 1, 0));
}

#[test]
fn three_refusals_apply_nothing() {
    let no = ("I cannot.\n", "stop");
    let s = scored(&[no, no, no], DONE);
    assert_eq!(figures(&s), (false, false, false, 3, false, 300, 30, 0, 0));
}

#[test]
fn an_applied_edit_with_another_result_does_not_match() {
    let s = scored(&[(GOOD, "stop")], APP);
    assert_eq!(figures(&s), (true, true, true, 1, false, 100, 10, 0, 0));
}

#[test]
fn a_run_ended_by_an_error_scores_only_its_error() {
    let mut lp = new_loop();
    lp.next_request();
    let run = RunScore {
        error: Some("connection refused".into()),
        wall_ms: 3,
        ..RunScore::default()
    };
    let s = score(run.clone(), &lp, Some(&files(APP)));
    assert_eq!(s, run);
    assert_eq!(verdict(&s), "error: connection refused");
}

#[test]
fn a_task_without_an_expected_result_never_matches() {
    let mut lp = new_loop();
    lp.next_request();
    lp.push(GOOD);
    lp.end(&ending("stop", 1, 1));
    let s = score(RunScore::default(), &lp, None);
    assert_eq!((s.applied, s.matches_expected), (true, false));
}

#[test]
fn verdicts_name_the_result() {
    let s = scored(&[(GOOD, "stop")], DONE);
    assert_eq!(verdict(&s), "expected result in 1 round(s)");
    let s = scored(&[(GOOD, "stop")], APP);
    assert_eq!(
        verdict(&s),
        "applied, but not the expected result (1 round(s))"
    );
}

fn run(model: &str, format: &str, applied: bool, rounds: usize, wall_ms: u64) -> RunScore {
    RunScore {
        model: model.into(),
        format: format.parse().unwrap(),
        well_formed: applied,
        applied_first_round: applied && rounds == 1,
        applied,
        matches_expected: applied,
        rounds,
        output_tokens: 5,
        wall_ms,
        ..RunScore::default()
    }
}

#[test]
fn sums_go_per_model_and_format_in_the_order_met() {
    let runs = vec![
        run("a", "udiff", true, 1, 1000),
        run("b", "udiff", false, 3, 500),
        run("a", "udiff", true, 2, 2000),
        run("a", "whole", true, 1, 10),
    ];
    let r = Results::new(runs.clone());
    assert_eq!(r.runs, runs);
    let keys: Vec<(&str, &str, usize)> = r
        .summary
        .iter()
        .map(|s| (s.model.as_str(), s.format.as_str(), s.runs))
        .collect();
    assert_eq!(
        keys,
        [("a", "udiff", 2), ("b", "udiff", 1), ("a", "whole", 1)]
    );
    let a = &r.summary[0];
    assert_eq!(
        (
            a.well_formed,
            a.applied_first_round,
            a.applied,
            a.rounds,
            a.output_tokens,
            a.wall_ms
        ),
        (2, 1, 2, 3, 10, 3000)
    );
    assert_eq!((a.mean_rounds(), a.mean_wall_seconds()), (1.5, 1.5));
    let md = markdown(&r.summary);
    assert!(
        md.contains("| a | udiff | 2 | 2 | 1 | 2 | 2 | 1.50 | 0 | 10 | 0 | 0 | 0 | 1.50 |\n"),
        "{md}"
    );
    assert!(
        md.contains("| b | udiff | 1 | 0 | 0 | 0 | 0 | 3.00 | 0 | 5 | 0 | 0 | 0 | 0.50 |\n"),
        "{md}"
    );
}

#[test]
fn the_results_json_has_the_runs_then_the_summary() {
    let r = Results::new(vec![run("a", "udiff", true, 1, 1)]);
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["runs"][0]["appliedFirstRound"], true);
    assert_eq!(v["summary"][0]["matchesExpected"], 1);
    assert!(v["runs"][0].get("error").is_none());
    // A run the page hands back (its JSON) reads as it was written.
    let back: RunScore = serde_json::from_value(v["runs"][0].clone()).unwrap();
    assert_eq!(back, r.runs[0]);
}
