//! What the CLI's integration tests share: a fresh folder to run the built
//! binary in, the ways to run it, and what a failed assertion shows of a
//! run. Each test binary uses a part of it.
#![allow(dead_code)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The built binary run in `dir` with `args`, its standard input closed
/// and `env` added to its environment.
pub fn patchbay_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_patchbay"));
    c.args(args).current_dir(dir).stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// [`patchbay_env`] with the environment as it is.
pub fn patchbay(dir: &Path, args: &[&str]) -> Output {
    patchbay_env(dir, args, &[])
}

/// `apply --edits REPLY --root root` and `extra` in `dir`, with `env`
/// added to the environment.
pub fn apply_root(dir: &Path, reply: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut args = vec!["apply", "--edits", reply, "--root", "root"];
    args.extend(extra);
    patchbay_env(dir, &args, env)
}

/// A finished run whose output is UTF-8, as text.
pub struct Out {
    /// The exit code; -1 for a process a signal ended.
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    /// The standard output as one JSON value.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not one JSON object ({e}): {}", self.stdout))
    }
}

/// The built binary run in `dir` with `args`, `stdin` written to its
/// standard input (closed when `None`).
pub fn run_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> Out {
    let mut child = Command::new(env!("CARGO_BIN_EXE_patchbay"))
        .args(args)
        .current_dir(dir)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(s) = stdin {
        child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8(o.stdout).unwrap(),
        stderr: String::from_utf8(o.stderr).unwrap(),
    }
}

/// One search/replace block in a fence, for `path`.
pub fn block(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n")
}

/// A run's standard output, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A run's standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A run's exit code and both streams: what a failed assertion shows.
pub fn show(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        stdout(o),
        stderr(o)
    )
}

/// Asserts that a run's standard output holds `want`; shows the run if not.
#[track_caller]
pub fn assert_stdout_has(o: &Output, want: &str) {
    assert!(stdout(o).contains(want), "no {want:?} in {}", show(o));
}

/// Asserts that a run's standard error holds `want`; shows the run if not.
#[track_caller]
pub fn assert_stderr_has(o: &Output, want: &str) {
    assert!(stderr(o).contains(want), "no {want:?} in {}", show(o));
}

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
