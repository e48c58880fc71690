//! `patchbay apply`: read the output, parse it, load the files it touches,
//! run the core's transaction, then write (or not) and report.
//!
//! Paths that leave the root through a symbolic link are turned into
//! `path_escape` edits before the transaction runs, so they fail like any
//! other edit: with a receipt, in the feedback, under all-or-nothing.

use crate::args::ApplyArgs;
use crate::commit::{self, CommitError};
use crate::fsio::{self, Change, Expect, Refusal, Resolved, Root, Stamp};
use crate::term::shown;
use crate::Failure;
use patchbay::apply::transaction::{self, target_path};
use patchbay::{Code, FileStatus, Op, Options, Parsed, Report, Status};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;

/// Runs the command; returns the exit code for a report (0, 1 or 3).
pub fn run(a: &ApplyArgs) -> Result<i32, Failure> {
    let root = Root::open(&a.root)
        .map_err(Failure::Io)?
        .allow_git_dir(a.allow_git_dir);
    let default = match &a.file {
        Some(f) if Path::new(f).is_absolute() => {
            Some(root.relative(Path::new(f)).ok_or_else(|| {
                Failure::Usage(format!(
                    "--file {f} is not inside --root {}",
                    root.dir().display()
                ))
            })?)
        }
        other => other.clone(),
    };
    let api = patchbay::ApplyOptions {
        format: a.format,
        strict: a.strict,
        tags: a.tags.options(),
        stop_reason: a.stop_reason,
        transaction: Options {
            partial: a.partial,
            default_path: default.clone(),
            overwrite: a.overwrite,
            ..Options::default()
        },
    };
    let output = if a.stream {
        match crate::streaming::read(a, &api, &root)? {
            crate::streaming::Read::All(text) => text,
            crate::streaming::Read::Stopped(code) => return Ok(code),
        }
    } else {
        read_output(&a.edits)?
    };
    let how = Commit {
        dry_run: a.dry_run,
        partial: a.partial,
        check_syntax: a.checks_syntax(),
        fail_on_syntax: a.fail_on_syntax,
        shown: BTreeMap::new(),
    };
    let done = transact(&root, &output, &api, &how)?;
    print(&done.report, a, done.written);
    Ok(match done.report.status {
        Status::Applied => 0,
        Status::Failed => 1,
        Status::Truncated => 3,
    })
}

/// How a reply is committed: the switches `patchbay apply` and `patchbay
/// mcp` share.
#[derive(Default)]
pub struct Commit {
    pub dry_run: bool,
    pub partial: bool,
    pub check_syntax: bool,
    pub fail_on_syntax: bool,
    /// The CRC-32 of each file as the caller last showed it to the model:
    /// a file whose text differs now is refused as `file_changed`, since
    /// the model edits what it was shown.
    pub shown: BTreeMap<String, u32>,
}

/// What [`transact`] decided and whether it wrote.
pub struct Outcome {
    pub report: Report,
    pub written: bool,
    /// The files the reply touches as they were read before the edit.
    pub before: BTreeMap<String, String>,
}

/// Parses `output`, loads the files it names under the root's lock, runs
/// the core's transaction and writes through the journal: the one path
/// from a reply to the disk for `apply` and `mcp`.
pub fn transact(
    root: &Root,
    output: &str,
    api: &patchbay::ApplyOptions,
    how: &Commit,
) -> Result<Outcome, Failure> {
    let (name, mut parsed) = patchbay::parse_reply(output, api);
    let default = api.transaction.default_path.as_deref();
    // Held from the first read of a target to the last rename, so that two
    // runs in one root apply one after the other, each on the other's result.
    let _lock = if how.dry_run {
        warn_pending(root);
        None
    } else {
        crate::journal::lock(root).map_err(Failure::Io)?
    };
    let loaded = load(root, &mut parsed, default)?;
    refuse_changed_since_shown(&mut parsed, &loaded, how, default);
    let run = Run {
        how,
        root,
        name,
        default,
        opt: api.transaction_options(),
        loaded: &loaded,
    };
    let (report, written) = run.decide_and_write(&mut parsed)?;
    Ok(Outcome {
        report,
        written,
        before: loaded.files,
    })
}

