//! The patch text as GNU `patch` 2.7.6 reads it (`pch.c`): it skips prose
//! until a `---`/`+++` header, takes the file names from the headers (and
//! git's extended headers), and reads each `@@ -a,b +c,d @@` hunk by its
//! counts: the counts, not the markers, decide where a hunk ends, so a hunk
//! stated too short just leaves the rest of its lines as garbage. Anything
//! it cannot read is fatal for the whole run (`malformed patch at line N`),
//! not just for the hunk.
//!
//! Details that matter for models' diffs: lines starting with `#` are
//! comments, skipped everywhere; a line starting with a tab or an empty
//! line is an unchanged line; `=` is a context marker; an end of input
//! (or a last line without a line break) with at most three new lines
//! still to read is filled up with empty unchanged lines; when the header
//! lines end in CR LF, every line's CR is stripped. Context diffs are not
//! read (models do not write them); where `patch` would take the text for
//! a normal diff or an ed script (a lone `d` line after a header, before
//! any `@@ -` hunk), the part is marked and reading stops, since `patch`
//! looks for no unified hunk after one.

use super::super::parse::Prefix;
use super::lines::{
    dashes, ed_letter, fetch_name, git_names, indent_of, normal_command, sha_nonexistent,
};

/// One file's part, with what `patch` learnt from its headers.
#[derive(Debug, Default)]
pub(super) struct Patch {
    /// Old, new and `Index:` names, `-p1` stripped (`None`: absent,
    /// `/dev/null`, or without a directory to strip).
    pub names: [Option<String>; 3],
    /// `p_says_nonexistent` of the old and new side: 2 for `/dev/null`
    /// (or git's all-zero hash), 1 for a zero count, else 0.
    pub nonexistent: [u8; 2],
    pub git: bool,
    /// git `rename from`/`to` and `copy from`/`to` headers (each side).
    pub rename: [bool; 2],
    pub copy: [bool; 2],
    /// The header lines ended in CR LF: CRs are stripped from the hunks.
    pub strip_cr: bool,
    /// Columns of indentation of the first `@@` line, stripped from the
    /// hunk lines.
    pub indent: usize,
    pub hunks: Vec<GHunk>,
    /// `patch` takes the part for another kind of diff ("an ed script",
    /// "a normal diff"), which is not simulated, from this output line on.
    pub other: Option<(&'static str, usize)>,
}

impl Patch {
    /// A rename or a copy needs both of its headers.
    pub fn renames(&self) -> bool {
        self.rename == [true, true]
    }
    pub fn copies(&self) -> bool {
        self.copy == [true, true]
    }
}

/// One hunk as `patch` holds it.
#[derive(Debug)]
pub(super) struct GHunk {
    /// 1-based line of the `@@` header.
    pub out_line: usize,
    /// The stated old start, and `p_first` (one more for a zero count).
    pub stated: usize,
    pub first: usize,
    /// Body lines in order, each with its line break as read ("" when
    /// `\ No newline at end of file` follows).
    pub body: Vec<(Prefix, String)>,
    pub prefix: usize,
    pub suffix: usize,
}

/// The whole reading: the parts, and the fatal error that ended it.
#[derive(Debug, Default)]
pub(super) struct Reading {
    pub patches: Vec<Patch>,
    /// What `patch` prints after `patch: **** `, the `@@` line of the
    /// hunk it was reading (if any), and the line where it stopped.
    pub fatal: Option<(String, Option<usize>, usize)>,
}

pub(super) fn read(text: &str) -> Reading {
    let mut r = Reader {
        lines: text.split_inclusive('\n').collect(),
        pos: 0,
        line: 0,
    };
    let mut out = Reading::default();
    let mut last = None;
    while let Some(mut p) = r.intuit() {
        // Each part ends further on; stop rather than loop if one did not.
        if last.is_some_and(|l| r.pos <= l) {
            break;
        }
        last = Some(r.pos);
        if p.other.is_some() {
            // After it `patch` no longer looks for unified hunks.
            out.patches.push(p);
            break;
        }
        loop {
            match r.hunk(&p) {
                Ok(Some(h)) => p.hunks.push(h),
                Ok(None) => break,
                Err(e) => {
                    out.fatal = Some((e.0, e.1, r.pos));
                    out.patches.push(p);
                    return out;
                }
            }
        }
        out.patches.push(p);
    }
    if out.patches.is_empty() && !text.is_empty() {
        // It read to the end and found nothing: every hunk is skipped.
        let end = r.lines.len();
        out.fatal = Some((
            "Only garbage was found in the patch input.".into(),
            None,
            end,
        ));
    }
    out
}

struct Reader<'a> {
    lines: Vec<&'a str>,
    /// Index of the next line to read.
    pos: usize,
    /// `p_input_line`: lines read so far (comments included).
    line: usize,
}

