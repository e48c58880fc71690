//! The commit journal: `.patchbay-journal` in the root, written and fsynced
//! before the first temporary exists, so that a commit killed at any moment
//! can be rolled back (or its cleanup finished) by the next writing run.
//!
//! One JSON object a line, paths relative to the root:
//!
//! ```text
//! {"patchbay_journal":1,"pid":4242}
//! {"target":"a.txt","temp":".a.txt.patchbay-4242-0.tmp","backup":".a.txt.patchbay-4242-0.orig"}
//! {"target":"new.txt","temp":".new.txt.patchbay-4242-1.tmp","backup":null}
//! {"target":"gone.txt","temp":null,"backup":".gone.txt.patchbay-4242-2.orig"}
//! {"dir":"made"}
//! {"staged":1,"ino":[2049,131]}        (a new file's temporary, once written)
//! {"state":"renaming"}                 (every temporary and backup is in place)
//! {"state":"done"}                     (every rename and deletion happened)
//! ```
//!
//! A backup is a hard link to the original (a copy where links fail), so
//! restoring it is one rename and gives back the very inode, with whatever
//! another process wrote to it meanwhile. A torn last line reads as absent:
//! every state it could have announced is safe to roll back from.

use crate::fsio::Root;
use serde_json::{json, Value};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

pub const NAME: &str = ".patchbay-journal";

/// What one commit will do, in absolute paths.
#[derive(Debug, Default)]
pub struct Plan {
    pub entries: Vec<Entry>,
    /// Folders made for new files, outermost first.
    pub dirs: Vec<PathBuf>,
}

#[derive(Debug)]
pub struct Entry {
    pub target: PathBuf,
    /// The new text's temporary; `None` for a deletion.
    pub temp: Option<PathBuf>,
    /// The original's backup; `None` when the target is a new file.
    pub backup: Option<PathBuf>,
    /// (device, inode) of a new file's temporary, once staged: rolling
    /// back removes a new target only if it is that file.
    pub staged: Option<(u64, u64)>,
}

/// The open journal of a commit in progress, or none for a commit of one
/// file ([`Journal::none`]).
pub struct Journal {
    file: Option<File>,
    path: PathBuf,
    /// Whether `renaming` was recorded: from then on, rolling back means
    /// restoring backups.
    pub renaming: bool,
}

impl Journal {
    /// Writes the plan and makes it durable (file and root folder).
    pub fn create(root: &Root, plan: &Plan) -> Result<Journal, String> {
        let path = root.dir().join(NAME);
        let mut text = json!({"patchbay_journal": 1, "pid": std::process::id()}).to_string();
        text.push('\n');
        for e in &plan.entries {
            let rel = |p: &Option<PathBuf>| p.as_ref().map(|p| root.shown(p));
            let line = json!({"target": root.shown(&e.target), "temp": rel(&e.temp), "backup": rel(&e.backup)});
            text.push_str(&format!("{line}\n"));
        }
        for d in &plan.dirs {
            text.push_str(&format!("{}\n", json!({"dir": root.shown(d)})));
        }
        let fail = |e: io::Error| format!("cannot write the commit journal {NAME}: {e}");
        let mut file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(fail)?;
        let written = file
            .write_all(text.as_bytes())
            .and_then(|()| file.sync_all());
        if let Err(e) = written {
            let _ = fs::remove_file(&path);
            return Err(fail(e));
        }
        sync_dir(root.dir());
        Ok(Journal {
            file: Some(file),
            path,
            renaming: false,
        })
    }

    /// No journal: a commit that writes one existing file in an existing
    /// folder is a single rename, which is atomic, so a kill leaves the old
    /// or the new file whole and at most a temporary and a `.old` backup,
    /// which [`sweep`] removes. That saves the journal's five fsyncs.
    pub fn none() -> Journal {
        Journal {
            file: None,
            path: PathBuf::new(),
            renaming: false,
        }
    }

    /// Appends one line and makes it durable.
    fn append(&mut self, line: Value) -> io::Result<()> {
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        file.write_all(format!("{line}\n").as_bytes())?;
        file.sync_data()
    }

    pub fn staged(&mut self, k: usize, id: (u64, u64)) -> io::Result<()> {
        self.append(json!({"staged": k, "ino": [id.0, id.1]}))
    }

    /// Whether there is a journal file (not [`Journal::none`]).
    pub fn is_written(&self) -> bool {
        self.file.is_some()
    }

    pub fn mark(&mut self, state: &str) -> io::Result<()> {
        self.append(json!({ "state": state }))?;
        if state == "renaming" {
            self.renaming = true;
        }
        Ok(())
    }

    /// The commit is over (done or rolled back): the journal goes.
    pub fn remove(self, root: &Root) {
        if self.file.is_none() {
            return;
        }
        drop(self.file);
        let _ = fs::remove_file(&self.path);
        sync_dir(root.dir());
    }
}

