//! The read-only commands: `tag`, `check-output` and `diagnose`. Each reads
//! its input, calls one core function and prints; none writes anything.

use crate::args::{CheckArgs, DiagnoseArgs, TagArgs};
use crate::fsio::{self, Root};
use crate::{out, Failure};
use patchbay::formats::udiff;
use patchbay::reply::counts::{check_output as check, continuation_prompt, Protocol, Verdict};
use std::collections::BTreeMap;
use std::path::Path;

/// Reads a text argument (`-` is stdin); shared by the small commands.
pub fn read(path: &str) -> Result<String, Failure> {
    let text = if path == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map(|_| s)
    } else {
        std::fs::read_to_string(path)
    };
    text.map_err(|e| Failure::Io(format!("cannot read {path} as UTF-8 text: {e}")))
}

/// Reads a file to edit or to prepare an edit of (`-` is stdin), by the
/// same rule as `apply` ([`fsio::editable_text`]): `tag` once showed tags
/// for a file with NUL bytes that `apply` then refused.
pub fn read_source(path: &str) -> Result<String, Failure> {
    let bytes = if path == "-" {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut b).map(|_| b)
    } else {
        std::fs::read(path)
    };
    let bytes = bytes.map_err(|e| Failure::Io(format!("cannot read {path}: {e}")))?;
    fsio::editable_text(bytes, path).map_err(Failure::Io)
}

/// `patchbay tag FILE`: the tagged view, exactly as the model should see it.
pub fn tag(a: &TagArgs) -> Result<i32, Failure> {
    let text = read_source(&a.file)?;
    if a.crc {
        out(&patchbay::crc_view(&a.file, &text));
        return Ok(0);
    }
    out(&patchbay::formats::hashline::tags::view(
        &text,
        a.tags.options(),
    ));
    Ok(0)
}

/// `patchbay check-output OUT.txt`: declared counts against what arrived.
pub fn check_output(a: &CheckArgs) -> Result<i32, Failure> {
    let text = read(&a.output)?;
    // Nothing arrived: not a cut reply (there is nothing to continue) but
    // no reply at all, an input error like an unreadable file (exit 2).
    if text.trim().is_empty() {
        return Err(Failure::Io(format!(
            "{}: empty reply, nothing to check (ask for the reply again)",
            a.output
        )));
    }
    // The labels decide the language of the continuation prompt.
    let p = if text.contains("総件数") || text.contains("## 指摘") {
        Protocol::japanese()
    } else {
        Protocol::english()
    };
    let c = check(&text, &p, a.stop_reason.as_deref());
    if a.json {
        out(&(serde_json::to_string(&c).unwrap_or_default() + "\n"));
    } else {
        let total = c
            .declared_total
            .map_or("not declared".to_string(), |t| t.to_string());
        let verdict = match &c.verdict {
            Verdict::Complete => "complete".to_string(),
            Verdict::Truncated { missing: Some(m) } => format!("truncated: {m} missing"),
            Verdict::Truncated { missing: None } => {
                "truncated: how many are missing is unknown".to_string()
            }
            Verdict::Inconsistent { reason } => format!("inconsistent: {reason}"),
        };
        out(&format!(
            "declared total: {total}\ncomplete items: {}\nlast complete: {}\npartial item dropped: {}\nverdict: {verdict}\n",
            c.items.len(),
            c.last_complete.map_or("none".to_string(), |n| n.to_string()),
            if c.dropped_partial { "yes" } else { "no" },
        ));
        if c.items.is_empty() && !text.trim().is_empty() {
            out(&format!(
                "note: no complete item was found; items are read as `## Item n/N` (or Finding, Issue, Change, ...) followed by the fields {}, each on its own line (`- Location: ...`)\n",
                p.fields.iter().map(|f| format!("`{f}:`")).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    if a.continuation && matches!(c.verdict, Verdict::Truncated { .. }) {
        out(&format!("\n{}\n", continuation_prompt(&c, &p)));
    }
    Ok(match c.verdict {
        Verdict::Complete => 0,
        Verdict::Truncated { .. } => 3,
        Verdict::Inconsistent { .. } => 1,
    })
}

/// `patchbay diagnose OUT.txt`: why a unified diff fails strictly, hunk by
/// hunk; or its repair; or where GNU patch's fuzz would put each hunk.
pub fn diagnose(a: &DiagnoseArgs) -> Result<i32, Failure> {
    let output = read(&a.output)?;
    let files = diff_targets(&output, &a.root)?;
    if a.repair {
        return match udiff::repair(&output, &files) {
            Ok(diff) => {
                out(&diff);
                Ok(0)
            }
            Err(e) => {
                eprintln!("cannot repair: {}", crate::term::shown(&e.to_string()));
                Ok(1)
            }
        };
    }
    if a.fuzz {
        return Ok(fuzz(&output, &files, a.json));
    }
    let hunks = udiff::diagnose(&output, &files);
    if a.json {
        out(&(serde_json::to_string(&hunks).unwrap_or_default() + "\n"));
    } else {
        for h in &hunks {
            let lenient = h
                .lenient_lines
                .map_or("does not apply".to_string(), |[x, y]| {
                    format!("applies at lines {x}-{y}")
                });
            out(&format!(
                "hunk {} ({}, output line {}) {}: strict {}; lenient {lenient}\n",
                h.hunk,
                h.path.as_deref().unwrap_or("?"),
                h.output_line,
                h.header,
                if h.strict_ok { "applies" } else { "fails" }
            ));
            for f in &h.findings {
                out(&format!("  - {}\n", f.message));
            }
        }
    }
    Ok(if hunks.iter().all(|h| h.strict_ok) {
        0
    } else {
        1
    })
}

/// The files a diff names, read from under `root`; files outside the root
/// are not read and count as missing.
fn diff_targets(output: &str, root: &Path) -> Result<BTreeMap<String, String>, Failure> {
    let root = Root::open(root).map_err(Failure::Io)?;
    let (_, parsed) = patchbay::parse(output, patchbay::FormatName::Udiff);
    let mut files = BTreeMap::new();
    for rel in patchbay::paths(&parsed, None) {
        if let Ok(r) = root.resolve(&rel) {
            if let Some(text) = fsio::read_text(&r.real, &rel).map_err(Failure::Io)? {
                files.insert(rel, text);
            }
        }
    }
    Ok(files)
}

/// `diagnose --fuzz`: where GNU patch would put each hunk; exit 0 only
/// when it agrees everywhere with the one safe place.
fn fuzz(output: &str, files: &BTreeMap<String, String>, json: bool) -> i32 {
    let reports = udiff::patch_fuzz_simulation(output, files);
    if json {
        out(&(serde_json::to_string(&reports).unwrap_or_default() + "\n"));
    } else {
        for r in &reports {
            out(&format!(
                "hunk {} ({}): {:?}: {}\n",
                r.hunk,
                r.path.as_deref().unwrap_or("?"),
                r.verdict,
                r.message
            ));
        }
    }
    let safe = reports
        .iter()
        .all(|r| r.verdict == udiff::FuzzVerdict::Agrees);
    if safe {
        0
    } else {
        1
    }
}
