//! The reports: one per hunk, in the engine's numbering, with what `patch`
//! did and how that compares with the hunk's safe place.

use super::super::edits::{as_written, old_new};
use super::super::parse::{read, Hunk, Prefix};
use super::super::place::{place, Placement as Lenient};
use super::pch::{GHunk, Reading};
use super::sim::{PatchPlace, Sim};
use super::{FuzzReport, FuzzVerdict};
use crate::apply::matcher::{FindOptions, Haystack, Level, Miss};

pub(super) fn new(h: &GHunk, k: usize, path: Option<&str>) -> FuzzReport {
    FuzzReport {
        hunk: 0,
        path: path.map(str::to_owned),
        output_line: h.out_line,
        stated_line: Some(h.stated),
        patch_hunk: Some(k),
        patch_line: None,
        patch_reported_line: None,
        fuzz: 0,
        offset: 0,
        safe_line: None,
        verdict: FuzzVerdict::Rejected,
        message: String::new(),
    }
}

/// Where the hunk belongs.
enum Safe {
    /// The only place where the whole hunk matches exactly.
    Exact(usize),
    /// Where the engine puts it once its damaged lines are read right
    /// (the only place it fits).
    Read(usize),
    /// The whole hunk matches at several places.
    Several,
    Nowhere,
}

/// Fills in where `patch` put the hunk (`meant`: the engine's reading of
/// it); `out_offset` is the file's offset before it.
pub(super) fn placed(
    r: &mut FuzzReport,
    sim: &Sim,
    h: &GHunk,
    meant: Option<&Hunk>,
    placed: PatchPlace,
    out_offset: isize,
) {
    let safe = safe_place(sim, h, meant);
    r.safe_line = match safe {
        Safe::Exact(s) | Safe::Read(s) => Some(s),
        _ => None,
    };
    let exact = matches!(safe, Safe::Exact(_));
    let (w, fuzz) = match placed {
        PatchPlace::At(w, f) => (w, f),
        PatchPlace::Nowhere | PatchPlace::Exists => {
            return failed(r, sim, h, (placed, h.first, exact), out_offset)
        }
        PatchPlace::Misordered(w) => return failed(r, sim, h, (placed, w, exact), out_offset),
    };
    r.patch_line = Some(w);
    r.patch_reported_line = Some((w as isize + out_offset) as usize);
    r.fuzz = fuzz;
    r.offset = sim.in_offset;
    let how = match (fuzz, sim.in_offset) {
        (0, 0) => String::new(),
        (0, o) => format!(" (offset {o})"),
        (f, 0) => format!(" with fuzz {f}"),
        (f, o) => format!(" with fuzz {f} (offset {o})"),
    };
    let no_context = !h.body.iter().any(|b| b.0 != Prefix::Add);
    (r.verdict, r.message) = match safe {
        _ if no_context && h.stated == 0 => (FuzzVerdict::Agrees, "patch adds the lines at the top of the file".into()),
        _ if no_context => (FuzzVerdict::NoSafePlace, format!("the hunk has no context: patch inserts it at line {w}{how}, trusting the number")),
        Safe::Exact(s) if s == w => (FuzzVerdict::Agrees, format!("patch applies it at line {w}{how}, the only place where the whole hunk matches")),
        Safe::Exact(s) => (FuzzVerdict::Misplaced, format!("patch applies it at line {w}{how}, but the whole hunk matches only at line {s}: a silent misapply")),
        Safe::Read(s) if s == w => (FuzzVerdict::Agrees, format!("patch applies it at line {w}{how}, where it belongs: the only place it fits once its damaged lines are read right")),
        Safe::Read(s) => (FuzzVerdict::Misplaced, format!("patch applies it at line {w}{how}, but read right the hunk fits only at line {s}: a silent misapply")),
        Safe::Several => (FuzzVerdict::NoSafePlace, format!("patch applies it at line {w}{how}, but the whole hunk matches at several places, and patch picks the one nearest the stated line: patch reports success for a guess")),
        Safe::Nowhere => (FuzzVerdict::NoSafePlace, format!("patch applies it at line {w}{how}, but the hunk matches nowhere in the file: patch reports success for a guess")),
    };
}

/// A hunk `patch` fails: "Hunk #N FAILED at L", L counted in the patched
/// file. `how`: why, the input line, and whether the safe place is exact.
fn failed(
    r: &mut FuzzReport,
    sim: &Sim,
    h: &GHunk,
    how: (PatchPlace, usize, bool),
    out_offset: isize,
) {
    let (placed, at, exact) = how;
    let at = (at as isize + out_offset).max(0) as usize;
    r.verdict = FuzzVerdict::Rejected;
    r.patch_reported_line = Some(at);
    let endings = if sim.different_endings(h, at) {
        " (different line endings)"
    } else {
        ""
    };
    let said = format!(
        "\"Hunk #{} FAILED at {at}{endings}\"",
        r.patch_hunk.unwrap_or(0)
    );
    r.message = match (placed, r.safe_line) {
        (PatchPlace::Exists, _) => format!("patch rejects the hunk ({said}): it creates a file that already exists"),
        (PatchPlace::Misordered(w), _) => format!("patch finds the hunk at line {w}, before the end of the hunk before, and rejects it ({said}, \"misordered hunks! output would be garbled\")"),
        _ if !endings.is_empty() => format!("patch rejects the hunk ({said}): the diff's lines and the file's differ in CR LF line ends (patch strips the CRs of a diff whose headers have them)"),
        (_, Some(s)) if exact => format!("patch rejects the hunk ({said}), though it matches in full at line {s}: an earlier hunk was placed after it"),
        (_, Some(s)) => format!("patch rejects the hunk ({said}), though read right it belongs at line {s}: its damage is more than fuzz 2 skips"),
        _ => format!("patch rejects the hunk ({said}): even with 2 context lines dropped it fits nowhere"),
    };
}

