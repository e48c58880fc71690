//! Writing a set of changes all or nothing, on disk too (see `journal.rs`
//! for the record that makes a killed commit recoverable).
//!
//! 1. Check what can be checked: each target is still the file that was
//!    read (stat), it and its folder are not immutable or append-only, the
//!    folder is writable and its sticky bit allows the change.
//! 2. Write the journal (fsynced) naming every temporary, backup and folder
//!    (not for one file written in an existing folder: that commit is a
//!    single rename, atomic by itself; see [`Journal::none`]).
//! 3. Make folders, write each new text to a temporary beside its target
//!    (fsynced, with the original's owner, group, mode and extended
//!    attributes), and hard-link each original to a backup beside it.
//! 4. Check again, by stat and by CRC of the bytes, that each target is
//!    what was read; record `renaming`.
//! 5. Rename and delete; sync the folders; check that no one wrote to an
//!    original meanwhile (its backup is the same inode); record `done`.
//! 6. Remove the backups and the journal.
//!
//! A failure anywhere from 2 on rolls back: backups renamed over their
//! targets, new files and temporaries removed. The caller must hold the
//! root's lock ([`journal::lock`]).

use crate::fsio::{Change, Expect, Root, Stamp};
use crate::journal::{self, Entry, Journal, Plan};
use crate::meta;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Why a commit wrote nothing.
#[derive(Debug)]
pub enum CommitError {
    /// A target is not the file that was read (`file_changed`): the
    /// message names it and says what differs.
    Changed { path: PathBuf, why: String },
    /// A target is one of patchbay's own files or in a `.git` folder
    /// ([`Root::reserved`]), as the file system resolved it: a receipt
    /// with code `path_escape`.
    Reserved { path: PathBuf, why: String },
    /// The file system refused: what failed and what was done about it.
    Io(String),
}

/// Applies `changes` under `root`, all or nothing.
pub fn commit(root: &Root, changes: &[Change]) -> Result<(), CommitError> {
    if changes.is_empty() {
        return Ok(());
    }
    // Every writer comes through here: the rule holds for all of them.
    for c in changes {
        if let Some(why) = root.reserved_path(c.path()) {
            let path = c.path().to_path_buf();
            return Err(CommitError::Reserved { path, why });
        }
    }
    // Held to the end: a run that reaches these files through another
    // root (or link) waits, then finds them changed (`file_changed`).
    let _locks = crate::fsio::lock_files(changes.iter().map(Change::path))
        .map_err(|e| CommitError::Io(format!("cannot lock the files to write: {e}")))?;
    fresh(changes, false)?;
    preflight(root, changes).map_err(CommitError::Io)?;
    let one_write = changes.len() == 1 && matches!(changes[0], Change::Write { .. });
    let mut plan = plan(root, changes, one_write).map_err(CommitError::Io)?;
    for p in journal::sweep(&dirs_of(&plan)) {
        eprintln!(
            "patchbay: removed {}, which a killed run left",
            crate::term::shown(&root.shown(&p))
        );
    }
    // One file written where its folder exists: the rename alone is atomic.
    let no_journal = one_write && plan.dirs.is_empty();
    let mut j = if no_journal {
        Journal::none()
    } else {
        Journal::create(root, &plan).map_err(CommitError::Io)?
    };
    hook_crash("journal");
    match run(root, changes, &mut plan, &mut j) {
        Ok(()) => {
            journal::clean_up(&plan, !no_journal);
            j.remove(root);
            Ok(())
        }
        Err(e) => {
            let held = if j.renaming {
                salvage_appends(changes, &plan)
            } else {
                vec![]
            };
            let e = undo(root, &plan, j, e);
            late_appends(held, &plan);
            Err(e)
        }
    }
}

