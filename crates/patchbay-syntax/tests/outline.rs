//! Outlines of one real small file per language, each checked against its
//! expectation in `tests/outlines/` (`PATCHBAY_BLESS=1` rewrites them), and
//! invariants every outline must keep.

mod common;

use patchbay_syntax::{outline, sections, Kind, Outline};

/// One symbol a line: its slice lines, kind, qualified name (indented by
/// depth), its definition's own lines and its leading lines.
fn render(o: &Outline) -> String {
    let mut out = format!("# language: {}\n", o.language);
    for s in &o.symbols {
        let lead = s
            .leading
            .map(|l| format!("  leading {}-{}", l.lines[0], l.lines[1]))
            .unwrap_or_default();
        out.push_str(&format!(
            "{:>9}  {:<9} {:indent$}{}  (def {}-{}){lead}\n",
            format!("{}-{}", s.lines[0], s.lines[1]),
            s.kind.name(),
            "",
            s.qualified,
            s.span.lines[0],
            s.span.lines[1],
            indent = 2 * s.depth
        ));
    }
    out
}

#[test]
fn outlines_match_their_expectations() {
    let mut failures = vec![];
    for f in common::fixtures() {
        let o = outline(&f.text, f.language).unwrap();
        assert!(!o.symbols.is_empty(), "{}: no symbols", f.name);
        if let Some(d) = common::expect_file(&format!("outlines/{}.txt", f.name), &render(&o)) {
            failures.push(d);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_outline_keeps_its_invariants() {
    for f in common::fixtures() {
        let o = outline(&f.text, f.language).unwrap();
        let n = f.text.lines().count();
        for (i, s) in o.symbols.iter().enumerate() {
            let what = format!("{} {}", f.name, s.qualified);
            assert!(
                1 <= s.lines[0] && s.lines[0] <= s.lines[1] && s.lines[1] <= n,
                "{what}"
            );
            assert_eq!(s.lines[1], s.span.lines[1], "{what}");
            assert!(s.span.bytes[0] < s.span.bytes[1], "{what}");
            // The byte range is the definition's text and starts on its line.
            let text = &f.text[s.span.bytes[0]..s.span.bytes[1]];
            let own_name = s.name.trim_start_matches('~');
            let anonymous = ["default", "(anonymous)"].contains(&own_name);
            assert!(
                text.contains(own_name) || anonymous || s.kind == Kind::Impl,
                "{what}: {text:?}"
            );
            assert_eq!(
                f.text[..s.span.bytes[0]].matches('\n').count() + 1,
                s.span.lines[0],
                "{what}"
            );
            if let Some(l) = s.leading {
                assert!(
                    l.lines[0] <= s.span.lines[0] || l.lines[0] <= s.span.lines[1],
                    "{what}"
                );
            }
            match s.parent {
                Some(p) => {
                    assert!(p < i, "{what}: parent after child");
                    let parent = &o.symbols[p];
                    assert_eq!(s.depth, parent.depth + 1, "{what}");
                    assert!(
                        parent.lines[0] <= s.lines[0] && s.lines[1] <= parent.lines[1],
                        "{what} outside {}",
                        parent.qualified
                    );
                }
                None => assert_eq!(s.depth, 0, "{what}"),
            }
            // A symbol is found by its own qualified name, or that name is
            // shared (overloads, several impl blocks of one type).
            match o.find(&s.qualified) {
                Ok(found) => assert_eq!(found, s, "{what}"),
                Err(patchbay_syntax::Error::AmbiguousSymbol { candidates, .. }) => {
                    assert!(
                        candidates
                            .iter()
                            .any(|(q, l)| *q == s.qualified && *l == s.lines[0]),
                        "{what}"
                    )
                }
                Err(e) => panic!("{what}: {e}"),
            }
        }
        let secs = sections(&f.text, f.language).unwrap();
        assert_eq!(secs.len(), o.symbols.len());
        for (sec, s) in secs.iter().zip(&o.symbols) {
            assert_eq!(
                (sec.name.as_str(), sec.kind, sec.start_line, sec.end_line),
                (s.qualified.as_str(), s.kind, s.lines[0], s.lines[1])
            );
        }
    }
}

#[test]
fn outline_json_has_the_documented_shape() {
    let src = "/// Doc.\n#[inline]\npub fn f() {}\n";
    let o = outline(src, patchbay_syntax::Language::Rust).unwrap();
    let v = serde_json::to_value(&o).unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "language": "rust",
            "symbols": [{
                "name": "f", "qualified": "f", "kind": "function",
                "span": {"bytes": [19, 32], "lines": [3, 3]},
                "leading": {"bytes": [0, 18], "lines": [1, 2]},
                "lines": [1, 3], "depth": 0,
                // ASCII: the UTF-16 offsets are the byte offsets.
                "from": 19, "to": 32
            }]
        })
    );
    assert_eq!(o.symbols[0].kind, Kind::Function);
}

/// Found on libstdc++'s headers: a libstdc++-shaped class (a macro line before it,
/// `#if`/`#else` branches that each open a brace in a member function)
/// came out as one free function spanning the class, its methods gone.
#[test]
fn conditionals_and_macro_lines_do_not_hide_a_class() {
    let f = common::fixtures()
        .into_iter()
        .find(|f| f.name == "stl_shapes.hpp")
        .unwrap();
    let o = outline(&f.text, f.language).unwrap();
    let class = o.find("std::small_vector").unwrap();
    assert_eq!((class.kind, class.lines), (Kind::Class, [36, 88]));
    for m in ["push_back", "reserve", "size"] {
        let s = o.find(&format!("small_vector::{m}")).unwrap();
        assert_eq!(s.kind, Kind::Method, "{m}");
    }
    // `shrink_to_fit` is defined in both branches of `#if __cplusplus >=
    // 201103L`: the outline lists both (each view parses one).
    let both: Vec<[usize; 2]> = o
        .symbols
        .iter()
        .filter(|s| s.qualified == "std::small_vector::shrink_to_fit")
        .map(|s| s.lines)
        .collect();
    assert_eq!(both, [[76, 78], [80, 82]]);
    assert!(o.symbols.iter().all(|s| s.kind != Kind::Function));
    // Spans point into the real text, conditionals included.
    let reserve = o.find("reserve").unwrap();
    let text = &f.text[reserve.span.bytes[0]..reserve.span.bytes[1]];
    assert!(text.contains("#if _GLIBCXX_USE_EXCEPTIONS") && text.ends_with('}'));
}
