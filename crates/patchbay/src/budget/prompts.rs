//! The prompt kit: for every edit format, the instruction text a system
//! prompt needs, one worked example, and the retry message built from a
//! report. These texts are data in the core so that the playground, the CLI
//! and every embedding use the same words; a test applies each example to
//! its file, so an example can never drift from what the engine accepts.

use crate::apply::report::{Report, Status};
use crate::formats::prompt::EXAMPLE_TASK;
use crate::formats::FormatName;

/// The kit of one format.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Kit {
    #[cfg_attr(feature = "ts", ts(type = "FormatName"))]
    pub format: FormatName,
    /// What the system prompt says about the format.
    pub instructions: String,
    /// What the model is shown of the file in this format (a tagged view
    /// for hashline, numbered lines for lines, the plain file otherwise).
    pub example_view: String,
    /// A perfect reply to [`EXAMPLE_TASK`].
    pub example_reply: String,
    /// Estimated o200k tokens of the instructions and of the whole system
    /// prompt (instructions + example): what the kit costs in a context.
    pub instruction_tokens: usize,
    pub system_prompt_tokens: usize,
}

impl Kit {
    /// Instructions followed by the worked example.
    pub fn system_prompt(&self) -> String {
        format!(
            "{}\n\nExample. The file:\n{}\nTask: {EXAMPLE_TASK}\nReply:\n{}",
            self.instructions, self.example_view, self.example_reply
        )
    }
}

/// The kit of a format, or `None` for `auto` (which names no format).
pub fn kit(format: FormatName) -> Option<Kit> {
    let f = crate::formats::by_id(format)?;
    let p = f.prompt();
    let mut k = Kit {
        format,
        instructions: p.instructions,
        example_view: p.example_view,
        example_reply: p.example_reply,
        instruction_tokens: 0,
        system_prompt_tokens: 0,
    };
    let est = |t: &str| crate::budget::tokens::estimate(t, crate::budget::tokens::Family::O200k);
    k.instruction_tokens = est(&k.instructions);
    k.system_prompt_tokens = est(&k.system_prompt());
    Some(k)
}

/// The message to send back after a failed or truncated reply: the
/// engine's feedback, and a reminder of the format's rules.
pub fn retry_message(report: &Report) -> Option<String> {
    if report.status == Status::Applied {
        return None;
    }
    let reminder = kit(report.format)
        .map(|k| format!("\n\nReminder of the format:\n{}", k.instructions))
        .unwrap_or_default();
    Some(format!(
        "Your edits could not be applied as written.\n{}{reminder}",
        report.feedback
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::prompt::{EXAMPLE_AFTER, EXAMPLE_BEFORE, EXAMPLE_PATH};
    use std::collections::BTreeMap;

    #[test]
    fn every_example_applies_to_the_example_file() {
        let mut files = BTreeMap::new();
        files.insert(EXAMPLE_PATH.to_string(), EXAMPLE_BEFORE.to_string());
        let mut checked = 0;
        for f in crate::formats::all() {
            let Some(k) = kit(f.id()) else { continue };
            let opt = crate::ApplyOptions {
                format: f.id(),
                ..Default::default()
            };
            let r = crate::apply(&k.example_reply, &files, &opt);
            assert_eq!(r.status, Status::Applied, "{}: {}", f.name(), r.feedback);
            assert_eq!(
                r.files[0].content.as_deref(),
                Some(EXAMPLE_AFTER),
                "{}",
                f.name()
            );
            assert!(k.system_prompt().contains(&k.example_reply));
            checked += 1;
        }
        assert_eq!(
            checked,
            crate::formats::all().len(),
            "every format has a kit"
        );
        for f in crate::formats::all() {
            let k = kit(f.id()).unwrap();
            assert!(
                k.instruction_tokens > 20 && k.instruction_tokens < 400,
                "{} {}",
                f.name(),
                k.instruction_tokens
            );
            assert!(k.system_prompt_tokens > k.instruction_tokens);
        }
    }

    #[test]
    fn retry_message_carries_feedback_and_rules() {
        let mut files = BTreeMap::new();
        files.insert(EXAMPLE_PATH.to_string(), EXAMPLE_BEFORE.to_string());
        let reply = "app.py\n<<<<<<< SEARCH\n    print(\"Hi\")\n=======\n    print(\"Yo\")\n>>>>>>> REPLACE\n";
        let r = crate::apply(reply, &files, &Default::default());
        let m = retry_message(&r).unwrap();
        assert!(
            m.contains("not_found") && m.contains("<<<<<<< SEARCH"),
            "{m}"
        );
    }
}