/// What a rollback did, for the message.
#[derive(Debug, Default)]
pub struct Undo {
    pub restored: Vec<String>,
    pub removed_new: Vec<String>,
    pub temps: usize,
    pub failed: Vec<String>,
}

/// Puts every target back as it was and removes what the commit made.
/// Before `renaming`, originals were never touched: backups are only
/// extra links and go. After it, each backup is renamed over its target
/// (when target and backup are still one inode the rename does nothing and
/// the backup is removed), and a new file that was renamed in is removed.
pub fn roll_back(root: &Root, plan: &Plan, renaming: bool) -> Undo {
    let mut u = Undo::default();
    for e in plan.entries.iter().rev() {
        let shown = root.shown(&e.target);
        if let Some(b) = e.backup.as_ref().filter(|b| exists(b)) {
            let back = !renaming
                || match fs::rename(b, &e.target) {
                    Ok(()) => {
                        if !exists(b) {
                            u.restored.push(shown.clone());
                        }
                        true
                    }
                    // The backup stays: it is the only copy of the original.
                    Err(err) => {
                        u.failed.push(format!("{shown}: {err}"));
                        false
                    }
                };
            // Still there: target and backup were one inode (nothing had
            // changed), so the backup is only an extra name.
            if back && exists(b) {
                let _ = fs::remove_file(b);
            }
        }
        let temp_left = e.temp.as_ref().is_some_and(|t| exists(t));
        if renaming && e.backup.is_none() && !temp_left && is_staged(&e.target, e.staged) {
            match fs::remove_file(&e.target) {
                Ok(()) => u.removed_new.push(shown),
                Err(err) => u.failed.push(format!("{shown}: {err}")),
            }
        }
        if let Some(t) = e.temp.as_ref().filter(|t| exists(t)) {
            if fs::remove_file(t).is_ok() {
                u.temps += 1;
            }
        }
    }
    // Innermost first; a folder that something else filled stays.
    for d in plan.dirs.iter().rev() {
        let _ = fs::remove_dir(d);
    }
    sync_dirs(plan);
    u.restored.reverse();
    u.removed_new.reverse();
    u
}

/// After `done`: only the backups (and any temporary) remain to remove.
/// `durable` syncs their folders; a commit without a journal skips it, as
/// a backup that outlives a power loss is swept like a killed run's.
pub fn clean_up(plan: &Plan, durable: bool) {
    for e in &plan.entries {
        for p in e.backup.iter().chain(e.temp.iter()) {
            let _ = fs::remove_file(p);
        }
    }
    if durable {
        sync_dirs(plan);
    }
}

fn is_staged(target: &Path, staged: Option<(u64, u64)>) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        fs::symlink_metadata(target).is_ok_and(|m| staged == Some((m.dev(), m.ino())))
    }
    #[cfg(not(unix))]
    {
        staged.is_some() && target.exists()
    }
}

fn exists(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok()
}

fn sync_dirs(plan: &Plan) {
    let mut dirs: Vec<&Path> = plan
        .entries
        .iter()
        .filter_map(|e| e.target.parent())
        .collect();
    dirs.sort();
    dirs.dedup();
    for d in dirs {
        sync_dir(d);
    }
}

