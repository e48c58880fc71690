//! `patchbay::apply` and the streaming parser on an arbitrary file and an
//! arbitrary reply, every registered format and `auto`.
//!
//! Layout of the input: byte 0 picks the format, byte 1 the options
//! (strict, partial, max level), byte 2 where the stream is chunked; the
//! rest is `FILE \0 REPLY` (without a NUL the whole rest is the reply and
//! the file is empty).
//!
//! Invariants: nothing panics; a report that says `applied` has every edit
//! applied (or read-only) and a failed one has a failed edit or a code;
//! without `partial`, a failed report carries no new content, and a
//! truncated one never does;
//! the stream, fed the reply in chunks, finishes with the same report.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patchbay::reply::stream::Stream;
use patchbay::{ApplyOptions, EditStatus, Level, Options, Status};
use std::collections::BTreeMap;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let names = patchbay::FormatName::ALL;
    let format = names[data[0] as usize % names.len()];
    let flags = data[1];
    let step = 1 + data[2] as usize % 64;
    let rest = &data[3..];
    let (file, reply) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (&rest[..0], rest),
    };
    let file = String::from_utf8_lossy(file).into_owned();
    let reply = String::from_utf8_lossy(reply).into_owned();
    let mut files = BTreeMap::new();
    files.insert("src/a.rs".to_string(), file.clone());
    files.insert("b.py".to_string(), file);
    let opt = ApplyOptions {
        format,
        strict: flags & 1 != 0,
        transaction: Options {
            partial: flags & 2 != 0,
            default_path: Some("src/a.rs".into()),
            max_level: Level::ALL[(flags >> 2) as usize % Level::ALL.len()],
            ..Default::default()
        },
        stop_reason: match (flags >> 5) % 3 {
            0 => None,
            1 => Some(patchbay::StopReason::Stop),
            _ => Some(patchbay::StopReason::Length),
        },
        ..Default::default()
    };
    let report = patchbay::apply(&reply, &files, &opt);
    serde_json::to_string(&report).expect("serialises");
    let receipts = report.receipts();
    match report.status {
        Status::Applied => assert!(
            receipts.iter().all(|r| r.status != EditStatus::Failed),
            "applied with a failed edit: {report:?}"
        ),
        Status::Failed | Status::Truncated => {
            assert!(
                report.code.is_some() || receipts.iter().any(|r| r.status == EditStatus::Failed),
                "a failure without a failed edit or a code: {report:?}"
            );
            if !opt.transaction.partial || report.status == Status::Truncated {
                assert!(
                    report.files.iter().all(|f| f.content.is_none()),
                    "all-or-nothing broken: {report:?}"
                );
            }
        }
    }

    let mut s = Stream::new(files, opt);
    let mut i = 0;
    while i < reply.len() {
        let mut j = (i + step).min(reply.len());
        while !reply.is_char_boundary(j) {
            j += 1;
        }
        let _ = s.push(&reply[i..j]);
        i = j;
    }
    let streamed = s.finish();
    assert_eq!(
        streamed, report,
        "the stream's final report differs from apply"
    );
});
