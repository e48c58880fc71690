//! Nothing panics on any input: mangled fixtures, other languages' files,
//! pathological nesting, junk slices and replies. Deterministic (a fixed
//! SplitMix64 stream), so a failure reproduces.

mod common;

use patchbay::ApplyOptions;
use patchbay_syntax::lang::ALL;
use patchbay_syntax::slice::slice;
use patchbay_syntax::splice::splice;
use patchbay_syntax::{apply_to_slice, new_issues, outline, Error};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "{", "}", "(", ")", "[", "]", ";", ":", "\"", "'", "\n", "\t", "    ", "/*", "*/", "//", "#",
    "\"\"\"", "fn ", "def ", "class ", "impl ", "\u{feff}", "é", "😀", "\r\n", "\r", "<", ">", "`",
];

/// Deletes a random range and inserts random pieces, on char boundaries.
fn mangle(text: &str, rng: &mut Rng) -> String {
    let chars: Vec<char> = text.chars().collect();
    let a = rng.below(chars.len() + 1);
    let b = (a + rng.below(40)).min(chars.len());
    let mut out: String = chars[..a].iter().collect();
    for _ in 0..rng.below(6) {
        out.push_str(PIECES[rng.below(PIECES.len())]);
    }
    out.extend(&chars[b..]);
    out
}

#[test]
fn mangled_files_never_panic() {
    let mut rng = Rng(7);
    for f in common::fixtures() {
        for round in 0..24 {
            let text = mangle(&f.text, &mut rng);
            let lang = if round % 4 == 0 {
                ALL[rng.below(ALL.len())]
            } else {
                f.language
            };
            let o = outline(&text, lang).unwrap();
            for s in &o.symbols {
                assert!(s.span.bytes[1] <= text.len() && s.lines[0] <= s.lines[1]);
            }
            let n = text.lines().count().max(1);
            let line = (1 + rng.below(n)).to_string();
            match slice("x", &text, lang, &line) {
                Ok(s) => {
                    // The fuzz target's invariant: a slice's own text
                    // splices back to the file byte for byte.
                    assert_eq!(splice(&text, &s, &s.text).unwrap(), text, "{}", f.name);
                    let edited = mangle(&s.text, &mut rng);
                    let _ = splice(&text, &s, &edited).unwrap();
                    let reply = mangle(
                        "x\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
                        &mut rng,
                    );
                    let _ = apply_to_slice(&text, &s, &reply, &ApplyOptions::default());
                }
                Err(Error::NoSymbolAtLine(_)) => {}
                Err(e) => panic!("{}: {e}", f.name),
            }
            let _ = new_issues(&f.text, &text, lang).unwrap();
        }
    }
}

#[test]
fn deep_nesting_and_odd_text_never_panic() {
    let deep = [
        "(".repeat(20_000),
        "{".repeat(20_000),
        "[".repeat(20_000) + &"]".repeat(20_000),
        "fn f() {".repeat(3_000),
        "class A:\n".to_string() + &" def f():\n".repeat(2_000),
        "\u{feff}".to_string(),
        String::new(),
        "\r\r\r".into(),
        "\0\0".into(),
    ];
    for text in &deep {
        for lang in ALL {
            let o = outline(text, lang).unwrap();
            let _ = o.render();
            let _ = o.find("1");
            let _ = new_issues("", text, lang).unwrap();
        }
    }
}
