//! Shared pieces of reading model prose: lines with their byte offsets,
//! Markdown fences, and "is this line a file path?".
//!
//! Models wrap edits in prose and fences in many ways; every format parser
//! uses these so that they agree on what a fence or a path line is. All
//! functions are linear in their input.

use crate::apply::text::Text;

/// A line of the model output with its byte range (terminator excluded).
#[derive(Debug, Clone, Copy)]
pub struct OutLine<'a> {
    pub text: &'a str,
    pub start: usize,
    /// Byte offset just past the terminator.
    pub end: usize,
}

/// Splits the output into lines with byte offsets.
pub fn out_lines(s: &str) -> Vec<OutLine<'_>> {
    let t = Text::new(s);
    (0..t.len())
        .map(|i| {
            let sp = t.span(i);
            OutLine {
                text: t.line(i),
                start: sp.start,
                end: sp.end,
            }
        })
        .collect()
}

/// 1-based line numbers in the output of a byte range. `O(len)`: a caller
/// with many ranges builds an [`OutputLines`] once instead.
pub fn output_line_range(s: &str, span: &std::ops::Range<usize>) -> [usize; 2] {
    OutputLines::new(s).range(span)
}

/// The line breaks of an output, found once (`O(len)`), so that the line
/// range of each edit costs `O(log lines)`: a reply with many edits stays
/// linear instead of rescanning the output for every edit.
pub struct OutputLines {
    /// Byte offsets of every `\n`, ascending.
    breaks: Vec<usize>,
    len: usize,
}

impl OutputLines {
    pub fn new(s: &str) -> Self {
        let breaks = s
            .bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'\n')
            .map(|(i, _)| i)
            .collect();
        OutputLines {
            breaks,
            len: s.len(),
        }
    }

    /// The same from the output's lines, already split: every `\n` ends
    /// a line (alone or in `\r\n`), so the breaks are where lines end.
    pub fn from_lines(s: &str, lines: &[OutLine]) -> Self {
        let breaks = lines
            .iter()
            .filter(|l| l.end > 0 && s.as_bytes().get(l.end - 1) == Some(&b'\n'))
            .map(|l| l.end - 1)
            .collect();
        OutputLines {
            breaks,
            len: s.len(),
        }
    }

    /// What [`output_line_range`] returns for `span`.
    pub fn range(&self, span: &std::ops::Range<usize>) -> [usize; 2] {
        let start = span.start.min(self.len);
        let end = span.end.min(self.len).max(start);
        let before = |at: usize| self.breaks.partition_point(|&p| p < at);
        let first = before(start) + 1;
        let inner = before(end) - before(start);
        let ends_nl = span.end > span.start
            && span.end <= self.len
            && self.breaks.binary_search(&(span.end - 1)).is_ok();
        [first, first + inner - usize::from(ends_nl && inner > 0)]
    }
}

/// A fence opener: the fence character, its run length, and the info string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fence<'a> {
    pub ch: char,
    pub len: usize,
    pub info: &'a str,
}

/// The tag fences Aider also accepts (`<source>python` ... `</source>`);
/// a tag fence is a [`Fence`] with `ch == '<'` and `len` its index here.
const TAG_FENCES: [&str; 5] = ["source", "code", "pre", "codeblock", "sourcecode"];

/// A tag fence opener: `<source>`, `<source>python`, `<code>`, ...
fn tag_fence_open(t: &str) -> Option<Fence<'_>> {
    let rest = t.strip_prefix('<')?;
    let (k, tag) = TAG_FENCES
        .iter()
        .enumerate()
        .find(|(_, tag)| rest.strip_prefix(*tag).is_some_and(|r| r.starts_with('>')))?;
    let info = rest[tag.len() + 1..].trim();
    (!info.contains(['<', '>', ' '])).then_some(Fence {
        ch: '<',
        len: k,
        info,
    })
}

/// The tag a closing tag line names: `source` of `</source>` (`t` trimmed).
fn closing_tag(t: &str) -> Option<&str> {
    t.strip_prefix("</").and_then(|r| r.strip_suffix('>'))
}

/// A tag fence's closer: `</source>`, `</code>`, ... (`t` trimmed).
pub fn tag_fence_close(t: &str) -> bool {
    closing_tag(t).is_some_and(|tag| TAG_FENCES.contains(&tag))
}

