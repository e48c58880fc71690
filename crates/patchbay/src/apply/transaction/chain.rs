//! Edits that build on earlier edits of the same reply. Aider applies
//! SEARCH/REPLACE blocks one after another, and Anthropic's text editor runs
//! each `str_replace` on the file the previous call left, so models write
//! replies whose later edit quotes text only an earlier edit wrote.
//!
//! The snapshot comes first: every edit is located in the original. An
//! edit of a sequential format (the format's `sequential`) that
//! is not found there is looked for in the text the file's earlier located
//! edits produce, by the same rules (unique at its level). Found, it becomes
//! one change with the earlier edits its lines touch, placed in the
//! original: the transaction stays all or nothing, in memory until the one
//! write, and receipts keep their original positions. An edit found there
//! without touching any earlier edit's lines is left refused: the original
//! would have held it.

use super::{fail, set_aside, Dialect, FileWork, Planned};
use crate::apply::locate::{self, Spot};
use crate::apply::transaction::Options;
use crate::edit::{Code, Edit, EditStatus, Op, Receipt};

/// Intermediate texts built per file at most: each is a pass over the
/// file, so a reply of thousands of dependent edits stays linear.
pub(super) const REBUILDS: usize = 64;

/// An earlier edit's new lines in the intermediate text.
struct Region {
    /// Position in the file's `planned`.
    at: usize,
    idx: usize,
    /// Its lines in the intermediate text, and the original's it replaced.
    t: std::ops::Range<usize>,
    o: std::ops::Range<usize>,
}

/// The text the earlier edits (of index below `idx`) produce, with where
/// each one's lines are in it.
struct Layout {
    text: String,
    lines: Vec<String>,
    regions: Vec<Region>,
}

impl Layout {
    fn new(w: &FileWork, idx: usize) -> Option<Layout> {
        let mut order: Vec<usize> = (0..w.planned.len())
            .filter(|&k| w.planned[k].idx < idx)
            .collect();
        if order.is_empty() {
            return None;
        }
        crate::order::sort_by_key(&mut order[..], |&k| (w.planned[k].start, w.planned[k].idx));
        let mut lines = Vec::with_capacity(w.text.len());
        let mut regions = Vec::with_capacity(order.len());
        let mut pos = 0;
        for k in order {
            let p = &w.planned[k];
            lines.extend((pos..p.start).map(|i| w.text.line(i).to_owned()));
            let t = lines.len()..lines.len() + p.new.len();
            lines.extend(p.new.iter().cloned());
            regions.push(Region {
                at: k,
                idx: p.idx,
                t,
                o: p.start..p.end,
            });
            pos = p.end.max(pos);
        }
        lines.extend((pos..w.text.len()).map(|i| w.text.line(i).to_owned()));
        let mut text = lines.join("\n");
        if w.text.ends_with_newline() && !lines.is_empty() {
            text.push('\n');
        }
        Some(Layout {
            text,
            lines,
            regions,
        })
    }

    /// The earlier edits whose lines the found lines touch.
    fn touched(&self, spot: &Spot) -> Vec<&Region> {
        self.regions
            .iter()
            .filter(|r| match r.t.is_empty() {
                true => spot.start < r.t.start && r.t.start < spot.end,
                false => r.t.start < spot.end && spot.start < r.t.end,
            })
            .collect()
    }

    /// Original line of intermediate line `x` (a boundary outside every
    /// region's inside); `end`: an emptied region at `x` stays after it.
    fn original(&self, x: usize, end: bool) -> usize {
        let shift: isize = self
            .regions
            .iter()
            .filter(|r| r.t.end < x || (r.t.end == x && !(end && r.t.is_empty())))
            .map(|r| r.t.len() as isize - r.o.len() as isize)
            .sum();
        x.saturating_add_signed(-shift)
    }
}

/// Locates each edit of `w` that was not found in the original in the text
/// its earlier edits produce, and merges it with the edits it builds on.
pub(super) fn build_on_earlier(w: &mut FileWork, edits: &[Edit], opt: &Options, d: &Dialect) {
    if w.exclusive || w.original.is_none() {
        return;
    }
    let missing: Vec<usize> = w
        .receipts
        .iter()
        .filter(|r| r.code == Some(Code::NotFound))
        .map(|r| r.index)
        .collect();
    for idx in missing {
        retry(w, &edits[idx - 1], idx, opt, d);
    }
}

/// Locates edit `idx`, not found in the original, in the text the file's
/// planned edits before it produce (its receipt is among `w.receipts`).
pub(super) fn retry(w: &mut FileWork, edit: &Edit, idx: usize, opt: &Options, d: &Dialect) {
    if !sequential_op(&edit.op) || w.rebuilds >= REBUILDS {
        return;
    }
    let Some(layout) = Layout::new(w, idx) else {
        return;
    };
    w.rebuilds += 1;
    try_on(w, &layout, edit, idx, opt, d);
}

