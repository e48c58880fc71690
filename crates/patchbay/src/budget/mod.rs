//! The budget planner: what fits in a context window, in tokens, enforced
//! in code rather than promised in a prompt (the question "does this fit?"
//! answered before the call, not after the model ran out of room).
//!
//! A [`Request`] holds the window, the system prompt, the reply reserve,
//! memory entries (oldest first), folder/project context, the task and one
//! or more files. [`plan`] keeps the system prompt, the task and the
//! reserve, then fills the rest in this order of priority:
//!
//! 1. the minimum of each file: the section the task targets;
//! 2. the code the task wants: whole files up to the line-index threshold,
//!    and the sections the task names (by symbol or line) in longer files;
//! 3. memory, newest first (so the oldest goes first when tight);
//! 4. folder context, in the order given (so it goes before memory);
//! 5. sections that use the task's identifiers (rarer ones weigh more),
//!    then neighbouring sections, nearest first, until the budget is spent.
//!
//! Everything left out is listed with the reason. When even the minimum
//! (system + task + reserve + target sections) does not fit, the plan fails
//! with [`PlanError::DoesNotFit`] and the numbers. Cost: one token count per
//! part and per section (the excerpt is priced from the tallies of its
//! parts, never rendered again), and `O(file)` scoring per file.

pub mod advisor;
pub mod index;
pub mod prompts;
pub mod select;
pub mod tokens;

pub use index::Section;
pub use select::LineNumbers;

use crate::budget::tokens::Tokenizer;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A named piece of context (a folder summary, a project map).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct Named {
    pub name: String,
    pub text: String,
}

/// A file to send, with an optional outline to use instead of the
/// heuristic line index (any [`Section`]s; they are normalised).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct FileInput {
    pub path: String,
    pub text: String,
    pub sections: Option<Vec<Section>>,
}

/// The output check: the reply is `items` of about `per_item`
/// tokens each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub struct ExpectedOutput {
    pub per_item: usize,
    pub items: usize,
}

/// Knobs of [`plan`]; every field has a default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub struct PlanOptions {
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub tokenizer: Tokenizer,
    /// Files with more lines than this are sent as sections.
    pub index_threshold: usize,
    pub line_numbers: LineNumbers,
    /// Tokens the chat template adds around the messages.
    pub overhead: usize,
    pub expected_output: Option<ExpectedOutput>,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            tokenizer: Tokenizer::default(),
            index_threshold: 150,
            line_numbers: LineNumbers::Sections,
            overhead: 0,
            expected_output: None,
        }
    }
}

/// Everything one model call should see.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "PlanRequest"))]
#[serde(rename_all = "camelCase", default)]
pub struct Request {
    pub window: usize,
    pub system: String,
    /// Tokens reserved for the reply.
    pub reserve: usize,
    /// Oldest first.
    pub memory: Vec<String>,
    pub context: Vec<Named>,
    pub task: String,
    pub files: Vec<FileInput>,
    pub options: PlanOptions,
}

/// One part of the prompt and what the plan did with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// `system`, `task`, `reserve`, `overhead`, `memory`, `context`, `file`.
    pub kind: String,
    pub name: String,
    pub tokens: usize,
    /// `kept`, `dropped`, `trimmed`.
    pub status: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// A section of a file in the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PlannedSection {
    #[serde(flatten)]
    pub section: Section,
    pub tokens: usize,
    pub selected: bool,
    /// Why it was chosen (or what made it a candidate).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// How much of a file is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FileMode {
    /// The whole file.
    Whole,
    /// The sections the task needs (and their neighbours).
    Sections,
}

/// What is sent of one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FilePlan {
    pub path: String,
    pub lines: usize,
    /// Tokens of the whole file as it would be sent.
    pub full_tokens: usize,
    /// Tokens of what is sent.
    pub tokens: usize,
    /// Whether the file is sent whole or in sections.
    pub mode: FileMode,
    /// 1-based inclusive line ranges sent, in the original numbering.
    pub ranges: Vec<(usize, usize)>,
    /// The line index (every section, selected or not).
    pub index: Vec<PlannedSection>,
    /// The text to put in the prompt.
    pub excerpt: String,
}

/// The tokens of each kind of part that was kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub system: usize,
    pub task: usize,
    pub reserve: usize,
    pub overhead: usize,
    pub memory: usize,
    pub context: usize,
    pub code: usize,
    /// The window less everything above: unused room.
    pub free: usize,
    /// What code could have had: the window less system, task, reserve,
    /// overhead, and the memory and context kept.
    pub code_budget: usize,
}

/// The answer of [`plan`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    pub window: usize,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub tokenizer: Tokenizer,
    pub totals: Totals,
    pub parts: Vec<Part>,
    pub files: Vec<FilePlan>,
    pub warnings: Vec<String>,
}

/// Why no plan exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum PlanError {
    /// Even the minimum does not fit: `need` tokens for a `window`.
    DoesNotFit {
        need: usize,
        window: usize,
        message: String,
    },
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanError::DoesNotFit { message, .. } => f.write_str(message),
        }
    }
}
impl std::error::Error for PlanError {}

mod fill;
mod price;
#[cfg(test)]
mod tests;

/// Plans what fits; see the module docs for the order of priority.
pub fn plan(req: &Request) -> Result<Plan, PlanError> {
    fill::run(req, fill::Pricing::Tallies)
}

/// The line index of a file: its sections (from `outline` when given,
/// else the heuristic) with their token counts.
pub fn line_index(
    path: &str,
    text: &str,
    outline: Option<Vec<Section>>,
    tokenizer: Tokenizer,
) -> Vec<PlannedSection> {
    let lines: Vec<&str> = text.lines().collect();
    let sections = match outline {
        Some(o) => index::normalize(o, lines.len()),
        None => index::sections(text, path),
    };
    sections
        .into_iter()
        .map(|s| {
            let tokens = tokenizer.count(&lines[s.start_line - 1..s.end_line].join("\n"));
            PlannedSection {
                section: s,
                tokens,
                selected: false,
                reason: String::new(),
            }
        })
        .collect()
}

/// The chosen section indexes of a file plan, for re-rendering.
fn chosen(index: &[PlannedSection]) -> BTreeSet<usize> {
    index
        .iter()
        .enumerate()
        .filter(|(_, s)| s.selected)
        .map(|(k, _)| k)
        .collect()
}
