//! Which sections of a file a task needs, and the excerpt that carries
//! them with their original line numbers.
//!
//! A section scores by the task's words: its own name named in the task
//! counts most, then each task identifier the section's text uses
//! (weighted by how rare it is in the file), then line numbers the task
//! names (`line 120`, `lib.rs:120`). Neighbours fill the rest of a budget
//! nearest first. Cost: `O(file)` to score, `O(excerpt)` to render.

use super::index::Section;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How an excerpt shows line numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum LineNumbers {
    /// A `[lines A-B]` marker before each run of lines (cheap).
    #[default]
    Sections,
    /// `N| ` before every line (for line-addressed edit formats).
    Every,
}

/// What a task asks for: identifiers and line numbers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Terms {
    pub words: BTreeSet<String>,
    pub lines: Vec<usize>,
}

const STOP: &[&str] = &[
    "the", "and", "for", "with", "this", "that", "from", "into", "add", "fix", "make", "change",
    "update", "use", "should", "when", "file", "code", "function", "method", "line", "lines",
    "are", "not", "but", "all", "its", "can", "new", "out", "does", "have", "has", "what", "which",
    "where", "there", "then", "than", "them", "also", "only", "more", "less", "one", "two",
    "rename", "remove", "delete", "move", "call", "calls", "return", "returns", "value", "instead",
    "each", "every", "please", "need", "needs", "must", "will", "would", "could", "how", "why",
    "test",
];

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// The identifiers and line numbers in a task text.
pub fn terms(task: &str) -> Terms {
    let mut t = Terms::default();
    for w in words(task) {
        let starts_alpha = w
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_');
        if starts_alpha
            && w.chars().count() >= 3
            && !STOP.contains(&w.to_ascii_lowercase().as_str())
        {
            t.words.insert(w.to_string());
        }
    }
    // `line 120`, `lines 40-60`, `L120`, `file.rs:120`.
    let toks: Vec<&str> = task.split_whitespace().collect();
    for (i, tok) in toks.iter().enumerate() {
        let clean = tok.trim_matches(|c: char| !c.is_alphanumeric() && c != ':' && c != '-');
        let low = clean.to_ascii_lowercase();
        let num = |s: &str| s.split('-').next().and_then(|n| n.parse::<usize>().ok());
        if (low == "line" || low == "lines") && i + 1 < toks.len() {
            let next = toks[i + 1].trim_matches(|c: char| !c.is_ascii_digit() && c != '-');
            t.lines.extend(num(next));
        } else if let Some(n) = low.strip_prefix('l').and_then(num) {
            t.lines.push(n);
        } else if let Some((_, n)) = clean.rsplit_once(':') {
            t.lines.extend(num(n));
        }
    }
    t.lines.retain(|&n| n > 0);
    t
}

/// A section's score for a task and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    pub score: f64,
    /// Named in the task, or holding a line the task names: wanted, not
    /// just related.
    pub strong: bool,
    pub reason: String,
}

/// Scores every section of a file (`lines` are the file's lines).
pub fn score(sections: &[Section], lines: &[&str], t: &Terms) -> Vec<Score> {
    let idents: Vec<BTreeSet<&str>> = sections
        .iter()
        .map(|s| {
            lines[s.start_line - 1..s.end_line.min(lines.len())]
                .iter()
                .flat_map(|l| words(l))
                .collect()
        })
        .collect();
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for w in &t.words {
        df.insert(
            w.as_str(),
            idents.iter().filter(|i| i.contains(w.as_str())).count(),
        );
    }
    let n = sections.len().max(1) as f64;
    sections
        .iter()
        .zip(&idents)
        .map(|(s, ids)| {
            let mut score = 0.0;
            let mut strong = false;
            let mut why = vec![];
            // Qualified outline names (`Reader::read`, `A.b`) match on their
            // last segment too.
            let last = s.name.rsplit([':', '.']).next().unwrap_or("");
            let named =
                |w: &String| w.eq_ignore_ascii_case(&s.name) || w.eq_ignore_ascii_case(last);
            if !s.name.is_empty() && t.words.iter().any(named) {
                score += 10.0;
                strong = true;
                why.push(format!("`{}` is named in the task", s.name));
            }
            let used: Vec<&str> = t
                .words
                .iter()
                .map(String::as_str)
                .filter(|w| {
                    ids.contains(w)
                        && !w.eq_ignore_ascii_case(&s.name)
                        && !w.eq_ignore_ascii_case(last)
                })
                .collect();
            for w in &used {
                score += (1.0 + n / df[w] as f64).ln();
            }
            if !used.is_empty() {
                let shown: Vec<String> = used.iter().take(4).map(|w| format!("`{w}`")).collect();
                why.push(format!("uses {}", shown.join(", ")));
            }
            let held: Vec<String> = t
                .lines
                .iter()
                .filter(|&&l| s.start_line <= l && l <= s.end_line)
                .map(|l| l.to_string())
                .collect();
            if !held.is_empty() {
                score += 20.0;
                strong = true;
                why.push(format!("holds line {}", held.join(", ")));
            }
            Score {
                score,
                strong,
                reason: why.join("; "),
            }
        })
        .collect()
}

