//! Inputs the `syntax` fuzz target found, kept as tests: each runs the
//! target's invariants (see fuzz/fuzz_targets/syntax.rs).

use patchbay_syntax::lang::ALL;
use patchbay_syntax::{outline, slice, splice};

fn invariants(data: &[u8]) {
    let lang = ALL[data[0] as usize % ALL.len()];
    let file = String::from_utf8_lossy(&data[2..]).into_owned();
    let o = outline(&file, lang).expect("every grammar is compiled in");
    for (k, sym) in o.symbols.iter().enumerate() {
        let s = slice::cut("x", &file, lang, sym).expect("a symbol of the outline cuts");
        assert_eq!(
            splice::splice(&file, &s, &s.text).as_deref(),
            Ok(file.as_str()),
            "symbol {k} ({}) does not splice back",
            sym.qualified
        );
    }
}

/// A C++ header with a byte-order mark in the middle of a line.
#[test]
fn a_bom_inside_a_cpp_member_splices_back() {
    let mut data = vec![8u8, 1];
    data.extend_from_slice(include_bytes!("fixtures/fuzz_bom_inside.hpp"));
    invariants(&data);
}
