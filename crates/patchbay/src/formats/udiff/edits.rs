//! From a parsed diff to edits: one `Replace` per hunk located by the shared
//! ladder (with the stated line as its hint), `Create` for `--- /dev/null`,
//! `Delete` for `+++ /dev/null`, `Rename` for git's `rename from/to`.
//!
//! Lenient mode reads damaged lines generously. Lines in doubt are unmarked
//! lines, empty lines, and unchanged lines whose indentation has the other
//! parity than the hunk's `+`/`-` lines (indentation comes in even steps, so
//! such a line most likely lost or gained its one-space marker, or is an
//! added line that lost its `+`). A run of them reads as added when it lies
//! between added lines; as unchanged; or, next to added lines (or right
//! after removed ones: the replacement), as added: all of it, only its first
//! line, or only its last before an added one. Indentation reads as written,
//! one space more (on the doubtful lines, or on every indented unchanged
//! line: a model that drops the marker usually drops it everywhere), or one
//! space less. When that gives a hunk several readings, the hunk becomes an
//! [`Op::OneOf`] and the file decides (see [`crate::apply::locate::readings`]); nothing
//! here guesses a place. When the output ends inside the hunk's last line,
//! readings shorter than the header's counts are left out: reading a cut
//! line as added would fit only a hunk that was cut.
//!
//! Strict mode reads like `git apply`: numbers and counts must agree with
//! the body and every line needs its marker, else `malformed`.
//!
//! Cost: linear in the hunk per reading; at most twenty readings a hunk,
//! one when no line is in doubt.

use super::parse::{BodyLine, Damage, FileDiff, Hunk, Prefix};
use crate::apply::matcher::Level;
use crate::edit::Reading;
use crate::edit::{Check, Code, Edit, Op, Parsed};

/// A hunk body with every line's kind decided.
pub type Body = Vec<(Prefix, String)>;

/// The old and new lines of a body.
pub fn old_new(body: &Body) -> (Vec<String>, Vec<String>) {
    let old = body
        .iter()
        .filter(|l| l.0 != Prefix::Add)
        .map(|l| l.1.clone())
        .collect();
    let new = body
        .iter()
        .filter(|l| l.0 != Prefix::Remove)
        .map(|l| l.1.clone())
        .collect();
    (old, new)
}

/// The body as written: unmarked and empty lines are unchanged lines
/// (what `git apply` and GNU `patch` make of an empty line).
pub fn as_written(h: &Hunk) -> Body {
    h.lines.iter().map(|l| (l.kind, l.text.clone())).collect()
}

fn space_indent(t: &str) -> usize {
    t.len() - t.trim_start_matches(' ').len()
}

/// Whether odd indentation is this hunk's normal (its `+`/`-` lines, whose
/// markers are explicit, mostly have it: arguments aligned under a `(`).
fn odd_is_normal(h: &Hunk) -> bool {
    let widths: Vec<usize> = h
        .lines
        .iter()
        .filter(|l| l.kind != Prefix::Context && l.damage.is_none())
        .map(|l| space_indent(&l.text))
        .filter(|&w| w > 0)
        .collect();
    widths.iter().filter(|w| *w % 2 == 1).count() * 2 > widths.len()
}

/// An unchanged line whose indentation has the other parity than the
/// hunk's normal one, so it likely lost (or gained) its one-space marker.
/// Doc-comment continuations (` * `) and tab indentation are left alone.
fn doubtful_indent(t: &str, odd_normal: bool) -> bool {
    let n = space_indent(t);
    let rest = &t[n..];
    if rest.is_empty() || rest.starts_with('\t') {
        return false;
    }
    if odd_normal {
        n > 0 && n.is_multiple_of(2)
    } else {
        n % 2 == 1 && !rest.starts_with('*')
    }
}

/// How unchanged lines' indentation is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Indent {
    /// As written.
    Keep,
    /// Doubtful ones (the other parity) get their space back.
    Back,
    /// Every one indented with spaces gets its space back: the model wrote
    /// all unchanged lines without their marker, whatever their parity.
    AllBack,
    /// Doubtful ones lose a space (the model doubled the marker).
    Away,
}