/// A line (trimmed) that opens or closes a tag fence.
pub fn tag_fence_like(t: &str) -> bool {
    tag_fence_open(t).is_some() || tag_fence_close(t)
}

/// Recognises a Markdown fence opener (up to 3 spaces of indentation, 3+
/// backticks or tildes, an optional info string), or a tag fence.
pub fn fence_open(line: &str) -> Option<Fence<'_>> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    if t.starts_with('<') {
        return tag_fence_open(t.trim_end());
    }
    let ch = t.chars().next()?;
    if ch != '`' && ch != '~' {
        return None;
    }
    let len = t.chars().take_while(|&c| c == ch).count();
    if len < 3 {
        return None;
    }
    let info = t[len..].trim();
    if ch == '`' && info.contains('`') {
        return None;
    }
    Some(Fence { ch, len, info })
}

/// Whether `line` closes a fence opened with `f`.
pub fn fence_closes(line: &str, f: &Fence) -> bool {
    let t = line.trim();
    if f.ch == '<' {
        let tag = TAG_FENCES.get(f.len).copied().unwrap_or("");
        return closing_tag(t) == Some(tag);
    }
    t.len() >= f.len && t.chars().all(|c| c == f.ch)
}

/// Finds the line that closes the fence opened at `open` (index into
/// `lines`). Inside, an opener with an info string starts a nested fence
/// that a bare closer ends, so a Markdown file in a fence survives.
pub fn find_fence_close(lines: &[OutLine], open: usize) -> Option<usize> {
    let f = fence_open(lines[open].text)?;
    let mut depth = 0usize;
    for (i, l) in lines.iter().enumerate().skip(open + 1) {
        if fence_closes(l.text, &f) {
            if depth == 0 {
                return Some(i);
            }
            depth -= 1;
        } else if let Some(inner) = fence_open(l.text) {
            let longer = inner.len >= f.len && f.ch != '<' || inner.len == f.len;
            if inner.ch == f.ch && longer && !inner.info.is_empty() {
                depth += 1;
            }
        }
    }
    None
}

/// Extracts a file path from a line that introduces an edit, such as
/// `src/app.py`, `**src/app.py**`, `` `src/app.py`: ``, `### File: src/app.py`.
/// Returns `None` for prose.
pub fn path_from_line(line: &str) -> Option<String> {
    let mut t = line.trim();
    for prefix in ["#", "*", "`", "-", ">"] {
        while let Some(r) = t.strip_prefix(prefix) {
            t = r.trim_start();
        }
    }
    for label in [
        "File:",
        "file:",
        "Path:",
        "path:",
        "Filename:",
        "filename:",
        "FILE:",
    ] {
        if let Some(r) = t.strip_prefix(label) {
            t = r.trim();
        }
    }
    let t = t
        .trim_end_matches([':', '*', '`', ' '])
        .trim_start_matches(['*', '`', ' '])
        .trim_matches(['"', '\'']);
    if looks_like_path(t) {
        Some(t.to_owned())
    } else {
        None
    }
}

/// A path-like token: no whitespace, no markup, and a dot or slash, or a
/// well-known extensionless name.
pub fn looks_like_path(t: &str) -> bool {
    if t.is_empty() || t.contains(char::is_whitespace) || !fits_a_file_system(t) {
        return false;
    }
    // `Sure.`, `Done.`: a word that ends a sentence, not a file name.
    if t.ends_with('.') && !t.ends_with("..") {
        return false;
    }
    if t.chars()
        .any(|c| matches!(c, '<' | '>' | '|' | '`' | '"' | '*' | '?' | '\0'))
    {
        return false;
    }
    if t.chars().all(|c| c == '.' || c == '/') {
        return false;
    }
    let base = t.rsplit(['/', '\\']).next().unwrap_or(t);
    let known = matches!(
        base,
        "Makefile"
            | "Dockerfile"
            | "Gemfile"
            | "Rakefile"
            | "Procfile"
            | "LICENSE"
            | "Justfile"
            | "Containerfile"
    );
    known || base.contains('.') || t.contains('/')
}

/// A path no file system holds: longer than `PATH_MAX` (4,096 bytes), or
/// with a component longer than `NAME_MAX` (255).
fn fits_a_file_system(t: &str) -> bool {
    t.len() <= 4096 && t.split(['/', '\\']).all(|c| c.len() <= 255)
}

