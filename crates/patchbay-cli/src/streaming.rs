//! `patchbay apply --stream`: read the model output as it arrives (a pipe
//! from the model client), and print a receipt for each edit the moment it
//! is complete, so the client can stop the generation at the first failure
//! (`--fail-fast` stops reading, writes nothing and exits 1; the writer then
//! sees a closed pipe). When the output ends, the ordinary apply flow runs
//! on the whole text, so what is written is exactly what a plain `apply`
//! writes.

use crate::args::ApplyArgs;
use crate::fsio::{self, Root};
use crate::{out, Failure};
use patchbay::reply::stream::{Event, Stream};
use patchbay::{ApplyOptions, EditStatus};
use std::io::Read as _;

/// What reading the stream ended with.
pub enum Read {
    /// The whole output, to be applied as usual.
    All(String),
    /// Stopped early with this exit code.
    Stopped(i32),
}

pub fn read(a: &ApplyArgs, api: &ApplyOptions, root: &Root) -> Result<Read, Failure> {
    let mut input: Box<dyn std::io::Read> = if a.edits == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(
            std::fs::File::open(&a.edits)
                .map_err(|e| Failure::Io(format!("cannot read --edits {}: {e}", a.edits)))?,
        )
    };
    let mut s = Stream::new(Default::default(), api.clone());
    let mut pending: Vec<u8> = vec![];
    // Reads take what has arrived, up to 64 KB: a model writing slowly gives
    // small chunks anyway, and a reply that is already there (a file, a fast
    // pipe) is judged in few passes instead of one per 4 KB.
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = input
            .read(&mut buf)
            .map_err(|e| Failure::Io(format!("cannot read the output: {e}")))?;
        if n == 0 {
            break;
        }
        pending.extend_from_slice(&buf[..n]);
        // Only whole UTF-8 characters go in; a split one waits for its rest.
        let valid = match std::str::from_utf8(&pending) {
            Ok(t) => t.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(e) => {
                return Err(Failure::Io(format!(
                    "the output is not valid UTF-8 (at byte {})",
                    s.text().len() + e.valid_up_to()
                )))
            }
        };
        let chunk = std::str::from_utf8(&pending[..valid])
            .expect("checked")
            .to_owned();
        pending.drain(..valid);
        s.append(&chunk);
        // Files named by the new text are loaded before its edits are judged.
        for rel in s.new_paths() {
            if s.has_file(&rel) {
                continue;
            }
            if let Ok(r) = root.resolve(&rel) {
                if let Ok(Some(text)) = fsio::read_text(&r.real, &rel) {
                    s.add_file(rel, text);
                }
            }
        }
        let events = s.judge();
        for e in &events {
            print_event(e, a.json);
            if a.fail_fast && e.receipt.status == EditStatus::Failed {
                return Ok(Read::Stopped(1));
            }
        }
    }
    if !pending.is_empty() {
        return Err(Failure::Io(
            "the output ends inside a UTF-8 character".into(),
        ));
    }
    Ok(Read::All(s.text().into_owned()))
}

fn print_event(e: &Event, json: bool) {
    if json {
        out(&(serde_json::to_string(e).unwrap_or_default() + "\n"));
        return;
    }
    let r = &e.receipt;
    let status = match r.status {
        EditStatus::Applied => "located".to_string(),
        EditStatus::Failed => format!("failed [{}]", r.code.map(|c| c.as_str()).unwrap_or("?")),
        EditStatus::Skipped => "skipped".to_string(),
    };
    let lines = r
        .lines
        .map(|[a, b]| format!(" lines {a}-{b}"))
        .unwrap_or_default();
    let msg = match (r.status, &r.message) {
        (EditStatus::Failed, Some(m)) => format!(": {m}"),
        _ => String::new(),
    };
    out(&format!(
        "edit {}: {status} {}{lines}{msg}\n",
        r.index, e.path
    ));
}
