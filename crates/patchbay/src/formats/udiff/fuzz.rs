//! What GNU `patch` (2.7, default fuzz factor 2) would do with a diff, for
//! teaching: where it puts each hunk, and whether that is the one safe
//! place, the only place where the whole hunk matches exactly. The gap
//! between the two is seed 000's silent misapply: `patch` drops up to two
//! context lines from the top and bottom of a hunk until it fits somewhere,
//! and reports success.
//!
//! The simulation follows `patch.c`'s `locate_hunk` and `apply_hunk`: per
//! file, hunks in order; the first guess is the stated line plus the offset
//! of the hunks before (`in_offset`); offsets are tried outward from it,
//! first at fuzz 0, then 1, then 2 (never more than the hunk's context);
//! a hunk may not start before the end of the previous one; context lines
//! shorter on one side than the other anchor the hunk at the file's start
//! or end; lines compare byte for byte, terminators included. The hunk body
//! is read as `patch` reads it: by the header's counts, an empty line or a
//! line starting with a tab is an unchanged line; a hunk whose counts
//! disagree with its body, or with a line without a marker, stops `patch`
//! ("malformed patch"), and nothing after it is reached.
//!
//! Not modelled: reversed-patch detection (the runs behave as `patch -f`),
//! CRLF stripping (`--binary`), ed and context diffs, `-p` levels (paths
//! are read as the engine reads them).
//!
//! Cost: `patch`'s own, `O(offsets · M)` per hunk in the worst case, which
//! is `O(N · M)`; the safe place is one exact matcher lookup.

use super::edits::{as_written, count_problems, old_new};
use super::parse::{read, Damage, FileDiff, Hunk, Kind};
use crate::matcher::{FindOptions, Haystack, Level};
use crate::text::Text;
use serde::Serialize;
use std::collections::BTreeMap;

/// How `patch`'s placement compares with the safe place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FuzzVerdict {
    /// `patch` applies the hunk at the one place where it matches in full.
    Agrees,
    /// `patch` applies it somewhere else: a silent misapply.
    Misplaced,
    /// `patch` applies it, but the whole hunk matches nowhere (or at
    /// several places): a silent misapply, or a guess.
    NoSafePlace,
    /// `patch` rejects the hunk (`Hunk #N FAILED`).
    Rejected,
    /// `patch` stops here: malformed patch.
    Malformed,
    /// `patch` stopped at an earlier malformed hunk.
    NotReached,
    /// The file to patch does not exist (or the path is unusable).
    NoFile,
}

/// Where GNU `patch` would put one hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FuzzReport {
    /// 1-based number of the hunk in the output.
    pub hunk: usize,
    pub path: Option<String>,
    pub output_line: usize,
    /// The old start line the header states.
    pub stated_line: Option<usize>,
    /// Where `patch` applies the hunk: its first line in the original file.
    pub patch_line: Option<usize>,
    /// The line `patch` prints ("Hunk #1 succeeded at L"): in the patched
    /// file, after the hunks before it.
    pub patch_reported_line: Option<usize>,
    /// Context lines `patch` ignored at each end.
    pub fuzz: usize,
    /// The offset `patch` prints (cumulative over the file's hunks).
    pub offset: isize,
    /// The only place where the whole hunk matches exactly (1-based).
    pub safe_line: Option<usize>,
    pub verdict: FuzzVerdict,
    pub message: String,
}

/// Where GNU `patch` would put every hunk of `output`.
pub fn patch_fuzz_simulation(output: &str, files: &BTreeMap<String, String>) -> Vec<FuzzReport> {
    patch_fuzz_apply(output, files).0
}

