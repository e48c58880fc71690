//! The file system side of `apply`: the root, resolving model-given paths
//! under it without leaving it through symbolic links, reading text files,
//! and committing changes atomically.
//!
//! The core already refuses absolute paths and `..` lexically; this module
//! adds what only a file system can tell: a component that is a symbolic
//! link pointing outside the root. Resolving costs one `lstat` per path
//! component plus one `realpath` per symbolic link met.
//!
//! Commits go in two phases: every new text is written to a temporary file
//! next to its target (fsynced, with the original's permissions), and only
//! then are the temporaries renamed over the targets. A failure while
//! preparing removes the temporaries and the folders made for them, so the
//! tree is unchanged.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The folder that model paths resolve under, canonicalised so that every
/// resolved path can be checked with a plain prefix test.
pub struct Root {
    dir: PathBuf,
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
        Ok(Root { dir: real })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
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

/// Reads a file the output edits: `None` when it does not exist. Text only:
/// a NUL byte or invalid UTF-8 is an error, since writing such a file back
/// through a text edit would corrupt it.
pub fn read_text(path: &Path, rel: &str) -> Result<Option<String>, String> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(_) if path.is_dir() => return Err(format!("cannot edit {rel}: it is a directory")),
        Err(e) => return Err(format!("cannot read {rel}: {e}")),
    };
    editable_text(bytes, rel).map(Some)
}