/// Which doubtful lines next to added lines are read as added.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Adds {
    /// None: every doubtful line is unchanged (what git reads).
    None,
    /// A run of doubtful lines between two added lines.
    Inside,
    /// A run next to an added line, entirely.
    All,
    /// Only the first line of a run that follows an added line.
    First,
    /// Only the last line of a run that precedes an added line.
    Last,
}

fn read_as(h: &Hunk, adds: Adds, indent: Indent) -> Body {
    let lines = &h.lines;
    // Lines whose kind is in doubt: unmarked, empty, or unchanged with odd
    // indentation (an indented line that lost its `+` or its space looks
    // like an unchanged line one column short).
    let odd_normal = odd_is_normal(h);
    let odd = |l: &BodyLine| {
        l.kind == Prefix::Context && l.damage.is_none() && doubtful_indent(&l.text, odd_normal)
    };
    let doubt = |l: &BodyLine| l.damage.is_some() || odd(l);
    let mut out = Vec::with_capacity(lines.len());
    let mut k = 0;
    while k < lines.len() {
        if !doubt(&lines[k]) {
            let l = &lines[k];
            let text = match indent {
                Indent::AllBack if l.kind == Prefix::Context && l.text.starts_with(' ') => {
                    format!(" {}", l.text)
                }
                _ => l.text.clone(),
            };
            out.push((l.kind, text));
            k += 1;
            continue;
        }
        let end = (k..lines.len())
            .find(|&j| !doubt(&lines[j]))
            .unwrap_or(lines.len());
        let after_add = k > 0 && lines[k - 1].kind == Prefix::Add;
        // Right after removed lines: the replacement, whose `+` may be lost.
        let after_change = after_add || (k > 0 && lines[k - 1].kind == Prefix::Remove);
        let before_add = lines.get(end).is_some_and(|l| l.kind == Prefix::Add);
        // Empty lines at the very top or bottom of a hunk are usually blank
        // unchanged lines that lost their space, but may be added ones that
        // lost their `+` (a blank line added before a block): one reading.
        let blank = |r: &[BodyLine]| r.iter().all(|l| l.damage == Some(Damage::Blank));
        let edge_blank = |j: usize| {
            (k == 0 && blank(&lines[k..=j])) || (end == lines.len() && blank(&lines[j..end]))
        };
        #[allow(clippy::needless_range_loop)] // `j` is compared with `k` and `end` too
        for j in k..end {
            let l = &lines[j];
            // A line that kept a marker (odd indentation) is only taken for
            // an added one next to added lines; after removed lines it is
            // as likely a continuation line aligned at an odd column.
            let after = if l.damage.is_some() {
                after_change
            } else {
                after_add
            };
            let added = match adds {
                Adds::None => false,
                Adds::Inside => after_add && before_add,
                Adds::All => after || before_add,
                Adds::First => after && (j == k || before_add),
                Adds::Last => before_add && (j + 1 == end || after_add),
            } || (adds == Adds::All && edge_blank(j));
            let line = match (l.damage, added) {
                (Some(Damage::Blank), true) => (Prefix::Add, String::new()),
                (Some(_), true) => (Prefix::Add, l.text.clone()),
                (Some(_), false) => (Prefix::Context, l.text.clone()),
                // Odd indentation: the marker became part of the text.
                (None, true) => (Prefix::Add, format!(" {}", l.text)),
                (None, false) if matches!(indent, Indent::Back | Indent::AllBack) => {
                    (Prefix::Context, format!(" {}", l.text))
                }
                (None, false) if indent == Indent::Away => {
                    (Prefix::Context, l.text[1..].to_owned())
                }
                (None, false) => (l.kind, l.text.clone()),
            };
            out.push(line);
        }
        k = end;
    }
    out
}

