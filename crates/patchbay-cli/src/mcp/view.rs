//! Lines as each mode shows them, and the record of what was shown: the
//! tagged view for `hashline` and `any`, the numbered view with the
//! file's CRC-32 for `lines` (recorded in the session's snapshot), plain
//! text for `str-replace`. Every view records the file's CRC as shown.

use super::{lock, Mode, Session, Settings};
use crate::fsio::Refusal;
use patchbay::apply::text::Text;
use patchbay::formats::hashline::tags;
use std::sync::Mutex;

/// A file the model named, read from under the root.
pub struct File {
    /// The normalised path relative to the root.
    pub rel: String,
    pub text: String,
}

/// Reads `path` (relative to the root, or absolute inside it); a path
/// outside the root, a missing file or one that is not text is refused
/// with a message for the model.
pub fn load(s: &Settings, path: &str) -> Result<File, String> {
    let rel = relative(s, path)?;
    let real = match s.root.resolve(&rel) {
        Ok(r) => r.real,
        Err(Refusal::Escape(m)) => return Err(format!("path_escape: {m}")),
        Err(Refusal::Io(m)) => return Err(m),
    };
    match crate::fsio::read_text(&real, &rel)? {
        Some(text) => Ok(File { rel, text }),
        None => Err(format!("not_found: {rel} does not exist under the root")),
    }
}

/// `path` relative to the root and normalised (an absolute path must lie
/// inside the root).
pub fn relative(s: &Settings, path: &str) -> Result<String, String> {
    let given = std::path::Path::new(path);
    if given.is_absolute() {
        s.root
            .relative(given)
            .ok_or_else(|| format!("path_escape: {path} is outside the root this server edits"))
    } else {
        patchbay::apply::paths::normalize(path).map_err(|e| format!("path_escape: {e}"))
    }
}

/// The view of `ranges` (1-based, inclusive, clamped) of `f` in the
/// server's mode, recorded in the session as shown.
pub fn lines(
    s: &Settings,
    session: &Mutex<Session>,
    f: &File,
    ranges: &[(usize, usize)],
) -> String {
    let t = Text::new(&f.text);
    let n = t.len();
    let ranges = clamp(ranges, n);
    let mut out = String::new();
    match s.mode {
        Mode::Lines => {
            out.push_str(&format!(
                "# file: {} crc32={:08x} lines={n}\n",
                f.rel,
                patchbay::file_crc(&f.text)
            ));
            let (view, seen) = patchbay::seen_view(&f.rel, &f.text, &ranges);
            out.push_str(&view);
            let mut held = lock(session);
            held.seen.merge(seen);
            let known = held.ranges.entry(f.rel.clone()).or_default();
            known.extend_from_slice(&ranges);
            *known = clamp(known, n);
        }
        Mode::Hashline | Mode::Any => {
            for &(a, b) in &ranges {
                out.push_str(&format!("# file: {} lines {a}-{b} of {n}\n", f.rel));
                for i in a..=b {
                    let line = t.line(i - 1);
                    out.push_str(&format!("{i}:{} {line}\n", tags::tag(line, i, s.tags)));
                }
            }
        }
        Mode::StrReplace => {
            for &(a, b) in &ranges {
                out.push_str(&format!("# file: {} lines {a}-{b} of {n}\n", f.rel));
                for i in a..=b {
                    out.push_str(t.line(i - 1));
                    out.push('\n');
                }
            }
        }
    }
    if ranges.is_empty() {
        out.push_str(&format!(
            "# file: {} has {n} lines; none in the requested range\n",
            f.rel
        ));
    }
    shown(session, f);
    out
}

/// Records that the model knows `f` as it is now.
pub fn shown(session: &Mutex<Session>, f: &File) {
    lock(session)
        .shown
        .insert(f.rel.clone(), patchbay::file_crc(&f.text));
}

/// Ranges within `1..=n`, sorted, overlapping ones merged.
pub fn clamp(ranges: &[(usize, usize)], n: usize) -> Vec<(usize, usize)> {
    let mut v: Vec<(usize, usize)> = ranges
        .iter()
        .map(|&(a, b)| (a.max(1), b.min(n)))
        .filter(|&(a, b)| a <= b)
        .collect();
    v.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(v.len());
    for (a, b) in v {
        match out.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::clamp;

    #[test]
    fn ranges_are_clamped_sorted_and_merged() {
        assert_eq!(
            clamp(&[(8, 12), (0, 2), (3, 4), (20, 30)], 10),
            [(1, 4), (8, 10)]
        );
        assert_eq!(clamp(&[(5, 4)], 10), []);
    }
}