/// Makes a rename or removal in `dir` durable. Best effort: some platforms
/// cannot open a folder for syncing.
pub fn sync_dir(dir: &Path) {
    if cfg!(unix) {
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

/// Run at the start of every writing command, under the root's lock: an
/// interrupted commit is rolled back, or its cleanup finished if it was
/// complete. Returns what was done, for stderr.
pub fn recover(root: &Root) -> Result<Option<String>, String> {
    let path = root.dir().join(NAME);
    let text = match fs::read(&path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read the commit journal {NAME}: {e}")),
    };
    let (plan, pid, renaming, done) = parse(root, &text)?;
    let what = if done {
        clean_up(&plan, true);
        format!("finished the cleanup of a complete commit (pid {pid})")
    } else {
        let u = roll_back(root, &plan, renaming);
        if !u.failed.is_empty() {
            return Err(format!(
                "an interrupted commit (pid {pid}) could not be rolled back: {}; the journal {NAME} is kept",
                u.failed.join("; ")
            ));
        }
        format!(
            "rolled back an interrupted commit (pid {pid}): {}",
            describe(&u)
        )
    };
    fs::remove_file(&path).map_err(|e| format!("cannot remove {NAME}: {e}"))?;
    sync_dir(root.dir());
    Ok(Some(what))
}

/// "restored a.txt, b.txt; removed the new file c.txt; removed 2 temporary files".
pub fn describe(u: &Undo) -> String {
    let mut parts = vec![];
    if !u.restored.is_empty() {
        parts.push(format!("restored {}", u.restored.join(", ")));
    }
    if !u.removed_new.is_empty() {
        parts.push(format!("removed the new {}", u.removed_new.join(", ")));
    }
    if u.temps > 0 {
        parts.push(format!("removed {} temporary file(s)", u.temps));
    }
    if parts.is_empty() {
        "no file had been changed".into()
    } else {
        parts.join("; ")
    }
}

/// Reads a journal back. Parsing stops at the first line that is not
/// JSON (a torn append). Every path must be a plain relative path whose
/// folders are real folders inside the root: a journal shipped in a
/// repository must not steer recovery outside it.
fn parse(root: &Root, text: &str) -> Result<(Plan, u64, bool, bool), String> {
    let mut plan = Plan::default();
    let (mut pid, mut renaming, mut done) = (0, false, false);
    let bad = |why: &str| {
        format!("the commit journal {NAME} is not patchbay's ({why}); remove it by hand after checking the files it names")
    };
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            break;
        };
        let path = |key: &str| -> Result<Option<PathBuf>, String> {
            match &v[key] {
                Value::Null => Ok(None),
                Value::String(s) => safe(root, s).map(Some).ok_or_else(|| bad(s)),
                _ => Err(bad("a path is not a string")),
            }
        };
        if let Some(p) = v["patchbay_journal"].as_u64() {
            if p != 1 {
                return Err(bad("unknown version"));
            }
            pid = v["pid"].as_u64().unwrap_or(0);
        } else if v.get("target").is_some() {
            let target = path("target")?.ok_or_else(|| bad("no target"))?;
            let (temp, backup) = (path("temp")?, path("backup")?);
            for p in temp.iter().chain(backup.iter()) {
                if !is_ours(p) {
                    return Err(bad(&root.shown(p)));
                }
            }
            plan.entries.push(Entry {
                target,
                temp,
                backup,
                staged: None,
            });
        } else if v.get("dir").is_some() {
            plan.dirs.extend(path("dir")?);
        } else if let (Some(k), Some(ino)) = (v["staged"].as_u64(), v["ino"].as_array()) {
            let n = |i: usize| ino.get(i).and_then(Value::as_u64).unwrap_or(0);
            if let Some(e) = plan.entries.get_mut(k as usize) {
                e.staged = Some((n(0), n(1)));
            }
        } else if v["state"] == "renaming" {
            renaming = true;
        } else if v["state"] == "done" {
            done = true;
        }
    }
    Ok((plan, pid, renaming, done))
}

/// A temporary or backup name patchbay makes: `.NAME.patchbay-PID-K.tmp`,
/// `.orig` (a backup a journal names) or `.old` (the backup of a commit
/// without a journal); NAME is a hash when the file's name is long.
pub fn is_ours(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.starts_with('.')
        && name.contains(".patchbay-")
        && [".tmp", ".orig", ".old"].iter().any(|x| name.ends_with(x))
}

/// Removes what a killed run left in `dirs` without a journal, whose PID
/// (`.NAME.patchbay-PID-K.tmp`) is not a live process: temporaries (runs
/// before the journal left them too) and the `.old` backups of commits
/// without a journal, whose target is whole either way (the original, of
/// which the backup is a second name, or the new file that replaced it).
/// `.orig` backups stay: without their journal it is not known whether
/// they are still needed. Returns the paths removed, for stderr.
pub fn sweep(dirs: &[&Path]) -> Vec<PathBuf> {
    let mut gone = vec![];
    for d in dirs {
        let Ok(entries) = fs::read_dir(d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if stale_pid(&p).is_some_and(|pid| !alive(pid)) && fs::remove_file(&p).is_ok() {
                gone.push(p);
            }
        }
    }
    gone
}

/// The PID in a temporary's name `.NAME.patchbay-PID-K.tmp` (or `.old`).
fn stale_pid(p: &Path) -> Option<u32> {
    let name = p.file_name()?.to_str()?;
    let name = name.strip_prefix('.')?;
    let rest = name
        .strip_suffix(".tmp")
        .or_else(|| name.strip_suffix(".old"))?;
    let (_, tail) = rest.rsplit_once(".patchbay-")?;
    let (pid, k) = tail.split_once('-')?;
    k.parse::<u64>().ok()?;
    pid.parse().ok()
}

fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    #[cfg(unix)]
    {
        // Signal 0 checks existence; EPERM means it exists as another user.
        let rc = unsafe { libc::kill(pid as libc::pid_t, 0) };
        rc == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    true
}

/// Whether a model path names the journal or a temporary or backup of
/// patchbay's: writing one would pull the commit's own records from under it.
pub fn is_reserved(rel: &str) -> bool {
    rel == NAME || is_ours(Path::new(rel))
}