/// Refuses the edits of every file whose text is not the one the model
/// was shown ([`Commit::shown`]).
fn refuse_changed_since_shown(
    parsed: &mut Parsed,
    loaded: &Loaded,
    how: &Commit,
    default: Option<&str>,
) {
    for (rel, crc) in &how.shown {
        let Some(text) = loaded.files.get(rel) else {
            continue;
        };
        let now = patchbay::file_crc(text);
        if now != *crc {
            let msg = format!("{rel} changed on disk since it was shown (CRC-32 {crc:08x}, now {now:08x}), so nothing was written to it; read the file again and redo the edit");
            refuse(parsed, rel, default, Code::FileChanged, &msg);
        }
    }
}

/// What a run has once the output is parsed and its files are read.
struct Run<'a> {
    how: &'a Commit,
    root: &'a Root,
    name: patchbay::FormatName,
    default: Option<&'a str>,
    opt: Options,
    loaded: &'a Loaded,
}

impl Run<'_> {
    /// Runs the transaction and writes (or not); returns the report and
    /// whether it wrote.
    fn decide_and_write(&self, parsed: &mut Parsed) -> Result<(Report, bool), Failure> {
        let a = self.how;
        loop {
            let files = &self.loaded.files;
            let mut report = transaction::run(self.name, parsed, files, &self.opt);
            if a.check_syntax || a.fail_on_syntax {
                crate::syntax::check(&mut report, files, a.fail_on_syntax);
            }
            let write = !a.dry_run
                && (report.status == Status::Applied
                    || (a.partial && report.status == Status::Failed));
            if write {
                match commit::commit(self.root, &changes(&report, self.loaded)?) {
                    Ok(()) => {}
                    Err(CommitError::Io(m)) => return Err(Failure::Io(m)),
                    // A typed refusal like any other: the file's edits fail
                    // with `file_changed` and the transaction runs again
                    // (with `--partial` the other files may still be written).
                    Err(CommitError::Changed { path, why }) => {
                        self.changed(parsed, &path, &why)?;
                        continue;
                    }
                    // A link that resolves into patchbay's files or `.git`.
                    Err(CommitError::Reserved { path, why }) => {
                        let rel = self.loaded.rel_of(&path);
                        if refuse(parsed, &rel, self.default, Code::PathEscape, &why) == 0 {
                            return Err(Failure::Io(why));
                        }
                        continue;
                    }
                }
            }
            return Ok((report, write));
        }
    }

    /// Turns the edits of a file that changed on disk into `file_changed`
    /// failures. Each round marks another file, so the loop ends.
    fn changed(&self, parsed: &mut Parsed, path: &Path, why: &str) -> Result<(), Failure> {
        let rel = self.loaded.rel_of(path);
        let msg = format!("{rel} changed on disk after patchbay read it ({why}), so nothing was written to it; read the file again and redo the edit");
        match refuse(parsed, &rel, self.default, Code::FileChanged, &msg) {
            0 => Err(Failure::Io(msg)),
            _ => Ok(()),
        }
    }
}

/// The files an output touches, as read (under the lock when writing).
struct Loaded {
    files: BTreeMap<String, String>,
    targets: BTreeMap<String, Resolved>,
    stamps: BTreeMap<String, Stamp>,
}

impl Loaded {
    /// The model path of a real path or entry that a commit names.
    fn rel_of(&self, p: &Path) -> String {
        self.targets
            .iter()
            .find(|(_, t)| t.real == p || t.entry == p)
            .map_or_else(|| p.display().to_string(), |(rel, _)| rel.clone())
    }
}

/// Resolves and reads every path the output names; a path that leaves the
/// root turns its edits into `path_escape` failures.
fn load(root: &Root, parsed: &mut Parsed, default: Option<&str>) -> Result<Loaded, Failure> {
    let mut l = Loaded {
        files: BTreeMap::new(),
        targets: BTreeMap::new(),
        stamps: BTreeMap::new(),
    };
    for rel in patchbay::paths(parsed, default) {
        if let Some(msg) = root.reserved(&rel) {
            refuse(parsed, &rel, default, Code::PathEscape, &msg);
            continue;
        }
        match root.resolve(&rel) {
            Ok(r) => {
                if let Some((other, _)) = l.targets.iter().find(|(_, t)| t.real == r.real) {
                    return Err(Failure::Io(format!(
                        "{other} and {rel} are the same file (through a symbolic link); edit it under one name"
                    )));
                }
                if let Some((text, stamp)) =
                    fsio::read_stamped(&r.real, &rel).map_err(Failure::Io)?
                {
                    l.files.insert(rel.clone(), text);
                    l.stamps.insert(rel.clone(), stamp);
                }
                l.targets.insert(rel, r);
            }
            Err(Refusal::Escape(msg)) => {
                refuse(parsed, &rel, default, Code::PathEscape, &msg);
            }
            Err(Refusal::Io(msg)) => return Err(Failure::Io(msg)),
        }
    }
    Ok(l)
}