/// Steps 3 to 5.
fn run(
    root: &Root,
    changes: &[Change],
    plan: &mut Plan,
    j: &mut Journal,
) -> Result<(), CommitError> {
    let io = CommitError::Io;
    for d in &plan.dirs {
        fs::create_dir(d)
            .map_err(|e| io(format!("cannot create the folder {}: {e}", root.shown(d))))?;
    }
    for (c, e) in changes.iter().zip(plan.entries.iter_mut()) {
        let shown = root.shown(&e.target);
        if let (Change::Write { content, .. }, Some(tmp)) = (c, &e.temp) {
            let id = stage(&e.target, tmp, content)
                .map_err(|err| io(format!("cannot write {shown}: {err}")))?;
            e.staged = Some(id);
        }
        if let Some(b) = &e.backup {
            backup(&e.target, b).map_err(|err| io(format!("cannot back up {shown}: {err}")))?;
        }
    }
    hook_crash("staged");
    hook_touch(root);
    fresh(changes, true)?;
    j.renaming(plan).map_err(|err| io(journal_err(err)))?;
    hook_swap(root);
    for (k, e) in plan.entries.iter().enumerate() {
        switch(e, k + 1).map_err(|err| {
            if err.kind() == io::ErrorKind::AlreadyExists {
                return CommitError::Changed {
                    path: e.target.clone(),
                    why: "another program created it while patchbay wrote it".into(),
                };
            }
            let verb = if e.temp.is_some() { "write" } else { "delete" };
            io(format!("cannot {verb} {}: {err}", root.shown(&e.target)))
        })?;
        hook_crash(&format!("rename:{}", k + 1));
    }
    for d in dirs_of(plan) {
        journal::sync_dir(d);
    }
    untouched(changes, plan)?;
    j.done().map_err(|err| io(journal_err(err)))?;
    hook_crash("done");
    Ok(())
}

fn journal_err(e: io::Error) -> String {
    format!("cannot write the commit journal {}: {e}", journal::NAME)
}

/// Rolls back after `e` and says what happened. A rollback that fails
/// keeps the journal, so the next run in the root tries again.
fn undo(root: &Root, plan: &Plan, j: Journal, e: CommitError) -> CommitError {
    let u = journal::roll_back(root, plan, j.renaming);
    if !u.failed.is_empty() {
        keep_for_recovery(root, plan, &j);
        let first = match &e {
            CommitError::Changed { why, .. } | CommitError::Reserved { why, .. } => why.clone(),
            CommitError::Io(m) => m.clone(),
        };
        return CommitError::Io(format!(
            "{first}; rolling back failed for {}: the journal {} is kept and the next patchbay run in this root retries",
            u.failed.join("; "),
            journal::NAME
        ));
    }
    j.remove(root);
    match e {
        CommitError::Io(m) => CommitError::Io(format!(
            "{m}; rolled back, nothing was changed ({})",
            journal::describe(&u)
        )),
        changed => changed,
    }
}

/// A commit without a journal whose rollback failed writes the journal it
/// skipped (`renaming`), so that the next run retries the rollback from its
/// backup instead of sweeping that backup away.
fn keep_for_recovery(root: &Root, plan: &Plan, j: &Journal) {
    if j.is_written() {
        return;
    }
    match Journal::create(root, plan) {
        Ok(mut late) => {
            let _ = late.renaming(plan);
        }
        Err(e) => eprintln!("patchbay: {}", crate::term::shown(&e.to_string())),
    }
}

/// Step 1's and 4's check: every target is still what was read. `full`
/// also compares a CRC of the bytes (a same-size write within one tick).
fn fresh(changes: &[Change], full: bool) -> Result<(), CommitError> {
    for c in changes {
        let path = c.path();
        let changed = |why: &str| CommitError::Changed {
            path: path.to_path_buf(),
            why: why.to_owned(),
        };
        match (c.expect(), fs::symlink_metadata(path)) {
            #[cfg(test)]
            (Expect::Any, _) => {}
            (Expect::Absent, Err(e)) if e.kind() == io::ErrorKind::NotFound => {}
            (Expect::Absent, _) => return Err(changed("it was created after it was read")),
            (Expect::Same(_), Err(_)) => return Err(changed("it was removed after it was read")),
            (Expect::Same(s), Ok(m)) => {
                // Deletions name the entry, which may be a link: follow it.
                let m = fs::metadata(path).unwrap_or(m);
                if !s.same_stat(&m) {
                    return Err(changed("it was written after it was read"));
                }
                if full && crc_of(path).ok() != Some(s.crc) {
                    return Err(changed("its content changed after it was read"));
                }
            }
        }
    }
    Ok(())
}

