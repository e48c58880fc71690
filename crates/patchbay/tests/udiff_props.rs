//! Properties of the udiff format: rendered diffs also apply in strict mode
//! and survive `repair`; diffs damaged the way models damage them (wrong
//! numbers and counts, unchanged lines that lost their one-space marker,
//! added lines that lost their `+`) apply to exactly the intended files or
//! are refused, never applied elsewhere. A deterministic run over real
//! sources also measures how often lenient mode recovers, and how often
//! GNU `patch` (simulated) would report success with the wrong result.

use patchbay::formats::udiff::{patch_fuzz_apply, repair};
use patchbay::{apply, render, ApplyOptions, Status};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

mod support;
use support::rng::XorShift;
use support::{file_pair, one_file as files, PATH};

fn text(lines: &[String], crlf: bool) -> String {
    let eol = if crlf { "\r\n" } else { "\n" };
    lines.iter().map(|l| format!("{l}{eol}")).collect()
}

fn opts(strict: bool) -> ApplyOptions {
    ApplyOptions {
        format: patchbay::FormatName::Udiff,
        strict,
        ..Default::default()
    }
}

/// Which markers a damaged diff loses besides its numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Lost {
    Nothing,
    /// Unchanged lines lose their one-space marker (the commonest damage
    /// models do to diffs).
    Spaces,
    /// Added lines lose their `+`.
    Pluses,
    /// Both, in the same hunks (only for the measurement).
    Both,
}

/// Damages a diff as models do, driven by `bits`: hunk numbers replaced or
/// dropped, and some markers lost. Fenced, so a wrong count is a miscount
/// rather than a cut-off reply.
fn damage(diff: &str, bits: &[u8], lost: Lost) -> String {
    let mut out = String::from("```diff\n");
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    for (k, &l) in lines.iter().enumerate() {
        let b = bits[k % bits.len()];
        // An empty added line without its `+` is an empty line, which git
        // reads as a blank unchanged line; next to blank lines or at a
        // hunk's end no reader can tell the two apart, so that damage is
        // not generated (between two added lines it is recovered, see the
        // unit tests).
        let spaces = matches!(lost, Lost::Spaces | Lost::Both);
        let pluses = matches!(lost, Lost::Pluses | Lost::Both) && l != "+\n";
        if l.starts_with("@@ ") {
            out.push_str(match b % 3 {
                0 => "@@ @@\n",
                1 => "@@ -1,3 +1,4 @@\n",
                _ => l,
            });
        } else if (spaces && l.starts_with(' ') && b.is_multiple_of(4))
            || (pluses && l.starts_with('+') && !l.starts_with("+++ ") && b.is_multiple_of(5))
        {
            // The prefix is lost, as models lose it.
            out.push_str(&l[1..]);
        } else {
            out.push_str(l);
        }
    }
    out.push_str("```\n");
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn rendered_diffs_apply_strictly_and_survive_repair((before, after) in file_pair(), crlf in any::<bool>()) {
        prop_assume!(before.iter().any(|l| !l.trim().is_empty()) && !after.is_empty());
        let (b, a) = (text(&before, crlf), text(&after, crlf));
        prop_assume!(b != a);
        let diff = render(patchbay::FormatName::Udiff, PATH, &b, &a).unwrap();
        let r = apply(&diff, &files(&b), &opts(true));
        prop_assert_eq!(r.status, Status::Applied, "{}\n{}", diff, r.feedback);
        prop_assert_eq!(r.files[0].content.as_deref(), Some(a.as_str()));
        let fixed = repair(&diff, &files(&b)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let r = apply(&fixed, &files(&b), &opts(true));
        prop_assert_eq!(r.files[0].content.as_deref(), Some(a.as_str()), "{}", fixed);
    }

    #[test]
    fn damaged_diffs_apply_right_or_not_at_all(
        (before, after) in file_pair(),
        bits in prop::collection::vec(any::<u8>(), 1..16),
        lost in prop::sample::select(vec![Lost::Nothing, Lost::Spaces, Lost::Pluses]),
    ) {
        prop_assume!(before.iter().any(|l| !l.trim().is_empty()) && !after.is_empty());
        let (b, a) = (text(&before, false), text(&after, false));
        prop_assume!(b != a);
        let out = damage(&render(patchbay::FormatName::Udiff, PATH, &b, &a).unwrap(), &bits, lost);
        let r = apply(&out, &files(&b), &opts(false));
        if r.status == Status::Applied {
            prop_assert_eq!(r.files[0].content.as_deref(), Some(a.as_str()), "{}", out);
        }
        // What lenient mode applies, the repaired diff applies strictly.
        if r.status == Status::Applied {
            let fixed = repair(&out, &files(&b)).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let s = apply(&fixed, &files(&b), &opts(true));
            prop_assert_eq!(s.files[0].content.as_deref(), Some(a.as_str()), "{}", fixed);
        }
    }
}

/// The real source excerpts (name, text), by name.
fn real_sources() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/tools/sources");
    let mut srcs: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x != "md"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    srcs.sort();
    srcs
}

