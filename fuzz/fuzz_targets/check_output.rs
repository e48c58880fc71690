//! The truncation checker (`patchbay::reply::counts`) on arbitrary text: declared
//! totals, numbered items, cut JSON, `EDITS: N`, continuation prompts.
//! The first byte picks the protocol's labels and the API's stop reason.
//!
//! Invariants: nothing panics; the last complete item is one of the items
//! found; the report serialises.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patchbay::reply::counts::{self, Protocol};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let p = if sel & 1 == 0 {
        Protocol::english()
    } else {
        Protocol::japanese()
    };
    let stop = match (sel >> 1) % 4 {
        0 => None,
        1 => Some("max_tokens"),
        2 => Some("length"),
        _ => Some("end_turn"),
    };
    let check = counts::check_output(&text, &p, stop);
    if let Some(n) = check.last_complete {
        assert!(
            check.items.iter().any(|i| i.n == n),
            "last complete {n} is not an item"
        );
    }
    serde_json::to_string(&check).expect("serialises");
    let _ = counts::continuation_prompt(&check, &p);
    let _ = counts::declared_edits(&text);
    let _ = counts::stopped_by_limit(stop);
});
