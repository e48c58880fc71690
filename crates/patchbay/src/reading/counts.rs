//! Declared counts: telling a cut reply from a complete one.
//!
//! A reply cut at the token limit looks like a shorter complete reply unless
//! the writer said how much was coming. The protocol here declares the total
//! and the order in the first two lines, then numbers every item `n/N` under
//! a fixed heading with a fixed set of fields:
//!
//! ```text
//! Total: 8
//! Order: severity, high to low
//! ## Item 1/8
//! - Location: src/quote.ts:5
//! - Severity: high
//! - Claim: ...
//! - Quote: ...
//! ```
//!
//! Labels are configurable; English is the default and the original's Japanese
//! labels (`総件数`, `並び`, `指摘`, `場所`, ...) are always understood too.
//! For JSON replies a cut document that no parser accepts still yields the
//! declared `"total"` (when it comes first) and the complete items before the
//! cut. Everything is one pass over the text, `O(len)`.

use serde::{Deserialize, Serialize};

/// Heading words of items that models write in English besides `Item`
/// (`## Finding 2/5`): understood whatever the protocol's own heading.
pub const COMMON_HEADINGS: [&str; 8] = [
    "Finding", "Issue", "Problem", "Change", "Edit", "Step", "Point", "Comment",
];

/// The labels of a reply protocol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub struct Protocol {
    pub total: String,
    pub order: String,
    /// Heading word of an item: `## <heading> n/N`.
    pub heading: String,
    /// Field labels, in order; each item has all of them.
    pub fields: Vec<String>,
    /// Index into `fields` of the one that locates an item (file:line).
    pub location: usize,
}

impl Default for Protocol {
    fn default() -> Self {
        Protocol::english()
    }
}

impl Protocol {
    pub fn english() -> Self {
        Protocol {
            total: "Total".into(),
            order: "Order".into(),
            heading: "Item".into(),
            fields: ["Location", "Severity", "Claim", "Quote"]
                .map(String::from)
                .to_vec(),
            location: 0,
        }
    }

    /// The Japanese labels of the original review protocol (総件数, 並び,
    /// 指摘; 場所, 深刻度, 主張, 引用).
    pub fn japanese() -> Self {
        Protocol {
            total: "総件数".into(),
            order: "並び".into(),
            heading: "指摘".into(),
            fields: ["場所", "深刻度", "主張", "引用"]
                .map(String::from)
                .to_vec(),
            location: 0,
        }
    }

    /// The instruction text that asks a model for this protocol.
    pub fn instructions(&self) -> String {
        let fields: Vec<String> = self
            .fields
            .iter()
            .map(|f| format!("- {f}: <...>"))
            .collect();
        format!(
            "Start the reply with exactly these two lines:\n{t}: <the total number of items, before any limit>\n{o}: <the order of the items>\nThen write each item as:\n## {h} <n>/<total>\n{}\nKeep the labels exactly as written.",
            fields.join("\n"),
            t = self.total,
            o = self.order,
            h = self.heading
        )
    }
}

/// One complete item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// Its number `n` and the total `N` it declares.
    pub n: usize,
    pub of: Option<usize>,
    /// Field values in protocol order.
    pub fields: Vec<String>,
    /// The locating field's value.
    pub location: String,
}

/// The judgement of a reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Complete,
    /// `missing` is known when a total was declared.
    Truncated {
        missing: Option<usize>,
    },
    /// Numbers skip, repeat or exceed the total, or totals disagree.
    Inconsistent {
        reason: String,
    },
}

/// What [`check_output`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OutputCheck {
    pub declared_total: Option<usize>,
    pub order: Option<String>,
    pub items: Vec<Item>,
    /// Number of the last complete item.
    pub last_complete: Option<usize>,
    /// A partial item after the last complete one was dropped.
    pub dropped_partial: bool,
    pub json: bool,
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// Whether a stop reason means the reply hit the output limit
/// (Ollama `done_reason: "length"`, Anthropic `max_tokens`, OpenAI `length`).
pub fn stopped_by_limit(stop_reason: Option<&str>) -> bool {
    matches!(
        stop_reason,
        Some("length" | "max_tokens" | "max_output_tokens")
    )
}

