//! The commit journal: `.patchbay-journal` in the root, written and fsynced
//! before the first temporary exists, so that a commit killed at any moment
//! can be rolled back (or its cleanup finished) by the next writing run.
//!
//! One JSON object a line, paths relative to the root (their bytes, with
//! `%` and every byte that is not UTF-8 written `%XX`):
//!
//! ```text
//! {"patchbay_journal":2,"pid":4242,"token":"9f2c41d07a3b5e68","ino":131}
//! {"target":"a.txt","temp":".a.txt.patchbay-4242-9f2c41d07a3b5e68-0.tmp","backup":".a.txt.patchbay-4242-9f2c41d07a3b5e68-0.orig"}
//! {"target":"new.txt","temp":".new.txt.patchbay-4242-9f2c41d07a3b5e68-1.tmp","backup":null}
//! {"target":"gone.txt","temp":null,"backup":".gone.txt.patchbay-4242-9f2c41d07a3b5e68-2.orig"}
//! {"dir":"made"}
//! {"state":"renaming","staged":[[0,2049,140],[1,2049,141]]}   (temporaries and backups in place)
//! {"state":"done"}                                             (every rename and deletion happened)
//! ```
//!
//! A journal is replayed only if patchbay wrote it there: its header names
//! its own inode (which a copy, a checkout or a file a model wrote cannot
//! have) and a random token that every temporary and backup it names
//! carries. Any other `.patchbay-journal` is set aside and reported, never
//! replayed, and never blocks the root. No writer may target these files
//! (`patchbay::apply::paths::reserved`).
//!
//! A backup is a hard link to the original (a copy where links fail), so
//! restoring it is one rename and gives back the very inode, with whatever
//! another process wrote to it meanwhile. A torn last line reads as absent:
//! every state it could have announced is safe to roll back from.

use crate::fsio::Root;
use serde_json::{json, Value};
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

pub const NAME: &str = patchbay::apply::paths::JOURNAL;

/// The journal format's version (1 had no token and no inode).
const VERSION: u64 = 2;

/// What one commit will do, in absolute paths.
#[derive(Debug, Default)]
pub struct Plan {
    pub entries: Vec<Entry>,
    /// Folders made for new files, outermost first.
    pub dirs: Vec<PathBuf>,
    /// The commit's random token, in the journal and in every temporary
    /// and backup name ([`new_token`]).
    pub token: String,
}

#[derive(Debug)]
pub struct Entry {
    pub target: PathBuf,
    /// The new text's temporary; `None` for a deletion.
    pub temp: Option<PathBuf>,
    /// The original's backup; `None` when the target is a new file.
    pub backup: Option<PathBuf>,
    /// (device, inode) of the temporary, once staged: rolling back touches
    /// a target only if it is that file (the commit's own rename put it
    /// there), never a file or folder another program put there.
    pub staged: Option<(u64, u64)>,
}

/// 16 random hex digits: the kernel's randomness where there is one,
/// else the standard library's per-process random hash keys.
pub fn new_token() -> String {
    let mut b = [0u8; 8];
    let urandom = File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b));
    let n = match urandom {
        Ok(()) => u64::from_le_bytes(b),
        Err(_) => {
            use std::hash::BuildHasher;
            let keys = std::collections::hash_map::RandomState::new();
            keys.hash_one((std::process::id(), std::time::SystemTime::now()))
        }
    };
    format!("{n:016x}")
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
        let fail = |e: io::Error| format!("cannot write the commit journal {NAME}: {e}");
        let mut file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(fail)?;
        let ino = file.metadata().map(|m| inode(&m)).unwrap_or(0);
        let header = json!({"patchbay_journal": VERSION, "pid": std::process::id(), "token": plan.token, "ino": ino});
        let mut text = format!("{header}\n");
        for e in &plan.entries {
            let rel = |p: &Option<PathBuf>| p.as_ref().map(|p| encode(root, p));
            let line = json!({"target": encode(root, &e.target), "temp": rel(&e.temp), "backup": rel(&e.backup)});
            text.push_str(&format!("{line}\n"));
        }
        for d in &plan.dirs {
            text.push_str(&format!("{}\n", json!({"dir": encode(root, d)})));
        }
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

    /// Whether there is a journal file (not [`Journal::none`]).
    pub fn is_written(&self) -> bool {
        self.file.is_some()
    }

    /// Records that every temporary and backup is in place, with the
    /// (device, inode) of each staged temporary.
    pub fn renaming(&mut self, plan: &Plan) -> io::Result<()> {
        let staged: Vec<Value> = (plan.entries.iter().enumerate())
            .filter_map(|(k, e)| e.staged.map(|(d, i)| json!([k, d, i])))
            .collect();
        self.append(json!({"state": "renaming", "staged": staged}))?;
        self.renaming = true;
        Ok(())
    }

    pub fn done(&mut self) -> io::Result<()> {
        self.append(json!({"state": "done"}))
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

fn inode(m: &fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        m.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        0
    }
}

