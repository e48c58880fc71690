//! The format advisor: every format's canonical edit for one change, with
//! its size in bytes and tokens, and which format to ask the model for.
//!
//! The rule: rewrite the whole file when it is short (under 300
//! lines by default) or when much of it changes (over 30% of its lines);
//! otherwise use the cheapest format whose edit applies unambiguously. Each
//! rendered edit is applied back to the original through the normal
//! transaction, so "unambiguous" means it was checked, not assumed.
//! Cost: one render, one apply and one token count per format (each about
//! `O(file)`), and one line diff.

use crate::budget::tokens::Tokenizer;
use crate::formats::{Format, FormatName};
use crate::{apply, ApplyOptions, Options, Status};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Options of [`compare`]; every field has a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub struct CompareOptions {
    /// The path the edits name (an absolute path is shortened to its file
    /// name, as a model would write it).
    pub path: String,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub tokenizer: Tokenizer,
    /// Files with fewer lines than this are rewritten whole.
    pub whole_below_lines: usize,
    /// A change of more than this share of the lines is rewritten whole.
    pub whole_above_change: f64,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            path: "file".into(),
            tokenizer: Tokenizer::default(),
            whole_below_lines: 300,
            whole_above_change: 0.30,
        }
    }
}

/// One format's canonical edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FormatCost {
    #[cfg_attr(feature = "ts", ts(type = "FormatName"))]
    pub format: FormatName,
    pub bytes: usize,
    pub tokens: usize,
    /// The edit applied to BEFORE gives AFTER exactly.
    pub unambiguous: bool,
    /// Why it did not, when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub problem: Option<String>,
    pub edit: String,
}

/// The advice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Recommendation {
    /// A format name, or `none` when nothing changes.
    #[cfg_attr(feature = "ts", ts(type = "FormatName"))]
    pub format: String,
    pub reason: String,
}

/// What [`compare`] found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub lines_before: usize,
    pub lines_after: usize,
    /// Lines changed: per changed region, the larger of its old and new
    /// line counts.
    pub changed_lines: usize,
    /// `changed_lines` over the lines of BEFORE.
    pub change_ratio: f64,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub tokenizer: Tokenizer,
    /// Cheapest first.
    pub formats: Vec<FormatCost>,
    pub recommendation: Recommendation,
}

/// Every format's edit from `before` to `after`, and the advice.
pub fn compare(before: &str, after: &str, opt: &CompareOptions) -> Comparison {
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    let changed: usize = crate::apply::diff::changes_linear(&old, &new)
        .iter()
        .map(|c| c.old.len().max(c.new.len()))
        .sum();
    let ratio = changed as f64 / old.len().max(1) as f64;
    // Identical files need no edit in any format (and each format's empty
    // edit would only be refused as "no edits").
    let mut formats: Vec<FormatCost> = if before == after {
        vec![]
    } else {
        (crate::formats::all().iter())
            .map(|f| cost(*f, before, after, opt))
            .collect()
    };
    crate::order::sort_by_key(&mut formats[..], |c| (c.tokens, c.bytes));
    let recommendation = recommend(before, after, old.len(), ratio, &formats, opt);
    Comparison {
        lines_before: old.len(),
        lines_after: new.len(),
        changed_lines: changed,
        change_ratio: ratio,
        tokenizer: opt.tokenizer,
        formats,
        recommendation,
    }
}

/// The path the edits name: `path` when a model could write it (relative,
/// inside the root), else its last component (a model never writes an
/// absolute path), else `file`.
fn edit_path(path: &str) -> String {
    crate::apply::paths::normalize(path)
        .or_else(|_| {
            let last = path.rsplit(['/', '\\']).next().unwrap_or("");
            crate::apply::paths::normalize(last)
        })
        .unwrap_or_else(|_| "file".into())
}