fn label_value<'a>(line: &'a str, labels: &[&str]) -> Option<&'a str> {
    let t = line.trim().trim_start_matches(['-', '*']).trim_start();
    for l in labels {
        if let Some(rest) = t.strip_prefix(l) {
            let rest = rest.trim_start();
            if let Some(v) = rest.strip_prefix(':').or_else(|| rest.strip_prefix('：')) {
                return Some(v.trim());
            }
        }
    }
    None
}

/// `## <heading> n/N` (or `n` alone) -> (n, N).
fn heading(line: &str, words: &[&str]) -> Option<(usize, Option<usize>)> {
    let t = line.trim().trim_start_matches('#').trim();
    let rest = words.iter().find_map(|w| t.strip_prefix(w))?.trim();
    let (n, of) = match rest.split_once('/') {
        Some((a, b)) => (a.trim(), Some(b.trim())),
        None => (rest, None),
    };
    let n: usize = n.parse().ok()?;
    let of = match of {
        Some(b) => Some(b.parse().ok()?),
        None => None,
    };
    Some((n, of))
}

/// Checks a reply against a protocol. `stop_reason` is the API's reason
/// An item being read: its number, the count it gives (`n/N`), and its
/// fields so far.
type Open = (usize, Option<usize>, Vec<Option<String>>);

/// The item read, or `None` when a field is missing or the item may be
/// cut (`whole`: it did not end the reply, or the reply ended cleanly).
fn close_item((n, of, fields): Open, whole: bool, location: usize) -> Option<Item> {
    if !whole || !fields.iter().all(Option::is_some) {
        return None;
    }
    let fields: Vec<String> = fields.into_iter().map(Option::unwrap_or_default).collect();
    let location = fields.get(location).cloned().unwrap_or_default();
    Some(Item {
        n,
        of,
        fields,
        location,
    })
}

/// The field a line gives a value to, in any of the label sets (the
/// protocol's, English, Japanese); `keep`: the value may be trusted.
fn set_field(line: &str, field_sets: &[&Vec<String>], fields: &mut [Option<String>], keep: bool) {
    for set in field_sets {
        if let Some(k) = (0..set.len().min(fields.len()))
            .find(|&k| label_value(line, &[set[k].as_str()]).is_some())
        {
            if keep {
                fields[k] = label_value(line, &[set[k].as_str()]).map(str::to_owned);
            }
            return;
        }
    }
}

