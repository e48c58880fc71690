//! The planner's pricing held to a plain reference: the excerpt rendered
//! and counted. Lines are drawn from the shapes that decide whether two
//! texts' counts add up (blank lines, `/` after a mark, `\r`, no-break
//! spaces, repeated marks, digits), for every tokenizer of the build.

use super::fill::{self, Pricing};
use super::price::Pricer;
use super::select::{self, LineNumbers};
use super::tokens::Tokenizer;
use super::{FileInput, PlanOptions, Request, Section};
use proptest::prelude::*;
use std::collections::BTreeSet;

const SHAPES: &[&str] = &[
    "",
    " ",
    "\t",
    "    ",
    "  \r",
    "a\r",
    "\u{a0}",
    " \u{a0}x",
    "fn main() {",
    "    let x = 1;",
    "}",
    "};",
    "// note",
    "/// doc",
    "/x",
    "  // indented",
    "x/",
    "====",
    "12345678",
    "    return a/b;",
    "'s it",
    "é",
    "日本語",
    "getValueFromHTTP(x)",
    "\u{2014} dash",
    "_",
];

fn file_lines() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(SHAPES), 1..40)
}

fn tokenizers() -> Vec<Tokenizer> {
    Tokenizer::names()
        .iter()
        .map(|n| Tokenizer::parse(n).expect("a listed name parses"))
        .collect()
}

/// The file cut into contiguous sections at the given line numbers.
fn cut(n: usize, cuts: &[usize]) -> Vec<(usize, usize)> {
    let mut starts: BTreeSet<usize> = cuts.iter().map(|c| 1 + c % n).collect();
    starts.insert(1);
    let starts: Vec<usize> = starts.into_iter().collect();
    let ends = starts.iter().skip(1).map(|s| s - 1).chain([n]);
    starts.iter().copied().zip(ends).collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x6275_6467),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_price_is_the_rendered_count(
        lines in file_lines(),
        cuts in prop::collection::vec(0usize..64, 0..12),
        order in prop::collection::vec(0usize..64, 1..16),
        every in any::<bool>(),
    ) {
        let mode = if every { LineNumbers::Every } else { LineNumbers::Sections };
        let sections = cut(lines.len(), &cuts);
        let as_sections: Vec<Section> = sections
            .iter()
            .map(|&(a, b)| Section::new("s", "block", a, b))
            .collect();
        for tok in tokenizers() {
            let mut pricer = Pricer::new("src/a.rs", &lines, mode, tok);
            let whole = select::render("src/a.rs", &lines, &[(1, lines.len())], mode);
            prop_assert_eq!(pricer.whole(), tok.count(&whole));
            let mut set = BTreeSet::new();
            for &o in &order {
                let k = o % sections.len();
                set.insert(k);
                let ranges = select::ranges(&as_sections, &set);
                let text = select::render("src/a.rs", &lines, &ranges, mode);
                let (a, b) = sections[k];
                prop_assert_eq!(pricer.cost_with(a, b), tok.count(&text), "{} {:?}", tok.name(), text);
                pricer.add(a, b);
            }
        }
    }

    #[test]
    fn plans_equal_the_rendered_reference(
        lines in prop::collection::vec(prop::sample::select(SHAPES), 0..120),
        task in prop::sample::select(&["Fix main", "line 7", "fix getValueFromHTTP and note", "nothing"][..]),
        window in 0usize..1500,
        threshold in prop::sample::select(&[0usize, 10, 150][..]),
        every in any::<bool>(),
        tok in prop::sample::select(tokenizers()),
    ) {
        let mut text = lines.join("\n");
        text.push('\n');
        let req = Request {
            window,
            system: "Be brief.".into(),
            reserve: 20,
            memory: vec!["earlier: renamed x".into()],
            task: task.into(),
            files: vec![FileInput { path: "a.rs".into(), text, sections: None }],
            options: PlanOptions {
                tokenizer: tok,
                index_threshold: threshold,
                line_numbers: if every { LineNumbers::Every } else { LineNumbers::Sections },
                ..PlanOptions::default()
            },
            ..Request::default()
        };
        prop_assert_eq!(fill::run(&req, Pricing::Tallies), fill::run(&req, Pricing::Rendered));
    }
}

/// A file of a hundred handlers in every window from the minimum to the
/// whole file: the same plan either way.
#[test]
fn a_long_file_plans_the_same_in_every_window() {
    let file: String = (0..100)
        .map(|k| format!("/// Handles case {k}.\npub fn handler_{k}(x: &str) -> usize {{\n    x.len() / {k}\n}}\n\n"))
        .collect();
    for window in (0..6000).step_by(150) {
        let req = Request {
            window,
            task: "Fix the division in handler_17".into(),
            files: vec![FileInput {
                path: "h.rs".into(),
                text: file.clone(),
                sections: None,
            }],
            ..Request::default()
        };
        assert_eq!(
            fill::run(&req, Pricing::Tallies),
            fill::run(&req, Pricing::Rendered),
            "{window}"
        );
    }
}