/// [`patch_fuzz_simulation`], plus the files as `patch` would leave them
/// (the ones it changed), to compare with the real `patch`.
pub fn patch_fuzz_apply(
    output: &str,
    files: &BTreeMap<String, String>,
) -> (Vec<FuzzReport>, BTreeMap<String, String>) {
    let mut reports = vec![];
    let mut changed = BTreeMap::new();
    let mut stopped = false;
    for f in read(output) {
        let path = f.target().and_then(|p| crate::paths::normalize(p).ok());
        let text = path.as_ref().and_then(|p| files.get(p));
        // A creation patches an empty input.
        let mut sim = text
            .map(|t| Sim::new(t))
            .or_else(|| f.created.then(|| Sim::new("")));
        for h in &f.hunks {
            let mut r = report(&f, h, reports.len() + 1);
            if stopped {
                r.verdict = FuzzVerdict::NotReached;
                r.message =
                    "patch stopped at an earlier malformed hunk and never reaches this one".into();
            } else if let Some(why) = malformed(h) {
                stopped = true;
                r.verdict = FuzzVerdict::Malformed;
                r.message = format!(
                    "patch stops here with \"malformed patch at line {}\": {why}",
                    h.out_line
                );
            } else if let Some(sim) = sim.as_mut() {
                sim.hunk(h, &mut r);
            } else {
                r.verdict = FuzzVerdict::NoFile;
                r.message = "the file to patch does not exist".into();
            }
            reports.push(r);
        }
        if let (Some(p), Some(s)) = (path, sim) {
            if s.applied > 0 {
                changed.insert(p, s.finish());
            }
        }
    }
    (reports, changed)
}

fn report(f: &FileDiff, h: &Hunk, n: usize) -> FuzzReport {
    FuzzReport {
        hunk: n,
        path: f.target().map(str::to_owned),
        output_line: h.out_line,
        stated_line: h.old_start(),
        patch_line: None,
        patch_reported_line: None,
        fuzz: 0,
        offset: 0,
        safe_line: None,
        verdict: FuzzVerdict::Rejected,
        message: String::new(),
    }
}

/// Why `patch` would refuse the hunk's text.
fn malformed(h: &Hunk) -> Option<String> {
    if h.header.old.is_none() || h.header.new.is_none() {
        return Some("the hunk header has no line numbers".into());
    }
    if let Some(p) = count_problems(h).into_iter().next() {
        return Some(p.1);
    }
    if let Some(k) = h
        .lines
        .iter()
        .position(|l| l.damage == Some(Damage::NoPrefix) && !l.text.starts_with('\t'))
    {
        return Some(format!("line {} of the hunk has no marker", k + 1));
    }
    if h.lines.iter().all(|l| l.kind == Kind::Context) {
        return Some("the hunk changes nothing".into());
    }
    None
}

/// One line as `patch` compares it: content and terminator.
#[derive(Clone, PartialEq, Eq)]
struct Line {
    text: String,
    eol: &'static str,
}

/// The state of `patch` on one file.
struct Sim {
    input: Vec<Line>,
    out: Vec<Line>,
    in_offset: isize,
    out_offset: isize,
    /// Input lines already copied or consumed (`last_frozen_line`).
    frozen: usize,
    applied: usize,
}

impl Sim {
    fn new(src: &str) -> Sim {
        let t = Text::new(src);
        let eol = |e: &str| match e {
            "\r\n" => "\r\n",
            "\n" => "\n",
            _ => "",
        };
        let input = (0..t.len())
            .map(|i| Line {
                text: t.line(i).to_owned(),
                eol: eol(t.eol(i)),
            })
            .collect();
        Sim {
            input,
            out: vec![],
            in_offset: 0,
            out_offset: 0,
            frozen: 0,
            applied: 0,
        }
    }

    fn finish(mut self) -> String {
        self.copy_till(self.input.len());
        self.out
            .iter()
            .map(|l| format!("{}{}", l.text, l.eol))
            .collect()
    }

    fn push(&mut self, l: Line) {
        // `patch` ends an unterminated line before writing after it.
        if let Some(last) = self.out.last_mut() {
            if last.eol.is_empty() {
                last.eol = "\n";
            }
        }
        self.out.push(l);
    }