/// The CRC-32 of a file's bytes, read through one small buffer: the file
/// may be large, and a second copy of it would be memory to fill for nothing.
fn crc_of(path: &Path) -> io::Result<u32> {
    use std::io::Read;
    let (mut f, _) = crate::fsio::open_regular(path, &path.display().to_string())?;
    let mut h = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match f.read(&mut buf) {
            Ok(0) => return Ok(h.finalize()),
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Step 5's check: an original written to after step 4 (an appender that
/// had it open) differs from its stamp; its backup is that same inode, so
/// the rollback gives those bytes back.
fn untouched(changes: &[Change], plan: &Plan) -> Result<(), CommitError> {
    for (c, e) in changes.iter().zip(&plan.entries) {
        let (Expect::Same(s), Some(b)) = (c.expect(), &e.backup) else {
            continue;
        };
        match fs::metadata(b) {
            Ok(m) if Stamp::quick(&m).id != s.id || s.same_stat(&m) => {}
            _ => {
                return Err(CommitError::Changed {
                    path: c.path().to_path_buf(),
                    why: "it was written while patchbay replaced it".into(),
                })
            }
        }
    }
    Ok(())
}

/// A new file that a rollback is about to replace by its original, held
/// open so that bytes another process appends to it (it opened the name
/// after the rename) can be carried over to the original.
struct Replaced {
    file: File,
    /// How much of it is carried over already (from the start: our text).
    taken: u64,
    original: PathBuf,
}

/// Before a rollback after the renames: appends to the original what was
/// appended to each new file so far, and holds the new files open.
fn salvage_appends(changes: &[Change], plan: &Plan) -> Vec<Replaced> {
    let mut held = vec![];
    for (c, e) in changes.iter().zip(&plan.entries) {
        let (Change::Write { content, .. }, Some(b)) = (c, &e.backup) else {
            continue;
        };
        let Ok((file, _)) = crate::fsio::open_regular(&e.target, "") else {
            continue;
        };
        // Not renamed yet: the target is still the original.
        let same = |m: io::Result<fs::Metadata>| m.ok().map(|m| Stamp::quick(&m).id);
        if same(file.metadata()) == same(fs::metadata(b)) {
            continue;
        }
        let mut r = Replaced {
            file,
            taken: content.len() as u64,
            original: b.clone(),
        };
        carry(&mut r);
        held.push(r);
    }
    held
}

/// After the rollback's renames: a writer that opened a new file just
/// before its original came back writes a moment later; give it that
/// moment, then carry those bytes over too.
fn late_appends(held: Vec<Replaced>, plan: &Plan) {
    if held.is_empty() {
        return;
    }
    std::thread::sleep(std::time::Duration::from_millis(2));
    for mut r in held {
        // The original is back under the target's name now.
        if let Some(e) = plan
            .entries
            .iter()
            .find(|e| e.backup.as_ref() == Some(&r.original))
        {
            r.original = e.target.clone();
            carry(&mut r);
        }
    }
}

/// Appends the bytes of `r.file` past `r.taken` to `r.original`.
fn carry(r: &mut Replaced) {
    use std::io::{Read, Seek, SeekFrom};
    let len = r.file.metadata().map_or(0, |m| m.len());
    if len <= r.taken || r.file.seek(SeekFrom::Start(r.taken)).is_err() {
        return;
    }
    let mut extra = vec![];
    if r.file.read_to_end(&mut extra).is_err() {
        return;
    }
    if let Ok(mut f) = OpenOptions::new().append(true).open(&r.original) {
        if f.write_all(&extra).and_then(|()| f.sync_data()).is_ok() {
            r.taken += extra.len() as u64;
        }
    }
}

/// Step 1: what would make a rename or deletion fail, before anything is
/// written. The rollback still covers what slips through (a race, a
/// file system that says no only when asked).
fn preflight(root: &Root, changes: &[Change]) -> Result<(), String> {
    for c in changes {
        let path = c.path();
        let shown = root.shown(path);
        let verb = if matches!(c, Change::Write { .. }) {
            "write"
        } else {
            "delete"
        };
        let dir = existing_dir(root, path).map_err(|e| format!("cannot {verb} {shown}: {e}"))?;
        if let Some(why) = meta::locked_flag(&dir) {
            return Err(format!("cannot {verb} {shown}: its folder {}", why));
        }
        meta::dir_writable(&dir)
            .map_err(|e| format!("cannot {verb} {shown}: its folder is not writable ({e})"))?;
        let Ok(m) = fs::symlink_metadata(path) else {
            continue;
        };
        if m.is_dir() {
            return Err(format!("cannot {verb} {shown}: it is a directory"));
        }
        if let Some(why) = meta::locked_flag(path).filter(|_| !m.file_type().is_symlink()) {
            return Err(format!("cannot {verb} {shown}: {why}"));
        }
        let dm = fs::metadata(&dir).map_err(|e| format!("cannot {verb} {shown}: {e}"))?;
        if meta::sticky_refuses(&dm, &m) {
            return Err(format!(
                "cannot {verb} {shown}: its folder is sticky and neither it nor the file is yours"
            ));
        }
    }
    Ok(())
}

/// The deepest folder of `path` that exists (new files may need more);
/// an existing ancestor that is not a folder is an error.
fn existing_dir(root: &Root, path: &Path) -> Result<PathBuf, String> {
    let mut d = path.parent().ok_or("it has no folder")?;
    loop {
        match fs::metadata(d) {
            Ok(m) if m.is_dir() => return Ok(d.to_path_buf()),
            Ok(_) => return Err(format!("{} is not a folder", root.shown(d))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("{}: {e}", root.shown(d))),
        }
        d = d.parent().ok_or("it has no folder")?;
    }
}

/// Step 2's content: temporary and backup names, and folders to make.
/// `one_write` (one file written) names the backup `.old`: such a commit has
/// no journal when its folder exists ([`Journal::none`]).
fn plan(root: &Root, changes: &[Change], one_write: bool) -> Result<Plan, String> {
    let backup_ext = if one_write { "old" } else { "orig" };
    let mut plan = Plan {
        token: journal::new_token(),
        ..Plan::default()
    };
    for (k, c) in changes.iter().enumerate() {
        let path = c.path();
        let shown = root.shown(path);
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(format!("cannot write {shown}: not a file path"));
        };
        let dir = real_dir(root, parent, &mut plan.dirs)
            .ok_or_else(|| format!("cannot write {shown}: its folder is not inside the root"))?;
        let exists = fs::symlink_metadata(path).is_ok();
        let write = matches!(c, Change::Write { .. });
        plan.entries.push(Entry {
            target: dir.join(name),
            temp: write.then(|| dir.join(side_name(name, &plan.token, k, "tmp"))),
            backup: exists.then(|| dir.join(side_name(name, &plan.token, k, backup_ext))),
            staged: None,
        });
    }
    Ok(plan)
}

/// `parent` with its existing part canonicalised (it must stay inside the
/// root: a link swapped in since the path was resolved is refused), and its
/// missing folders added to `dirs` in the order they must be made.
fn real_dir(root: &Root, parent: &Path, dirs: &mut Vec<PathBuf>) -> Option<PathBuf> {
    let mut missing = vec![];
    let mut d = parent;
    while fs::symlink_metadata(d).is_err() {
        missing.push(d.file_name()?.to_owned());
        d = d.parent()?;
    }
    let mut real = fs::canonicalize(d).ok()?;
    if !real.starts_with(root.dir()) {
        return None;
    }
    for m in missing.into_iter().rev() {
        real.push(m);
        if !dirs.contains(&real) {
            dirs.push(real.clone());
        }
    }
    Some(real)
}

/// `.NAME.patchbay-PID-TOKEN-K.tmp` (or `.orig`, `.old`) beside the target;
/// a name near the 255-byte limit is replaced by its CRC so that the result
/// still fits. The commit's token ties each name to its journal.
fn side_name(name: &std::ffi::OsStr, token: &str, k: usize, ext: &str) -> std::ffi::OsString {
    let pid = std::process::id();
    let tail = format!(".patchbay-{pid}-{token}-{k}.{ext}");
    if name.len() + tail.len() < 255 {
        let mut plain = std::ffi::OsString::from(".");
        plain.push(name);
        plain.push(&tail);
        return plain;
    }
    let crc = crc32fast::hash(name.as_encoded_bytes());
    format!(".{crc:08x}{tail}").into()
}

/// Writes `content` to the new file `tmp` with what the original carries
/// (owner, group, mode, extended attributes), fsynced. Returns its
/// (device, inode).
fn stage(target: &Path, tmp: &Path, content: &str) -> io::Result<(u64, u64)> {
    // `create_new` refuses an existing entry, links included, so the
    // temporary can never be redirected.
    let mut f = OpenOptions::new().write(true).create_new(true).open(tmp)?;
    write_ahead(&mut f, content.as_bytes())?;
    match fs::metadata(target) {
        Ok(m) => meta::carry_over(&m, target, &f)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    f.sync_all()?;
    Ok(Stamp::quick(&f.metadata()?).id)
}

/// Writes `bytes` to the new file `f` a chunk at a time, asking the kernel
/// to start writing each chunk to the device at once (`sync_file_range`,
/// which waits for nothing), so that the disk works while the rest is
/// copied and the `fsync` that follows waits for less.
fn write_ahead(f: &mut File, bytes: &[u8]) -> io::Result<()> {
    const CHUNK: usize = 256 << 10;
    for (k, chunk) in bytes.chunks(CHUNK).enumerate() {
        f.write_all(chunk)?;
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: a plain system call on an open descriptor; it only
            // schedules writeback. A failure is harmless: `fsync` follows.
            unsafe {
                libc::sync_file_range(
                    f.as_raw_fd(),
                    (k * CHUNK) as libc::off64_t,
                    chunk.len() as libc::off64_t,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
            }
        }
    }
    Ok(())
}

/// A second name for the original (the same inode), or a copy where the
/// file system has no hard links.
fn backup(target: &Path, b: &Path) -> io::Result<()> {
    if fs::hard_link(target, b).is_ok() {
        return Ok(());
    }
    let m = fs::symlink_metadata(target)?;
    if m.file_type().is_symlink() {
        #[cfg(unix)]
        return std::os::unix::fs::symlink(fs::read_link(target)?, b);
    }
    let (original, size) = crate::fsio::open_regular(target, &target.display().to_string())?;
    let mut f = OpenOptions::new().write(true).create_new(true).open(b)?;
    io::copy(&mut io::Read::take(original, size.len()), &mut f)?;
    meta::carry_over(&m, target, &f)?;
    f.sync_all()
}

/// Step 5 for one entry: the rename or the deletion. `n` counts them from 1
/// for the test hook.
fn switch(e: &Entry, n: usize) -> io::Result<()> {
    if hook_number("PATCHBAY_TEST_FAIL_RENAME") == Some(n) {
        return Err(io::Error::other(
            "injected failure (PATCHBAY_TEST_FAIL_RENAME)",
        ));
    }
    match &e.temp {
        Some(tmp) if e.backup.is_none() => rename_new(tmp, &e.target),
        Some(tmp) => fs::rename(tmp, &e.target),
        None => fs::remove_file(&e.target),
    }
}

/// A new file's rename, which must not replace a file another run created
/// meanwhile (no lock covers a name that has no file yet): `AlreadyExists`
/// then. Where the kernel or file system cannot refuse, a plain rename.
fn rename_new(tmp: &Path, target: &Path) -> io::Result<()> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::unix::ffi::OsStrExt;
        let c =
            |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
        let (from, to) = (c(tmp)?, c(target)?);
        // SAFETY: two NUL-terminated paths, relative to the current folder.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                from.as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        // EINVAL: the file system has no RENAME_NOREPLACE; ENOSYS: the kernel.
        if !matches!(err.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS)) {
            return Err(err);
        }
    }
    fs::rename(tmp, target)
}