/// for stopping, when known.
pub fn check_output(text: &str, p: &Protocol, stop_reason: Option<&str>) -> OutputCheck {
    // A reasoning section's drafts are not the answer: nothing in it counts.
    let (masked, _) = crate::reading::reasoning::mask(text);
    let text = &*masked;
    if text.trim_start().starts_with(['{', '[']) {
        return check_json(text, stop_reason);
    }
    let ja = Protocol::japanese();
    let en = Protocol::english();
    let totals = [p.total.as_str(), en.total.as_str(), ja.total.as_str()];
    let orders = [p.order.as_str(), en.order.as_str(), ja.order.as_str()];
    let mut heads = vec![p.heading.as_str(), en.heading.as_str(), ja.heading.as_str()];
    heads.extend(COMMON_HEADINGS);
    let field_sets = [&p.fields, &en.fields, &ja.fields];
    let mut total = None;
    let mut order = None;
    let mut items: Vec<Item> = vec![];
    let mut cur: Option<Open> = None;
    let mut dropped = false;
    let mut oversized: Option<String> = None;
    let ends_clean = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let finish =
        |cur: Option<Open>, last: bool, items: &mut Vec<Item>, dropped: &mut bool| match cur
            .map(|c| close_item(c, !last || ends_clean, p.location))
        {
            Some(Some(item)) => items.push(item),
            Some(None) => *dropped = true,
            None => {}
        };
    for (i, line) in lines.iter().enumerate() {
        // The last line of a reply that does not end in a newline may be
        // cut mid-value ("Total: 1" of "Total: 12"): it declares nothing.
        let cut_line = i + 1 == lines.len() && !ends_clean;
        if let Some(v) = label_value(line, &totals).filter(|_| !cut_line) {
            let v = v.split_whitespace().next().unwrap_or("");
            match count(v) {
                Some(n) => total = Some(n),
                None if too_large(v) => oversized = Some(v.to_owned()),
                None => {}
            }
            continue;
        }
        if let Some(v) = label_value(line, &orders).filter(|_| !cut_line) {
            order = Some(v.to_owned());
            continue;
        }
        if let Some((n, of)) = heading(line, &heads) {
            finish(cur.take(), false, &mut items, &mut dropped);
            dropped = false;
            cur = Some((n, of, vec![None; p.fields.len()]));
            continue;
        }
        if let Some((_, _, fields)) = cur.as_mut() {
            // A value on the last line of a cut reply may itself be cut.
            let keep = i + 1 != lines.len() || ends_clean;
            set_field(line, &field_sets, fields, keep);
        }
    }
    finish(cur.take(), true, &mut items, &mut dropped);
    let declared = total.or_else(|| items.iter().find_map(|it| it.of));
    let verdict = match oversized {
        Some(v) => oversized_total(&v),
        None => judge(&items, declared, dropped, stop_reason),
    };
    OutputCheck {
        declared_total: declared,
        order,
        last_complete: items.last().map(|i| i.n),
        items,
        dropped_partial: dropped,
        json: false,
        verdict,
    }
}

/// A declared total too large to be a count: malformed, never "not declared".
fn oversized_total(v: &str) -> Verdict {
    Verdict::Inconsistent {
        reason: format!(
            "the declared total {v} is not a count of items (a count is a whole number that fits in 64 bits)"
        ),
    }
}

fn judge(items: &[Item], total: Option<usize>, dropped: bool, stop: Option<&str>) -> Verdict {
    for (k, it) in items.iter().enumerate() {
        if it.n != k + 1 {
            return Verdict::Inconsistent {
                reason: format!(
                    "item {} comes where item {} was expected (numbers skip or repeat)",
                    it.n,
                    k + 1
                ),
            };
        }
        if let (Some(of), Some(t)) = (it.of, total) {
            if of != t {
                return Verdict::Inconsistent {
                    reason: format!("item {} says {of} in all, the header says {t}", it.n),
                };
            }
        }
    }
    match total {
        Some(t) if items.len() > t => Verdict::Inconsistent {
            reason: format!("{} received, {t} declared", items_word(items.len())),
        },
        Some(t) if items.len() < t => Verdict::Truncated {
            missing: Some(t - items.len()),
        },
        Some(_) => Verdict::Complete,
        // Without a declared total, a reply that ends cleanly after an item
        // cannot be told from a complete one (why the total is declared); only an
        // empty reply, a dropped partial item or the stop reason show a cut.
        None if items.is_empty() || dropped || stopped_by_limit(stop) => {
            Verdict::Truncated { missing: None }
        }
        None => Verdict::Complete,
    }
}

