//! The report of a transaction: per file, per edit. Its JSON shape is the
//! contract of docs/contracts.md (`status`, `format`, `files[].path/status/edits`,
//! `feedback`); `content` carries a changed file's new text for embedders and
//! is left out of the CLI's JSON.

use crate::edit::{Code, EditStatus, Receipt};
use serde::{Deserialize, Serialize};

/// Outcome of the whole transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Applied,
    Failed,
    Truncated,
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    /// Edited in place.
    Applied,
    Created,
    Deleted,
    /// Some edit of this file failed.
    Failed,
    /// Its edits located but were held back by a failure elsewhere.
    Skipped,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    pub path: String,
    pub status: FileStatus,
    pub edits: Vec<Receipt>,
    /// The new text of an applied or created file.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub content: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub status: Status,
    #[cfg_attr(feature = "ts", ts(type = "FormatName"))]
    pub format: crate::name::FormatName,
    /// Set when the failure is not tied to one edit (`no_edits`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub code: Option<Code>,
    pub files: Vec<FileReport>,
    /// Model-readable text: what failed and how to fix it.
    pub feedback: String,
    /// The reasoning section the reply starts with, skipped by the parse.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub reasoning: Option<crate::edit::Reasoning>,
}

impl Report {
    /// All receipts, in output order.
    pub fn receipts(&self) -> Vec<&Receipt> {
        let mut v: Vec<&Receipt> = self.files.iter().flat_map(|f| &f.edits).collect();
        crate::order::sort_by_key(&mut v[..], |r| r.index);
        v
    }

    /// Number of edits that applied.
    pub fn applied_count(&self) -> usize {
        self.receipts()
            .iter()
            .filter(|r| r.status == EditStatus::Applied)
            .count()
    }

    /// Drops file contents (for compact JSON).
    pub fn without_content(mut self) -> Report {
        for f in &mut self.files {
            f.content = None;
        }
        self
    }
}
