//! Every registered parser on arbitrary text. The first byte picks the
//! format (every name of `patchbay::FormatName::ALL`, `auto` included, so
//! a format registered later is fuzzed without a change here), the second
//! the parse options; the rest is the model output (invalid UTF-8 is
//! replaced, as a caller decoding bytes would).
//!
//! Invariants: nothing panics; every edit's span is a valid range of char
//! boundaries in the output (streaming slices the output with it); the
//! paths a parse names are normalised (no `..`, not absolute); detection
//! returns a registered format with a confidence in `0.0..=1.0`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patchbay::{ParseOptions, TagOptions};

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let names = patchbay::FormatName::ALL;
    let name = names[data[0] as usize % names.len()];
    let opt = ParseOptions {
        strict: data[1] & 1 == 1,
        tags: TagOptions {
            len: 2 + (data[1] as usize >> 1) % 7,
            with_line: data[1] & 0x80 != 0,
        },
        complete: data[1] & 0x40 != 0,
    };
    let output = String::from_utf8_lossy(&data[2..]);
    let (fmt, parsed) = patchbay::parse_with(&output, name, &opt);
    assert!(patchbay::formats::by_id(fmt).is_some());
    for e in &parsed.edits {
        assert!(
            output.get(e.span.clone()).is_some(),
            "span {:?} of a {fmt} edit is not a slice of the output",
            e.span
        );
    }
    for p in patchbay::paths(&parsed, Some("src/default.rs")) {
        assert!(
            !p.starts_with('/') && !p.split('/').any(|c| c == ".."),
            "{p:?}"
        );
    }
    let d = patchbay::detect(&output);
    assert!(patchbay::formats::by_id(d.format).is_some());
    assert!((0.0..=1.0).contains(&d.confidence));
});
