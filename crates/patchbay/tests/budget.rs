//! The budget planner against an agent with an 8k window (system prompt,
//! reply reserve, memory, folder context, code) and the order in which it
//! gives things up: folder context, then memory (oldest first), then code.

use patchbay::budget::tokens::{estimate, Family};
use patchbay::budget::{
    line_index, plan, ExpectedOutput, FileInput, Named, PlanError, PlanOptions, Request, Section,
};

/// Prose of about `tokens` estimated tokens.
fn prose(tokens: usize, seed: &str) -> String {
    let sentences = [
        "You are a careful coding assistant that edits exactly one file.",
        "Answer with SEARCH/REPLACE blocks and nothing else.",
        "Keep the indentation and the line endings of the original file.",
        "Never invent functions that the file does not define.",
        "If the task is unclear, say so in one sentence.",
    ];
    let mut s = format!("{seed}\n");
    let mut i = 0;
    while estimate(&s, Family::O200k) < tokens {
        s.push_str(sentences[i % sentences.len()]);
        s.push(if i % 4 == 3 { '\n' } else { ' ' });
        i += 1;
    }
    s
}

/// A Rust file of `n` functions, each about 10 lines.
fn big_file(n: usize) -> String {
    let mut s = String::from("use std::collections::HashMap;\nuse std::fmt;\n\n");
    for k in 0..n {
        s.push_str(&format!(
            "/// Handles case {k}.\npub fn handler_{k}(input: &str, table: &mut HashMap<String, usize>) -> usize {{\n    let key = format!(\"{{}}-{k}\", input.trim());\n    let count = table.entry(key).or_insert(0);\n    *count += {k};\n    if *count > 100 {{\n        return *count / 2;\n    }}\n    *count\n}}\n\n"
        ));
    }
    s
}

fn memory() -> Vec<String> {
    (1..=4)
        .map(|i| prose(84, &format!("Memory {i}: the user prefers small diffs.")))
        .collect()
}

fn request(window: usize, file: String, task: &str) -> Request {
    Request {
        window,
        system: prose(1000, "System."),
        reserve: 2000,
        memory: memory(),
        context: vec![],
        task: task.into(),
        files: vec![FileInput {
            path: "src/handlers.rs".into(),
            text: file,
            sections: None,
        }],
        options: PlanOptions::default(),
    }
}

#[test]
fn an_agent_with_8192_tokens_keeps_its_memory_and_4800_for_code() {
    let file = big_file(80); // ~880 lines, ~8000 tokens: over the 150-line threshold
    let req = request(
        8192,
        file.clone(),
        "Fix the overflow in handler_17 when count passes 100",
    );
    let p = plan(&req).unwrap();
    let t = p.totals;
    assert!((990..=1020).contains(&t.system), "system {}", t.system);
    assert_eq!(t.reserve, 2000);
    // Four entries of ~90 tokens, all kept.
    assert!((340..=380).contains(&t.memory), "memory {}", t.memory);
    assert!(p
        .parts
        .iter()
        .filter(|x| x.kind == "memory")
        .all(|x| x.status == "kept"));
    // About 4800 left for code: 8192 less the system prompt, the reserve,
    // the memory and the task.
    assert!(
        (4750..=4850).contains(&t.code_budget),
        "code budget {}",
        t.code_budget
    );
    assert!(t.code <= t.code_budget);
    assert_eq!(
        t.system + t.task + t.reserve + t.memory + t.code + t.free,
        8192
    );
    // The file is indexed and sent as sections, the target among them.
    let f = &p.files[0];
    assert_eq!(f.mode, patchbay::budget::FileMode::Sections);
    assert!(f.lines > 150 && f.full_tokens > t.code_budget);
    let target = f
        .index
        .iter()
        .find(|s| s.section.name == "handler_17")
        .unwrap();
    assert!(
        target.selected && target.reason.starts_with("target"),
        "{target:?}"
    );
    assert!(f.excerpt.contains("pub fn handler_17("));
    // The excerpt carries original line numbers: the target's first line
    // is where the file has it.
    let line = file
        .lines()
        .position(|l| l.starts_with("pub fn handler_17("))
        .unwrap()
        + 1;
    assert!(f.ranges.iter().any(|&(a, b)| a <= line && line <= b));
    assert!(f.excerpt.contains(&format!("[lines {}-", f.ranges[0].0)));
    // The budget is spent: what is left is less than one more function.
    assert!(t.free < 200, "free {}", t.free);
    // Neighbours were added nearest first: the selection is one run.
    assert_eq!(f.ranges.len(), 1, "{:?}", f.ranges);
}

