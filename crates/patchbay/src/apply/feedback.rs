//! Model-readable feedback: short, deterministic texts that say what failed
//! and what to send instead.
//!
//! For a block that is not found: the closest region of the file (found by
//! letting each matching line vote for a start, `O(N + M)`, then scoring the
//! best three windows by character similarity, capped at 2,000 characters a
//! side), and the first differing line and column with whitespace made
//! visible. For an ambiguous block: the candidate lines and the smallest
//! extra context that tells them apart. Similarity only ever feeds these
//! texts; it never chooses where to apply.

use crate::apply::fold::{is_blank, visible_ws};
use crate::apply::matcher::{Found, Level, Shift};
use crate::apply::report::{Report, Status};
use crate::edit::{Closest, Code, EditStatus, FirstDifference, Position};
use std::collections::HashMap;

/// How a format names the parts of an edit, so that a message speaks the
/// language of the reply it answers (a diff has no "SEARCH text").
#[derive(Debug)]
pub struct Words {
    /// The quoted old text, as a subject: "the SEARCH text".
    pub old: &'static str,
    /// Its name in a line reference: "SEARCH line 2".
    pub short: &'static str,
    /// The new text: "the REPLACE text".
    pub new: &'static str,
    /// How to create a file instead.
    pub create: &'static str,
    /// Why an edit could be read in several ways, and how to write it so
    /// that it cannot (for the message of a conflict between readings).
    pub readings: &'static str,
}

/// How messages name the parts of a `str_replace` edit: as the text-editor
/// tool that writes it does, whatever the reply's format.
pub const STR_REPLACE: Words = Words {
    old: "old_str",
    short: "old_str",
    new: "new_str",
    create: "use the `create` command",
    readings: "quote old_str exactly as the file has it",
};

/// No edit in the reply; with its reasoning section (which no format
/// reads), where the edits must go instead.
pub fn no_edits(
    format: crate::name::FormatName,
    reasoning: Option<&crate::edit::Reasoning>,
) -> String {
    let mut msg = format!(
        "No edits were found in the output (format {format}). Write each change as the format asks; nothing was applied."
    );
    if let Some(r) = reasoning {
        msg.push_str(&format!(
            " Edits inside the reasoning section (<{}>, reply lines {}-{}) are not read: write them after it.",
            r.tag, r.lines[0], r.lines[1]
        ));
    }
    msg
}

pub fn elided(path: &str, k: usize, line: &str) -> String {
    format!(
        "the new text for {path} contains a placeholder instead of code at its line {}: `{}`. Write out every line in full; applying this would delete the code it stands for.",
        k + 1,
        line.trim()
    )
}

/// A whole-file text that holds another format's marker line.
pub fn foreign_marker(path: &str, k: usize, line: &str, format: crate::name::FormatName) -> String {
    format!(
        "the new text for {path} holds `{}` at its line {}, a {format} marker that {path} does not have: the reply looks like {format} edits, not the file's whole content. Read it as {format} (or auto); writing it would put the markers into the file.",
        line.trim(),
        k + 1
    )
}

pub fn already_applied(w: &Words, path: &str) -> String {
    format!(
        "{} is not in {path}, but {} already is: this edit seems to be applied already; drop it",
        w.old, w.new
    )
}

pub fn overlap(idx: usize, other: usize) -> String {
    format!("edit {idx} changes lines that edit {other} also changes; merge them into one edit")
}

/// A note for an edit that applied only thanks to a tolerant level or a hint.
pub fn tolerated(f: &Found) -> String {
    let how = match f.level {
        Level::Exact => "exact match",
        Level::TrailingWs => "matched with trailing whitespace ignored",
        Level::Indent => "matched with the whole block at another indentation",
        Level::BlankLines => "matched with leading/trailing blank lines of the block ignored",
        Level::Tabs => "matched with tabs and spaces treated alike",
        Level::Unicode => "matched with Unicode look-alike characters folded",
    };
    let shift = match &f.shift {
        Shift::None => String::new(),
        Shift::Add(p) => format!("; replacement indented by `{}`", visible_ws(p)),
        Shift::Remove(p) => format!("; replacement dedented by `{}`", visible_ws(p)),
        Shift::Width { delta, .. } => format!("; replacement re-indented by {delta} columns"),
    };
    let hint = if f.by_hint {
        "; several places matched and the line hint chose this one"
    } else {
        ""
    };
    format!("{how}{shift}{hint}")
}

fn is_punct(s: &str) -> bool {
    s.chars().all(|c| !c.is_alphanumeric())
}

