//! Reads an Aider chat-history transcript (Markdown, one `#### ` section a
//! request) and prints, as JSON lines, every SEARCH/REPLACE block patchbay
//! parses in each section: `{"section", "path", "search", "replace"}`.
//! Compared with Aider's own parser on its published transcript by
//! `tests/tools/aider_conformance.py` (neither file is part of this
//! repository: give their paths).
//!
//! Usage: aider-blocks CHAT-HISTORY.md

use patchbay::formats::search_replace::SearchReplace;
use patchbay::formats::Format;
use patchbay::Op;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: aider-blocks CHAT-HISTORY.md");
    let text = std::fs::read_to_string(&path).expect("readable UTF-8 file");
    for section in sections(&text) {
        let header = section.lines().next().unwrap_or("").trim();
        let body = section.split_once('\n').map_or("", |(_, b)| b);
        for e in SearchReplace.parse_default(body).edits {
            let (search, replace) = match &e.op {
                Op::Replace { old, new, .. } => (lines(old), lines(new)),
                Op::CreateOrAppend { text } => (String::new(), lines(text)),
                Op::OneOf(r) => match &r[0].op {
                    Op::Replace { old, new, .. } => (lines(old), lines(new)),
                    _ => continue,
                },
                Op::Invalid { code, .. } => {
                    let v = serde_json::json!({"section": header, "invalid": code.as_str()});
                    println!("{v}");
                    continue;
                }
                _ => continue,
            };
            let v = serde_json::json!({"section": header, "path": e.path, "search": search, "replace": replace});
            println!("{v}");
        }
    }
}

/// The transcript split before each `####` that a space or line break
/// follows, as Aider's test splits it; sections about Aider's own block
/// parser are left out, as there.
fn sections(text: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = text
        .match_indices("####")
        .map(|(i, _)| i)
        .filter(|&i| text[i + 4..].starts_with(char::is_whitespace))
        .collect();
    starts.insert(0, 0);
    starts.dedup();
    starts.push(text.len());
    starts
        .windows(2)
        .map(|w| &text[w[0]..w[1]])
        .filter(|s| !s.contains("editblock_coder.py") && !s.contains("test_editblock.py"))
        .collect()
}

fn lines(v: &[String]) -> String {
    v.iter().map(|l| format!("{l}\n")).collect()
}
