//! Prints, for every corpus case, its inputs and the native core's report
//! as one JSON object a line (`case`, `files`, `reply`, `options`, `report`,
//! `after`): what the npm package's tests hold the installed package to.
//! `after` is the case's expected files (its oracle) for applied cases.
//!
//! `cargo run -p patchbay-tests --bin corpus-reports [CORPUS_DIR]`

use patchbay::ApplyOptions;
use patchbay_tests::{case_dirs, load_tree, Case};
use std::io::Write;
use std::path::{Path, PathBuf};

fn main() {
    let root = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus"));
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for d in case_dirs(&root) {
        let line = report_line(&root, &d);
        writeln!(out, "{line}").expect("stdout");
    }
}

/// One case as the JSON line described above.
fn report_line(root: &Path, dir: &Path) -> serde_json::Value {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect(name);
    let case: Case = serde_json::from_str(&read("case.json")).expect("case.json");
    let files = load_tree(&dir.join("before"));
    let reply = read("output.txt");
    let mut options = match case.options {
        serde_json::Value::Object(m) => m,
        _ => serde_json::Map::new(),
    };
    options.insert("format".into(), case.format.clone().into());
    let opt: ApplyOptions =
        serde_json::from_value(serde_json::Value::Object(options.clone())).expect("options");
    let report = patchbay::apply(&reply, &files, &opt);
    let after = (case.expect.status == "applied").then(|| load_tree(&dir.join("after")));
    let name = dir.strip_prefix(root).unwrap_or(dir).to_string_lossy();
    serde_json::json!({
        "case": name,
        "format": case.format,
        "files": files,
        "reply": reply,
        "options": options,
        "report": report,
        "after": after,
    })
}