/// The most similar window of the file: (0-based start, similarity 0..1).
pub fn closest(file: &[&str], block: &[&str]) -> Option<(usize, f32)> {
    let m = block.len();
    if m == 0 || file.is_empty() {
        return None;
    }
    let mut at: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, l) in block.iter().enumerate() {
        let t = l.trim();
        if !t.is_empty() && !is_punct(t) {
            at.entry(t).or_default().push(j);
        }
    }
    let mut votes: HashMap<isize, u32> = HashMap::new();
    for (i, l) in file.iter().enumerate() {
        if let Some(js) = at.get(l.trim()) {
            for &j in js.iter().take(8) {
                *votes.entry(i as isize - j as isize).or_default() += 1;
            }
        }
    }
    let mut starts: Vec<(isize, u32)> = votes.into_iter().collect();
    crate::order::sort_by(&mut starts[..], |a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let max_start = file.len().saturating_sub(m) as isize;
    starts
        .iter()
        .take(3)
        .map(|&(s, _)| {
            let s = s.clamp(0, max_start) as usize;
            let end = (s + m).min(file.len());
            (s, similarity(&file[s..end].join("\n"), &block.join("\n")))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
}

/// How alike two texts are: twice the characters a shortest diff keeps,
/// over both lengths (the ratio of `similar`'s `TextDiff`, without its
/// text layer, which the module's first part would carry), each text cut
/// at 2,000 characters.
fn similarity(a: &str, b: &str) -> f32 {
    let a: Vec<char> = a.chars().take(2000).collect();
    let b: Vec<char> = b.chars().take(2000).collect();
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let mut kept = Kept(0);
    let _ = similar::algorithms::myers::diff(&mut kept, &a, 0..a.len(), &b, 0..b.len());
    2.0 * kept.0 as f32 / (a.len() + b.len()) as f32
}

/// Counts the elements a diff keeps.
struct Kept(usize);

impl similar::algorithms::DiffHook for Kept {
    type Error = std::convert::Infallible;
    fn equal(&mut self, _old: usize, _new: usize, len: usize) -> Result<(), Self::Error> {
        self.0 += len;
        Ok(())
    }
}

/// How many edits of a file that are not found get the closest region and
/// first difference (a pass over the file and a character diff each); and
/// how many failures the summary writes out. Past it, a reply of 100,000
/// failing edits would cost minutes and a feedback no model reads.
pub const DETAILED: usize = 20;

/// The message for a not-found edit past the first [`DETAILED`] of its file.
pub fn not_found_brief(w: &Words, path: &str, lines: usize) -> String {
    format!(
        "{} ({lines} line{}) was not found in {path}, not even with whitespace, indentation and look-alike characters ignored. (No closest region: more than {DETAILED} edits of {path} failed the same way; fix the first ones, then resend.)",
        w.old,
        if lines == 1 { "" } else { "s" }
    )
}

/// The closest region of `file` to the old text `block`, and where they
/// first differ, as data; `from`/`to` and their positions are the
/// transaction's to set (they need the file's UTF-16 line starts).
pub fn closest_region(file: &[&str], block: &[&str]) -> Option<Closest> {
    let (s, ratio) = closest(file, block)?;
    let end = (s + block.len()).min(file.len());
    let first_difference = first_difference(&file[s..end], block).map(|(i, chars)| {
        let units = |l: &str| -> usize { l.chars().take(chars).map(char::len_utf16).sum() };
        FirstDifference {
            file_line: s + i + 1,
            file_col: units(file.get(s + i).copied().unwrap_or("")),
            edit_line: i + 1,
            edit_col: units(block.get(i).copied().unwrap_or("")),
        }
    });
    let origin = Position { line: 0, col: 0 };
    Some(Closest {
        lines: [s + 1, end],
        from: 0,
        to: 0,
        from_pos: origin,
        to_pos: origin,
        similarity: percent(ratio),
        first_difference,
    })
}

/// A similarity (0..1) as a whole percentage, ties to even as `{:.0}`
/// writes them: in integers, so that no float formatting is needed.
pub(crate) fn percent(ratio: f32) -> u32 {
    f64::from(ratio * 100.0).round_ties_even() as u32
}

/// The message for an edit whose old text is not in the file, and its
/// closest region as data: computed once, for both.
pub fn not_found<S: AsRef<str>>(
    w: &Words,
    path: &str,
    file: &[&str],
    old: &[S],
) -> (String, Option<Closest>) {
    let block: Vec<&str> = old.iter().map(|s| s.as_ref()).collect();
    let mut msg = format!(
        "{} ({} line{}) was not found in {path}, not even with whitespace, indentation and look-alike characters ignored.",
        w.old,
        block.len(),
        if block.len() == 1 { "" } else { "s" }
    );
    let closest = closest_region(file, &block);
    let Some(c) = &closest else {
        msg.push_str(
            " No line of it occurs in the file: check the file name, or read the file again.",
        );
        return (msg, None);
    };
    msg.push_str(&format!(
        " Closest region: lines {}-{} ({}% similar).",
        c.lines[0], c.lines[1], c.similarity
    ));
    if let Some(d) = c.first_difference {
        let f = file.get(d.file_line - 1).copied().unwrap_or("");
        let b = block.get(d.edit_line - 1).copied().unwrap_or("");
        // The column in characters, as a reader counts them.
        let col = char_col(f, d.file_col);
        // Aligned: `  file:   x` over `  SEARCH: x`.
        let pad = " ".repeat(w.short.len().saturating_sub(3).max(1));
        msg.push_str(&format!(
            "\nFirst difference at line {} ({} line {}), column {}:\n  file:{pad}{}\n  {}: {}\nCopy the lines exactly as they are in the file.",
            d.file_line,
            w.short,
            d.edit_line,
            col,
            visible_ws(f),
            w.short,
            visible_ws(b)
        ));
    }
    (msg, closest)
}

/// The 1-based character column of UTF-16 column `units` of `line`.
fn char_col(line: &str, units: usize) -> usize {
    let mut seen = 0;
    1 + line
        .chars()
        .take_while(|c| {
            seen += c.len_utf16();
            seen <= units
        })
        .count()
}

/// First differing (line index, chars in common before it) between two
/// blocks.
fn first_difference(file: &[&str], block: &[&str]) -> Option<(usize, usize)> {
    for i in 0..file.len().max(block.len()) {
        let (f, b) = (
            file.get(i).copied().unwrap_or(""),
            block.get(i).copied().unwrap_or(""),
        );
        if f != b {
            let same = f.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
            return Some((i, same));
        }
    }
    None
}

pub fn ambiguous(
    w: &Words,
    path: &str,
    file: &[&str],
    cands: &[usize],
    len: usize,
    level: Level,
) -> String {
    let places: Vec<String> = cands
        .iter()
        .map(|&c| format!("{}-{}", c + 1, c + len))
        .collect();
    let more = if cands.len() >= crate::apply::matcher::CANDIDATE_CAP {
        " (and more)"
    } else {
        ""
    };
    let mut msg = format!(
        "{} matches {} places in {path} (level {}): lines {}{more}. Nothing was applied there.",
        w.old,
        cands.len(),
        level.name(),
        places.join(", ")
    );
    let window = |c: usize, k: usize| -> Vec<&str> {
        let lo = c.saturating_sub(k);
        let hi = (c + len + k).min(file.len());
        file[lo..hi].iter().map(|l| l.trim()).collect()
    };
    let k = (1..=8).find(|&k| {
        let ws: Vec<Vec<&str>> = cands.iter().map(|&c| window(c, k)).collect();
        (0..ws.len()).all(|a| (a + 1..ws.len()).all(|b| ws[a] != ws[b]))
    });
    match k {
        Some(k) => {
            msg.push_str(&format!(
                " Include {k} more line{} of context above and below so the block is unique:",
                if k == 1 { "" } else { "s" }
            ));
            for &c in cands.iter().take(4) {
                let above = c.checked_sub(1).and_then(|i| file.get(i)).filter(|l| !is_blank(l));
                let below = file.get(c + len).filter(|l| !is_blank(l));
                msg.push_str(&format!("\n  lines {}-{}:", c + 1, c + len));
                if let Some(a) = above {
                    msg.push_str(&format!(" above `{}`", a.trim()));
                }
                if let Some(b) = below {
                    msg.push_str(&format!(" below `{}`", b.trim()));
                }
            }
        }
        None => msg.push_str(" The places are identical with their surroundings; use a line number hint or a larger block."),
    }
    msg
}

/// Words of a message that says an ending may be a cut or a miscount (a
/// diff hunk shorter than its header at the end of the output).
pub const CUT_OR_MISCOUNTED: &str = "Either the reply was cut off";

/// How many failures the summary writes out, each with its message; the
/// rest are counted by code (their receipts keep their messages).
pub const LISTED: usize = 50;

/// The closing text for the model: every failure with its fix (the first
/// [`LISTED`], then a count), then what was applied or held back.
pub fn summary(report: &Report, partial: bool) -> String {
    let receipts = report.receipts();
    let total = receipts.len();
    if report.status == Status::Applied {
        return format!(
            "All {total} edit{} applied.",
            if total == 1 { "" } else { "s" }
        );
    }
    // Edit index -> its file, built once (not a search per failure).
    let paths: HashMap<usize, &str> = report
        .files
        .iter()
        .flat_map(|f| f.edits.iter().map(move |r| (r.index, f.path.as_str())))
        .collect();
    let path_of = |idx: usize| paths.get(&idx).copied().unwrap_or("");
    let failed: Vec<&&crate::edit::Receipt> = receipts
        .iter()
        .filter(|r| r.status == EditStatus::Failed)
        .collect();
    let mut out = String::new();
    for r in failed.iter().take(LISTED) {
        out.push_str(&failure_line(r, path_of(r.index)));
    }
    if failed.len() > LISTED {
        out.push_str(&more_failures(&failed[LISTED..]));
    }
    let list = |st: EditStatus| -> Vec<String> {
        receipts
            .iter()
            .filter(|r| r.status == st)
            .map(|r| r.index.to_string())
            .collect()
    };
    let (applied, held) = (list(EditStatus::Applied), list(EditStatus::Skipped));
    if report.status == Status::Truncated {
        out.push_str(&continuation(&receipts, &path_of));
    } else if !held.is_empty() {
        let (edits, were) = if held.len() == 1 {
            ("edit", "was")
        } else {
            ("edits", "were")
        };
        out.push_str(&format!(
            "Not applied: {edits} {} located correctly but {were} held back because the transaction is all-or-nothing. Resend only the failed edits, fixed; the others will apply with them.\n",
            held.join(", ")
        ));
    } else if partial && !applied.is_empty() {
        out.push_str(&format!(
            "Applied (partial mode): edits {}. Resend only the failed edits, fixed.\n",
            applied.join(", ")
        ));
    }
    out.trim_end().to_owned()
}

/// One failed edit: where it is (its file, its lines in the reply), its
/// code and message.
fn failure_line(r: &crate::edit::Receipt, path: &str) -> String {
    let code = r.code.map(Code::as_str).unwrap_or("failed");
    let mut place: Vec<String> = vec![];
    if !path.is_empty() {
        place.push(path.to_owned());
    }
    if let Some(l) = r.output_lines {
        place.push(format!("output lines {}-{}", l[0], l[1]));
    }
    let place = if place.is_empty() {
        String::new()
    } else {
        format!(" ({})", place.join(", "))
    };
    format!(
        "Edit {}{place} failed [{code}]: {}\n",
        r.index,
        r.message.as_deref().unwrap_or("")
    )
}

/// What a cut reply is told: nothing was applied, which complete edits not
/// to resend, and the edit to go on from. The continuation asks only for
/// what is missing: complete edits are named by their location, not
/// repeated.
fn continuation<'p>(
    receipts: &[&crate::edit::Receipt],
    path_of: &dyn Fn(usize) -> &'p str,
) -> String {
    let maybe = receipts.iter().any(|r| {
        r.message
            .as_deref()
            .is_some_and(|m| m.contains(CUT_OR_MISCOUNTED))
    });
    let mut out = String::from(if maybe {
        "The output may be cut off (or its counts are wrong, see above), so nothing was applied."
    } else {
        "The output was cut off, so nothing was applied."
    });
    let done: Vec<String> = receipts
        .iter()
        .filter(|r| r.status == EditStatus::Skipped)
        .map(|r| match r.lines {
            Some([a, b]) if b >= a => {
                format!("edit {} ({} lines {a}-{b})", r.index, path_of(r.index))
            }
            _ => format!("edit {} ({})", r.index, path_of(r.index)),
        })
        .collect();
    if !done.is_empty() {
        out.push_str(&format!(
            " Complete and located, do not resend: {}.",
            done.join(", ")
        ));
    }
    let next = receipts
        .iter()
        .find(|r| r.code == Some(Code::Truncated))
        .map(|r| r.index)
        .unwrap_or(receipts.len() + 1);
    let with = if done.is_empty() {
        ""
    } else {
        "; the complete ones will be applied together with them"
    };
    out.push_str(&format!(
        " Send the remaining edits in the same format, starting with edit {next}{with}.\n"
    ));
    out
}

/// The line for failures past the first [`LISTED`]: how many, by code.
fn more_failures(rest: &[&&crate::edit::Receipt]) -> String {
    let mut by_code: Vec<(&str, usize)> = vec![];
    for r in rest {
        let code = r.code.map(Code::as_str).unwrap_or("failed");
        match by_code.iter_mut().find(|c| c.0 == code) {
            Some(c) => c.1 += 1,
            None => by_code.push((code, 1)),
        }
    }
    let counts: Vec<String> = by_code.iter().map(|(c, k)| format!("{k} {c}")).collect();
    format!(
        "... and {} more edits failed ({}; edits {} to {}); fix the ones above first, the receipts have every message.\n",
        rest.len(),
        counts.join(", "),
        rest[0].index,
        rest[rest.len() - 1].index
    )
}

#[cfg(test)]
mod tests {

    /// The ratio is `similar`'s `TextDiff::ratio` on characters, computed
    /// without its text layer: the same number on texts of every kind.
    #[test]
    fn similarity_is_textdiffs_ratio() {
        let texts = [
            "",
            "a",
            "abc",
            "    return x + 1",
            "    retrun x+1 ",
            "日本語のテキスト",
            "x\ny\nz",
        ];
        for a in texts {
            for b in texts {
                let want = similar::TextDiff::from_chars(a, b).ratio();
                assert_eq!(super::similarity(a, b), want, "{a:?} {b:?}");
            }
        }
    }

    use super::*;

    #[test]
    fn closest_region_and_first_difference() {
        let file = [
            "a",
            "def f(x):",
            "    return x + 1",
            "b",
            "def g(y):",
            "    return y",
        ];
        let (msg, closest) = not_found(
            &crate::formats::search_replace::WORDS,
            "m.py",
            &file,
            &["def f(x):", "    return x + 2"],
        );
        let c = closest.expect("a closest region");
        assert_eq!(c.lines, [2, 3]);
        let d = c.first_difference.expect("a difference");
        // `    return x + ` is 15 characters, the same on both sides.
        assert_eq!(
            (d.file_line, d.file_col, d.edit_line, d.edit_col),
            (3, 15, 2, 15)
        );
        assert!(msg.contains("Closest region: lines 2-3"), "{msg}");
        assert!(
            msg.contains("First difference at line 3 (SEARCH line 2), column 16"),
            "{msg}"
        );
        assert!(msg.contains("····return·x·+·1"), "{msg}");
    }

    #[test]
    fn ambiguous_names_context() {
        let file = ["fn a() {", "    x();", "}", "fn b() {", "    x();", "}"];
        let msg = ambiguous(
            &crate::formats::search_replace::WORDS,
            "m.rs",
            &file,
            &[1, 4],
            1,
            Level::Exact,
        );
        assert!(msg.contains("lines 2-2, 5-5"), "{msg}");
        assert!(msg.contains("Include 1 more line"), "{msg}");
        assert!(msg.contains("above `fn a() {`"), "{msg}");
    }

    #[test]
    fn messages_speak_the_format_of_the_reply() {
        let file = ["def f(x):", "    return x + 1"];
        let old = ["def f(x):", "    return x + 2"];
        let (msg, _) = not_found(
            crate::formats::words(crate::name::FormatName::Udiff),
            "m.py",
            &file,
            &old,
        );
        assert!(
            msg.starts_with("the hunk's unchanged and removed lines (2 lines)"),
            "{msg}"
        );
        assert!(msg.contains("(hunk line 2)"), "{msg}");
        assert!(
            msg.contains("\n  file: ····return·x·+·1\n  hunk: ····return·x·+·2"),
            "{msg}"
        );
        let (msg, _) = not_found(
            crate::formats::words(crate::name::FormatName::SearchReplace),
            "m.py",
            &file,
            &old,
        );
        assert!(
            msg.contains("\n  file:   ····return·x·+·1\n  SEARCH: ····return·x·+·2"),
            "{msg}"
        );
        use crate::name::FormatName;
        for f in [
            FormatName::Udiff,
            FormatName::ApplyPatch,
            FormatName::ToolCall,
        ] {
            let msg = ambiguous(
                crate::formats::words(f),
                "m.rs",
                &["x", "x"],
                &[0, 1],
                1,
                Level::Exact,
            );
            assert!(!msg.contains("SEARCH"), "{f}: {msg}");
            assert!(
                !already_applied(crate::formats::words(f), "m.rs").contains("SEARCH"),
                "{f}"
            );
        }
    }

    proptest::proptest! {
        /// A similarity as a percentage is the number `{:.0}` writes,
        /// ties (a ratio of 0.125, say) to even included.
        #[test]
        fn percent_is_what_format_writes(r in 0.0f32..=1.0, k in 0u32..=1000) {
            for ratio in [r, k as f32 / 1000.0] {
                proptest::prop_assert_eq!(
                    super::percent(ratio).to_string(),
                    format!("{:.0}", f64::from(ratio * 100.0))
                );
            }
        }
    }
}