/// `src` with 1-2 random lines added, edited or removed.
fn random_change(src: &str, rng: &mut XorShift) -> String {
    let mut after: Vec<String> = src.lines().map(|s| s.to_string()).collect();
    for _ in 0..1 + rng.below(2) {
        let at = rng.below(after.len());
        let ind: String = after[at]
            .chars()
            .take_while(|c| c.is_whitespace())
            .collect();
        match rng.below(3) {
            0 => after.insert(at, format!("{ind}added_{}()", rng.below(1000))),
            1 => after[at] = format!("{} /* edited */", after[at]),
            _ => {
                after.remove(at);
            }
        }
    }
    after.join("\n") + "\n"
}

/// Outcomes of damaged diffs: `t` is [lenient right, lenient refused,
/// lenient wrong, strict right, patch right, patch wrong (success
/// claimed), patch refused]; `why` counts lenient refusals by code.
#[derive(Default)]
struct DamageOutcomes {
    t: [usize; 7],
    why: BTreeMap<&'static str, usize>,
}

impl DamageOutcomes {
    /// Applies the damaged diff `out` to `fs` in lenient and strict mode
    /// and through simulated GNU `patch`, and counts each against `want`,
    /// the file at `path` the undamaged diff gives.
    fn count(&mut self, out: &str, fs: &BTreeMap<String, String>, path: &str, want: &str) {
        let t = &mut self.t;
        let r = apply(out, fs, &opts(false));
        match (r.status, r.files.first().and_then(|f| f.content.as_deref())) {
            (Status::Applied, Some(c)) if c == want => t[0] += 1,
            (Status::Applied, _) => {
                t[2] += 1;
                eprintln!("WRONG:\n{out}");
            }
            _ => {
                t[1] += 1;
                let code = r.receipts().iter().find_map(|x| x.code).map(|c| c.as_str());
                *self.why.entry(code.unwrap_or("none")).or_insert(0usize) += 1;
            }
        }
        if apply(out, fs, &opts(true)).status == Status::Applied {
            t[3] += 1;
        }
        let run = patch_fuzz_apply(out, fs);
        let stopped = run.reports.iter().any(|r| r.patch_line.is_none());
        match run.files.get(path) {
            _ if stopped => t[6] += 1,
            Some(Some(c)) if *c == want => t[4] += 1,
            _ => t[5] += 1,
        }
    }
}

/// Over real source excerpts: a change of 1-3 lines in 1-2 places, its
/// rendered diff damaged, then applied by lenient and strict patchbay and
/// by simulated GNU `patch`. Prints the table; asserts that patchbay never
/// produces a wrong file and that lenient mode recovers most damage.
#[test]
fn measured_recovery_on_real_sources() {
    let srcs = real_sources();
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut rec = DamageOutcomes::default();
    let runs = 600;
    for _ in 0..runs {
        let (name, src) = &srcs[rng.below(srcs.len())];
        let a = random_change(src, &mut rng);
        if a == *src {
            continue;
        }
        let path = format!("src/{name}");
        let fs = BTreeMap::from([(path.clone(), src.clone())]);
        let diff = render(patchbay::FormatName::Udiff, &path, src, &a).unwrap();
        let bits: Vec<u8> = (0..1 + rng.below(12)).map(|_| rng.next() as u8).collect();
        let out = damage(&diff, &bits, Lost::Both);
        rec.count(&out, &fs, &path, &a);
    }
    let DamageOutcomes { t, why } = rec;
    println!("udiff damage over {runs} real-source changes:");
    println!(
        "  lenient: {} right, {} refused, {} wrong",
        t[0], t[1], t[2]
    );
    println!("  lenient refusals by code: {why:?}");
    println!("  strict:  {} applied", t[3]);
    println!(
        "  GNU patch (simulated): {} right, {} wrong but claimed success, {} refused or stopped",
        t[4], t[5], t[6]
    );
    assert_eq!(t[2], 0, "lenient mode produced a wrong file");
    assert!(t[0] > t[1], "lenient mode recovers less than half: {t:?}");
}