fn dirs_of(plan: &Plan) -> Vec<&Path> {
    let mut v: Vec<&Path> = plan
        .entries
        .iter()
        .filter_map(|e| e.target.parent())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Test hooks, honoured by debug builds only: a release binary never reads
/// these variables.
fn hook(name: &str) -> Option<String> {
    if cfg!(debug_assertions) {
        std::env::var(name).ok()
    } else {
        None
    }
}

fn hook_number(name: &str) -> Option<usize> {
    hook(name)?.parse().ok()
}

/// `PATCHBAY_TEST_CRASH=journal|staged|rename:N|done`: die there as a kill
/// would (no unwinding, no cleanup).
fn hook_crash(point: &str) {
    if hook("PATCHBAY_TEST_CRASH").as_deref() == Some(point) {
        std::process::abort();
    }
}

/// `PATCHBAY_TEST_SWAP=REL`: another program puts a folder (with a file
/// in it) where REL was, just after the last check (for the race of a
/// target that becomes a folder before its rename).
fn hook_swap(root: &Root) {
    if let Some(rel) = hook("PATCHBAY_TEST_SWAP") {
        let p = root.dir().join(rel);
        let _ = fs::remove_file(&p);
        let _ = fs::create_dir(&p).and_then(|()| fs::write(p.join("inside.txt"), "x\n"));
    }
}

/// `PATCHBAY_TEST_TOUCH=REL`: another writer appends to REL just before
/// the last check (for the `file_changed` test).
fn hook_touch(root: &Root) {
    if let Some(rel) = hook("PATCHBAY_TEST_TOUCH") {
        let p = root.dir().join(rel);
        if let Ok(mut f) = OpenOptions::new().append(true).open(p) {
            let _ = f.write_all(b"written by another process\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder, removed when the returned guard drops.
    fn scratch(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("patchbay-commit-{name}-"))
            .tempdir()
            .unwrap()
    }

    fn entries(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    }

    fn write<'a>(root: &Root, rel: &str, content: &'a str) -> Change<'a> {
        Change::Write {
            path: root.resolve(rel).unwrap().real,
            content,
            expect: Expect::Any,
        }
    }

    #[test]
    fn failed_preparation_changes_nothing() {
        let guard = scratch("rollback");
        let d = guard.path();
        fs::write(d.join("keep.txt"), "old\n").unwrap();
        fs::write(d.join("plain"), "a file, not a folder\n").unwrap();
        let root = Root::open(d).unwrap();
        let changes = [
            write(&root, "keep.txt", "new\n"),
            write(&root, "made/deep/n.txt", "n\n"),
            Change::Delete {
                path: root.dir().join("plain"),
                expect: Expect::Any,
            },
            // Its folder cannot be made: `plain` is a file.
            Change::Write {
                path: root.dir().join("plain/sub/x.txt"),
                content: "x\n",
                expect: Expect::Any,
            },
        ];
        let Err(CommitError::Io(err)) = commit(&root, &changes) else {
            panic!("must fail")
        };
        assert!(err.contains("plain/sub/x.txt"), "{err}");
        assert_eq!(fs::read_to_string(d.join("keep.txt")).unwrap(), "old\n");
        assert_eq!(
            entries(d),
            ["keep.txt", "plain"],
            "temporaries, backups, journal and new folders removed"
        );
    }

    #[test]
    fn commit_writes_creates_and_deletes() {
        let guard = scratch("commit");
        let d = guard.path();
        fs::write(d.join("a.txt"), "a\n").unwrap();
        fs::write(d.join("gone.txt"), "g\n").unwrap();
        let root = Root::open(d).unwrap();
        let changes = [
            write(&root, "a.txt", "A\n"),
            write(&root, "x/y/new.txt", "N"),
            Change::Delete {
                path: root.resolve("gone.txt").unwrap().entry,
                expect: Expect::Any,
            },
        ];
        commit(&root, &changes).unwrap();
        assert_eq!(fs::read_to_string(d.join("a.txt")).unwrap(), "A\n");
        assert_eq!(fs::read_to_string(d.join("x/y/new.txt")).unwrap(), "N");
        assert_eq!(entries(d), ["a.txt", "x"]);
        assert_eq!(entries(&d.join("x/y")), ["new.txt"]);
    }

    #[test]
    fn side_names_fit_beside_a_name_of_255_bytes() {
        let long = "n".repeat(255);
        let token = "0123456789abcdef";
        let t = side_name(std::ffi::OsStr::new(&long), token, 7, "tmp");
        let t = t.to_str().unwrap();
        assert!(
            t.len() <= 255 && t.starts_with('.') && t.ends_with("-0123456789abcdef-7.tmp"),
            "{t}"
        );
        assert!(journal::is_ours(Path::new(&t)));
        let short = side_name(std::ffi::OsStr::new("a.txt"), token, 0, "orig");
        let short = short.to_str().unwrap();
        assert!(short.starts_with(".a.txt.patchbay-") && journal::is_ours(Path::new(&short)));
    }
}
