//! The syntax entry points (`patchbay-syntax`) on an arbitrary file in every
//! language: `outline` (and its listing, sections and JSON), `slice` of one
//! of its symbols, `splice` of arbitrary edited text, `apply_to_slice` of
//! an arbitrary reply, and a slice read from arbitrary JSON.
//!
//! Layout of the input: byte 0 picks the language, byte 1 the symbol (by
//! index in the outline); the rest is `FILE \0 EDITED` (without a NUL the
//! whole rest is the file and the edited text is empty).
//!
//! Invariants: nothing panics; symbols nest less than `MAX_DEPTH` deep,
//! qualified names are at most `MAX_QUALIFIED` bytes and spans lie in the
//! file; splicing a slice's own text gives the file back byte for byte; a
//! slice read from JSON is refused or has a whitespace indent, and
//! splicing it never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patchbay::ApplyOptions;
use patchbay_syntax::lang::ALL;
use patchbay_syntax::{outline, slice, splice, MAX_DEPTH, MAX_QUALIFIED};

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let lang = ALL[data[0] as usize % ALL.len()];
    let rest = &data[2..];
    let (file, edited) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &rest[..0]),
    };
    let file = String::from_utf8_lossy(file).into_owned();
    let edited = String::from_utf8_lossy(edited).into_owned();
    let o = outline(&file, lang).expect("every grammar is compiled in");
    for s in &o.symbols {
        assert!(s.depth < MAX_DEPTH, "depth {}", s.depth);
        assert!(s.qualified.len() <= MAX_QUALIFIED, "{}", s.qualified.len());
        assert!(s.span.bytes[0] <= s.span.bytes[1] && s.span.bytes[1] <= file.len());
        assert!(1 <= s.lines[0] && s.lines[0] <= s.lines[1]);
    }
    let _ = o.render();
    let _ = serde_json::to_string(&o).expect("serialises");
    if let Some(sym) = o.symbols.get(data[1] as usize % o.symbols.len().max(1)) {
        let s = slice::cut("x", &file, lang, sym).expect("a symbol of the outline cuts");
        assert_eq!(
            splice::splice(&file, &s, &s.text).as_deref(),
            Ok(file.as_str())
        );
        let _ = splice::splice(&file, &s, &edited);
        let _ = patchbay_syntax::apply_to_slice(&file, &s, &edited, &ApplyOptions::default());
    }
    if slice::looks_like_json(&edited) {
        if let Ok(s) = slice::from_json(&edited) {
            assert!(s.indent.chars().all(|c| c == ' ' || c == '\t'));
            let _ = splice::splice(&file, &s, &s.text);
        }
    }
});