/// A line that may name a file but may be prose: one bare word without a
/// dot or slash (`configure`, `CODEOWNERS`, `gradlew`), or a path-shaped
/// token no file system holds. Only the files can tell.
fn bare_word(line: &str) -> Option<String> {
    let t = line.trim().trim_matches(['*', '`']);
    let word = !t.is_empty()
        && t.len() <= 255
        && t.chars().any(|c| c.is_alphabetic())
        && t.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '+' | '@'));
    let unheld =
        !t.contains(char::is_whitespace) && (t.contains(['/', '.'])) && !fits_a_file_system(t);
    (word || unheld).then(|| t.to_owned())
}

/// What the lines above an edit say about its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathAbove {
    /// A path line (`src/a.py`, `**src/a.py**`, `File: a.py`, a heading),
    /// right above or above a few short lines of prose.
    Named(String),
    /// No path line, but the nearest prose names a path-shaped token
    /// (`` Now update `src/b.py`: ``), or a list of paths stands above: the
    /// edit's file is uncertain, and a file reused from an earlier edit
    /// must agree with it.
    Mentioned(String),
    /// A bare word right above the edit (`bare_word`): its file if the
    /// files hold one of that name, else the edit's file is uncertain and
    /// the edit is refused (`path_unclear`), never sent to another file.
    Bare(String),
    /// Nothing path-like nearby.
    Nothing,
}

/// How many non-blank lines above an edit are searched for its path.
const LOOK_BACK: usize = 4;
/// Lines longer than this are paragraphs: the search stops there.
const SHORT_LINE: usize = 100;

/// Looks for the path of an edit that starts at line `at`, over the lines
/// `floor..at` (bottom up): blank lines and up to `LOOK_BACK` short lines
/// of prose may stand between a path line and its edit, as models write
/// them; a fence line (the end of an earlier block) stops the search. A
/// path line that is one of a list (another path line right above it) is
/// only a mention: which of the list is meant cannot be told. `O(lines
/// searched)`, at most a few lines.
pub fn path_above(lines: &[OutLine], at: usize, floor: usize) -> PathAbove {
    let mut mention: Option<String> = None;
    let mut seen = 0;
    for j in (floor..at.min(lines.len())).rev() {
        let t = lines[j].text.trim();
        if t.is_empty() {
            continue;
        }
        if fence_open(t).is_some() || (t.len() >= 3 && t.chars().all(|c| c == '`' || c == '~')) {
            break;
        }
        if let Some(w) = bare_word(t).filter(|_| seen == 0 && path_from_line(t).is_none()) {
            return PathAbove::Bare(w);
        }
        if let Some(p) = path_from_line(t) {
            let listed = (floor..j)
                .rev()
                .map(|k| lines[k].text.trim())
                .find(|l| !l.is_empty())
                .is_some_and(|l| path_from_line(l).is_some());
            return match mention {
                Some(m) => PathAbove::Mentioned(m),
                None if listed => PathAbove::Mentioned(p),
                None => PathAbove::Named(p),
            };
        }
        if mention.is_none() {
            mention = path_in_prose(t);
        }
        seen += 1;
        if seen == LOOK_BACK || t.len() > SHORT_LINE {
            break;
        }
    }
    mention.map_or(PathAbove::Nothing, PathAbove::Mentioned)
}

/// Extensions that make a bare word in prose a file name (`app.py`); a
/// backticked or bold token only needs to look like a path.
const CODE_EXTENSIONS: &[&str] = &[
    "py", "rs", "js", "jsx", "ts", "tsx", "mjs", "cjs", "go", "java", "kt", "c", "h", "cc", "cpp",
    "hpp", "cxx", "hh", "m", "mm", "cs", "rb", "php", "swift", "scala", "lua", "sh", "css", "scss",
    "html", "vue", "svelte", "json", "toml", "yaml", "yml", "md", "txt", "sql", "xml", "ini",
    "cfg",
];