/// Runs of consecutive lines covered by `chosen` (indexes into
/// `sections`), as 1-based inclusive ranges.
pub fn ranges(sections: &[Section], chosen: &BTreeSet<usize>) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = vec![];
    for &k in chosen {
        let s = &sections[k];
        match out.last_mut() {
            Some(last) if last.1 + 1 >= s.start_line => last.1 = last.1.max(s.end_line),
            _ => out.push((s.start_line, s.end_line)),
        }
    }
    out
}

/// The text sent for a file: a header naming the file and what is shown,
/// then the chosen line ranges with their original numbers.
pub fn render(path: &str, lines: &[&str], ranges: &[(usize, usize)], mode: LineNumbers) -> String {
    let n = lines.len();
    let whole = ranges == [(1, n)];
    let shown: Vec<String> = ranges.iter().map(|(a, b)| format!("{a}-{b}")).collect();
    let mut out = if whole {
        format!("{path} ({n} lines)\n")
    } else {
        format!(
            "{path} (lines {} of {n}; the rest is not shown)\n",
            shown.join(", ")
        )
    };
    let width = n.to_string().len();
    for &(a, b) in ranges {
        if !whole && mode == LineNumbers::Sections {
            out.push_str(&format!("[lines {a}-{b}]\n"));
        }
        for (i, line) in lines[a - 1..b.min(n)].iter().enumerate() {
            if mode == LineNumbers::Every {
                out.push_str(&format!("{:>width$}| ", a + i));
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Maps a line of an excerpt rendered by [`render`] back to its line in
/// the file (`None` for header and marker lines). `excerpt_line` is 1-based.
pub fn original_line(
    ranges: &[(usize, usize)],
    n_lines: usize,
    mode: LineNumbers,
    excerpt_line: usize,
) -> Option<usize> {
    let whole = ranges == [(1, n_lines)];
    let mut at = 1; // the header line
    for &(a, b) in ranges {
        if !whole && mode == LineNumbers::Sections {
            at += 1; // the `[lines A-B]` marker
        }
        if excerpt_line > at && excerpt_line <= at + (b + 1 - a) {
            return Some(a + excerpt_line - at - 1);
        }
        at += b + 1 - a;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_from_a_task() {
        let t = terms("Fix the timeout in parse_header (src/http.rs:120) and line 40 of Reader");
        assert!(t.words.contains("parse_header"));
        assert!(t.words.contains("timeout"));
        assert!(t.words.contains("Reader"));
        assert!(!t.words.contains("the") && !t.words.contains("Fix"));
        assert_eq!(t.lines, vec![120, 40]);
    }

    #[test]
    fn render_and_map_back() {
        let lines: Vec<String> = (1..=10).map(|i| format!("l{i}")).collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let r = [(2, 3), (7, 7)];
        let text = render("a.rs", &lines, &r, LineNumbers::Sections);
        assert_eq!(
            text,
            "a.rs (lines 2-3, 7-7 of 10; the rest is not shown)\n[lines 2-3]\nl2\nl3\n[lines 7-7]\nl7\n"
        );
        let ex: Vec<&str> = text.lines().collect();
        for (i, l) in ex.iter().enumerate() {
            let mapped = original_line(&r, 10, LineNumbers::Sections, i + 1);
            match l.strip_prefix('l') {
                Some(n) => assert_eq!(mapped, n.parse().ok(), "{l}"),
                None => assert_eq!(mapped, None, "{l}"),
            }
        }
        let every = render("a.rs", &lines, &[(9, 10)], LineNumbers::Every);
        assert!(every.ends_with(" 9| l9\n10| l10\n"), "{every}");
        assert_eq!(
            original_line(&[(9, 10)], 10, LineNumbers::Every, 3),
            Some(10)
        );
    }
}