/// The one rule for a file patchbay may edit or prepare an edit of (`apply`,
/// `tag`, `outline`/`slice`/`splice`): UTF-8 text without NUL bytes. A NUL
/// means a binary file, which an edit written as text would corrupt.
pub fn editable_text(bytes: Vec<u8>, rel: &str) -> Result<String, String> {
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
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
pub enum Change {
    /// Replace or create `path` (a real path from [`Root::resolve`]).
    Write { path: PathBuf, content: String },
    /// Remove the entry `path`.
    Delete { path: PathBuf },
}

/// What phase one left behind, undone on failure.
#[derive(Default)]
struct Staged {
    /// (temporary, target) pairs, renamed in phase two.
    temps: Vec<(PathBuf, PathBuf)>,
    /// Folders created for new files, outermost first.
    dirs: Vec<PathBuf>,
}

impl Staged {
    fn undo(&mut self) {
        for (tmp, _) in self.temps.drain(..) {
            let _ = fs::remove_file(tmp);
        }
        // Innermost first; a folder that something else filled stays.
        for d in self.dirs.drain(..).rev() {
            let _ = fs::remove_dir(d);
        }
    }
}

/// Applies `changes` under `root`: all temporaries first, then the renames
/// and deletions. Returns the error text of the first failure.
pub fn commit(root: &Root, changes: &[Change]) -> Result<(), String> {
    let mut staged = Staged::default();
    for (k, c) in changes.iter().enumerate() {
        if let Change::Write { path, content } = c {
            if let Err(e) = stage(root, path, content, k, &mut staged) {
                staged.undo();
                return Err(e);
            }
        }
    }
    let mut done: Vec<String> = vec![];
    let shown = |p: &Path| {
        p.strip_prefix(root.dir())
            .unwrap_or(p)
            .display()
            .to_string()
    };
    let mut renames = std::mem::take(&mut staged.temps).into_iter();
    for c in changes {
        let result = match c {
            Change::Write { path, .. } => {
                let (tmp, target) = renames.next().expect("one temporary per write");
                fs::rename(&tmp, &target).map_err(|e| {
                    let _ = fs::remove_file(&tmp);
                    format!("cannot write {}: {e}", shown(path))
                })
            }
            Change::Delete { path } => {
                fs::remove_file(path).map_err(|e| format!("cannot delete {}: {e}", shown(path)))
            }
        };
        match result {
            Ok(()) => done.push(shown(c.path())),
            Err(e) => {
                for (tmp, _) in renames {
                    let _ = fs::remove_file(tmp);
                }
                // Renames cannot be taken back; say exactly what changed.
                let changed = if done.is_empty() {
                    "nothing".to_string()
                } else {
                    done.join(", ")
                };
                return Err(format!("{e} (already changed: {changed})"));
            }
        }
        sync_dir(c.path());
    }
    Ok(())
}

impl Change {
    fn path(&self) -> &Path {
        match self {
            Change::Write { path, .. } | Change::Delete { path } => path,
        }
    }
}

/// Phase one for one file: make its folders, write and fsync a temporary
/// beside it with the original's permissions.
fn stage(
    root: &Root,
    path: &Path,
    content: &str,
    k: usize,
    staged: &mut Staged,
) -> Result<(), String> {
    let rel = path
        .strip_prefix(root.dir())
        .unwrap_or(path)
        .display()
        .to_string();
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(format!("cannot write {rel}: not a file path"));
    };
    make_dirs(parent, staged).map_err(|e| format!("cannot create the folder of {rel}: {e}"))?;
    // Re-check after creating folders: if a link was swapped in since the
    // path was resolved, the folder no longer lies inside the root. The
    // temporary and the rename then use the folder as it really is.
    let dir = match fs::canonicalize(parent) {
        Ok(p) if p.starts_with(root.dir()) => p,
        _ => {
            return Err(format!(
                "cannot write {rel}: its folder is no longer inside the root"
            ))
        }
    };
    let tmp = dir.join(format!(
        ".{}.patchbay-{}-{k}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    // `create_new` refuses an existing entry, links included, so the
    // temporary can never be redirected.
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| format!("cannot write {rel}: {e}"))?;
    staged.temps.push((tmp.clone(), dir.join(name)));
    let written = f
        .write_all(content.as_bytes())
        .and_then(|()| match fs::metadata(path) {
            Ok(m) => f.set_permissions(m.permissions()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        })
        .and_then(|()| f.sync_all());
    written.map_err(|e| format!("cannot write {rel}: {e}"))
}

/// `create_dir_all` that records what it made, so it can be removed again.
fn make_dirs(dir: &Path, staged: &mut Staged) -> io::Result<()> {
    let mut missing = vec![];
    let mut d = dir;
    while !d.exists() {
        missing.push(d.to_path_buf());
        d = match d.parent() {
            Some(p) => p,
            None => break,
        };
    }
    for m in missing.into_iter().rev() {
        fs::create_dir(&m)?;
        staged.dirs.push(m);
    }
    Ok(())
}

/// Makes a rename or removal durable. Best effort: some platforms cannot
/// open a folder for syncing, and the change itself has already happened.
fn sync_dir(path: &Path) {
    if cfg!(unix) {
        if let Some(d) = path.parent().and_then(|dir| File::open(dir).ok()) {
            let _ = d.sync_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("patchbay-fsio-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn entries(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn failed_preparation_changes_nothing() {
        let d = scratch("rollback");
        fs::write(d.join("keep.txt"), "old\n").unwrap();
        fs::write(d.join("plain"), "a file, not a folder\n").unwrap();
        let root = Root::open(&d).unwrap();
        let changes = [
            Change::Write {
                path: root.dir().join("keep.txt"),
                content: "new\n".into(),
            },
            Change::Write {
                path: root.dir().join("made/deep/n.txt"),
                content: "n\n".into(),
            },
            Change::Delete {
                path: root.dir().join("plain"),
            },
            // Its folder cannot be made: `plain` is a file.
            Change::Write {
                path: root.dir().join("plain/sub/x.txt"),
                content: "x\n".into(),
            },
        ];
        let err = commit(&root, &changes).unwrap_err();
        assert!(err.contains("plain/sub/x.txt"), "{err}");
        assert_eq!(fs::read_to_string(d.join("keep.txt")).unwrap(), "old\n");
        assert_eq!(
            entries(&d),
            ["keep.txt", "plain"],
            "temporaries and new folders removed"
        );
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn commit_writes_creates_and_deletes() {
        let d = scratch("commit");
        fs::write(d.join("a.txt"), "a\n").unwrap();
        fs::write(d.join("gone.txt"), "g\n").unwrap();
        let root = Root::open(&d).unwrap();
        let changes = [
            Change::Write {
                path: root.resolve("a.txt").unwrap().real,
                content: "A\n".into(),
            },
            Change::Write {
                path: root.resolve("x/y/new.txt").unwrap().real,
                content: "N".into(),
            },
            Change::Delete {
                path: root.resolve("gone.txt").unwrap().entry,
            },
        ];
        commit(&root, &changes).unwrap();
        assert_eq!(fs::read_to_string(d.join("a.txt")).unwrap(), "A\n");
        assert_eq!(fs::read_to_string(d.join("x/y/new.txt")).unwrap(), "N");
        assert_eq!(entries(&d), ["a.txt", "x"]);
        assert_eq!(entries(&d.join("x/y")), ["new.txt"]);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn resolve_refuses_what_leaves_and_reports_what_is_not_a_folder() {
        let d = scratch("resolve");
        fs::write(d.join("f.txt"), "f\n").unwrap();
        let root = Root::open(&d).unwrap();
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
        fs::remove_dir_all(&d).unwrap();
    }
}
