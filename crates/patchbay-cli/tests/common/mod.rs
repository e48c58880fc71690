//! What the CLI's integration tests share: a fresh folder to run the built
//! binary in. Each test binary uses a part of it.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

/// A fresh folder under the system temp dir (tempfile's: a unique name,
/// removed when the test ends).
pub struct Sandbox {
    pub dir: PathBuf,
    _keep: tempfile::TempDir,
}

impl Sandbox {
    /// `tag` names the test in the folder's name (for a human who finds it).
    pub fn new(tag: &str) -> Sandbox {
        let keep = tempfile::Builder::new()
            .prefix(&format!("patchbay-{tag}-"))
            .tempdir()
            .unwrap();
        Sandbox {
            dir: keep.path().to_path_buf(),
            _keep: keep,
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// Writes `bytes` at `rel` (making its folders) and returns its path.
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, bytes).unwrap();
        p
    }

    /// [`Sandbox::write`], returning the path as a command-line argument.
    pub fn write_arg(&self, rel: &str, bytes: impl AsRef<[u8]>) -> String {
        self.write(rel, bytes).display().to_string()
    }

    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel)).unwrap()
    }

    /// Every entry below `rel` ("" for the whole sandbox), relative to it,
    /// sorted: to prove that no temporary or stray file was left behind.
    pub fn listing(&self, rel: &str) -> Vec<String> {
        fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
            for e in fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                out.push(p.strip_prefix(base).unwrap().display().to_string());
                if p.is_dir() && !p.is_symlink() {
                    walk(base, &p, out);
                }
            }
        }
        let base = self.path(rel);
        let mut v = vec![];
        walk(&base, &base, &mut v);
        v.sort();
        v
    }
}