/// `--dry-run` writes nothing, recovery included: it only says so.
fn warn_pending(root: &Root) {
    if root.dir().join(crate::journal::NAME).exists() {
        eprintln!(
            "patchbay: warning: an interrupted commit left {} in the root; files may be half-written until a run without --dry-run rolls it back",
            crate::journal::NAME
        );
    }
}

pub fn read_output(edits: &str) -> Result<String, Failure> {
    let mut bytes = vec![];
    if edits == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::Io(format!("cannot read stdin: {e}")))?;
    } else {
        bytes = std::fs::read(edits)
            .map_err(|e| Failure::Io(format!("cannot read --edits {edits}: {e}")))?;
    }
    String::from_utf8(bytes).map_err(|e| {
        Failure::Io(format!(
            "the output {edits} is not valid UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Makes every edit of `rel` (or renaming a file to `rel`) a failure with
/// `code`. Edits that are already invalid keep their own code (a truncated
/// edit stays truncated). Returns how many edits it changed.
fn refuse(parsed: &mut Parsed, rel: &str, default: Option<&str>, code: Code, msg: &str) -> usize {
    let mut n = 0;
    for e in &mut parsed.edits {
        let moves_there = matches!(&e.op, Op::Rename { to } if patchbay::apply::paths::normalize(to).as_deref() == Ok(rel));
        let hits = moves_there || matches!(target_path(e, default), Ok(p) if p == rel);
        if hits && !matches!(e.op, Op::Invalid { .. }) {
            e.op = Op::invalid(code, msg.to_owned());
            n += 1;
        }
    }
    n
}

/// The writes and deletions a report asks for. Only files with new text
/// (or a deletion) change; skipped files never do.
fn changes<'r>(report: &'r Report, l: &Loaded) -> Result<Vec<Change<'r>>, Failure> {
    let mut out = vec![];
    for f in &report.files {
        let target = || {
            l.targets.get(&f.path).ok_or_else(|| {
                Failure::Io(format!("internal error: {} was never resolved", f.path))
            })
        };
        let expect = || match l.stamps.get(&f.path) {
            Some(s) => Expect::Same(s.clone()),
            None => Expect::Absent,
        };
        match (f.status, &f.content) {
            (FileStatus::Skipped, _) => {}
            (FileStatus::Deleted, _) => out.push(Change::Delete {
                path: target()?.entry.clone(),
                expect: expect(),
            }),
            (_, Some(content)) => out.push(Change::Write {
                path: target()?.real.clone(),
                content,
                expect: expect(),
            }),
            (_, None) => {}
        }
    }
    Ok(out)
}

/// `s` with its first letter upper-case.
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Prints the report. Write errors (a closed pipe) are ignored: the files
/// are already written and the exit code still tells the outcome.
fn print(report: &Report, a: &ApplyArgs, written: bool) {
    let mut out = std::io::stdout().lock();
    if a.json {
        let json = serde_json::to_string(&report.clone().without_content())
            .expect("a report always serialises");
        let _ = writeln!(out, "{json}");
        return;
    }
    if let Some(r) = &report.reasoning {
        let _ = writeln!(out, "{}", shown(&capitalised(&r.describe())));
    }
    if report.status == Status::Applied {
        for f in &report.files {
            let verb = match f.status {
                FileStatus::Created => "created",
                FileStatus::Deleted => "deleted",
                _ => "edited",
            };
            let _ = writeln!(out, "{verb} {}", shown(&f.path));
        }
    }
    let _ = writeln!(out, "{}", shown(&report.feedback));
    if a.dry_run {
        let _ = writeln!(out, "Dry run: nothing was written.");
    } else if written && report.status == Status::Failed {
        let n = report
            .files
            .iter()
            .filter(|f| f.content.is_some() || f.status == FileStatus::Deleted)
            .count();
        let _ = writeln!(
            out,
            "Partial mode: {n} file{} written.",
            if n == 1 { "" } else { "s" }
        );
    }
}