type Fatal = (String, Option<usize>);

impl Reader<'_> {
    /// `pget_line`: the next line without comments, up to `indent`
    /// columns of indentation and (when asked) its CR removed; `None` at
    /// the end, or at a last line without a line break, which `patch`
    /// ignores ("patch unexpectedly ends in middle of line").
    fn get_line(&mut self, indent: usize, strip_cr: bool) -> Option<String> {
        loop {
            let raw = *self.lines.get(self.pos)?;
            if !raw.ends_with('\n') {
                return None;
            }
            self.pos += 1;
            self.line += 1;
            let mut col = 0;
            let mut rest = raw;
            while col < indent {
                match rest.as_bytes()[0] {
                    b' ' | b'X' => col += 1,
                    b'\t' => col = (col + 8) & !7,
                    _ => break,
                }
                rest = &rest[1..];
            }
            if rest.starts_with('#') {
                continue;
            }
            let mut l = rest.to_owned();
            if strip_cr && l.ends_with("\r\n") {
                l.truncate(l.len() - 2);
                l.push('\n');
            }
            return Some(l);
        }
    }

    /// Goes back to `pos` to read the last line again. As `patch` seeks
    /// back to the comments before the line but counts from the line, the
    /// comments are counted twice in its line numbers.
    fn unread(&mut self, pos: usize) {
        self.pos = pos;
        self.line -= 1;
    }

    /// `incomplete_line`: a raw `\` line right after consumes itself and
    /// takes the line break off the line before (it is not counted).
    fn incomplete(&mut self) -> bool {
        let next = self.lines.get(self.pos);
        if next.is_some_and(|l| l.starts_with('\\')) {
            self.pos += 1;
            return true;
        }
        false
    }

    /// `intuit_diff_type`: skips to the next part's first hunk, reading
    /// its headers on the way.
    fn intuit(&mut self) -> Option<Patch> {
        let mut p = Patch::default();
        let mut need_header = true;
        let mut extended = false;
        // Names in the order `patch` files them before its final swap.
        let mut dev_null = [false; 2];
        // The first line after a header that reads as an ed command (and
        // its letter), and whether the last one read as a normal diff's
        // ("5c5"; `patch` keeps that until the next line with a digit).
        let mut command: Option<(usize, Option<u8>)> = None;
        let mut normal = false;
        loop {
            let start = self.pos;
            let Some(l) = self.get_line(0, false) else {
                if let Some((at, Some(_))) = command {
                    p.other = Some(("an ed script", at));
                    return Some(p);
                }
                if extended {
                    return Some(p);
                }
                return None;
            };
            let cr = l.ends_with("\r\n");
            let s = l.trim_start_matches([' ', '\t', 'X']);
            let indent = indent_of(&l[..l.len() - s.len()]);
            let was_normal = normal;
            if let Some(n) = normal_command(s) {
                normal = n;
            }
            if !need_header && command.is_none() && (normal || ed_letter(s).is_some()) {
                command = Some((self.pos, ed_letter(s)));
            }
            if let Some(rest) = s.strip_prefix("+++ ") {
                fetch_name(rest, &mut p.names[0], &mut dev_null[0]);
                need_header = false;
                p.strip_cr = cr;
            } else if let Some(rest) = s.strip_prefix("Index:") {
                fetch_name(rest, &mut p.names[2], &mut false);
                need_header = false;
                p.strip_cr = cr;
            } else if let Some(rest) = s.strip_prefix("diff --git ") {
                if extended {
                    self.unread(start);
                    return Some(p);
                }
                git_names(rest, &mut p.names);
                p.git = true;
            } else if p.git && self.git_header(s, &mut p) {
                extended = true;
            } else if let Some(rest) = dashes(s).strip_prefix("--- ") {
                fetch_name(rest, &mut p.names[1], &mut dev_null[1]);
                need_header = false;
                p.strip_cr = cr;
            }
            if need_header {
                continue;
            }
            if let Some((at, _)) = command.filter(|_| s == ".\n") {
                p.other = Some(("an ed script", at));
                return Some(p);
            }
            if let Some(nums) = s.strip_prefix("@@ -") {
                unified_start(&mut p, &mut dev_null, nums);
                self.unread(start);
                p.indent = indent;
                return Some(p);
            }
            if was_normal && (s.starts_with("< ") || s.starts_with("> ")) {
                p.other = Some(("a normal diff", self.pos - 1));
                return Some(p);
            }
        }
    }

    /// git's extended headers: what they say about the file.
    fn git_header(&self, s: &str, p: &mut Patch) -> bool {
        if let Some(rest) = s.strip_prefix("index ") {
            let hashes = rest.split_whitespace().next().unwrap_or("");
            let Some((a, b)) = hashes.split_once("..") else {
                return false;
            };
            let hex = |h: &str| {
                !h.is_empty()
                    && h.bytes()
                        .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
            };
            if !hex(a) || !hex(b) {
                return false;
            }
            p.nonexistent = [sha_nonexistent(a), sha_nonexistent(b)];
        } else if s.starts_with("deleted file mode ") {
            p.nonexistent[1] = 2;
        } else if s.starts_with("new file mode ") {
            p.nonexistent[0] = 2;
        } else if s.starts_with("rename from ") {
            p.rename[0] = true;
        } else if s.starts_with("rename to ") {
            p.rename[1] = true;
        } else if s.starts_with("copy from ") {
            p.copy[0] = true;
        } else if s.starts_with("copy to ") {
            p.copy[1] = true;
        } else {
            return s.starts_with("old mode ") || s.starts_with("new mode ");
        }
        true
    }

    /// `another_hunk`: the next `@@` hunk of the part, `None` when the
    /// next line is something else (the part ends there).
    fn hunk(&mut self, p: &Patch) -> Result<Option<GHunk>, Fatal> {
        let start = self.pos;
        let Some(head) = self.get_line(p.indent, p.strip_cr) else {
            self.unread(start);
            return Ok(None);
        };
        if head.len() <= 4 || !head.starts_with("@@ -") {
            self.unread(start);
            return Ok(None);
        }
        // The real output line (`patch`'s own count skips `\` lines).
        let at = self.pos;
        let (stated, ptrn, repl) = self.header(&head).map_err(|e| (e.0, Some(at)))?;
        let mut h = GHunk {
            out_line: at,
            stated,
            first: stated + usize::from(ptrn == 0),
            body: vec![],
            prefix: 0,
            suffix: 0,
        };
        self.body(p, &mut h, ptrn, repl)?;
        Ok(Some(h))
    }

    /// The `@@ -a[,b] +c[,d] @@` numbers: (a, b, d).
    fn header(&self, buf: &str) -> Result<(usize, usize, usize), Fatal> {
        let malformed = || self.malformed(buf);
        let s = &buf[4..];
        let (first, s) = self.number(s, buf)?;
        let (ptrn, s) = match s.strip_prefix(',') {
            Some(s) => self.number(s, buf)?,
            None => (1, s),
        };
        let s = s.strip_prefix(' ').unwrap_or(s);
        let s = s.strip_prefix('+').ok_or_else(malformed)?;
        let (_, s) = self.number(s, buf)?;
        let (repl, s) = match s.strip_prefix(',') {
            Some(s) => self.number(s, buf)?,
            None => (1, s),
        };
        let s = s.strip_prefix(' ').unwrap_or(s);
        if !s.starts_with('@') {
            return Err(malformed());
        }
        Ok((first, ptrn, repl))
    }

    /// `scan_linenum`: digits, or the fatal "missing line number".
    fn number<'s>(&self, s: &'s str, buf: &str) -> Result<(usize, &'s str), Fatal> {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            let msg = format!(
                "missing line number at line {}: {}",
                self.line,
                buf.trim_end_matches('\n')
            );
            return Err((msg, Some(self.line)));
        }
        // An absurd number fits nowhere: patch would say it is too large.
        Ok((s[..n].parse().unwrap_or(usize::MAX / 4), &s[n..]))
    }

    fn malformed(&self, buf: &str) -> Fatal {
        (
            format!(
                "malformed patch at line {}: {}",
                self.line,
                buf.trim_end_matches('\n')
            ),
            None,
        )
    }

    /// The hunk's lines, read until both counts are met.
    fn body(&mut self, p: &Patch, h: &mut GHunk, ptrn: usize, repl: usize) -> Result<(), Fatal> {
        let (mut old, mut new) = (0, 0);
        let mut context = 0;
        let mut prefix = None;
        let at = Some(h.out_line);
        let fail = |e: Fatal| (e.0, at);
        let mut last = String::new();
        while old < ptrn || new < repl {
            let buf = match self.get_line(p.indent, p.strip_cr) {
                Some(b) => b,
                // Up to three missing new lines: "assume blank lines got chopped".
                None if repl < new + 4 => " \n".to_owned(),
                None => return Err(("unexpected end of file in patch".into(), at)),
            };
            last.clone_from(&buf);
            let (kind, mut text) = match buf.as_bytes()[0] {
                // "assume the space got eaten": the whole line is context.
                b'\t' | b'\n' => (Prefix::Context, buf.clone()),
                b'-' => (Prefix::Remove, buf[1..].to_owned()),
                b' ' | b'=' => (Prefix::Context, buf[1..].to_owned()),
                b'+' => (Prefix::Add, buf[1..].to_owned()),
                _ => return Err(fail(self.malformed(&buf))),
            };
            if kind != Prefix::Add && old >= ptrn || kind != Prefix::Remove && new >= repl {
                return Err(fail(self.malformed(&buf)));
            }
            if kind != Prefix::Add {
                old += 1;
            }
            if kind != Prefix::Remove {
                new += 1;
            }
            // Both sides check, so a context line that is last on both
            // sides may consume one `\` line only.
            let last_old = kind != Prefix::Add && old == ptrn && self.incomplete();
            let last_new = kind != Prefix::Remove && new == repl && self.incomplete();
            if last_old || last_new {
                text.pop();
            }
            if kind == Prefix::Context {
                context += 1;
            } else {
                prefix.get_or_insert(context);
                context = 0;
            }
            h.body.push((kind, text));
        }
        let Some(prefix) = prefix else {
            // A hunk that changes nothing.
            return Err(fail(self.malformed(&last)));
        };
        h.prefix = prefix;
        h.suffix = context;
        Ok(())
    }
}

/// A unified hunk header (`@@ -` then `nums`) ends the headers: the names
/// take their final order, and a side that starts at line 0 does not
/// exist (`/dev/null` makes it surely so).
fn unified_start(p: &mut Patch, dev_null: &mut [bool; 2], nums: &str) {
    p.names.swap(0, 1);
    dev_null.swap(0, 1);
    let zero = |n: &str| n.starts_with('0') && !n[1..].starts_with(|c: char| c.is_ascii_digit());
    if zero(nums) {
        p.nonexistent[0] = 1 + u8::from(dev_null[0]);
    }
    let new = nums
        .split_once(' ')
        .map_or("", |x| x.1)
        .trim_start_matches(' ');
    if new.strip_prefix('+').is_some_and(zero) {
        p.nonexistent[1] = 1 + u8::from(dev_null[1]);
    }
}
