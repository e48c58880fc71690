//! The file system side of `apply`: the root, resolving model-given paths
//! under it without leaving it through symbolic links, reading text files
//! with a stamp of what was read. Committing changes is `commit.rs`; the
//! record that makes it recoverable, and the root's lock, `journal.rs`.
//!
//! The core already refuses absolute paths and `..` lexically; this module
//! adds what only a file system can tell: a component that is a symbolic
//! link pointing outside the root. Resolving costs one `lstat` per path
//! component plus one `realpath` per symbolic link met.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

/// The folder that model paths resolve under, canonicalised so that every
/// resolved path can be checked with a plain prefix test.
pub struct Root {
    dir: PathBuf,
    /// Whether `.git` folders may be written (`--allow-git-dir`).
    allow_git: bool,
}

/// Where a model path lives on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The real file, all symbolic links followed: read and written.
    pub real: PathBuf,
    /// The directory entry the path names (its folders resolved, its last
    /// component not): removed on delete, so deleting a link removes the link.
    pub entry: PathBuf,
}

/// Why a path cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The path leaves the root: a receipt with code `path_escape`.
    Escape(String),
    /// The file system refused (permissions, not a directory): exit 2.
    Io(String),
}

impl Root {
    pub fn open(dir: &Path) -> Result<Root, String> {
        let real = fs::canonicalize(dir).map_err(|e| format!("--root {}: {e}", dir.display()))?;
        if !real.is_dir() {
            return Err(format!("--root {}: not a directory", dir.display()));
        }
        Ok(Root {
            dir: real,
            allow_git: false,
        })
    }

    /// Lets writes under this root go into `.git` folders.
    pub fn allow_git_dir(mut self, allow: bool) -> Root {
        self.allow_git = allow;
        self
    }

    /// Why no writer may target `rel` (a path relative to the root, as the
    /// model gave it or as the file system resolved it), if it may not: the
    /// core's rule ([`patchbay::apply::paths::reserved`]) with this root's
    /// `.git` policy.
    pub fn reserved(&self, rel: &str) -> Option<String> {
        use patchbay::apply::paths::{reserved, Reserved};
        match reserved(rel)? {
            Reserved::Own => Some(format!(
                "the path {rel:?} is one of patchbay's own files (its commit journal, a temporary or a backup); edit other files"
            )),
            Reserved::GitDir if !self.allow_git => Some(format!(
                "the path {rel:?} is inside a .git folder, whose hooks and config run code at the next git command; patchbay writes there only with --allow-git-dir"
            )),
            Reserved::GitDir => None,
        }
    }

    /// [`Root::reserved`] for an absolute path under the root (the real
    /// path a write goes to, links resolved).
    pub fn reserved_path(&self, p: &Path) -> Option<String> {
        let rel = p.strip_prefix(&self.dir).ok()?;
        let parts: Vec<_> = rel.iter().map(|c| c.to_string_lossy()).collect();
        self.reserved(&parts.join("/"))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `p` relative to the root, for messages and the journal.
    pub fn shown(&self, p: &Path) -> String {
        p.strip_prefix(&self.dir).unwrap_or(p).display().to_string()
    }

    /// Resolves a normalised relative path (`a/b.rs`, as the core returns
    /// it). Missing components are fine (the file may be created); a
    /// symbolic link is followed only when its target stays inside the root.
    pub fn resolve(&self, rel: &str) -> Result<Resolved, Refusal> {
        let parts: Vec<&str> = rel
            .split('/')
            .filter(|c| !c.is_empty() && *c != ".")
            .collect();
        if parts.is_empty() || parts.contains(&"..") {
            // The core normalises paths before the CLI sees them; this is a
            // second line of defence, not a normal route.
            return Err(Refusal::Escape(format!(
                "the path {rel:?} is not a plain relative path"
            )));
        }
        let mut cur = self.dir.clone();
        let mut entry = cur.clone();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let next = cur.join(part);
            entry.clone_from(&next);
            let meta = match fs::symlink_metadata(&next) {
                Ok(m) => m,
                // Nothing exists from here on, so no link can redirect the
                // rest: it will be created as plain folders under `cur`.
                // The file is missing too, so its entry is its real path.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    let real = parts[i..].iter().fold(cur, |p, c| p.join(c));
                    return Ok(Resolved {
                        entry: real.clone(),
                        real,
                    });
                }
                Err(e) => return Err(Refusal::Io(format!("{rel}: {e}"))),
            };
            cur = if meta.file_type().is_symlink() {
                let shown = parts[..=i].join("/");
                match fs::canonicalize(&next) {
                    Ok(t) if t.starts_with(&self.dir) => t,
                    // The target is not named: it is outside what the model
                    // may see, and the link's name says enough to fix it.
                    Ok(_) => {
                        return Err(Refusal::Escape(format!(
                            "the path {rel:?} leaves the root: {shown} is a symbolic link to a place outside the root; edit files inside the root only"
                        )))
                    }
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {
                        return Err(Refusal::Escape(format!(
                            "the path {rel:?} goes through {shown}, a symbolic link whose target does not exist, so it cannot be shown to stay inside the root"
                        )))
                    }
                    Err(e) => return Err(Refusal::Io(format!("{rel}: {e}"))),
                }
            } else {
                next
            };
            if !last && !cur.is_dir() {
                return Err(Refusal::Io(format!(
                    "{rel}: {} is not a directory",
                    parts[..=i].join("/")
                )));
            }
        }
        Ok(Resolved { real: cur, entry })
    }

    /// Turns an absolute `--file` argument into a path relative to the
    /// root, so users may pass either form. `None` when it is outside.
    pub fn relative(&self, p: &Path) -> Option<String> {
        let name = p.file_name()?;
        let parent = fs::canonicalize(p.parent()?).ok()?;
        let rel = parent.strip_prefix(&self.dir).ok()?.join(name);
        let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
        Some(parts?.join("/"))
    }
}