/// The edits a text that changes as they apply can hold: a block found by
/// its text alone, not by anchors or the file's end.
fn sequential_op(op: &Op) -> bool {
    match op {
        Op::Replace {
            anchors, at_end, ..
        } => anchors.is_empty() && !at_end,
        Op::StrReplace { .. } => true,
        _ => false,
    }
}

/// Locates edit `idx` in the layout's text and plans it merged, or says
/// in its receipt what was checked.
fn try_on(w: &mut FileWork, layout: &Layout, edit: &Edit, idx: usize, opt: &Options, d: &Dialect) {
    let mid = FileWork::new(w.path.clone(), Some(&layout.text));
    let found = locate::locate(&mid.target(opt), &edit.op, d.rules(opt));
    let k = receipt_at(w, idx);
    let earlier = list(&layout.regions.iter().map(|r| r.idx).collect::<Vec<_>>());
    let spot = match found {
        Ok(spot) => spot,
        Err(refusal) if refusal.code == Code::NotFound => {
            let note = format!(
                " Nor is it in the text the reply's earlier edits of {} ({earlier}) produce.",
                w.path
            );
            w.receipts[k]
                .message
                .get_or_insert_with(String::new)
                .push_str(&note);
            return;
        }
        Err(refusal) => {
            let msg = format!(
                "{} (in the text the reply's earlier edits {earlier} produce)",
                refusal.message
            );
            return fail(&mut w.receipts[k], refusal.code, msg);
        }
    };
    let touched = layout.touched(&spot);
    if touched.is_empty() {
        return;
    }
    merge(
        w,
        layout,
        spot,
        &touched,
        k,
        opt.skip.binary_search(&idx).is_ok(),
    );
}

/// Plans the found edit and the earlier ones it touches as one change of
/// the original, unless that change overlaps another planned edit.
fn merge(w: &mut FileWork, layout: &Layout, spot: Spot, touched: &[&Region], k: usize, skip: bool) {
    let t_start = touched[0].t.start.min(spot.start);
    let t_end = touched
        .iter()
        .map(|r| r.t.end)
        .max()
        .unwrap_or(0)
        .max(spot.end);
    let (o_start, o_end) = (
        layout.original(t_start, false),
        layout.original(t_end, true),
    );
    let o_start = o_start.min(touched[0].o.start);
    let o_end = touched
        .iter()
        .map(|r| r.o.end)
        .max()
        .unwrap_or(0)
        .max(o_end);
    let on: Vec<usize> = touched.iter().map(|r| r.idx).collect();
    let r = &mut w.receipts[k];
    r.builds_on = on.clone();
    let clash = w.planned.iter().enumerate().find(|(at, p)| {
        let apart = match p.start == p.end {
            true => p.start <= o_start || p.start >= o_end,
            false => p.end <= o_start || p.start >= o_end,
        };
        !apart && !touched.iter().any(|t| t.at == *at)
    });
    if let Some((_, p)) = clash {
        let msg = crate::apply::feedback::overlap(r.index, p.idx);
        return fail(r, Code::Overlap, msg);
    }
    located(r, &spot, o_start..o_end, &on);
    if skip {
        return set_aside(r);
    }
    let mut new: Vec<String> = layout.lines[t_start..spot.start].to_vec();
    new.extend(spot.new);
    new.extend(layout.lines[spot.end..t_end].iter().cloned());
    let mut merged: Vec<usize> = on;
    let mut gone: Vec<usize> = touched.iter().map(|t| t.at).collect();
    crate::order::sort(&mut gone[..]);
    for at in gone.into_iter().rev() {
        merged.extend(w.planned.remove(at).merged);
    }
    let mut p = Planned::new(r.index, Spot::at(o_start, o_end, new));
    p.merged = merged;
    w.planned.push(p);
}

/// The receipt of an edit found in an intermediate text.
fn located(r: &mut Receipt, spot: &Spot, lines: std::ops::Range<usize>, on: &[usize]) {
    r.status = EditStatus::Applied;
    r.code = None;
    r.strategy = spot.level;
    r.lines = Some([lines.start + 1, lines.end]);
    r.message = Some(format!(
        "not in the original: found in the text that edit{} {} produce{}, and applied together with {}",
        if on.len() == 1 { "" } else { "s" },
        list(on),
        if on.len() == 1 { "s" } else { "" },
        if on.len() == 1 { "it" } else { "them" },
    ));
}

/// The receipt of edit `idx` (receipts are in index order).
fn receipt_at(w: &FileWork, idx: usize) -> usize {
    w.receipts
        .binary_search_by_key(&idx, |r| r.index)
        .expect("receipt exists")
}

/// `1, 2 and 3`.
fn list(idx: &[usize]) -> String {
    let s: Vec<String> = idx.iter().map(usize::to_string).collect();
    match s.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => s.join(""),
    }
}
