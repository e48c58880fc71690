//! Path hygiene for paths that come from model output: they are relative to
//! a root, and nothing may leave it. Lexical only (the core has no file
//! system); the CLI adds the symlink check. `O(len)`.

/// Normalises a relative path (`./a/../b.rs` -> `b.rs`), or explains why it
/// escapes the root: absolute paths, Windows drive letters and UNC paths,
/// backslashes, NUL bytes, and `..` that climbs above the root.
pub fn normalize(p: &str) -> Result<String, String> {
    if p.is_empty() {
        return Err("the path is empty".into());
    }
    if p.contains('\0') {
        return Err(format!("the path {p:?} contains a NUL byte"));
    }
    if p.contains('\\') {
        return Err(format!(
            "the path {p:?} uses backslashes; write paths relative to the root with '/'"
        ));
    }
    if p.starts_with('/') || p.starts_with('~') {
        return Err(format!(
            "the path {p:?} is absolute; write it relative to the root"
        ));
    }
    let b = p.as_bytes();
    if b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic() {
        return Err(format!(
            "the path {p:?} names a drive; write it relative to the root"
        ));
    }
    let mut parts: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(format!("the path {p:?} leaves the root through '..'"));
                }
            }
            c => parts.push(c),
        }
    }
    if parts.is_empty() {
        return Err(format!("the path {p:?} names the root itself, not a file"));
    }
    Ok(parts.join("/"))
}

/// Why a path may not be an edit's target in a writer on disk (the CLI's
/// `apply`, `run` and `splice`), whatever the model or the file system says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reserved {
    /// patchbay's own records: the commit journal (`.patchbay-journal`, and
    /// a journal set aside as `.patchbay-journal.*`) and the temporary and
    /// backup files beside a target (`.NAME.patchbay-*.tmp`, `.orig`,
    /// `.old`). Writing them would let a reply steer the next recovery.
    Own,
    /// A path through a `.git` folder: its hooks and config run code at the
    /// user's next git command. Writers refuse it unless told otherwise.
    GitDir,
}

/// The name of the commit journal in a root.
pub const JOURNAL: &str = ".patchbay-journal";

/// Whether a relative path (`/`-separated, as [`normalize`] returns it, or
/// a path relative to a root on disk) names a file no writer may target.
/// Lexical, `O(len)`: the caller resolves symbolic links first and asks
/// again of the real path. `.git` is matched without regard to ASCII case
/// (case-insensitive file systems).
pub fn reserved(rel: &str) -> Option<Reserved> {
    let parts = rel.split('/').filter(|c| !c.is_empty());
    let mut own = false;
    for c in parts.clone() {
        if c.eq_ignore_ascii_case(".git") {
            return Some(Reserved::GitDir);
        }
        own |= c.starts_with(JOURNAL) || is_side_file(c);
    }
    own.then_some(Reserved::Own)
}

/// A temporary or backup name of patchbay's: `.NAME.patchbay-...` ending
/// in `.tmp`, `.orig` or `.old`.
pub fn is_side_file(name: &str) -> bool {
    name.starts_with('.')
        && name.contains(".patchbay-")
        && [".tmp", ".orig", ".old"].iter().any(|x| name.ends_with(x))
}

#[cfg(test)]
mod tests {
    use super::{normalize, reserved, Reserved};

    #[test]
    fn patchbays_files_and_git_folders_are_reserved() {
        for own in [
            ".patchbay-journal",
            "sub/.patchbay-journal",
            ".patchbay-journal.untrusted-1f2e",
            ".app.py.patchbay-42-9a8b-0.orig",
            "a/.x.patchbay-1-0.tmp",
            ".x.patchbay-1-0.old",
        ] {
            assert_eq!(reserved(own), Some(Reserved::Own), "{own}");
        }
        for git in [
            ".git/hooks/post-commit",
            "sub/.git/config",
            ".GIT/HEAD",
            ".git",
        ] {
            assert_eq!(reserved(git), Some(Reserved::GitDir), "{git}");
        }
        for fine in [
            "app.py",
            ".gitignore",
            ".github/workflows/ci.yml",
            "git/x",
            "a.patchbay-1-0.tmp",
            ".patchbay.toml",
            "docs/.patchbay-notes.md",
        ] {
            assert_eq!(reserved(fine), None, "{fine}");
        }
    }

    #[test]
    fn normalises_and_refuses() {
        assert_eq!(normalize("./src/../lib.rs").unwrap(), "lib.rs");
        assert_eq!(normalize("a//b.rs").unwrap(), "a/b.rs");
        for bad in [
            "/etc/passwd",
            "../x",
            "a/../../x",
            "C:/x",
            "c:x",
            "a\\b",
            "~/x",
            "",
            ".",
            "a/..",
        ] {
            assert!(normalize(bad).is_err(), "{bad}");
        }
    }
}
