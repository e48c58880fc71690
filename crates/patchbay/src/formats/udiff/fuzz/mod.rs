//! What GNU `patch` 2.7.6 (`patch -p1 -f`, default fuzz factor 2) would do
//! with a diff, for teaching: where it puts each hunk, and whether that is
//! where the hunk belongs. The gap between the two is the silent misapply
//! that makes diffs risky: `patch` drops up to two context lines from the top and bottom
//! of a hunk until it fits somewhere, and reports success.
//!
//! The model is checked against the real binary on every udiff case of the
//! corpus and on each rule below (`tests/udiff_tools.rs`): the same hunk
//! lines printed (placement, fuzz, offset, failures), the same fatal error
//! and exit status, the same files. `pch` reads the text as `patch` does
//! (prose skipped, hunks read by their counts, comments, CR stripping,
//! fatal errors that stop the whole run; `lines`: what one header or
//! command line says); `names` picks the file each
//! part patches (missing files, creations over existing files, deletions,
//! git renames); `sim` places and applies hunks (`locate_hunk`,
//! `apply_hunk`, misordered hunks); `report` says where each hunk
//! belongs: the only place where the engine's reading of it, or else
//! `patch`'s own, matches exactly, or else where the default mode puts it
//! when that is not a guess by the line number. Each hunk the engine reads
//! gets one report, matched by its `@@` line; hunks only `patch` reads
//! come after them.
//!
//! Not modelled: reversed-patch detection (the runs behave as `patch -f`),
//! `--binary`, other `-p` levels, context diffs; normal diffs and ed
//! scripts are recognised where `patch` takes the text for one (a header
//! followed by no `@@ -` hunk but by a lone `d` line, say: `patch` runs it
//! through `ed`) and reported as [`FuzzVerdict::Unsupported`].
//!
//! Cost: `patch`'s own, `O(offsets · M)` per hunk in the worst case, which
//! is `O(N · M)`; the safe place is one exact matcher lookup, or a default
//! mode placement.

mod lines;
mod names;
mod pch;
mod report;
mod sim;

use pch::Patch;
use serde::Serialize;
use sim::Sim;
use std::collections::{BTreeMap, BTreeSet};

/// How `patch`'s placement compares with where the hunk belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FuzzVerdict {
    /// `patch` applies the hunk where it belongs: the one place where it
    /// matches in full (or fits once its damaged lines are read right).
    Agrees,
    /// `patch` applies it somewhere else: a silent misapply.
    Misplaced,
    /// `patch` applies it, but the whole hunk matches nowhere (or at
    /// several places): a silent misapply, or a guess.
    NoSafePlace,
    /// `patch` rejects the hunk (`Hunk #N FAILED`).
    Rejected,
    /// `patch` stops here: malformed patch (or another fatal error).
    Malformed,
    /// `patch` stopped at an earlier malformed hunk.
    NotReached,
    /// The file to patch does not exist, or the path is unusable
    /// (`Hunk #N ignored`).
    NoFile,
    /// `patch` does not read these lines as a hunk: it skips them as
    /// text around the diff.
    Skipped,
    /// `patch` takes the text for an ed script (a lone `d` line after a
    /// header without hunks, say) or a normal diff and applies it as such,
    /// which is not simulated.
    Unsupported,
}

/// Where GNU `patch` would put one hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FuzzReport {
    /// 1-based number of the hunk in the output.
    pub hunk: usize,
    pub path: Option<String>,
    pub output_line: usize,
    /// The old start line the header states.
    pub stated_line: Option<usize>,
    /// The number `patch` gives the hunk in its file ("Hunk #N").
    pub patch_hunk: Option<usize>,
    /// Where `patch` applies the hunk: its first line in the original file.
    pub patch_line: Option<usize>,
    /// The line `patch` prints ("Hunk #1 succeeded at L", "FAILED at L",
    /// "ignored at L"): in the patched file, after the hunks before it.
    pub patch_reported_line: Option<usize>,
    /// Context lines `patch` ignored at each end.
    pub fuzz: usize,
    /// The offset `patch` prints (cumulative over the file's hunks).
    pub offset: isize,
    /// Where the hunk belongs (1-based): the only place where the whole
    /// hunk matches exactly, or fits once its damaged lines are read right.
    pub safe_line: Option<usize>,
    pub verdict: FuzzVerdict,
    pub message: String,
}