/// `rel` under the root, if it is a plain relative path whose folders
/// exist as real folders there (no symbolic link) or do not exist yet.
fn safe(root: &Root, rel: &str) -> Option<PathBuf> {
    let p = Path::new(rel);
    let plain = p
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !plain || rel.is_empty() {
        return None;
    }
    let full = root.dir().join(p);
    let mut dir = full.parent()?;
    // The deepest folder that exists must be itself, links resolved.
    while !dir.exists() {
        dir = dir.parent()?;
    }
    (fs::canonicalize(dir).ok()? == dir).then_some(full)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder as a root, removed when the returned guard drops.
    fn scratch(name: &str) -> (tempfile::TempDir, Root) {
        let d = tempfile::Builder::new()
            .prefix(&format!("patchbay-journal-{name}-"))
            .tempdir()
            .unwrap();
        let root = Root::open(d.path()).unwrap();
        (d, root)
    }

    /// A torn `renaming` line reads as absent: the originals were never
    /// touched, so the backup (an extra link) and the temporary just go.
    #[test]
    fn a_torn_last_line_rolls_back_as_before_renaming() {
        let (guard, root) = scratch("torn");
        let d = guard.path();
        fs::write(d.join("a.txt"), "old\n").unwrap();
        fs::write(d.join(".a.txt.patchbay-9-0.tmp"), "new\n").unwrap();
        fs::hard_link(d.join("a.txt"), d.join(".a.txt.patchbay-9-0.orig")).unwrap();
        fs::write(
            d.join(NAME),
            "{\"patchbay_journal\":1,\"pid\":9}\n{\"target\":\"a.txt\",\"temp\":\".a.txt.patchbay-9-0.tmp\",\"backup\":\".a.txt.patchbay-9-0.orig\"}\n{\"state\":\"renam",
        )
        .unwrap();
        let what = recover(&root).unwrap().unwrap();
        assert!(
            what.contains("rolled back") && what.contains("pid 9"),
            "{what}"
        );
        assert_eq!(fs::read_to_string(d.join("a.txt")).unwrap(), "old\n");
        let left: Vec<_> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["a.txt"]);
    }

    /// A killed rename phase: the renamed file comes back from its backup,
    /// a renamed new file goes only if it is the staged inode.
    #[test]
    fn an_interrupted_rename_phase_is_undone() {
        let (guard, root) = scratch("renamed");
        let d = guard.path();
        fs::write(d.join(".a.txt.patchbay-9-0.orig"), "old\n").unwrap();
        fs::write(d.join("a.txt"), "new\n").unwrap();
        fs::write(d.join("n.txt"), "new file\n").unwrap();
        fs::write(d.join("mine.txt"), "not patchbay's\n").unwrap();
        let ino = {
            use std::os::unix::fs::MetadataExt;
            let m = fs::metadata(d.join("n.txt")).unwrap();
            (m.dev(), m.ino())
        };
        let lines = [
            json!({"patchbay_journal": 1, "pid": 9}),
            json!({"target": "a.txt", "temp": ".a.txt.patchbay-9-0.tmp", "backup": ".a.txt.patchbay-9-0.orig"}),
            json!({"target": "n.txt", "temp": ".n.txt.patchbay-9-1.tmp", "backup": null}),
            json!({"target": "mine.txt", "temp": ".mine.txt.patchbay-9-2.tmp", "backup": null}),
            json!({"staged": 1, "ino": [ino.0, ino.1]}),
            json!({"staged": 2, "ino": [0, 0]}),
            json!({"state": "renaming"}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        fs::write(d.join(NAME), text).unwrap();
        let what = recover(&root).unwrap().unwrap();
        assert!(
            what.contains("restored a.txt") && what.contains("removed the new n.txt"),
            "{what}"
        );
        assert_eq!(fs::read_to_string(d.join("a.txt")).unwrap(), "old\n");
        assert!(!d.join("n.txt").exists());
        // Not the inode patchbay staged: someone else's file stays.
        assert_eq!(
            fs::read_to_string(d.join("mine.txt")).unwrap(),
            "not patchbay's\n"
        );
        assert!(!d.join(NAME).exists());
    }

    #[test]
    fn only_patchbay_names_are_taken_for_temporaries() {
        assert!(is_ours(Path::new("x/.a.txt.patchbay-1-0.tmp")));
        assert!(!is_ours(Path::new("x/a.txt")));
        let (guard, root) = scratch("names");
        let d = guard.path();
        fs::write(
            d.join(NAME),
            "{\"patchbay_journal\":1,\"pid\":1}\n{\"target\":\"a.txt\",\"temp\":\"src/main.rs\",\"backup\":null}\n",
        )
        .unwrap();
        assert!(recover(&root).unwrap_err().contains("not patchbay's"));
    }
}
