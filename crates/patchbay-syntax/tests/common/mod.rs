//! Shared by the integration tests: the fixture files, one real small file
//! per language (the corpus sources in `tests/tools/sources/` where there
//! is one, else `tests/fixtures/` here), and the bless switch.

#![allow(dead_code)]

use patchbay_syntax::Language;
use std::path::{Path, PathBuf};

/// Corpus sources, relative to the workspace root.
const SOURCES: &[&str] = &[
    "either_lib.rs",
    "semver_parse.rs",
    "textwrap.py",
    "json_decoder.py",
    "ms_index.js",
    "semver_range.js",
    "strings_builder.go",
    "strings_reader.go",
    "ring_poly1305.c",
];

/// Written for these tests (no corpus source in these languages).
const OWN: &[&str] = &[
    "greeter.rs",
    "cache.ts",
    "TodoList.tsx",
    "Inventory.java",
    "shapes.cpp",
    "ringbuf.c",
    "handlers.py",
    // C and C++ headers in the shapes of libstdc++ and Linux UAPI, and an
    // excerpt of SQLite's (public domain): preprocessor conditionals.
    "stl_shapes.hpp",
    "uapi_shapes.h",
    "sqlite3_excerpt.h",
];

pub struct Fixture {
    /// The file name, which also names its expectation files.
    pub name: String,
    pub language: Language,
    pub text: String,
}

fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures() -> Vec<Fixture> {
    let sources = here().join("../../tests/tools/sources");
    let own = here().join("tests/fixtures");
    let paths = SOURCES
        .iter()
        .map(|n| sources.join(n))
        .chain(OWN.iter().map(|n| own.join(n)));
    paths
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            Fixture {
                language: Language::from_path(&name).expect("fixture language"),
                text: std::fs::read_to_string(&p)
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display())),
                name,
            }
        })
        .collect()
}

/// `PATCHBAY_BLESS=1` rewrites expectation files instead of comparing.
pub fn bless() -> bool {
    std::env::var_os("PATCHBAY_BLESS").is_some_and(|v| v != "0")
}

/// Compares `actual` with the file `rel` (under `tests/`), or writes it
/// when blessing. Returns a description of the difference, if any.
pub fn expect_file(rel: &str, actual: &str) -> Option<String> {
    let path: PathBuf = here().join("tests").join(rel);
    if bless() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected == actual {
        return None;
    }
    let first = expected
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(expected.lines().count().min(actual.lines().count()));
    Some(format!(
        "{}: differs from line {} on (PATCHBAY_BLESS=1 rewrites it)\n  expected: {:?}\n  actual:   {:?}",
        Path::new(rel).display(),
        first + 1,
        expected.lines().nth(first),
        actual.lines().nth(first)
    ))
}