/// What a file was when it was read: the write refuses with `file_changed`
/// if it is not that any more (another process wrote it in between).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// The file did not exist.
    Absent,
    /// The file existed with this identity and content.
    Same(Stamp),
    /// No check (unit tests of the commit).
    #[cfg(test)]
    Any,
}

/// A file's identity (device, inode), size, modification time and a CRC of
/// its bytes. The CRC catches a same-size rewrite within one clock tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    pub id: (u64, u64),
    pub size: u64,
    pub mtime: Option<std::time::SystemTime>,
    pub crc: u32,
}

impl Stamp {
    pub fn of(meta: &fs::Metadata, bytes: &[u8]) -> Stamp {
        let mut s = Stamp::quick(meta);
        s.crc = crc32fast::hash(bytes);
        s
    }

    /// Everything but the CRC (left 0), from `stat` alone.
    pub fn quick(meta: &fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let id = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let id = (0, 0);
        Stamp {
            id,
            size: meta.len(),
            mtime: meta.modified().ok(),
            crc: 0,
        }
    }

    /// Whether `meta` still describes the stamped file (CRC not compared).
    pub fn same_stat(&self, meta: &fs::Metadata) -> bool {
        let q = Stamp::quick(meta);
        q.id == self.id && q.size == self.size && q.mtime == self.mtime
    }
}

/// Reads a file the output edits: `None` when it does not exist. Text only:
/// a NUL byte or invalid UTF-8 is an error, since writing such a file back
/// through a text edit would corrupt it.
pub fn read_text(path: &Path, rel: &str) -> Result<Option<String>, String> {
    Ok(read_stamped(path, rel)?.map(|(t, _)| t))
}

/// [`read_text`] with the file's [`Stamp`], taken from the handle it was
/// read through (so the stamp and the text belong to one file). Only a
/// regular file is read ([`open_regular`]), and no more bytes than its size
/// when it was opened: a file that grows meanwhile fails the write's check.
pub fn read_stamped(path: &Path, rel: &str) -> Result<Option<(String, Stamp)>, String> {
    let read = open_regular(path, rel).and_then(|(f, meta)| {
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        io::Read::read_to_end(&mut io::Read::take(f, meta.len()), &mut bytes)?;
        Ok((Stamp::of(&meta, &bytes), bytes))
    });
    let (stamp, bytes) = match read {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.kind() == io::ErrorKind::InvalidInput => {
            return Err(format!("cannot edit {rel}: {e}"))
        }
        Err(e) => return Err(format!("cannot read {rel}: {e}")),
    };
    editable_text(bytes, rel).map(|t| Some((t, stamp)))
}