/// The first file name in a line of prose (in backticks or bold first,
/// then bare words): a word with a code file extension, so that a method
/// call (`self.run()`) or a version (`v1.2`) is not taken for a file.
pub fn path_in_prose(line: &str) -> Option<String> {
    let quoted = line
        .split('`')
        .skip(1)
        .step_by(2)
        .chain(line.split("**").skip(1).step_by(2));
    for q in quoted {
        let q = q.trim().trim_end_matches(':');
        if bare_file_name(q) {
            return Some(q.to_owned());
        }
    }
    line.split_whitespace()
        .map(|w| w.trim_start_matches(['(', '"', '\'', '*', '`']))
        .map(|w| w.trim_end_matches(['.', ',', ':', ';', ')', '!', '?', '"', '\'', '*', '`']))
        .find(|w| bare_file_name(w))
        .map(str::to_owned)
}

/// The last line of an output that stops inside a line (no line break
/// after it) when that line is the beginning of a structure: a fence, a
/// SEARCH/REPLACE marker, a diff or patch header, a JSON object or array,
/// a path line. Such an output was cut off where the next edit (or the end
/// of this one) began; an unfinished line of prose is not a cut anyone can
/// see. `O(last line)`.
pub fn partial_structure(output: &str) -> Option<&str> {
    if output.ends_with(['\n', '\r']) {
        return None;
    }
    let last = &output[output.rfind('\n').map_or(0, |i| i + 1)..];
    let t = last.trim_start();
    if t.is_empty() {
        return None;
    }
    // A run of `ch` and then the beginning of `word` (not all of it: a
    // whole `>>>>>>> REPLACE` is a complete end).
    let run_then = |ch: char, word: &str, whole_ok: bool| {
        let rest = t.trim_end().trim_start_matches(ch);
        rest.len() < t.len() && word.starts_with(rest) && (whole_ok || rest != word)
    };
    let prefix_of = |whole: &str| whole.starts_with(t) || t.starts_with(whole);
    // A bare fence run is complete when it closes an open fence; any other
    // fence line at the end is an opener that nothing follows.
    let fence = match fence_open(t) {
        Some(f) if f.info.is_empty() => !closes_open_fence(&output[..output.len() - last.len()], t),
        Some(_) => true,
        None => t.len() < 3 && t.chars().all(|c| c == '`' || c == '~'),
    };
    let marker = run_then('<', " SEARCH", true)
        || run_then('=', "", true)
        || run_then('>', " REPLACE", false);
    let header = (t.starts_with('@') && t.trim_end() != "@@ end")
        || prefix_of("--- ")
        || prefix_of("+++ ")
        || prefix_of("diff --git ")
        || (t.starts_with("*** ") && t.trim_end() != "*** End Patch")
        || t.chars().all(|c| c == '*');
    let json = t.starts_with(['{', '[']) && serde_json::from_str::<serde_json::Value>(t).is_err();
    let path = !t.ends_with(['.', '!', '?']) && path_from_line(t).is_some();
    (fence || marker || header || json || path).then_some(last)
}

/// Whether the fence line `closer` closes a fence left open in `before`
/// (fences paired in order, as Markdown reads them).
fn closes_open_fence(before: &str, closer: &str) -> bool {
    let mut open: Option<Fence> = None;
    for l in before.lines() {
        match &open {
            Some(f) if fence_closes(l, f) => open = None,
            Some(_) => {}
            None => open = fence_open(l),
        }
    }
    open.is_some_and(|f| fence_closes(closer, &f))
}

/// A bare word of prose that names a file: a code file extension, and not
/// a product name such as `Node.js` (capitalised, no folder).
fn bare_file_name(w: &str) -> bool {
    let Some((stem, ext)) = w.rsplit_once('.') else {
        return false;
    };
    let product = ext == "js" && !w.contains('/') && stem.starts_with(char::is_uppercase);
    looks_like_path(w)
        && !w.contains("://")
        && !stem.is_empty()
        && !stem.ends_with('/')
        && CODE_EXTENSIONS.contains(&ext)
        && !product
}

