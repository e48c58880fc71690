//! The small read-only commands: `tag` and `check-output`. Each reads one
//! file, calls one core function and prints; none writes anything.

use crate::args::{CheckArgs, TagArgs};
use crate::{out, Failure};
use patchbay::counts::{check_output as check, continuation_prompt, Protocol, Verdict};

fn read(path: &str) -> Result<String, Failure> {
    let text = if path == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map(|_| s)
    } else {
        std::fs::read_to_string(path)
    };
    text.map_err(|e| Failure::Io(format!("cannot read {path} as UTF-8 text: {e}")))
}

/// `patchbay tag FILE`: the tagged view, exactly as the model should see it.
pub fn tag(a: &TagArgs) -> Result<i32, Failure> {
    let text = read(&a.file)?;
    out(&patchbay::tags::view(
        &text,
        patchbay::TagOptions {
            len: a.len,
            with_line: a.with_line,
        },
    ));
    Ok(0)
}

/// `patchbay check-output OUT.txt`: declared counts against what arrived.
pub fn check_output(a: &CheckArgs) -> Result<i32, Failure> {
    let text = read(&a.output)?;
    // The labels decide the language of the continuation prompt.
    let p = if text.contains("総件数") || text.contains("## 指摘") {
        Protocol::japanese()
    } else {
        Protocol::english()
    };
    let c = check(&text, &p, a.stop_reason.as_deref());
    if a.json {
        out(&(serde_json::to_string(&c).unwrap_or_default() + "\n"));
    } else {
        let total = c
            .declared_total
            .map_or("not declared".to_string(), |t| t.to_string());
        let verdict = match &c.verdict {
            Verdict::Complete => "complete".to_string(),
            Verdict::Truncated { missing: Some(m) } => format!("truncated: {m} missing"),
            Verdict::Truncated { missing: None } => {
                "truncated: how many are missing is unknown".to_string()
            }
            Verdict::Inconsistent { reason } => format!("inconsistent: {reason}"),
        };
        out(&format!(
            "declared total: {total}\ncomplete items: {}\nlast complete: {}\npartial item dropped: {}\nverdict: {verdict}\n",
            c.items.len(),
            c.last_complete.map_or("none".to_string(), |n| n.to_string()),
            if c.dropped_partial { "yes" } else { "no" },
        ));
    }
    if a.continuation && matches!(c.verdict, Verdict::Truncated { .. }) {
        out(&format!("\n{}\n", continuation_prompt(&c, &p)));
    }
    Ok(match c.verdict {
        Verdict::Complete => 0,
        Verdict::Truncated { .. } => 3,
        Verdict::Inconsistent { .. } => 1,
    })
}
