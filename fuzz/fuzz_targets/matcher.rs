//! The matcher ladder (`patchbay::apply::matcher::Haystack::find`) on files built
//! from a small set of lines (so that repetition, the matcher's hard case,
//! is common) and blocks cut from them, with or without damage a model
//! does (trailing spaces, indentation, typeset quotes, blank padding).
//!
//! Invariants, against a naive scan written here: a found window lies in
//! the file, its length is the block's minus the trimmed blank lines, and
//! at level `exact` it equals the block; a block that occurs exactly once
//! verbatim (and is not blank) is found there at `exact`; one that occurs
//! twice or more verbatim is never found at `exact` without a hint.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use patchbay::apply::matcher::{FindOptions, Haystack, Miss};
use patchbay::Level;

const VOCAB: &[&str] = &[
    "}",
    "",
    "    ",
    "    return nil",
    "\treturn nil",
    "  return nil  ",
    "if err != nil {",
    "    if err != nil {",
    "\tif err != nil {",
    "let s = \"x\";",
    "let s = \u{201c}x\u{201d};",
    "a - b",
    "a \u{2013} b",
    "x",
    "\u{a0}x",
    "fn f() {",
];

#[derive(Arbitrary, Debug)]
enum Damage {
    None,
    TrailingSpace,
    Indent(u8),
    Dedent,
    Tabs,
    Typeset,
    PadBlank,
}

#[derive(Arbitrary, Debug)]
struct Input {
    file: Vec<u8>,
    extra: Vec<String>,
    start: u16,
    len: u8,
    damage: Damage,
    hint: Option<u16>,
    window: u8,
    min_start: u8,
    max_level: u8,
}

fn line(b: u8, extra: &[String]) -> String {
    let i = b as usize % (VOCAB.len() + extra.len().min(4));
    match VOCAB.get(i) {
        Some(s) => (*s).to_string(),
        None => extra[i - VOCAB.len()].replace(['\n', '\r'], ""),
    }
}

fn damage(block: &[String], d: &Damage) -> Vec<String> {
    let each = |f: &dyn Fn(&str) -> String| block.iter().map(|l| f(l)).collect::<Vec<_>>();
    match d {
        Damage::None => block.to_vec(),
        Damage::TrailingSpace => each(&|l| format!("{l} ")),
        Damage::Indent(n) => each(&|l| format!("{}{l}", " ".repeat(*n as usize % 9))),
        Damage::Dedent => each(&|l| l.strip_prefix("    ").unwrap_or(l).to_string()),
        Damage::Tabs => each(&|l| l.replace("    ", "\t")),
        Damage::Typeset => each(&|l| l.replace('"', "\u{201d}").replace(" - ", " \u{2014} ")),
        Damage::PadBlank => {
            let mut v = vec![String::new()];
            v.extend(block.iter().cloned());
            v.push(String::new());
            v
        }
    }
}

fuzz_target!(|inp: Input| {
    let lines: Vec<String> = inp
        .file
        .iter()
        .take(4000)
        .map(|b| line(*b, &inp.extra))
        .collect();
    if lines.is_empty() {
        return;
    }
    let start = inp.start as usize % lines.len();
    let len = 1 + inp.len as usize % 12;
    let end = (start + len).min(lines.len());
    let orig = &lines[start..end];
    let block = damage(orig, &inp.damage);
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let hay = Haystack::new(refs);
    let max_level = Level::ALL[inp.max_level as usize % Level::ALL.len()];
    let opt = FindOptions {
        hint: inp.hint.map(|h| h as usize % (lines.len() + 5)),
        window: inp.window as usize,
        max_level,
        min_start: inp.min_start as usize % (lines.len() + 2),
        max_start: usize::MAX,
    };
    let got = hay.find(&block, opt);
    if let Ok(f) = &got {
        assert!(f.start <= f.end && f.end <= lines.len(), "{f:?}");
        assert!(f.level <= max_level);
        assert_eq!(
            f.end - f.start,
            block.len() - f.trimmed.0 - f.trimmed.1,
            "{f:?}"
        );
        assert!(f.start >= opt.min_start, "{f:?} before min_start");
        if f.level == Level::Exact {
            assert_eq!(&lines[f.start..f.end], &block[..], "exact match differs");
        }
    }
    // The naive oracle for exact, verbatim blocks.
    let blank = block.iter().all(|l| l.trim().is_empty());
    if blank || opt.min_start > 0 {
        return;
    }
    let verbatim = (0..=lines.len().saturating_sub(block.len()))
        .filter(|&s| s + block.len() <= lines.len() && lines[s..s + block.len()] == block[..])
        .collect::<Vec<_>>();
    match verbatim.len() {
        0 => {}
        1 => match &got {
            Ok(f) => {
                assert_eq!((f.start, f.level), (verbatim[0], Level::Exact), "{f:?}")
            }
            Err(m) => panic!("a unique verbatim block was missed: {m:?}"),
        },
        _ => {
            if opt.hint.is_none() {
                assert!(
                    matches!(
                        got,
                        Err(Miss::Ambiguous {
                            level: Level::Exact,
                            ..
                        })
                    ),
                    "{} verbatim places, got {got:?}",
                    verbatim.len()
                );
            }
        }
    }
});