#[test]
fn folder_context_goes_first_then_memory_oldest_first_then_code() {
    let small = big_file(8); // ~90 lines: sent whole when it fits
    let mut req = request(8192, small, "Change handler_3");
    req.context = vec![
        Named {
            name: "src/ summary".into(),
            text: prose(300, "Folder src/ holds the handlers."),
        },
        Named {
            name: "project map".into(),
            text: prose(400, "Project map."),
        },
    ];
    // Plenty of room: everything kept.
    let p = plan(&req).unwrap();
    assert!(p.parts.iter().all(|x| x.status == "kept"), "{:?}", p.parts);
    assert_eq!(p.files[0].mode, patchbay::budget::FileMode::Whole);
    let code = p.totals.code;
    let all = 8192 - p.totals.free;

    // 500 tokens short: the project map (last context) goes, nothing else.
    req.window = all - 200;
    let p = plan(&req).unwrap();
    let status = |p: &patchbay::budget::Plan, name: &str| {
        p.parts
            .iter()
            .find(|x| x.name == name)
            .unwrap()
            .status
            .clone()
    };
    assert_eq!(status(&p, "project map"), "dropped");
    assert_eq!(status(&p, "src/ summary"), "kept");
    assert!(p
        .parts
        .iter()
        .filter(|x| x.kind == "memory")
        .all(|x| x.status == "kept"));
    let why = &p
        .parts
        .iter()
        .find(|x| x.name == "project map")
        .unwrap()
        .reason;
    assert!(why.contains("folder context goes first"), "{why}");

    // Shorter still: all context, then the oldest memory.
    req.window = all - 700 - 150;
    let p = plan(&req).unwrap();
    assert_eq!(status(&p, "src/ summary"), "dropped");
    assert_eq!(status(&p, "memory 1 of 4"), "dropped");
    assert_eq!(status(&p, "memory 2 of 4"), "dropped");
    assert_eq!(status(&p, "memory 4 of 4"), "kept");
    assert_eq!(p.totals.code, code, "code is untouched while memory can go");

    // Too short for the whole file even without memory: code is trimmed to
    // the target and what fits around it.
    req.window = all - 700 - 360 - code / 2;
    let p = plan(&req).unwrap();
    assert!(p
        .parts
        .iter()
        .filter(|x| x.kind != "file")
        .all(|x| x.status == "kept" || x.kind == "memory" || x.kind == "context"));
    let f = &p.files[0];
    assert_eq!(f.mode, patchbay::budget::FileMode::Sections);
    assert!(f.excerpt.contains("pub fn handler_3("));
    let part = p.parts.iter().find(|x| x.kind == "file").unwrap();
    assert_eq!(part.status, "trimmed");
    assert!(
        part.reason.contains("the whole file needs"),
        "{}",
        part.reason
    );
}

#[test]
fn fails_clearly_when_the_minimum_cannot_fit() {
    let req = request(3100, big_file(40), "Fix handler_17");
    match plan(&req) {
        Err(PlanError::DoesNotFit {
            need,
            window,
            message,
        }) => {
            assert_eq!(window, 3100);
            assert!(need > 3100);
            assert!(message.contains("target sections"), "{message}");
            assert!(message.contains("src/handlers.rs lines"), "{message}");
        }
        other => panic!("expected does_not_fit, got {other:?}"),
    }
    // Even the fixed parts alone.
    let req = request(2500, big_file(2), "x");
    let err = plan(&req).unwrap_err();
    assert!(
        err.to_string().contains("more than the window of 2500"),
        "{err}"
    );
}

#[test]
fn an_outline_passed_in_replaces_the_heuristic() {
    let text = big_file(20);
    let n = text.lines().count();
    let outline = vec![
        Section::new("everything before", "block", 1, 100),
        Section::new("the rest", "block", 101, n),
    ];
    let idx = line_index("a.rs", &text, Some(outline), Default::default());
    assert_eq!(idx.len(), 2);
    assert_eq!(idx[1].section.name, "the rest");
    assert!(idx.iter().all(|s| s.tokens > 0));
}

#[test]
fn output_size_warnings() {
    let mut req = request(8192, big_file(8), "Change handler_3");
    req.reserve = 400;
    req.options.expected_output = Some(ExpectedOutput {
        per_item: 120,
        items: 3,
    });
    let p = plan(&req).unwrap();
    // 3 x 120 = 360 > 400 / 2, and the whole file would not fit either.
    assert!(
        p.warnings
            .iter()
            .any(|w| w.contains("3 items of about 120")),
        "{:?}",
        p.warnings
    );
    assert!(p
        .warnings
        .iter()
        .any(|w| w.starts_with("if the model rewrites src/handlers.rs whole")));
}

#[test]
fn a_task_that_names_nothing_falls_back_with_a_warning() {
    let p = plan(&request(8192, big_file(40), "Make it faster")).unwrap();
    assert!(
        p.warnings.iter().any(|w| w.contains("names nothing")),
        "{:?}",
        p.warnings
    );
    assert!(p.files[0].index.iter().any(|s| s.selected));
}