/// Everything `patch` would do with an output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchRun {
    pub reports: Vec<FuzzReport>,
    /// The files `patch` writes (`Some`) or removes (`None`).
    pub files: BTreeMap<String, Option<String>>,
    /// The fatal error that stops `patch`, as it prints it after
    /// `patch: **** `.
    pub fatal: Option<String>,
    /// `patch`'s exit status: 0, 1 when a hunk failed or was ignored or a
    /// deleted file kept lines ("Not deleting file"), 2 when it stopped;
    /// `None` when that depends on what is not simulated.
    pub status: Option<u8>,
    /// What `patch` takes part of the text for when that is not simulated
    /// ("an ed script", "a normal diff"), and the file it would change
    /// that way, which `files` does not account for.
    pub unsupported: Option<(String, Option<String>)>,
}

/// Where GNU `patch` would put every hunk of `output`.
pub fn patch_fuzz_simulation(output: &str, files: &BTreeMap<String, String>) -> Vec<FuzzReport> {
    patch_fuzz_apply(output, files).reports
}

/// [`patch_fuzz_simulation`], plus the files as `patch` would leave them,
/// to compare with the real `patch`.
pub fn patch_fuzz_apply(output: &str, files: &BTreeMap<String, String>) -> PatchRun {
    let reading = pch::read(output);
    let engine = super::parse::read(output);
    let meant = engine
        .iter()
        .flat_map(|f| &f.hunks)
        .map(|h| (h.out_line, h))
        .collect();
    let mut run = Run {
        files,
        meant: &meant,
        changed: BTreeMap::new(),
        reports: vec![],
        kept: false,
        git: false,
        queued: BTreeSet::new(),
        hidden: BTreeSet::new(),
        removed: BTreeMap::new(),
        unsupported: None,
    };
    let n = reading.patches.len();
    for (i, p) in reading.patches.iter().enumerate() {
        // The part being read when `patch` stopped is never written.
        let stopped = i + 1 == n && reading.fatal.is_some();
        run.patch(p, stopped);
    }
    let failed = run.kept
        || run
            .reports
            .iter()
            .any(|r| matches!(r.verdict, FuzzVerdict::Rejected | FuzzVerdict::NoFile));
    let status = match (&reading.fatal, failed) {
        _ if run.unsupported.is_some() => None,
        (Some(_), _) => Some(2),
        (None, true) => Some(1),
        (None, false) => Some(0),
    };
    if reading.fatal.is_some() {
        run.keep_removed();
    }
    let reports = report::merge(output, run.reports, &reading);
    PatchRun {
        reports,
        files: run.changed,
        fatal: reading.fatal.map(|f| f.0),
        status,
        unsupported: run.unsupported,
    }
}

/// The files as `patch` goes through the parts.
struct Run<'a> {
    files: &'a BTreeMap<String, String>,
    /// The engine's hunks by `@@` line: what the model meant.
    meant: &'a BTreeMap<usize, &'a super::parse::Hunk>,
    changed: BTreeMap<String, Option<String>>,
    reports: Vec<FuzzReport>,
    /// A deletion left lines in its file, which `patch` keeps.
    kept: bool,
    /// The parts so far are git diffs, whose files `patch` writes only at
    /// the end of the run of git parts: `queued` holds them, and `hidden`
    /// the ones not on disk until then (created, renamed to).
    git: bool,
    queued: BTreeSet<String>,
    hidden: BTreeSet<String>,
    /// Files removed by a deletion or a rename, with what they held before:
    /// `patch` removes them only when it ends normally.
    removed: BTreeMap<String, Option<Option<String>>>,
    unsupported: Option<(String, Option<String>)>,
}

