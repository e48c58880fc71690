//! The prompt kit: for every edit format, the instruction text a system
//! prompt needs, one worked example, and the retry message built from a
//! report. These texts are data in the core so that the playground, the CLI
//! and every embedding use the same words; a test applies each example to
//! its file, so an example can never drift from what the engine accepts.

use crate::apply::report::{Report, Status};
use crate::formats::hashline::tags::{tag, view, TagOptions};

/// The file every example edits.
pub const EXAMPLE_PATH: &str = "app.py";
pub const EXAMPLE_BEFORE: &str = "def greet(name):\n    print(\"Hello, \" + name)\n\n\ndef farewell(name):\n    print(\"Goodbye, \" + name)\n";
pub const EXAMPLE_AFTER: &str = "def greet(name):\n    print(f\"Hello, {name}!\")\n\n\ndef farewell(name):\n    print(\"Goodbye, \" + name)\n";
/// The task of the example.
pub const EXAMPLE_TASK: &str =
    "In app.py, make greet use an f-string and end with an exclamation mark.";

/// The kit of one format.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Kit {
    pub format: &'static str,
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

const COUNT: &str =
    "Start the reply with a line `EDITS: N` giving the number of edits that follow.";

/// The kit for a format name, or `None` for an unknown one.
pub fn kit(format: &str) -> Option<Kit> {
    let plain = format!("{EXAMPLE_PATH}\n```python\n{EXAMPLE_BEFORE}```\n");
    let (format, instructions, view_text, reply): (&'static str, String, String, String) = match format {
        "search-replace" => (
            "search-replace",
            format!("Edit files with SEARCH/REPLACE blocks. For each change write the file path on a line, then a fenced block:\n<<<<<<< SEARCH\n(lines copied exactly from the file, enough to be unique)\n=======\n(the new lines)\n>>>>>>> REPLACE\nCopy SEARCH lines character for character, including indentation. Use several small blocks rather than one large one. An empty SEARCH creates a new file. {COUNT}"),
            plain,
            "EDITS: 1\napp.py\n```python\n<<<<<<< SEARCH\n    print(\"Hello, \" + name)\n=======\n    print(f\"Hello, {name}!\")\n>>>>>>> REPLACE\n```\n".into(),
        ),
        "whole" => (
            "whole",
            format!("Reply with the complete new content of every file you change: the file path on a line, then the whole file in a fenced block. Never abbreviate: no `...` and no comments like `rest of the file unchanged`. {COUNT}"),
            plain,
            format!("EDITS: 1\napp.py\n```python\n{EXAMPLE_AFTER}```\n"),
        ),
        "udiff" => (
            "udiff",
            format!("Reply with a unified diff (like `diff -u` or `git diff`): `--- a/PATH` and `+++ b/PATH` lines, then hunks starting with `@@ -l,n +l,n @@`, context lines starting with a space, removed lines with `-`, added lines with `+`. Include 2-3 unchanged lines of context around each change. Use `/dev/null` as the old path to create a file. {COUNT}"),
            plain,
            "EDITS: 1\n```diff\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def greet(name):\n-    print(\"Hello, \" + name)\n+    print(f\"Hello, {name}!\")\n```\n".into(),
        ),
        "apply-patch" => (
            "apply-patch",
            format!("Reply with one patch between `*** Begin Patch` and `*** End Patch`. For each file: `*** Update File: PATH` (optionally `*** Move to: NEW`), `*** Add File: PATH` (every line prefixed `+`) or `*** Delete File: PATH`. In updates, each change starts with `@@` (optionally followed by a line such as the enclosing `def` or `class` that makes it unique), then context lines prefixed with a space, removed lines with `-`, added lines with `+`. {COUNT}"),
            plain,
            "EDITS: 1\n*** Begin Patch\n*** Update File: app.py\n@@ def greet(name):\n-    print(\"Hello, \" + name)\n+    print(f\"Hello, {name}!\")\n*** End Patch\n".into(),
        ),
        "tool-call" => (
            "tool-call",
            format!("Edit files with JSON tool calls, one object per line: {{\"command\": \"str_replace\", \"path\": ..., \"old_str\": ..., \"new_str\": ...}} where old_str occurs exactly once in the file (add surrounding lines until it does; \"line_hint\" may give its line), {{\"command\": \"insert\", \"path\": ..., \"insert_line\": N, \"new_str\": ...}} to insert after line N (0 = top), {{\"command\": \"create\", \"path\": ..., \"file_text\": ...}} for a new file. {COUNT}"),
            plain,
            "EDITS: 1\n{\"command\": \"str_replace\", \"path\": \"app.py\", \"old_str\": \"    print(\\\"Hello, \\\" + name)\", \"new_str\": \"    print(f\\\"Hello, {name}!\\\")\"}\n".into(),
        ),
        "hashline" => {
            let t = tag("    print(\"Hello, \" + name)", 2, TagOptions::default());
            (
                "hashline",
                format!("The file is shown as `LINE:TAG content`. Edit by line and tag, never by retyping old text: JSON objects, one per line: {{\"op\": \"replace\", \"line\": N, \"tag\": \"TAG\", \"new\": \"...\"}}, a range {{\"op\": \"replace\", \"lines\": \"N:TAG\\nN+1:TAG\", \"new\": \"...\"}}, {{\"op\": \"insert_after\", \"line\": N, \"tag\": \"TAG\", \"new\": \"...\"}}, {{\"op\": \"delete\", \"line\": N, \"tag\": \"TAG\"}}. Line numbers and tags always refer to the view you were shown. {COUNT}"),
                format!("{EXAMPLE_PATH}\n{}", view(EXAMPLE_BEFORE, TagOptions::default())),
                format!("EDITS: 1\n{{\"op\": \"replace\", \"path\": \"app.py\", \"line\": 2, \"tag\": \"{t}\", \"new\": \"    print(f\\\"Hello, {{name}}!\\\")\"}}\n"),
            )
        }
        "lines" => {
            let crc = crate::apply::text::file_crc(EXAMPLE_BEFORE);
            (
                "lines",
                format!("The file is shown with numbered lines under a header `# file: PATH crc32=HEX8`. Replace lines by number: a header line `@@ PATH FIRST:LAST crc32=HEX8` (HEX8: the 8 hex digits copied from the view), then the new lines, then `@@ end`. Use `FIRST:FIRST` for one line; numbers always refer to the view you were shown. {COUNT}"),
                crate::formats::lines::seen::crc_view(EXAMPLE_PATH, EXAMPLE_BEFORE),
                format!("EDITS: 1\n@@ app.py 2:2 crc32={crc:08x}\n    print(f\"Hello, {{name}}!\")\n@@ end\n"),
            )
        }
        _ => return None,
    };
    let mut k = Kit {
        format,
        instructions,
        example_view: view_text,
        example_reply: reply,
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
    let reminder = kit(&report.format)
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
    use std::collections::BTreeMap;

    #[test]
    fn every_example_applies_to_the_example_file() {
        let mut files = BTreeMap::new();
        files.insert(EXAMPLE_PATH.to_string(), EXAMPLE_BEFORE.to_string());
        let mut checked = 0;
        for f in crate::formats::all() {
            let Some(k) = kit(f.name()) else { continue };
            let opt = crate::ApplyOptions {
                format: f.name().into(),
                ..Default::default()
            };
            let r = crate::apply(&k.example_reply, &files, &opt).unwrap();
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
            let k = kit(f.name()).unwrap();
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
        let r = crate::apply(reply, &files, &Default::default()).unwrap();
        let m = retry_message(&r).unwrap();
        assert!(
            m.contains("not_found") && m.contains("<<<<<<< SEARCH"),
            "{m}"
        );
    }
}
