//! The syntax-aware commands, on patchbay-syntax: `outline` and `slice`
//! (read and print), `splice` (writes FILE atomically, refuses a file that
//! changed since the slice), and the `--check-syntax` step of `apply`.

use crate::args::{OutlineArgs, SliceArgs, SpliceArgs};
use crate::commit::{commit, CommitError};
use crate::fsio::{self, Change, Expect, Refusal, Root};
use crate::read_only::{read, read_source};
use crate::{out, Failure};
use patchbay::apply::report::Report;
use patchbay_syntax::Language;
use std::collections::BTreeMap;
use std::path::Path;

/// One JSON line; a type that serialises cannot fail.
macro_rules! json {
    ($v:expr) => {
        serde_json::to_string($v).unwrap_or_default() + "\n"
    };
}

/// What `outline`, `slice` and `splice` share once parsed: the three
/// commands read the file and resolve its language the same way.
pub struct SyntaxArgs {
    /// `outline`, `slice` or `splice`.
    pub command: &'static str,
    pub file: String,
    pub symbol: Option<String>,
    pub slice: Option<String>,
    pub json: bool,
    pub dry_run: bool,
    pub language: Option<String>,
}

impl From<OutlineArgs> for SyntaxArgs {
    fn from(a: OutlineArgs) -> Self {
        SyntaxArgs {
            command: "outline",
            file: a.file,
            symbol: None,
            slice: None,
            json: a.json,
            dry_run: false,
            language: a.language.name,
        }
    }
}

impl From<SliceArgs> for SyntaxArgs {
    fn from(a: SliceArgs) -> Self {
        SyntaxArgs {
            command: "slice",
            file: a.file,
            symbol: Some(a.symbol),
            slice: None,
            json: a.json,
            dry_run: false,
            language: a.language.name,
        }
    }
}

impl From<SpliceArgs> for SyntaxArgs {
    fn from(a: SpliceArgs) -> Self {
        SyntaxArgs {
            command: "splice",
            file: a.file,
            symbol: Some(a.symbol),
            slice: Some(a.slice),
            json: false,
            dry_run: a.dry_run,
            language: a.language.name,
        }
    }
}

/// Runs `outline`, `slice` or `splice`; returns the exit code.
pub fn run(a: &SyntaxArgs) -> Result<i32, Failure> {
    let lang = Language::resolve(&a.file, a.language.as_deref())
        .map_err(|e| Failure::Usage(e.to_string()))?;
    // A splice that writes holds its folder's lock from before the read
    // (recovering a killed commit first, so it reads a whole tree).
    let _lock = match a.command {
        "splice" if !a.dry_run => crate::journal::lock(&folder(&a.file)?.0).map_err(Failure::Io)?,
        _ => None,
    };
    let text = read_bounded(&a.file)?;
    let symbol = a.symbol.as_deref().unwrap_or("");
    match a.command {
        "outline" => {
            let o = patchbay_syntax::outline(&text, lang).map_err(io)?;
            out(&if a.json { json!(&o) } else { o.render() });
            for n in &o.notes {
                eprintln!("note: {}: {n}", a.file);
            }
            Ok(0)
        }
        "slice" => match patchbay_syntax::slice::slice(&a.file, &text, lang, symbol) {
            Ok(s) if a.json => {
                out(&json!(&s));
                Ok(0)
            }
            Ok(s) => {
                out(&s.text);
                Ok(0)
            }
            Err(e) => refuse(&e.to_string()),
        },
        _ => splice(a, lang, &text),
    }
}

/// FILE as text (see [`read_source`]), refused before it is read when it
/// is larger than the syntax crate parses
/// ([`patchbay_syntax::MAX_SOURCE_BYTES`]): a 300 MB file's tree needs more
/// than 4 GiB. Stdin is read up to one byte past the limit.
fn read_bounded(file: &str) -> Result<String, Failure> {
    let limit = patchbay_syntax::MAX_SOURCE_BYTES;
    let size = match file {
        "-" => None,
        _ => std::fs::metadata(file).ok().map(|m| m.len()),
    };
    if let Some(bytes) = size.filter(|&n| n > limit as u64) {
        return Err(too_large(file, bytes));
    }
    let text = match file {
        "-" => {
            let mut b = Vec::new();
            let stdin = std::io::stdin().lock();
            std::io::Read::read_to_end(&mut std::io::Read::take(stdin, limit as u64 + 1), &mut b)
                .map_err(|e| Failure::Io(format!("cannot read -: {e}")))?;
            if b.len() > limit {
                return Err(too_large(file, b.len() as u64));
            }
            crate::fsio::editable_text(b, file).map_err(Failure::Io)?
        }
        _ => read_source(file)?,
    };
    // The file may have grown between the size check and the read.
    match text.len() {
        n if n > limit => Err(too_large(file, n as u64)),
        _ => Ok(text),
    }
}

/// The refusal of a file over the limit (code `too_large`, exit 2).
fn too_large(file: &str, bytes: u64) -> Failure {
    let limit = patchbay_syntax::MAX_SOURCE_BYTES;
    let shown = if file == "-" {
        format!("stdin is more than {limit} bytes")
    } else {
        format!("{file} is {bytes} bytes")
    };
    Failure::Io(format!(
        "{shown}; outline, slice and splice parse files of at most {limit} bytes ({} MiB), so it was not read (code too_large)",
        limit / (1024 * 1024)
    ))
}