impl Run<'_> {
    fn get(&self, p: &str) -> Option<&str> {
        match self.changed.get(p) {
            Some(c) => c.as_deref(),
            None => self.files.get(p).map(String::as_str),
        }
    }

    /// On disk now, for `stat`.
    fn on_disk(&self, p: &str) -> bool {
        self.get(p).is_some() && !self.hidden.contains(p)
    }

    /// `output_files`: the queued git outputs written.
    fn flush(&mut self) {
        self.queued.clear();
        self.hidden.clear();
    }

    /// One file's part: its hunks, then the file written, removed or moved.
    fn patch(&mut self, p: &Patch, stopped: bool) {
        let chosen = names::input(p, &|n| self.on_disk(n));
        if let Some((kind, _)) = p.other {
            self.unsupported = Some((kind.to_owned(), chosen.map(|c| c.1)));
            return;
        }
        if self.git && !p.git {
            self.flush();
        }
        self.git = p.git;
        let why = match &chosen {
            _ if names::cannot_move(p, chosen.as_ref().map(|c| c.0)) => {
                "patch cannot rename or copy the file without two valid file names"
            }
            None => "patch finds no file to patch",
            Some(_) => "",
        };
        let Some((_, inname)) = chosen.filter(|_| why.is_empty()) else {
            return self.ignore(p, why);
        };
        let outname = names::output(p, &inname);
        // A git part over a queued file writes the queue first.
        if p.git && self.queued.contains(&outname) && self.on_disk(&outname) {
            self.flush();
        }
        let input = self.get(&inname).unwrap_or("").to_owned();
        let mut sim = Sim::new(&input);
        for (k, h) in p.hunks.iter().enumerate() {
            let mut r = report::new(h, k + 1, Some(&outname));
            // A creation over a file with content fails where it lands at 1.
            let exists = p.nonexistent[0] == 2 && !input.is_empty();
            let before = sim.out_offset;
            let placed = sim.place(h, exists);
            let meant = self.meant.get(&h.out_line).copied();
            report::placed(&mut r, &sim, h, meant, placed, before);
            self.reports.push(r);
        }
        if !stopped {
            self.write(p, &inname, outname, sim.finish());
        }
    }

    /// "Hunk #N ignored": every hunk of a part `patch` skips.
    fn ignore(&mut self, p: &Patch, why: &str) {
        for (k, h) in p.hunks.iter().enumerate() {
            let mut r = report::new(h, k + 1, None);
            r.verdict = FuzzVerdict::NoFile;
            r.patch_reported_line = Some(h.first);
            r.message = format!(
                "{why} and skips the hunk (\"Hunk #{} ignored at {}\")",
                k + 1,
                h.first
            );
            self.reports.push(r);
        }
    }

    /// The part's result: written, or removed when a deletion leaves
    /// nothing; a rename removes its old name.
    fn write(&mut self, p: &Patch, inname: &str, outname: String, out: String) {
        let deletes = p.nonexistent[1] == 2;
        self.kept |= deletes && !out.is_empty();
        if p.git {
            if !self.on_disk(&outname) {
                self.hidden.insert(outname.clone());
            }
            self.queued.insert(outname.clone());
        }
        if p.renames() && inname != outname {
            self.remove(inname);
        }
        if deletes && out.is_empty() {
            self.remove(&outname);
        } else {
            self.removed.remove(&outname);
            self.changed.insert(outname, Some(out));
        }
    }

    fn remove(&mut self, name: &str) {
        let before = self.changed.insert(name.to_owned(), None);
        self.removed.entry(name.to_owned()).or_insert(before);
    }

    /// A fatal error ends `patch` before it removes any file.
    fn keep_removed(&mut self) {
        for (name, before) in std::mem::take(&mut self.removed) {
            match before {
                Some(t) => self.changed.insert(name, t),
                None => self.changed.remove(&name),
            };
        }
    }
}