/// What a file that is not a regular file is, for messages.
fn kind_of(t: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Opens `path` (links followed) for reading if it is a regular file, and
/// returns it with its metadata from the open handle. Checked before the
/// open, which never blocks (`O_NONBLOCK`: a FIFO would wait for a writer)
/// and again on the handle (the entry may have been swapped in between).
/// Anything else is `InvalidInput`, saying what it is.
pub fn open_regular(path: &Path, rel: &str) -> io::Result<(File, fs::Metadata)> {
    let not_regular = |t: fs::FileType| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{rel} is {}; only regular files are read or written",
                kind_of(t)
            ),
        )
    };
    let before = fs::metadata(path)?;
    if !before.is_file() {
        return Err(not_regular(before.file_type()));
    }
    let mut o = fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let f = o.open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    Ok((f, meta))
}

/// Exclusive advisory locks (`flock`) on files, one per (device, inode),
/// released when dropped.
pub struct FileLocks {
    _held: Vec<File>,
}

/// Locks every regular file among `paths` that exists, by its identity and
/// not by its name: runs that reach one file through different roots or
/// links wait for each other. Taken in (device, inode) order, so two runs
/// never wait for each other in a circle. Missing paths, other kinds of
/// file and files that cannot be opened are skipped (a new file's rename
/// refuses to replace one; the commit refuses the rest).
pub fn lock_files<'a>(paths: impl Iterator<Item = &'a Path>) -> io::Result<FileLocks> {
    let mut files: Vec<((u64, u64), File)> = vec![];
    for p in paths {
        // What cannot be opened cannot be locked; the commit's own checks
        // say what is wrong with it.
        let Ok((f, meta)) = open_regular(p, "") else {
            continue;
        };
        let id = Stamp::quick(&meta).id;
        if !files.iter().any(|(i, _)| *i == id) {
            files.push((id, f));
        }
    }
    files.sort_by_key(|(id, _)| *id);
    for (_, f) in &files {
        f.lock()?;
    }
    Ok(FileLocks {
        _held: files.into_iter().map(|(_, f)| f).collect(),
    })
}

/// The one rule for a file patchbay may edit or prepare an edit of (`apply`,
/// `tag`, `outline`/`slice`/`splice`): UTF-8 text without NUL bytes. A NUL
/// means a binary file, which an edit written as text would corrupt.
pub fn editable_text(bytes: Vec<u8>, rel: &str) -> Result<String, String> {
    if let Some(at) = memchr::memchr(0, &bytes) {
        return Err(format!("cannot edit {rel}: it is a binary file (NUL byte at offset {at}); only text files can be edited"));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "cannot edit {rel}: it is not valid UTF-8 (invalid byte at offset {}); only UTF-8 text files can be edited",
            e.utf8_error().valid_up_to()
        )
    })
}

/// One change to the tree.
#[derive(Debug)]
pub enum Change<'a> {
    /// Replace or create `path` (a real path from [`Root::resolve`]) with
    /// `content`, borrowed from the report (a copy of a large file's new
    /// text would be as large).
    Write {
        path: PathBuf,
        content: &'a str,
        expect: Expect,
    },
    /// Remove the entry `path`.
    Delete { path: PathBuf, expect: Expect },
}

impl Change<'_> {
    pub fn path(&self) -> &Path {
        match self {
            Change::Write { path, .. } | Change::Delete { path, .. } => path,
        }
    }

    pub fn expect(&self) -> &Expect {
        match self {
            Change::Write { expect, .. } | Change::Delete { expect, .. } => expect,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder, removed when the returned guard drops.
    fn scratch(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("patchbay-fsio-{name}-"))
            .tempdir()
            .unwrap()
    }

    #[test]
    fn resolve_refuses_what_leaves_and_reports_what_is_not_a_folder() {
        let guard = scratch("resolve");
        let d = guard.path();
        fs::write(d.join("f.txt"), "f\n").unwrap();
        let root = Root::open(d).unwrap();
        assert!(matches!(root.resolve("../x"), Err(Refusal::Escape(_))));
        assert!(
            matches!(root.resolve("f.txt/x"), Err(Refusal::Io(m)) if m.contains("not a directory"))
        );
        let r = root.resolve("a/b.txt").unwrap();
        assert_eq!(r.real, root.dir().join("a/b.txt"));
        assert_eq!(root.relative(&d.join("f.txt")).as_deref(), Some("f.txt"));
        assert_eq!(
            root.relative(&std::env::temp_dir().join("elsewhere.txt")),
            None
        );
    }
}
