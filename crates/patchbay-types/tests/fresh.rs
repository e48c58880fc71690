//! The committed declarations are what the Rust types generate now.

#[test]
fn generated_declarations_are_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (path, text) in patchbay_types::files() {
        let committed = std::fs::read_to_string(root.join(path)).unwrap_or_default();
        assert!(
            committed == text,
            "{path} is stale: run `cargo run -p patchbay-types`"
        );
    }
}

#[test]
fn declarations_have_no_escape_hatches() {
    for (path, text) in patchbay_types::files() {
        for bad in [": any", "<any>", "any[]", "(string & {})", "unknown"] {
            assert!(!text.contains(bad), "{path} contains {bad}");
        }
    }
}

#[test]
fn codes_and_levels_are_string_unions() {
    let core = patchbay_types::core();
    for needle in [
        "\"not_shown\"",
        "\"syntax_error\"",
        "\"trailing_ws\"",
        "\"search-replace\"",
    ] {
        assert!(core.contains(needle), "missing {needle}");
    }
}