/// A result the user can act on (no such symbol, a stale slice): exit 1.
fn refuse(message: &str) -> Result<i32, Failure> {
    eprintln!("error: {}", crate::term::shown(message));
    Ok(1)
}

fn io(e: patchbay_syntax::Error) -> Failure {
    Failure::Io(e.to_string())
}

/// `splice FILE SYMBOL SLICE`.
fn splice(a: &SyntaxArgs, lang: Language, text: &str) -> Result<i32, Failure> {
    let symbol = a.symbol.as_deref().unwrap_or("");
    let given = read(a.slice.as_deref().unwrap_or("-"))?;
    // The JSON of `slice --json` carries the origin; anything else is the
    // edited text of SYMBOL as the file is now. What starts with `{` is
    // JSON or refused: a cut or forged slice is never written as code.
    let (slice, edited) = if patchbay_syntax::slice::looks_like_json(&given) {
        match patchbay_syntax::slice::from_json(&given) {
            Ok(s) => {
                let edited = s.text.clone();
                (s, edited)
            }
            Err(e) => return refuse(&format!("{}: {e}", a.slice.as_deref().unwrap_or("-"))),
        }
    } else {
        match patchbay_syntax::slice::slice(&a.file, text, lang, symbol) {
            Ok(s) => (s, given),
            Err(e) => return refuse(&e.to_string()),
        }
    };
    // The file is checked first: a changed file makes every other answer
    // unreliable.
    let crc = patchbay::file_crc(text);
    if crc != slice.file_crc {
        return refuse(&format!(
            "{} changed since the slice was cut (CRC-32 {:08x}, now {crc:08x}); slice it again and redo the edit",
            a.file, slice.file_crc
        ));
    }
    let o = patchbay_syntax::outline(text, lang).map_err(io)?;
    match o.find(symbol) {
        Ok(s) if s.lines == slice.lines => {}
        Ok(s) => {
            return refuse(&format!(
                "the slice was cut from `{}` (lines {}-{}), but `{symbol}` is `{}` (lines {}-{})",
                slice.symbol, slice.lines[0], slice.lines[1], s.qualified, s.lines[0], s.lines[1]
            ))
        }
        Err(e) => return refuse(&e.to_string()),
    }
    let new = match patchbay_syntax::splice::splice(text, &slice, &edited) {
        Ok(n) => n,
        Err(e) => return refuse(&e.to_string()),
    };
    for i in patchbay_syntax::new_issues(text, &new, lang).unwrap_or_default() {
        eprintln!(
            "warning: {} line {}: {} (the edit introduced it)",
            a.file, i.lines[0], i.message
        );
    }
    if a.dry_run {
        out(&new);
        return Ok(0);
    }
    if let Err(m) = write(&a.file, text, &new)? {
        return refuse(&m);
    }
    let added = new.lines().count() as isize - text.lines().count() as isize;
    out(&format!(
        "spliced {} into {} (lines {}-{}, {added:+} lines)\n",
        slice.symbol, a.file, slice.lines[0], slice.lines[1]
    ));
    Ok(0)
}

/// The folder of `file` as a root, and the file's name in it.
fn folder(file: &str) -> Result<(Root, &str), Failure> {
    let p = Path::new(file);
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = p
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Failure::Usage(format!("{file} is not a file path")))?;
    Ok((Root::open(dir).map_err(Failure::Io)?, name))
}

/// Replaces `file` all or nothing (see `commit.rs`), with the same checks
/// as `apply` (no symbolic link out of its folder); the caller holds the
/// folder's lock. `Ok(Err(message))` when the file is no longer `before`
/// (exit 1).
fn write(file: &str, before: &str, content: &str) -> Result<Result<(), String>, Failure> {
    let (root, name) = folder(file)?;
    let target = root.resolve(name).map_err(|r| match r {
        Refusal::Escape(m) | Refusal::Io(m) => Failure::Io(m),
    })?;
    let changed = |why: &str| {
        format!("{file} changed on disk after it was read ({why}), so nothing was written (code file_changed); slice it again and redo the edit")
    };
    let stamp = match fsio::read_stamped(&target.real, name).map_err(Failure::Io)? {
        Some((now, stamp)) if now == before => stamp,
        _ => return Ok(Err(changed("its content is not what was read"))),
    };
    let change = Change::Write {
        path: target.real,
        content,
        expect: Expect::Same(stamp),
    };
    match commit(&root, &[change]) {
        Ok(()) => Ok(Ok(())),
        Err(CommitError::Changed { why, .. }) => Ok(Err(changed(&why))),
        Err(CommitError::Reserved { why, .. }) => Err(Failure::Io(why)),
        Err(CommitError::Io(m)) => Err(Failure::Io(m)),
    }
}

/// `apply --check-syntax`: new syntax errors as warnings on the receipts,
/// or with `--fail-on-syntax` as failures (then nothing is written).
pub fn check(report: &mut Report, before: &BTreeMap<String, String>, fail: bool) {
    let policy = if fail {
        patchbay_syntax::Policy::Fail
    } else {
        patchbay_syntax::Policy::Warn
    };
    patchbay_syntax::check_report(report, before, policy);
}
