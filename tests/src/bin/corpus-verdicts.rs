//! Prints patchbay's verdict on every corpus case as one JSON object a line
//! (`case`, `format`, `fault`, `trap`, `expect`, `verdict`), for the peer
//! comparison of `scripts/peers.sh`. Uses the corpus runner's `check`, so
//! the verdicts are exactly the ones `cargo test --test corpus` counts.
//!
//! `cargo run -p patchbay-tests --bin corpus-verdicts [CORPUS_DIR]`

use patchbay_tests::{case_dirs, check};
use std::path::PathBuf;

fn main() {
    let root = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus"));
    for d in case_dirs(&root) {
        let o = check(&d, false);
        let name = d
            .strip_prefix(&root)
            .unwrap_or(&d)
            .to_string_lossy()
            .into_owned();
        let line = serde_json::json!({
            "case": name,
            "format": o.case.format,
            "fault": o.case.fault,
            "trap": o.case.trap,
            "expect": o.case.expect,
            "verdict": format!("{:?}", o.verdict),
        });
        println!("{line}");
    }
}
