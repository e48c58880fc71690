//! What every format's prompt is made of: its instructions and one worked
//! example on the same file and task, so that prompts can be compared
//! format against format. Each format writes its own ([`super::Format::prompt`]);
//! the budget's prompt kit adds the token costs.

/// The file every example edits.
pub const EXAMPLE_PATH: &str = "app.py";
pub const EXAMPLE_BEFORE: &str = "def greet(name):\n    print(\"Hello, \" + name)\n\n\ndef farewell(name):\n    print(\"Goodbye, \" + name)\n";
pub const EXAMPLE_AFTER: &str = "def greet(name):\n    print(f\"Hello, {name}!\")\n\n\ndef farewell(name):\n    print(\"Goodbye, \" + name)\n";
/// The task of the example.
pub const EXAMPLE_TASK: &str =
    "In app.py, make greet use an f-string and end with an exclamation mark.";

/// The line every format's instructions end with.
pub const COUNT: &str =
    "Start the reply with a line `EDITS: N` giving the number of edits that follow.";

/// A format's prompt: what the system prompt says, and the worked example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub instructions: String,
    /// What the model is shown of the example file in this format.
    pub example_view: String,
    /// A perfect reply to [`EXAMPLE_TASK`].
    pub example_reply: String,
}

/// The example file as most formats show it: its path, then a fence.
pub fn plain_view() -> String {
    format!("{EXAMPLE_PATH}\n```python\n{EXAMPLE_BEFORE}```\n")
}
