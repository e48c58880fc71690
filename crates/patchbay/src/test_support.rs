//! What the core's unit tests share (the integration tests have theirs in
//! `tests/support/`): files from `(path, text)` pairs, and a reply applied
//! in one format.

use crate::{apply, ApplyOptions, Report};
use std::collections::BTreeMap;

/// The files `pairs` name, path to text.
pub(crate) fn files(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

/// The report of `out` applied to `files` in `format` (a registry name),
/// strict or not, every other option the default.
pub(crate) fn apply_in(
    format: &str,
    out: &str,
    files: &BTreeMap<String, String>,
    strict: bool,
) -> Report {
    let opt = ApplyOptions {
        format: format.parse().unwrap(),
        strict,
        ..Default::default()
    };
    apply(out, files, &opt)
}