fn cost(f: &dyn Format, before: &str, after: &str, opt: &CompareOptions) -> FormatCost {
    let path = edit_path(&opt.path);
    let edit = f.render(&path, before, after);
    let mut files = BTreeMap::new();
    files.insert(path.clone(), before.to_string());
    let ao = ApplyOptions {
        format: f.id(),
        transaction: Options {
            default_path: Some(path.clone()),
            ..Options::default()
        },
        ..ApplyOptions::default()
    };
    let problem = match apply(&edit, &files, &ao) {
        r if r.status != Status::Applied => Some(first_line(&r.feedback)),
        r => {
            let got = r.files.iter().find(|f| f.path == path);
            match got.and_then(|f| f.content.as_deref()) {
                Some(c) if c == after => None,
                _ => Some("applied, but the result differs from AFTER".into()),
            }
        }
    };
    FormatCost {
        format: f.id(),
        bytes: edit.len(),
        tokens: opt.tokenizer.count(&edit),
        unambiguous: problem.is_none(),
        problem,
        edit,
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("did not apply")
        .to_string()
}

fn recommend(
    before: &str,
    after: &str,
    lines: usize,
    ratio: f64,
    formats: &[FormatCost],
    opt: &CompareOptions,
) -> Recommendation {
    let rec = |format: FormatName, reason: String| Recommendation {
        format: format.to_string(),
        reason,
    };
    let whole_tokens = formats
        .iter()
        .find(|c| c.format == FormatName::Whole)
        .map_or(0, |c| c.tokens);
    if before == after {
        return Recommendation {
            format: "none".into(),
            reason: "BEFORE and AFTER are the same".into(),
        };
    }
    if before.is_empty() {
        return rec(FormatName::Whole, "a new file: write it whole".into());
    }
    if lines < opt.whole_below_lines {
        return rec(
            FormatName::Whole,
            format!(
                "{lines} lines, under {}: rewriting the whole file ({whole_tokens} tokens) is the safest edit",
                opt.whole_below_lines
            ),
        );
    }
    let pct = 100.0 * ratio;
    if ratio > opt.whole_above_change {
        return rec(
            FormatName::Whole,
            format!(
                "{pct:.0}% of the lines change, over {:.0}%: many blocks in one file collide, rewrite it whole ({whole_tokens} tokens)",
                100.0 * opt.whole_above_change
            ),
        );
    }
    match formats
        .iter()
        .find(|c| c.unambiguous && c.format != FormatName::Whole)
    {
        Some(c) => rec(
            c.format,
            format!(
                "{lines} lines, {pct:.1}% changed: `{}` is the cheapest edit that applies unambiguously ({} tokens; the whole file is {whole_tokens}){}",
                c.format,
                c.tokens,
                crate::formats::by_id(c.format).map_or("", |f| f.view().note())
            ),
        ),
        None => rec(
            FormatName::Whole,
            "no other format's edit applies unambiguously to this file".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(n: usize) -> String {
        (0..n)
            .map(|i| format!("let value_{i} = compute({i});\n"))
            .collect()
    }

    #[test]
    fn short_files_are_rewritten_whole() {
        let before = file(40);
        let after = before.replace("compute(7)", "compute(70)");
        let c = compare(&before, &after, &CompareOptions::default());
        assert_eq!(c.recommendation.format, "whole");
        assert!(c.recommendation.reason.contains("40 lines, under 300"));
        assert_eq!(c.changed_lines, 1);
        assert_eq!(c.formats.len(), crate::formats::all().len());
        let whole = c.formats.iter().find(|f| f.format == "whole").unwrap();
        assert!(whole.unambiguous, "{whole:?}");
    }

    #[test]
    fn long_files_with_a_small_change_get_the_cheapest_unambiguous_edit() {
        let before = file(400);
        let after = before.replace("compute(200)", "compute(201)");
        let c = compare(&before, &after, &CompareOptions::default());
        let rec = &c.recommendation;
        assert_ne!(rec.format, "whole");
        let chosen = c
            .formats
            .iter()
            .find(|f| f.format.as_str() == rec.format)
            .unwrap();
        assert!(chosen.unambiguous);
        // Nothing unambiguous is cheaper, and whole is far dearer.
        for f in &c.formats {
            if f.unambiguous && f.format != "whole" {
                assert!(f.tokens >= chosen.tokens, "{} {}", f.format, f.tokens);
            }
        }
        let whole = c.formats.iter().find(|f| f.format == "whole").unwrap();
        assert!(whole.tokens > 10 * chosen.tokens);
    }

    #[test]
    fn big_changes_are_rewritten_whole() {
        let before = file(400);
        let after: String = before
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i % 2 == 0 {
                    format!("{l} // checked\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        let c = compare(&before, &after, &CompareOptions::default());
        assert!(c.change_ratio > 0.3);
        assert_eq!(c.recommendation.format, "whole");
        // The thresholds are options.
        let opt = CompareOptions {
            whole_above_change: 0.9,
            ..CompareOptions::default()
        };
        assert_ne!(
            compare(&before, &after, &opt).recommendation.format,
            "whole"
        );
    }

    #[test]
    fn identical_and_new_files() {
        assert_eq!(
            compare("a\n", "a\n", &Default::default())
                .recommendation
                .format,
            "none"
        );
        assert_eq!(
            compare("", "a\n", &Default::default())
                .recommendation
                .format,
            "whole"
        );
    }
}