/// A cut JSON reply: the declared `"total"` scraped from the head, and the
/// complete objects of the first array before the cut.
fn check_json(text: &str, stop: Option<&str>) -> OutputCheck {
    let parsed: Option<serde_json::Value> = serde_json::from_str(text).ok();
    let (total, oversized) = match &parsed {
        Some(v) => match v.get("total").filter(|t| t.is_number()) {
            Some(t) => match t.as_u64() {
                Some(n) => (Some(usize::try_from(n).unwrap_or(usize::MAX)), None),
                None => (None, Some(t.to_string())),
            },
            None => (None, None),
        },
        None => scrape_total(text),
    };
    let objects: Vec<serde_json::Value> = match &parsed {
        Some(v) => v
            .as_array()
            .or_else(|| {
                v.as_object()
                    .and_then(|o| o.values().find_map(|x| x.as_array()))
            })
            .cloned()
            .unwrap_or_default(),
        None => complete_objects(text),
    };
    let items: Vec<Item> = objects
        .iter()
        .enumerate()
        .map(|(k, o)| {
            let loc = ["location", "file", "path", "場所"]
                .iter()
                .find_map(|f| {
                    o.get(f).map(|v| {
                        v.as_str()
                            .map(str::to_owned)
                            .unwrap_or_else(|| v.to_string())
                    })
                })
                .unwrap_or_default();
            Item {
                n: k + 1,
                of: total,
                fields: vec![o.to_string()],
                location: loc,
            }
        })
        .collect();
    let cut = parsed.is_none();
    let mut verdict = match &oversized {
        Some(v) => oversized_total(v),
        None => judge(&items, total, cut, stop),
    };
    if cut && verdict == Verdict::Complete {
        verdict = Verdict::Truncated { missing: None };
    }
    OutputCheck {
        declared_total: total,
        order: None,
        last_complete: items.last().map(|i| i.n),
        items,
        dropped_partial: cut,
        json: true,
        verdict,
    }
}

/// The `"total"` of a cut JSON reply, or its digits when they are too
/// many for a count.
fn scrape_total(text: &str) -> (Option<usize>, Option<String>) {
    let Some(at) = text.find("\"total\"") else {
        return (None, None);
    };
    let Some(rest) = text[at + 7..].trim_start().strip_prefix(':') else {
        return (None, None);
    };
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    match count(&digits) {
        Some(n) => (Some(n), None),
        None if too_large(&digits) => (None, Some(digits)),
        None => (None, None),
    }
}