    fn copy_till(&mut self, upto: usize) {
        while self.frozen < upto.min(self.input.len()) {
            let l = self.input[self.frozen].clone();
            self.push(l);
            self.frozen += 1;
        }
    }

    fn hunk(&mut self, h: &Hunk, r: &mut FuzzReport) {
        let body: Vec<(Kind, Line)> = h
            .lines
            .iter()
            .map(|l| {
                let eol = if l.no_newline {
                    ""
                } else if l.cr {
                    "\r\n"
                } else {
                    "\n"
                };
                (
                    l.kind,
                    Line {
                        text: l.text.clone(),
                        eol,
                    },
                )
            })
            .collect();
        let pat: Vec<&Line> = body
            .iter()
            .filter(|b| b.0 != Kind::Add)
            .map(|b| &b.1)
            .collect();
        let prefix = body.iter().take_while(|b| b.0 == Kind::Context).count() as isize;
        let suffix = body
            .iter()
            .rev()
            .take_while(|b| b.0 == Kind::Context)
            .count() as isize;
        let (start, _) = h.header.old.unwrap_or((0, 0));
        let first = start as isize + isize::from(pat.is_empty());
        let max_fuzz = 2.min(prefix.max(suffix));
        let safe = self.safe_place(h);
        r.safe_line = safe;
        let mut found = None;
        for fuzz in 0..=max_fuzz {
            if let Some(w) = self.locate(&pat, first, prefix, suffix, fuzz) {
                found = Some((w, fuzz));
                break;
            }
        }
        let Some((w, fuzz)) = found else {
            r.verdict = FuzzVerdict::Rejected;
            let at = first + self.out_offset;
            r.message = match safe {
                Some(s) => format!("patch rejects the hunk (\"Hunk FAILED at {at}\"), though it matches in full at line {s}: an earlier hunk was placed after it"),
                None => format!("patch rejects the hunk (\"Hunk FAILED at {at}\"): even with 2 context lines dropped it fits nowhere"),
            };
            return;
        };
        let w = w.max(1);
        r.patch_line = Some(w as usize);
        r.patch_reported_line = Some((w + self.out_offset) as usize);
        r.fuzz = fuzz as usize;
        r.offset = self.in_offset;
        let how = match (fuzz, self.in_offset) {
            (0, 0) => String::new(),
            (0, o) => format!(" (offset {o})"),
            (f, 0) => format!(" with fuzz {f}"),
            (f, o) => format!(" with fuzz {f} (offset {o})"),
        };
        (r.verdict, r.message) = match safe {
            _ if pat.is_empty() && start == 0 => (FuzzVerdict::Agrees, "patch adds the lines at the top of the file".into()),
            _ if pat.is_empty() => (FuzzVerdict::NoSafePlace, format!("the hunk has no context: patch inserts it at line {w}{how}, trusting the number")),
            Some(s) if s == w as usize => (FuzzVerdict::Agrees, format!("patch applies it at line {w}{how}, the only place where the whole hunk matches")),
            Some(s) => (FuzzVerdict::Misplaced, format!("patch applies it at line {w}{how}, but the whole hunk matches only at line {s}: a silent misapply")),
            None => (FuzzVerdict::NoSafePlace, format!("patch applies it at line {w}{how}, but the whole hunk matches {}: patch reports success for a guess", self.safe_count(h))),
        };
        self.apply(&body, w as usize);
    }

    /// The 1-based line where the whole hunk matches exactly, if unique.
    fn safe_place(&self, h: &Hunk) -> Option<usize> {
        let (old, _) = old_new(&as_written(h));
        let lines: Vec<&str> = self.input.iter().map(|l| l.text.as_str()).collect();
        let fo = FindOptions {
            max_level: Level::Exact,
            ..Default::default()
        };
        let f = Haystack::new(lines).find(&old, fo).ok()?;
        (!f.by_hint).then_some(f.start + 1)
    }

