//! Detects placeholders that stand for code the model did not write, such as
//! `# ... rest of the file unchanged` or `// existing code here`.
//!
//! Applying such output would delete the code the comment stands for, so the
//! transaction refuses it as `elided`. A placeholder line that the original
//! file already contains is real content and is not flagged. `O(len)` a line.

/// Comment openers of the languages we see, longest first.
const OPENERS: [&str; 10] = ["<!--", "{/*", "/*", "//", "--", "#", ";", "%", "*", "'"];

const WORDS: [&str; 14] = [
    "rest of",
    "existing",
    "unchanged",
    "remain",
    "same as",
    "previous",
    "omitted",
    "original",
    "other methods",
    "other code",
    "as before",
    "no change",
    "keep",
    "elided",
];

/// Whether one line is a placeholder comment.
pub fn is_placeholder(line: &str) -> bool {
    let t = line.trim();
    let Some(body) = OPENERS.iter().find_map(|o| t.strip_prefix(o)) else {
        return false;
    };
    let body = body
        .trim()
        .trim_end_matches("-->")
        .trim_end_matches("*/}")
        .trim_end_matches("*/")
        .trim()
        // The phrases are ASCII: full Unicode lowering would only carry
        // its tables into the WebAssembly module.
        .to_ascii_lowercase();
    if body.is_empty() {
        return false;
    }
    let dots = body.contains("...") || body.contains('…');
    if dots
        && body
            .chars()
            .all(|c| c == '.' || c == '…' || c.is_whitespace())
    {
        return true;
    }
    let worded = WORDS.iter().any(|w| body.contains(w));
    if dots && worded {
        return true;
    }
    // Phrases that are placeholders even without an ellipsis.
    let code_word = [
        "code",
        "file",
        "implementation",
        "method",
        "function",
        "content",
        "lines",
        "page",
        "class",
        "body",
        "section",
        "logic",
        "imports",
        "tests",
    ]
    .iter()
    .any(|w| body.contains(w));
    worded
        && code_word
        && (body.contains("rest of")
            || body.contains("existing")
            || body.contains("unchanged")
            || body.contains("remain")
            || body.contains("same"))
        && body.split_whitespace().count() <= 10
}

/// The first placeholder line (0-based index into `new`) that is not a line
/// of `original`.
pub fn find_elision<S: AsRef<str>>(new: &[S], original: &[&str]) -> Option<usize> {
    new.iter().position(|l| {
        let l = l.as_ref();
        is_placeholder(l) && !original.iter().any(|o| o.trim() == l.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders() {
        for p in [
            "# ... rest of the file unchanged",
            "// existing code here",
            "    // ... existing code ...",
            "/* ... */",
            "<!-- rest of the page unchanged -->",
            "-- ... remaining functions unchanged",
            "# ...",
            "// … other methods …",
            "{/* existing code */}",
            "# rest of code remains the same",
        ] {
            assert!(is_placeholder(p), "{p}");
        }
        for p in [
            "# compute the rest of the sum",
            "x = ...",
            "// keep the lock while reading",
            "...",
            "# TODO",
            "// see the original paper",
            "-- select * from t",
        ] {
            assert!(!is_placeholder(p), "{p}");
        }
    }

    #[test]
    fn original_lines_are_not_elision() {
        let orig = ["def f():", "    # ... rest unchanged"];
        assert_eq!(
            find_elision(&["def f():", "    # ... rest unchanged"], &orig),
            None
        );
        assert_eq!(
            find_elision(&["x", "# ... rest unchanged"], &["x"]),
            Some(1)
        );
    }
}