/// The readings of a hunk, most likely first, without duplicates, each
/// with the most tolerant level it may be found at: a reading that gave
/// lines a space back (or took one) must match without a further
/// indentation shift. A hunk without doubtful lines has one reading.
///
/// When the output ends inside the hunk's last line, that line may be cut
/// short, so the header's counts decide what the body can be: a reading
/// shorter than the header (a cut doubtful line read as added, say) is the
/// reading of a cut hunk and is left out.
pub fn readings(h: &Hunk) -> Vec<(Body, Level)> {
    let mut out = all_readings(h);
    if let Some((ho, hn)) = h.header.old.zip(h.header.new).filter(|_| h.open_end) {
        let fits = |b: &Body| {
            let old = b.iter().filter(|l| l.0 != Prefix::Add).count();
            let new = b.iter().filter(|l| l.0 != Prefix::Remove).count();
            old >= ho.1 && new >= hn.1
        };
        if out.iter().any(|r| fits(&r.0)) {
            out.retain(|r| fits(&r.0));
        }
    }
    out
}

fn all_readings(h: &Hunk) -> Vec<(Body, Level)> {
    let mut out: Vec<(Body, Level)> = vec![];
    for indent in [Indent::Keep, Indent::Back, Indent::AllBack, Indent::Away] {
        let cap = if indent == Indent::Keep {
            Level::Unicode
        } else {
            Level::TrailingWs
        };
        for adds in [Adds::Inside, Adds::None, Adds::All, Adds::First, Adds::Last] {
            let b = read_as(h, adds, indent);
            if !out.iter().any(|o| o.0 == b) {
                out.push((b, cap));
            }
        }
    }
    out
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// "header says 7 old lines but the body has 6", for each side that disagrees.
pub fn count_problems(h: &Hunk) -> Vec<(bool, String)> {
    let (o, n) = h.counts();
    let mut v = vec![];
    for (old, side, have) in [(true, h.header.old, o), (false, h.header.new, n)] {
        if let Some((_, said)) = side {
            if said != have {
                let word = if old { "old line" } else { "new line" };
                v.push((
                    old,
                    format!("header says {} but the body has {have}", plural(said, word)),
                ));
            }
        }
    }
    v
}

/// "line 3 of the hunk lacks its prefix ..."
pub fn prefix_problem(k: usize, l: &BodyLine) -> String {
    format!(
        "line {k} of the hunk lacks its prefix (output line {}: `{}`); start it with a space if unchanged, `+` if added, `-` if removed",
        l.out_line,
        l.text.trim_end()
    )
}

/// What strict mode (`git apply`) refuses in a hunk's text.
pub fn strict_problems(h: &Hunk) -> Vec<String> {
    let mut v = vec![];
    if h.header.old.is_none() || h.header.new.is_none() {
        v.push(format!(
            "the hunk header `{}` has no line numbers; strict mode needs `@@ -START,COUNT +START,COUNT @@`",
            h.header.text.trim()
        ));
    }
    for (k, l) in h.lines.iter().enumerate() {
        if l.damage == Some(Damage::NoPrefix) {
            v.push(prefix_problem(k + 1, l));
        }
    }
    v.extend(count_problems(h).into_iter().map(|p| p.1));
    v
}

/// The message of a hunk cut off by the end of the output.
pub fn cut_message(h: &Hunk) -> String {
    let (o, n) = h.counts();
    match h.header.old.zip(h.header.new) {
        Some((ho, hn)) if (o < ho.1 || n < hn.1) && h.maybe_miscounted => format!(
            "the hunk `{}` (output line {}) ends with the output before its header's counts are met: the header says {} and {}, the hunk has {o} and {n}. {} (then send the rest, from this hunk on) or the header's counts are wrong (then correct them to -{},{o} +{},{n}). Nothing was applied; a caller that knows the reply ended on its own passes the model's stop reason `stop` (`--stop-reason stop`, `stopReason: \"stop\"`), and then a complete one applies",
            h.header.text.trim(),
            h.out_line,
            plural(ho.1, "old line"),
            plural(hn.1, "new line"),
            crate::apply::feedback::CUT_OR_MISCOUNTED,
            ho.0,
            hn.0
        ),
        Some((ho, hn)) if o < ho.1 || n < hn.1 => format!(
            "the hunk `{}` (output line {}) is cut off: its header says {} and {}, the output ends after {o} and {n}; the reply was cut off",
            h.header.text.trim(),
            h.out_line,
            plural(ho.1, "old line"),
            plural(hn.1, "new line")
        ),
        _ if h.maybe_miscounted => format!(
            "the hunk `{}` (output line {}) ends with a line that holds only its marker and no line break: the reply was cut off inside that line (if it is complete, the caller passes the model's stop reason `stop`)",
            h.header.text.trim(),
            h.out_line
        ),
        _ => format!(
            "the output ends inside the fenced diff, in the hunk `{}` (output line {}); the reply was cut off",
            h.header.text.trim(),
            h.out_line
        ),
    }
}

/// The message of a hunk that has nothing to be found by.
pub fn no_context_message(h: &Hunk) -> String {
    format!(
        "the hunk `{}` (output line {}) has no unchanged or removed lines, so there is nothing to find its place by; include 2-3 unchanged lines around the change",
        h.header.text.trim(),
        h.out_line
    )
}

fn replace(old: Vec<String>, new: Vec<String>, hint: Option<usize>) -> Op {
    Op::Replace {
        old,
        new,
        hint,
        anchors: vec![],
        at_end: false,
    }
}

/// The readings of a hunk as `Replace` ops with the stated line as hint,
/// each with the index of its body in [`readings`]; readings with no old
/// lines (nothing to find) are left out.
pub fn replace_readings(h: &Hunk, all: &[(Body, Level)]) -> Vec<(usize, Reading)> {
    let hint = h.old_start().map(|s| s.saturating_sub(1));
    all.iter()
        .enumerate()
        .map(|(k, (b, cap))| (k, old_new(b), *cap))
        .filter(|(_, (o, _), _)| !o.is_empty())
        .map(|(k, (o, n), max_level)| {
            let op = replace(o, n, hint);
            (k, Reading { op, max_level })
        })
        .collect()
}

/// The edit for one hunk of an existing file.
fn hunk_op(h: &Hunk, strict: bool) -> Op {
    let invalid = |code, message| Op::invalid(code, message);
    if h.cut {
        return invalid(Code::Truncated, cut_message(h));
    }
    if strict {
        let p = strict_problems(h);
        if !p.is_empty() {
            return invalid(
                Code::Malformed,
                format!(
                    "hunk `{}` (output line {}): {}. Strict mode reads diffs as `git apply` does",
                    h.header.text.trim(),
                    h.out_line,
                    p.join("; ")
                ),
            );
        }
    }
    let all = if strict {
        vec![(as_written(h), Level::Unicode)]
    } else {
        readings(h)
    };
    let (old, new) = old_new(&all[0].0);
    if old.is_empty() {
        // Only additions: placed by number at the top, or where strict
        // mode is told (as `git apply --unidiff-zero` does).
        return match h.old_start() {
            Some(0) => Op::Lines {
                start: 0,
                end: 0,
                new,
                check: Check::None,
            },
            Some(s) if strict => Op::Lines {
                start: s,
                end: s,
                new,
                check: Check::None,
            },
            _ => invalid(Code::Malformed, no_context_message(h)),
        };
    }
    let mut ops: Vec<Reading> = replace_readings(h, &all).into_iter().map(|r| r.1).collect();
    // One reading needs no choosing (and strict mode caps the level itself).
    if ops.len() == 1 {
        ops.pop().expect("one").op
    } else {
        Op::OneOf(ops)
    }
}

/// Edits for every file part of a diff.
pub fn to_edits(files: &[FileDiff], strict: bool) -> Parsed {
    let mut parsed = Parsed::default();
    let mut mentions = vec![];
    for f in files {
        let path = f.target().map(str::to_owned);
        for (op, span) in file_ops(f, strict, &mut mentions) {
            parsed.edits.push(Edit {
                path: path.clone(),
                op,
                span,
            });
        }
    }
    attach_mentions(&mut parsed, mentions);
    parsed.truncated = parsed.edits.iter().any(Edit::is_cut);
    parsed
}

/// An edit of one file's diff: its operation and its span in the output.
type Spanned = (Op, std::ops::Range<usize>);

/// The edits of one file's diff, in output order; the files the prose
/// above its hunks names go to `mentions` (by hunk start).
fn file_ops(f: &FileDiff, strict: bool, mentions: &mut Vec<(usize, String)>) -> Vec<Spanned> {
    let name = f.target().unwrap_or("the file");
    if let Some(refused) = refused(f, name) {
        return vec![refused];
    }
    if f.deleted {
        // The removed lines are not compared: deleting is deleting.
        return vec![(Op::Delete, f.span.clone())];
    }
    if f.created {
        return vec![(created(f, name, strict), f.span.clone())];
    }
    let mut out = vec![];
    // The move is listed where its header is, before the hunks (edits
    // come in output order; the transaction moves the file after its
    // other edits whatever the order).
    if let Some((_, to)) = &f.rename {
        let head = f.span.start..f.hunks.first().map_or(f.span.end, |h| h.span.start);
        out.push((Op::Rename { to: to.clone() }, head));
    }
    for h in &f.hunks {
        if let Some(m) = &h.mention {
            mentions.push((h.span.start, m.clone()));
        }
        out.push((hunk_op(h, strict), h.span.clone()));
    }
    if f.hunks.is_empty() && f.rename.is_none() && !f.mode_only {
        let message = format!("the diff for {name} has no hunks; each change is a `@@ -START,COUNT +START,COUNT @@` line followed by its lines");
        out.push((Op::invalid(Code::Malformed, message), f.span.clone()));
    }
    out
}

/// A file's diff that cannot be used at all: unsupported, cut after its
/// header, or a created or deleted file whose hunk was cut.
fn refused(f: &FileDiff, name: &str) -> Option<Spanned> {
    let invalid = |code, message| Op::invalid(code, message);
    if let Some(why) = &f.unsupported {
        let op = invalid(Code::Malformed, format!("{name}: {why}"));
        return Some((op, f.span.clone()));
    }
    if f.cut {
        let message = format!("the output ends right after the diff header of {name}, before its first hunk; the reply was cut off");
        return Some((invalid(Code::Truncated, message), f.span.clone()));
    }
    let h = f
        .hunks
        .iter()
        .find(|h| h.cut)
        .filter(|_| f.created || f.deleted)?;
    Some((invalid(Code::Truncated, cut_message(h)), h.span.clone()))
}

/// A created file: its added lines, or (strict) the refusal of hunks that
/// do more than add.
fn created(f: &FileDiff, name: &str, strict: bool) -> Op {
    let bad: Vec<String> = f.hunks.iter().flat_map(strict_problems).collect();
    let odd = f
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .any(|l| l.kind == Prefix::Context && l.damage.is_none());
    if strict && (!bad.is_empty() || odd) {
        let mut why = bad;
        if odd {
            why.push("a new file's hunk may only add lines (`+`)".into());
        }
        return Op::invalid(Code::Malformed, format!("{name}: {}", why.join("; ")));
    }
    let text = f
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter(|l| l.is_new())
        .map(|l| l.text.clone())
        .collect();
    Op::Create { text }
}

/// Each mention belongs to the edit of the hunk that starts there. Both
/// are in output order: one pass.
fn attach_mentions(parsed: &mut Parsed, mentions: Vec<(usize, String)>) {
    let mut k = 0;
    for (at, m) in mentions {
        while k < parsed.edits.len() && parsed.edits[k].span.start < at {
            k += 1;
        }
        if parsed.edits.get(k).is_some_and(|e| e.span.start == at) {
            parsed.mentions.push((k, m));
        }
    }
}