    fn safe_count(&self, h: &Hunk) -> &'static str {
        let (old, _) = old_new(&as_written(h));
        let lines: Vec<&str> = self.input.iter().map(|l| l.text.as_str()).collect();
        let fo = FindOptions {
            max_level: Level::Exact,
            hint: None,
            ..Default::default()
        };
        match Haystack::new(lines).find(&old, fo) {
            Err(crate::matcher::Miss::Ambiguous { .. }) => {
                "at several places, and patch picks the one nearest the stated line"
            }
            _ => "nowhere in the file",
        }
    }

    /// `patch_match`: the pattern at `base + offset`, fuzz lines ignored.
    fn matches(&self, pat: &[&Line], at: isize, pf: isize, sf: isize) -> bool {
        let end = pat.len() as isize - sf;
        (pf..end).all(|p| {
            let i = at + p - 1;
            i >= 0 && (i as usize) < self.input.len() && self.input[i as usize] == *pat[p as usize]
        })
    }

    /// `locate_hunk`: the 1-based line where the hunk goes at this fuzz.
    fn locate(
        &mut self,
        pat: &[&Line],
        first: isize,
        pc: isize,
        sc: isize,
        fuzz: isize,
    ) -> Option<isize> {
        let first_guess = first + self.in_offset;
        let pat_lines = pat.len() as isize;
        let n = self.input.len() as isize;
        let lfl = self.frozen as isize;
        let context = pc.max(sc);
        let mut pf = fuzz + pc - context;
        let sf = fuzz + sc - context;
        let max_where = n - (pat_lines - sf) + 1;
        let min_where = lfl + 1 - (pc - pf);
        let max_pos = max_where - first_guess;
        let mut max_neg = first_guess - min_where;
        let max_offset = max_pos.max(max_neg);
        if pat_lines == 0 {
            return Some(first_guess);
        }
        if first_guess <= max_neg {
            max_neg = first_guess - 1;
        }
        if pf < 0 && first <= 1 {
            // Less context at the top: the hunk can only match at the start.
            if sf < 0 && (pat_lines != n || pc < lfl) {
                return None;
            }
            let offset = 1 - first_guess;
            if lfl <= pc && offset <= max_pos && self.matches(pat, first_guess + offset, 0, sf) {
                self.in_offset += offset;
                return Some(first_guess + offset);
            }
            return None;
        } else if pf < 0 {
            pf = 0;
        }
        if sf < 0 {
            // Less context at the bottom: only at the end of the file.
            let offset = first_guess - (n - pat_lines + 1);
            if offset <= max_neg && self.matches(pat, first_guess - offset, pf, 0) {
                self.in_offset -= offset;
                return Some(first_guess - offset);
            }
            return None;
        }
        let min_offset = if max_pos < 0 {
            first_guess - max_where
        } else if max_neg < 0 {
            first_guess - min_where
        } else {
            0
        };
        for offset in min_offset..=max_offset {
            if offset <= max_pos && self.matches(pat, first_guess + offset, pf, sf) {
                self.in_offset += offset;
                return Some(first_guess + offset);
            }
            if offset <= max_neg && self.matches(pat, first_guess - offset, pf, sf) {
                self.in_offset -= offset;
                return Some(first_guess - offset);
            }
        }
        None
    }

    /// `apply_hunk`: context is copied from the input, removed lines are
    /// skipped, added lines written.
    fn apply(&mut self, body: &[(Kind, Line)], w: usize) {
        let mut old = 0;
        let (mut o, mut n) = (0isize, 0isize);
        for (kind, l) in body {
            match kind {
                Kind::Context => {
                    old += 1;
                    (o, n) = (o + 1, n + 1);
                }
                Kind::Remove => {
                    self.copy_till(w - 1 + old);
                    self.frozen += 1;
                    old += 1;
                    o += 1;
                }
                Kind::Add => {
                    self.copy_till(w - 1 + old);
                    self.push(l.clone());
                    n += 1;
                }
            }
        }
        self.out_offset += n - o;
        self.applied += 1;
    }
}
