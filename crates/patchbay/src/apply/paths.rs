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

#[cfg(test)]
mod tests {
    use super::normalize;

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
