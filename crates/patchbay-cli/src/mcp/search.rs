//! `search`: the lines that hold a text, across the root or a folder of
//! it, with `.gitignore`, `.ignore` and hidden files honoured (the `ignore`
//! crate's walk, as ripgrep does it); each hit shown as the mode shows
//! lines, so an edit can follow without a read.

use super::view::{self, File};
use super::{Answer, Session, Settings};
use serde::Deserialize;
use std::sync::Mutex;

/// Files larger than this are passed over (generated or data files).
const MAX_FILE_BYTES: u64 = 4 << 20;
/// Hits shown when the call does not say.
const DEFAULT_HITS: usize = 50;
/// The most hits one call shows, whatever it asks.
const MAX_HITS: usize = 500;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    pattern: String,
    path: Option<String>,
    ignore_case: Option<bool>,
    max_results: Option<usize>,
}

/// `search`.
pub fn search(s: &Settings, session: &Mutex<Session>, a: &SearchArgs) -> Answer {
    if a.pattern.is_empty() || a.pattern.contains('\n') {
        return Err("the pattern must be one non-empty line of text".into());
    }
    let base = match a.path.as_deref().filter(|p| !p.is_empty() && *p != ".") {
        None => s.root.dir().to_path_buf(),
        Some(p) => folder(s, p)?,
    };
    let limit = a.max_results.unwrap_or(DEFAULT_HITS).clamp(1, MAX_HITS);
    let fold = a.ignore_case.unwrap_or(false);
    let needle = if fold {
        a.pattern.to_lowercase()
    } else {
        a.pattern.clone()
    };
    let mut out = String::new();
    let mut hits = 0;
    let mut files: Vec<std::path::PathBuf> = ignore::WalkBuilder::new(&base)
        .follow_links(false)
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter(|e| e.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES))
        .map(ignore::DirEntry::into_path)
        .collect();
    files.sort();
    for path in files {
        let Some(rel) = s.root.relative(&path) else {
            continue;
        };
        if s.root.reserved(&rel).is_some() {
            continue;
        }
        let Ok(Some(text)) = crate::fsio::read_text(&path, &rel) else {
            continue;
        };
        let matching: Vec<usize> = patchbay::apply::text::Text::new(&text)
            .lines()
            .iter()
            .enumerate()
            .filter(|(_, l)| {
                if fold {
                    l.to_lowercase().contains(&needle)
                } else {
                    l.contains(&needle)
                }
            })
            .map(|(i, _)| i + 1)
            .take(limit - hits)
            .collect();
        if matching.is_empty() {
            continue;
        }
        hits += matching.len();
        let ranges: Vec<(usize, usize)> = matching.iter().map(|&n| (n, n)).collect();
        out.push_str(&view::lines(s, session, &File { rel, text }, &ranges));
        if hits >= limit {
            out.push_str(&format!(
                "(stopped at {limit} matching lines; narrow the pattern or the path)\n"
            ));
            break;
        }
    }
    if hits == 0 {
        return Ok(format!("no line holds {:?}\n", a.pattern));
    }
    Ok(out)
}

/// A folder under the root to search in.
fn folder(s: &Settings, p: &str) -> Result<std::path::PathBuf, String> {
    let rel = patchbay::apply::paths::normalize(p).map_err(|e| format!("path_escape: {e}"))?;
    match s.root.resolve(&rel) {
        Ok(r) if r.real.exists() => Ok(r.real),
        Ok(_) => Err(format!("not_found: {rel} does not exist under the root")),
        Err(crate::fsio::Refusal::Escape(m)) => Err(format!("path_escape: {m}")),
        Err(crate::fsio::Refusal::Io(m)) => Err(m),
    }
}