/// The path named in a fence's info string (```` ```python src/app.py ````
/// or ```` ```src/app.py ````), if any.
pub fn path_from_info(info: &str) -> Option<String> {
    let mut words = info.split_whitespace();
    let first = words.next()?;
    if let Some(second) = words.next() {
        return looks_like_path(second).then(|| second.to_owned());
    }
    (first.contains('/') || first.contains('.'))
        .then(|| first.trim_start_matches('{').to_owned())
        .filter(|p| looks_like_path(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The breaks taken from the split lines are every `\n` of the
        /// text, as a byte scan finds them (CR, CRLF, a BOM, no final
        /// newline).
        #[test]
        fn breaks_from_lines_are_every_newline(s in "(\u{feff})?[ab\r\n]{0,40}") {
            let scanned = OutputLines::new(&s);
            let split = OutputLines::from_lines(&s, &out_lines(&s));
            proptest::prop_assert_eq!(&split.breaks, &scanned.breaks);
            proptest::prop_assert_eq!(split.len, scanned.len);
        }
    }

    #[test]
    fn paths_from_lines() {
        assert_eq!(path_from_line("src/app.py").as_deref(), Some("src/app.py"));
        assert_eq!(
            path_from_line("**src/app.py**").as_deref(),
            Some("src/app.py")
        );
        assert_eq!(path_from_line("`lib.rs`:").as_deref(), Some("lib.rs"));
        assert_eq!(
            path_from_line("### File: a/b.go").as_deref(),
            Some("a/b.go")
        );
        assert_eq!(path_from_line("Makefile").as_deref(), Some("Makefile"));
        assert_eq!(path_from_line("Here is the change."), None);
        assert_eq!(path_from_line("```"), None);
        assert_eq!(path_from_line(""), None);
    }

    #[test]
    fn paths_above_blocks() {
        let above = |s: &str| {
            let lines = out_lines(s);
            path_above(&lines, lines.len(), 0)
        };
        let named = |p: &str| PathAbove::Named(p.into());
        let mentioned = |p: &str| PathAbove::Mentioned(p.into());
        assert_eq!(above("src/b.py\n\n"), named("src/b.py"));
        assert_eq!(above("**src/b.py**\n\nThe fix:\n\n"), named("src/b.py"));
        assert_eq!(above("Now update `src/b.py`:\n\n"), mentioned("src/b.py"));
        assert_eq!(above("Then in b.py, the import:\n"), mentioned("b.py"));
        // A list of paths: which one is meant cannot be told.
        assert_eq!(
            above("- src/a.py\n- src/b.py\n\nFirst:\n"),
            mentioned("src/b.py")
        );
        // An earlier block's fence ends the search.
        assert_eq!(
            above("src/a.py\n```\nx\n```\nAnd then:\n"),
            PathAbove::Nothing
        );
        // Calls, versions and product names are not files.
        assert_eq!(
            above("Call `self.run()` on v1.2 with Node.js:\n"),
            PathAbove::Nothing
        );
    }

    #[test]
    fn fences() {
        assert_eq!(fence_open("```python").map(|f| f.info), Some("python"));
        assert_eq!(fence_open("````").map(|f| f.len), Some(4));
        assert!(fence_open("    ```").is_none());
        assert!(fence_open("``").is_none());
        let src = "````\n```md\nx\n```\n````\n";
        let lines = out_lines(src);
        assert_eq!(find_fence_close(&lines, 0), Some(4));
        let src = "```\n```python\nx\n```\n```\n";
        assert_eq!(find_fence_close(&out_lines(src), 0), Some(4));
        assert_eq!(find_fence_close(&out_lines("```\nx\n"), 0), None);
    }

    #[test]
    fn a_bare_word_is_for_the_files_to_decide() {
        let above = |t: &str| path_above(&out_lines(t), t.lines().count(), 0);
        assert_eq!(above("configure\n"), PathAbove::Bare("configure".into()));
        assert_eq!(above("Makefile\n"), PathAbove::Named("Makefile".into()));
        assert_eq!(above("Sure.\n"), PathAbove::Nothing);
        assert_eq!(above("app.py\n\nNext\n"), PathAbove::Bare("Next".into()));
        let long = format!("src/{}.sh\n", "a".repeat(300));
        assert!(matches!(above(&long), PathAbove::Bare(_)));
    }

    #[test]
    fn info_paths() {
        assert_eq!(
            path_from_info("python src/a.py").as_deref(),
            Some("src/a.py")
        );
        assert_eq!(path_from_info("src/a.py").as_deref(), Some("src/a.py"));
        assert_eq!(path_from_info("python"), None);
    }

    #[test]
    fn output_lines() {
        let s = "a\nbb\ncc\n";
        assert_eq!(output_line_range(s, &(2..8)), [2, 3]);
        assert_eq!(output_line_range(s, &(0..1)), [1, 1]);
    }
}