/// Complete `{...}` objects inside the first array of a cut JSON text.
fn complete_objects(text: &str) -> Vec<serde_json::Value> {
    use crate::reading::json_edits::extent;
    let b = text.as_bytes();
    let Some(arr) = text.find('[') else {
        return vec![];
    };
    let mut out = vec![];
    let mut i = arr + 1;
    while i < b.len() {
        match b[i] {
            b']' => break,
            // An element: skip it whole (a string may hold brackets); keep
            // the objects that parse.
            b'{' | b'[' | b'"' => {
                let Some(end) = extent(b, i) else { break };
                if b[i] == b'{' {
                    if let Ok(v) = serde_json::from_str(&text[i..end]) {
                        out.push(v);
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

/// What [`check`] reads: the protocol the reply was asked to follow and the
/// server's stop reason, when known.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub struct CheckOptions {
    pub protocol: Protocol,
    pub stop_reason: Option<String>,
}

/// The check of a reply and the prompt that asks for the rest of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Checked {
    pub check: OutputCheck,
    pub continuation: String,
}

/// [`check_output`] with its [`continuation_prompt`].
pub fn check(text: &str, opt: &CheckOptions) -> Checked {
    let check = check_output(text, &opt.protocol, opt.stop_reason.as_deref());
    let continuation = continuation_prompt(&check, &opt.protocol);
    Checked {
        check,
        continuation,
    }
}

/// The second request after a cut: names the received items only by their
/// locations, says how many remain and where to continue.
pub fn continuation_prompt(check: &OutputCheck, p: &Protocol) -> String {
    let got = check.items.len();
    let locs: Vec<&str> = check.items.iter().map(|i| i.location.as_str()).collect();
    let next = check.last_complete.unwrap_or(0) + 1;
    let japanese = p.heading == Protocol::japanese().heading;
    match (check.declared_total, japanese) {
        (Some(t), false) => format!(
            "The previous reply ended after {}; {t} {} declared. These were received; do not repeat them:\n{}\nWrite the remaining {} in the same format, numbered from {next}/{t}, in the same order{}.",
            items_word(got),
            if t == 1 { "was" } else { "were" },
            locs.join("\n"),
            items_word(t.saturating_sub(got)),
            check.order.as_deref().map(|o| format!(" ({o})")).unwrap_or_default()
        ),
        (None, false) => format!(
            "The previous reply was cut off after {}. These were received; do not repeat them:\n{}\nContinue with the remaining items in the same format, numbered from {next}, in the same order.",
            items_word(got),
            locs.join("\n")
        ),
        (Some(t), true) => format!(
            "1回目の出力は {got} 件で終わっている。宣言された総件数は {t} 件である。\nすでに出た指摘の場所は次のとおりで、これらは再掲しない。\n\n{}\n\n残りの {} 件を、同じ形式で {next} から書く。\n並びは1回目と同じとする。",
            locs.join("\n"),
            t.saturating_sub(got)
        ),
        (None, true) => format!(
            "1回目の出力は {got} 件で切れている。すでに出た指摘の場所は次のとおりで、これらは再掲しない。\n\n{}\n\n残りを同じ形式で {next} から書く。",
            locs.join("\n")
        ),
    }
}

/// The output-size rule: warn when `per_item` bytes (or tokens)
/// times the expected count would pass half the output limit.
pub fn output_size_warning(per_item: usize, expected: usize, limit: usize) -> Option<String> {
    let need = per_item.saturating_mul(expected);
    (need * 2 > limit).then(|| {
        format!("{expected} items of about {per_item} each need about {need}, more than half the output limit of {limit}: declare the count first and expect a continuation")
    })
}

/// `EDITS: N` (or `Edits: N`) declared on a line of its own near the top.
pub fn declared_edits(output: &str) -> Option<usize> {
    output
        .lines()
        .take(DECLARED_LINES)
        .find_map(declared_in_line)
}

/// How many lines at the top of a reply may declare its edit count.
pub const DECLARED_LINES: usize = 20;

/// The count one line declares (`EDITS: N`), for [`declared_edits`].
pub fn declared_in_line(l: &str) -> Option<usize> {
    count(edits_value(l)?)
}

/// A count as written: digits that fit in 64 bits, saturated to `usize`
/// (so a 32-bit build reads a count past its reach as more than any reply
/// holds, as a 64-bit one does).
fn count(v: &str) -> Option<usize> {
    let n: u64 = v.parse().ok()?;
    Some(usize::try_from(n).unwrap_or(usize::MAX))
}

/// The value of an `EDITS:` line.
fn edits_value(l: &str) -> Option<&str> {
    let t = l.trim();
    let v = t
        .strip_prefix("EDITS:")
        .or_else(|| t.strip_prefix("Edits:"))?;
    Some(v.trim())
}

/// A declared edit count too large to be one (`EDITS: 18446744073709551616`):
/// its line's bytes in `output` and why. Such a count is malformed: read
/// as no declaration, it would let a reply whose edits fall short apply.
pub fn declared_too_large(output: &str) -> Option<(std::ops::Range<usize>, String)> {
    let mut at = 0;
    for line in output.split_inclusive('\n').take(DECLARED_LINES) {
        if let Some(v) = edits_value(line).filter(|v| too_large(v)) {
            let msg = format!("the declared edit count `EDITS: {v}` is not a number of edits (it does not fit in 64 bits); declare the count the reply holds");
            return Some((at..at + line.len(), msg));
        }
        at += line.len();
    }
    None
}

/// Digits alone that do not fit in a count (64 bits, whatever the build).
fn too_large(v: &str) -> bool {
    !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) && v.parse::<u64>().is_err()
}

/// `1 item`, `2 items`.
fn items_word(n: usize) -> String {
    format!("{n} item{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::complete_objects;

    #[test]
    fn complete_objects_of_a_cut_list() {
        let cut = r#"{"total": 4, "items": ["a ] b", {"n": 1, "s": "x}]"}, [1, {"n": 9}], {"n": 2}, {"n": 3, "s": "cu"#;
        let got: Vec<u64> = complete_objects(cut)
            .iter()
            .map(|v| v["n"].as_u64().unwrap())
            .collect();
        assert_eq!(got, [1, 2]);
        assert!(complete_objects("no list here {\"n\": 1}").is_empty());
    }
}