/// `p` relative to the root, its bytes kept: UTF-8 as it is, `%` and every
/// other byte as `%XX`, so that a folder whose name is not UTF-8 comes back
/// as the very same bytes ([`decode`]).
pub fn encode(root: &Root, p: &Path) -> String {
    let rel = p.strip_prefix(root.dir()).unwrap_or(p);
    let mut out = String::new();
    for chunk in rel.as_os_str().as_encoded_bytes().utf8_chunks() {
        for ch in chunk.valid().chars() {
            match ch {
                '%' => out.push_str("%25"),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path [`encode`] wrote; `None` for a bad escape.
pub fn decode(s: &str) -> Option<PathBuf> {
    let mut bytes = Vec::with_capacity(s.len());
    let mut it = s.bytes();
    while let Some(b) = it.next() {
        if b != b'%' {
            bytes.push(b);
            continue;
        }
        let hex = [it.next()?, it.next()?];
        bytes.push(u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?);
    }
    os_string(bytes).map(PathBuf::from)
}

#[cfg(unix)]
fn os_string(bytes: Vec<u8>) -> Option<OsString> {
    use std::os::unix::ffi::OsStringExt;
    Some(OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn os_string(bytes: Vec<u8>) -> Option<OsString> {
    String::from_utf8(bytes).ok().map(OsString::from)
}

/// What a rollback did, for the message.
#[derive(Debug, Default)]
pub struct Undo {
    pub restored: Vec<String>,
    pub removed_new: Vec<String>,
    pub temps: usize,
    /// Targets another program changed during the commit (a folder or
    /// another file in place of the original): left as they are, with the
    /// backup that holds the original kept beside them, and how to use it.
    pub kept: Vec<String>,
    pub failed: Vec<String>,
}

/// Puts every target back as it was and removes what the commit made.
/// Before `renaming`, originals were never touched: backups are only
/// extra links and go. After it, a target is restored from its backup only
/// if the commit changed it (it is the commit's staged temporary, or a
/// deletion's target is gone); a target another program changed stays as
/// it is, and so does its backup when it is the only copy of the original.
/// So the rollback never fails on a state it did not make.
pub fn roll_back(root: &Root, plan: &Plan, renaming: bool) -> Undo {
    let mut u = Undo::default();
    for e in plan.entries.iter().rev() {
        let shown = root.shown(&e.target);
        let temp_left = e.temp.as_ref().is_some_and(|t| exists(t));
        let ours = renaming && !temp_left && switched(e);
        if let Some(b) = e.backup.as_ref().filter(|b| exists(b)) {
            restore_or_keep(root, e, b, ours, renaming, &mut u);
        }
        if ours && e.backup.is_none() {
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

/// Whether the commit's rename or deletion of `e` happened and its result
/// is still there: the target is the staged temporary (a write), or gone
/// (a deletion). A journal without the staged inode trusts the rename.
fn switched(e: &Entry) -> bool {
    match (&e.temp, e.staged) {
        (Some(_), Some(id)) => identity(&e.target) == Some(id),
        (Some(_), None) => exists(&e.target),
        (None, _) => !exists(&e.target),
    }
}

/// One backup after a failure: renamed over its target when the commit
/// changed that target; removed when it is only a second name of the
/// target (nothing changed); kept, and said so, when another program
/// changed the target and the backup is the original's only copy.
fn restore_or_keep(root: &Root, e: &Entry, b: &Path, ours: bool, renaming: bool, u: &mut Undo) {
    let shown = root.shown(&e.target);
    let same = identity(b).is_some() && identity(b) == identity(&e.target);
    if ours {
        match fs::rename(b, &e.target) {
            Ok(()) if !exists(b) => u.restored.push(shown),
            // Target and backup were one inode: the rename did nothing.
            Ok(()) => {
                let _ = fs::remove_file(b);
            }
            // The backup stays: it is the only copy of the original.
            Err(err) => u.failed.push(format!("{shown}: {err}")),
        }
    } else if !renaming || same {
        let _ = fs::remove_file(b);
    } else {
        let what = match fs::symlink_metadata(&e.target) {
            Ok(m) if m.is_dir() => "became a folder",
            Ok(_) => "was replaced by another program",
            Err(_) => "was removed by another program",
        };
        u.kept.push(format!(
            "{shown} {what} during the commit and is left as it is; its original is kept in {} (to put it back: mv -- {} {})",
            root.shown(b),
            quote(b),
            quote(&e.target)
        ));
    }
}

/// A path for a POSIX shell command line, in single quotes.
pub fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', "'\\''"))
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

/// (device, inode) of the entry `p` itself (a link is not followed).
fn identity(p: &Path) -> Option<(u64, u64)> {
    let m = fs::symlink_metadata(p).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        Some((0, 0))
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

/// Takes the root's advisory lock (an exclusive `flock` on the root
/// folder itself, so no lock file is left behind) and finishes or rolls
/// back a commit that a killed run left ([`recover`]). Held until dropped:
/// two writing runs in one root read, decide and write one after the other.
pub fn lock(root: &Root) -> Result<Option<File>, String> {
    let locked = File::open(root.dir()).and_then(|f| f.lock().map(|()| f));
    let f = match locked {
        Ok(f) => Some(f),
        Err(e) if cfg!(unix) => {
            return Err(format!("cannot lock --root {}: {e}", root.dir().display()))
        }
        // Windows cannot open a folder as a file: no lock there (the
        // `file_changed` check still refuses a lost update).
        Err(_) => None,
    };
    if let Some(what) = recover(root)? {
        eprintln!("patchbay: {}", crate::term::shown(&what));
    }
    Ok(f)
}

/// Run at the start of every writing command, under the root's lock: an
/// interrupted commit is rolled back, or its cleanup finished if it was
/// complete. Returns what was done, for stderr. A journal patchbay did not
/// write here is set aside, not replayed; a rollback that fails keeps the
/// journal (the next run retries) and says how to give up on it.
pub fn recover(root: &Root) -> Result<Option<String>, String> {
    let path = root.dir().join(NAME);
    let (text, ino) = match read(&path) {
        Ok(r) => r,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.kind() == io::ErrorKind::InvalidInput => {
            return set_aside(root, &path, &e.to_string()).map(Some)
        }
        Err(e) => return Err(format!("cannot read the commit journal {NAME}: {e}")),
    };
    let r = match parse(root, &text, ino) {
        Ok(r) => r,
        Err(why) => return set_aside(root, &path, &why).map(Some),
    };
    let pid = r.pid;
    let what = if r.done {
        clean_up(&r.plan, true);
        format!("finished the cleanup of a complete commit (pid {pid})")
    } else {
        let u = roll_back(root, &r.plan, r.renaming);
        if !u.failed.is_empty() {
            return Err(format!(
                "an interrupted commit (pid {pid}) could not be rolled back: {}; the journal {NAME} is kept and the next run in this root retries; to keep the files as they are now instead, remove it: rm -- {}",
                u.failed.join("; "),
                quote(&path)
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

/// The journal's text and its inode, read through one handle.
/// Only a regular file (not a link, a FIFO or a device: `InvalidInput`)
/// is read, and no more than its header when that names another inode,
/// so a forged journal costs a few bytes however large it is.
fn read(path: &Path) -> io::Result<(String, u64)> {
    if !fs::symlink_metadata(path)?.is_file() {
        let why = "it is not a regular file";
        return Err(io::Error::new(io::ErrorKind::InvalidInput, why));
    }
    let (f, meta) = crate::fsio::open_regular(path, NAME)?;
    let ino = inode(&meta);
    let mut r = io::BufReader::new(f.take(meta.len()));
    let mut bytes = vec![];
    io::BufRead::read_until(&mut (&mut r).take(4096), b'\n', &mut bytes)?;
    let head: Option<Value> = serde_json::from_slice(&bytes).ok();
    let other = head.is_some_and(|h| cfg!(unix) && h["ino"].as_u64() != Some(ino));
    if !other {
        r.read_to_end(&mut bytes)?;
    }
    Ok((String::from_utf8_lossy(&bytes).into_owned(), ino))
}

/// Renames a journal patchbay did not write here out of the way, so that
/// it neither steers nor blocks anything, and says where it went.
fn set_aside(root: &Root, path: &Path, why: &str) -> Result<String, String> {
    let aside = root.dir().join(format!("{NAME}.untrusted-{}", new_token()));
    fs::rename(path, &aside).map_err(|e| {
        format!("{NAME} is not a journal patchbay wrote here ({why}), and it cannot be set aside ({e}); check the files it names, then remove it: rm -- {}", quote(path))
    })?;
    sync_dir(root.dir());
    Ok(format!(
        "warning: {NAME} is not a journal patchbay wrote here ({why}), so nothing of it was replayed; it is set aside as {}. If a killed patchbay run left it in a root that was copied or restored since, check the files it names; then remove it: rm -- {}",
        root.shown(&aside),
        quote(&aside)
    ))
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
    parts.extend(u.kept.iter().cloned());
    if parts.is_empty() {
        "no file had been changed".into()
    } else {
        parts.join("; ")
    }
}

/// A journal read back.
struct Replay {
    plan: Plan,
    pid: u64,
    renaming: bool,
    done: bool,
}

/// Reads a journal back, or says why it is not one patchbay wrote here.
/// Parsing stops at the first line that is not JSON (a torn append). The
/// header must name the journal's own inode `ino` and a token; every
/// temporary and backup must carry that token; every path must be a plain
/// relative path whose folders are real folders inside the root (a journal
/// shipped in a repository must not steer recovery outside it).
fn parse(root: &Root, text: &str, ino: u64) -> Result<Replay, String> {
    let empty = Replay {
        plan: Plan::default(),
        pid: 0,
        renaming: false,
        done: false,
    };
    // Killed while the header was written: the plan (written with it, in
    // one write) names nothing yet, and nothing was staged.
    if !text.contains('\n') {
        return Ok(empty);
    }
    let mut lines = text
        .lines()
        .map_while(|l| serde_json::from_str::<Value>(l).ok());
    let head = lines.next().ok_or("it has no header")?;
    if head["patchbay_journal"].as_u64() != Some(VERSION) {
        return Err("no header of this patchbay's journal format".into());
    }
    let token = head["token"].as_str().unwrap_or("");
    if token.len() != 16 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err("no commit token".into());
    }
    if cfg!(unix) && head["ino"].as_u64() != Some(ino) {
        return Err("it is not the file patchbay wrote: its inode differs".into());
    }
    let mut r = Replay {
        pid: head["pid"].as_u64().unwrap_or(0),
        ..empty
    };
    r.plan.token = token.to_owned();
    for v in lines {
        line(root, &v, &mut r)?;
    }
    Ok(r)
}

/// One line after the header.
fn line(root: &Root, v: &Value, r: &mut Replay) -> Result<(), String> {
    let path = |key: &str| -> Result<Option<PathBuf>, String> {
        match &v[key] {
            Value::Null => Ok(None),
            Value::String(s) => (decode(s).and_then(|p| safe(root, &p)).map(Some))
                .ok_or_else(|| format!("the path {s:?} is not a plain path inside the root")),
            _ => Err("a path is not a string".into()),
        }
    };
    if v.get("target").is_some() {
        let target = path("target")?.ok_or("an entry has no target")?;
        let (temp, backup) = (path("temp")?, path("backup")?);
        let mark = format!("-{}-", r.plan.token);
        for p in temp.iter().chain(backup.iter()) {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !is_ours(p) || !name.contains(&mark) {
                return Err(format!(
                    "{} is not this commit's temporary or backup",
                    root.shown(p)
                ));
            }
        }
        r.plan.entries.push(Entry {
            target,
            temp,
            backup,
            staged: None,
        });
    } else if v.get("dir").is_some() {
        r.plan.dirs.extend(path("dir")?);
    } else if v["state"] == "renaming" {
        r.renaming = true;
        for s in v["staged"].as_array().into_iter().flatten() {
            let n = |i: usize| s.get(i).and_then(Value::as_u64);
            if let (Some(k), Some(d), Some(i)) = (n(0), n(1), n(2)) {
                if let Some(e) = r.plan.entries.get_mut(k as usize) {
                    e.staged = Some((d, i));
                }
            }
        }
    } else if v["state"] == "done" {
        r.done = true;
    }
    Ok(())
}

/// A temporary or backup name patchbay makes: `.NAME.patchbay-PID-TOKEN-K.tmp`,
/// `.orig` (a backup a journal names) or `.old` (the backup of a commit
/// without a journal); NAME is a hash when the file's name is long.
pub fn is_ours(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    patchbay::apply::paths::is_side_file(name)
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

/// The PID in a temporary's name `.NAME.patchbay-PID-TOKEN-K.tmp` (or `.old`).
fn stale_pid(p: &Path) -> Option<u32> {
    let name = p.file_name()?.to_str()?;
    let name = name.strip_prefix('.')?;
    let rest = name
        .strip_suffix(".tmp")
        .or_else(|| name.strip_suffix(".old"))?;
    let (_, tail) = rest.rsplit_once(".patchbay-")?;
    // PID-TOKEN-K (PID-K from a patchbay before the token).
    let (pid, rest) = tail.split_once('-')?;
    let k = rest.rsplit('-').next()?;
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

/// `rel` under the root, if it is a plain relative path whose folders
/// exist as real folders there (no symbolic link) or do not exist yet.
fn safe(root: &Root, rel: &Path) -> Option<PathBuf> {
    let plain = rel
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !plain || rel.as_os_str().is_empty() {
        return None;
    }
    let full = root.dir().join(rel);
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

    const TOKEN: &str = "00112233aabbccdd";

    /// A fresh folder as a root, removed when the returned guard drops.
    fn scratch(name: &str) -> (tempfile::TempDir, Root) {
        let d = tempfile::Builder::new()
            .prefix(&format!("patchbay-journal-{name}-"))
            .tempdir()
            .unwrap();
        let root = Root::open(d.path()).unwrap();
        (d, root)
    }

    /// Writes a journal as patchbay does: a header naming the file's own
    /// inode (`ino` when given: a forgery's guess), then `rest` verbatim.
    fn journal(d: &Path, ino: Option<u64>, rest: &str) {
        let mut f = File::create(d.join(NAME)).unwrap();
        let ino = ino.unwrap_or_else(|| inode(&f.metadata().unwrap()));
        let head = json!({"patchbay_journal": VERSION, "pid": 9, "token": TOKEN, "ino": ino});
        f.write_all(format!("{head}\n{rest}").as_bytes()).unwrap();
    }

    fn side(name: &str, k: usize, ext: &str) -> String {
        format!(".{name}.patchbay-9-{TOKEN}-{k}.{ext}")
    }

    fn listing(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// A torn `renaming` line reads as absent: the originals were never
    /// touched, so the backup (an extra link) and the temporary just go.
    #[test]
    fn a_torn_last_line_rolls_back_as_before_renaming() {
        let (guard, root) = scratch("torn");
        let d = guard.path();
        let (tmp, orig) = (side("a.txt", 0, "tmp"), side("a.txt", 0, "orig"));
        fs::write(d.join("a.txt"), "old\n").unwrap();
        fs::write(d.join(&tmp), "new\n").unwrap();
        fs::hard_link(d.join("a.txt"), d.join(&orig)).unwrap();
        let entry = json!({"target": "a.txt", "temp": tmp, "backup": orig});
        journal(d, None, &format!("{entry}\n{{\"state\":\"renam"));
        let what = recover(&root).unwrap().unwrap();
        assert!(
            what.contains("rolled back") && what.contains("pid 9"),
            "{what}"
        );
        assert_eq!(fs::read_to_string(d.join("a.txt")).unwrap(), "old\n");
        assert_eq!(listing(d), ["a.txt"]);
        // Killed inside the header: nothing was staged; the journal goes.
        fs::write(d.join(NAME), "{\"patchbay_journal\":2,\"pid\":9,\"tok").unwrap();
        let what = recover(&root).unwrap().unwrap();
        assert!(what.contains("no file had been changed"), "{what}");
        assert_eq!(listing(d), ["a.txt"]);
    }

    /// A killed rename phase: the renamed file comes back from its backup,
    /// a renamed new file goes only if it is the staged inode.
    #[test]
    fn an_interrupted_rename_phase_is_undone() {
        let (guard, root) = scratch("renamed");
        let d = guard.path();
        fs::write(d.join(side("a.txt", 0, "orig")), "old\n").unwrap();
        fs::write(d.join("a.txt"), "new\n").unwrap();
        fs::write(d.join("n.txt"), "new file\n").unwrap();
        fs::write(d.join("mine.txt"), "not patchbay's\n").unwrap();
        let id = |n: &str| identity(&d.join(n)).unwrap();
        let (a, n) = (id("a.txt"), id("n.txt"));
        let lines = [
            json!({"target": "a.txt", "temp": side("a.txt", 0, "tmp"), "backup": side("a.txt", 0, "orig")}),
            json!({"target": "n.txt", "temp": side("n.txt", 1, "tmp"), "backup": null}),
            json!({"target": "mine.txt", "temp": side("mine.txt", 2, "tmp"), "backup": null}),
            json!({"state": "renaming", "staged": [[0, a.0, a.1], [1, n.0, n.1], [2, 0, 0]]}),
        ];
        journal(
            d,
            None,
            &lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
        );
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

    /// Not patchbay's: a temporary that is another file, a name without the
    /// journal's token, a header whose inode is not the journal's, a
    /// version-1 journal. Each is set aside, nothing replayed, no error.
    #[test]
    fn a_journal_patchbay_did_not_write_here_is_set_aside_not_replayed() {
        let forged_backup = side("a.txt", 0, "orig");
        let entry = |backup: &str| {
            format!(
                "{}\n{{\"state\":\"renaming\"}}\n",
                json!({"target": "a.txt", "temp": null, "backup": backup})
            )
        };
        let cases: [(&str, Option<u64>, String); 4] = [
            (
                "not this commit",
                None,
                format!(
                    "{}\n",
                    json!({"target": "a.txt", "temp": "src/main.rs", "backup": null})
                ),
            ),
            (
                "not this commit",
                None,
                entry(".a.txt.patchbay-9-ffffffffffffffff-0.orig"),
            ),
            ("inode differs", Some(1), entry(&forged_backup)),
            ("format", None, String::new()),
        ];
        for (why, ino, rest) in cases {
            let (guard, root) = scratch("forged");
            let d = guard.path();
            fs::write(d.join("a.txt"), "mine\n").unwrap();
            fs::write(d.join(&forged_backup), "the model's text\n").unwrap();
            if why == "format" {
                fs::write(d.join(NAME), "{\"patchbay_journal\":1,\"pid\":1}\n").unwrap();
            } else {
                journal(d, ino, &rest);
            }
            let what = recover(&root).unwrap().unwrap();
            assert!(
                what.contains("not a journal patchbay wrote here") && what.contains(why),
                "{what}"
            );
            assert_eq!(fs::read_to_string(d.join("a.txt")).unwrap(), "mine\n");
            assert!(!d.join(NAME).exists(), "{what}");
            assert!(listing(d)
                .iter()
                .any(|n| n.starts_with(".patchbay-journal.untrusted-")));
            assert_eq!(recover(&root).unwrap(), None, "set aside once, then gone");
        }
    }

    /// A rollback that fails on a file the commit did change (here its
    /// backup cannot be renamed back: it is a folder) keeps the journal
    /// for the next run and names the command that gives up on it.
    #[test]
    fn a_rollback_that_fails_keeps_the_journal_and_names_the_way_out() {
        let (guard, root) = scratch("stuck");
        let d = guard.path();
        fs::write(d.join("a.txt"), "new\n").unwrap();
        fs::create_dir(d.join(side("a.txt", 0, "orig"))).unwrap();
        let a = identity(&d.join("a.txt")).unwrap();
        let lines = [
            json!({"target": "a.txt", "temp": side("a.txt", 0, "tmp"), "backup": side("a.txt", 0, "orig")}),
            json!({"state": "renaming", "staged": [[0, a.0, a.1]]}),
        ];
        journal(
            d,
            None,
            &lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
        );
        let err = recover(&root).unwrap_err();
        let rm = format!("rm -- {}", quote(&d.join(NAME)));
        assert!(
            err.contains("could not be rolled back") && err.contains(&rm),
            "{err}"
        );
        assert!(d.join(NAME).exists());
    }

    /// A journal that is a link (to a well-formed journal elsewhere) or a
    /// FIFO is set aside without being read: no replay, no wait.
    #[test]
    fn a_journal_that_is_a_link_or_a_fifo_is_set_aside_unread() {
        use std::os::unix::ffi::OsStrExt;
        let (guard, root) = scratch("linked");
        let d = guard.path();
        fs::create_dir(d.join("elsewhere")).unwrap();
        journal(&d.join("elsewhere"), None, "{\"state\":\"done\"}\n");
        std::os::unix::fs::symlink("elsewhere/.patchbay-journal", d.join(NAME)).unwrap();
        let what = recover(&root).unwrap().unwrap();
        assert!(what.contains("not a regular file"), "{what}");
        assert!(
            d.join("elsewhere").join(NAME).exists(),
            "the link's target stays"
        );
        let c = std::ffi::CString::new(d.join(NAME).as_os_str().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let what = recover(&root).unwrap().unwrap();
        assert!(what.contains("not a regular file"), "{what}");
        assert!(!d.join(NAME).exists());
    }

    #[test]
    fn paths_keep_their_bytes_through_the_journal() {
        use std::os::unix::ffi::OsStrExt;
        let (_guard, root) = scratch("bytes");
        let rel = std::ffi::OsStr::from_bytes(b"d\xff\xfe%/\xc3\xa9t\xc3.txt");
        let p = root.dir().join(rel);
        let e = encode(&root, &p);
        assert_eq!(e, "d%FF%FE%25/\u{e9}t%C3.txt");
        assert_eq!(decode(&e).unwrap(), Path::new(rel));
        assert_eq!(decode("a%4"), None);
        assert_eq!(decode("a%zz"), None);
    }

    #[test]
    fn only_patchbay_names_are_taken_for_temporaries() {
        assert!(is_ours(Path::new("x/.a.txt.patchbay-1-0.tmp")));
        assert!(!is_ours(Path::new("x/a.txt")));
        assert_eq!(stale_pid(Path::new(&side("a.txt", 3, "tmp"))), Some(9));
        assert_eq!(stale_pid(Path::new(".a.txt.patchbay-12-3.old")), Some(12));
        assert_eq!(stale_pid(Path::new(&side("a.txt", 3, "orig"))), None);
    }
}