/// Where the hunk belongs: the engine's reading of it matched exactly,
/// else `patch`'s own reading (it skips comments, say), else the place
/// where the default mode puts it, when that is not a guess by the line
/// number.
fn safe_place(sim: &Sim, h: &GHunk, meant: Option<&Hunk>) -> Safe {
    let trim = |l: &str| {
        l.strip_suffix('\n')
            .map_or(l, |l| l.strip_suffix('\r').unwrap_or(l))
            .to_owned()
    };
    let lines: Vec<String> = sim.input.iter().map(|l| trim(l)).collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let hay = Haystack::new(lines.clone());
    let exact = |old: &[String]| {
        let fo = FindOptions {
            max_level: Level::Exact,
            hint: None,
            ..Default::default()
        };
        match hay.find(old, fo) {
            Ok(f) => Some(Safe::Exact(f.start + 1)),
            Err(Miss::Ambiguous { .. }) => Some(Safe::Several),
            Err(_) => None,
        }
    };
    let read: Vec<String> = h
        .body
        .iter()
        .filter(|b| b.0 != Prefix::Add)
        .map(|b| trim(&b.1))
        .collect();
    let found = meant
        .and_then(|m| exact(&old_new(&as_written(m)).0))
        .or_else(|| exact(&read));
    if let Some(s) = found {
        return s;
    }
    match meant.map(|m| place(m, &lines).1) {
        Some(Lenient::At { found, .. }) if !found.by_hint => Safe::Read(found.start + 1),
        _ => Safe::Nowhere,
    }
}

/// One report per hunk the engine reads (matched by the `@@` line), then
/// the hunks only `patch` reads.
pub(super) fn merge(output: &str, mut gnu: Vec<FuzzReport>, reading: &Reading) -> Vec<FuzzReport> {
    let files = read(output);
    let engine = files
        .iter()
        .flat_map(|f| f.hunks.iter().map(move |h| (f, h)));
    let mut out = vec![];
    for (i, (f, h)) in engine.enumerate() {
        let r = match gnu.iter().position(|r| r.output_line == h.out_line) {
            Some(k) => gnu.remove(k),
            None => {
                let end = h.lines.last().map_or(h.out_line, |l| l.out_line);
                let mut r = unread((h.out_line, end), h.old_start(), reading);
                r.path = f.target().map(str::to_owned);
                r
            }
        };
        out.push(FuzzReport { hunk: i + 1, ..r });
    }
    let n = out.len();
    for (k, r) in gnu.into_iter().enumerate() {
        out.push(FuzzReport {
            hunk: n + k + 1,
            ..r
        });
    }
    if let Some((_, Some(line), _)) = &reading.fatal {
        if !out
            .iter()
            .any(|r| r.output_line == *line && r.verdict == FuzzVerdict::Malformed)
        {
            let mut r = unread((*line, *line), None, reading);
            r.hunk = out.len() + 1;
            out.push(r);
        }
    }
    out
}

/// A hunk `patch` does not place: the one it stops at, one after that, or
/// lines it skips.
fn unread(lines: (usize, usize), stated: Option<usize>, reading: &Reading) -> FuzzReport {
    let (line, end) = lines;
    let other = reading.patches.last().and_then(|p| p.other);
    let (verdict, message) = match &reading.fatal {
        _ if other.is_some_and(|o| end >= o.1) => {
            let (kind, at) = other.unwrap_or_default();
            let msg = format!("patch takes the text from line {at} on for {kind} and applies it as such, which this simulation does not follow");
            (FuzzVerdict::Unsupported, msg)
        }
        Some((msg, Some(at), _)) if *at == line => (
            FuzzVerdict::Malformed,
            format!("patch stops here with \"{msg}\""),
        ),
        Some((msg, _, stop)) if line > *stop => (
            FuzzVerdict::NotReached,
            format!("patch stopped before this hunk (\"{msg}\") and never reaches it"),
        ),
        _ => (FuzzVerdict::Skipped, skipped(stated, reading)),
    };
    FuzzReport {
        hunk: 0,
        path: None,
        output_line: line,
        stated_line: stated,
        patch_hunk: None,
        patch_line: None,
        patch_reported_line: None,
        fuzz: 0,
        offset: 0,
        safe_line: None,
        verdict,
        message,
    }
}

fn skipped(stated: Option<usize>, reading: &Reading) -> String {
    let why = match stated {
        None => {
            "its header has no line numbers, and patch reads a hunk only from \"@@ -N,N +N,N @@\""
        }
        Some(_) => "patch reads a hunk only after a ---/+++ header or right after the hunk before",
    };
    let end = match &reading.fatal {
        Some((msg, None, _)) => format!("; it finds nothing else (\"{msg}\")"),
        _ => String::new(),
    };
    format!("patch skips these lines as text around the diff: {why}{end}")
}
