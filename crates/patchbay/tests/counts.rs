//! A reply of eight review items, cut at every byte.
//! With the count declared first, the total survives every cut and the
//! verdict never says complete for a cut reply; with the count at the tail
//! (and items numbered without it), a cut at an item boundary looks complete.

use patchbay::reply::counts::{
    check_output, continuation_prompt, declared_edits, output_size_warning, Protocol, Verdict,
};

const ITEMS: [(&str, &str, &str, &str); 8] = [
    (
        "src/quote.ts:5",
        "high",
        "The discount is now a ratio but 10 is passed as a percentage; roughQuote(8000) is -72000",
        "return applyDiscount(base, 10);",
    ),
    (
        "src/cart.ts:12",
        "high",
        "The total is summed before the discount is applied",
        "const total = sum(items);",
    ),
    (
        "src/tax.ts:8",
        "high",
        "Tax is rounded per line, the spec rounds the total",
        "return Math.round(line * rate);",
    ),
    (
        "src/api.ts:31",
        "medium",
        "The error is swallowed and undefined returned",
        "catch (e) { return; }",
    ),
    (
        "src/api.ts:44",
        "medium",
        "The retry count is off by one",
        "for (let i = 0; i <= retries; i++)",
    ),
    (
        "src/cart.ts:3",
        "medium",
        "An unused import remains",
        "import { log } from './log';",
    ),
    (
        "src/quote.ts:19",
        "low",
        "The comment still says percent",
        "// discount in percent",
    ),
    (
        "src/types.ts:2",
        "low",
        "The type name is misspelled",
        "export type Qoute = {",
    ),
];

fn reply(p: &Protocol, head: bool, numbered_total: bool) -> String {
    let mut s = String::new();
    let header = format!("{}: 8\n{}: severity, high to low\n", p.total, p.order);
    if head {
        s.push_str(&header);
    }
    for (k, it) in ITEMS.iter().enumerate() {
        let n = if numbered_total {
            format!("{}/8", k + 1)
        } else {
            format!("{}", k + 1)
        };
        let f = &p.fields;
        s.push_str(&format!(
            "## {} {n}\n- {}: {}\n- {}: {}\n- {}: {}\n- {}: {}\n",
            p.heading, f[0], it.0, f[1], it.1, f[2], it.2, f[3], it.3
        ));
    }
    if !head {
        s.push_str(&header);
    }
    s
}

fn cuts(s: &str) -> impl Iterator<Item = &str> {
    (0..s.len())
        .filter(|&i| s.is_char_boundary(i))
        .map(move |i| &s[..i])
}

#[test]
fn complete_replies_are_complete() {
    for p in [Protocol::english(), Protocol::japanese()] {
        for (head, numbered) in [(true, true), (false, true), (true, false), (false, false)] {
            let r = reply(&p, head, numbered);
            let c = check_output(&r, &p, Some("stop"));
            assert_eq!(c.verdict, Verdict::Complete, "{r}");
            assert_eq!(c.declared_total, Some(8));
            assert_eq!(c.items.len(), 8);
            assert_eq!(c.items[0].location, "src/quote.ts:5");
        }
    }
}

#[test]
fn count_at_the_head_survives_every_cut() {
    for p in [Protocol::english(), Protocol::japanese()] {
        // Even with items numbered without the total: the header carries it.
        let r = reply(&p, true, false);
        let header_end = r.find('\n').unwrap() + 1;
        for cut in cuts(&r) {
            let c = check_output(cut, &p, None);
            assert_ne!(
                c.verdict,
                Verdict::Complete,
                "a cut at byte {} was judged complete",
                cut.len()
            );
            if cut.len() >= header_end {
                assert_eq!(c.declared_total, Some(8), "cut at {}", cut.len());
                match c.verdict {
                    Verdict::Truncated { missing } => assert_eq!(missing, Some(8 - c.items.len())),
                    v => panic!("cut at {}: {v:?}", cut.len()),
                }
            }
        }
    }
}

#[test]
fn count_at_the_tail_is_lost_by_a_cut() {
    let p = Protocol::english();
    let r = reply(&p, false, false);
    let tail = r.find("Total:").unwrap();
    let mut judged_complete = 0;
    for cut in cuts(&r[..tail]) {
        let c = check_output(cut, &p, None);
        assert_eq!(c.declared_total, None, "cut at {}", cut.len());
        if c.verdict == Verdict::Complete {
            judged_complete += 1;
        }
    }
    // The cuts that land right after an item look like shorter complete
    // replies: 7 of 7 cannot be told from 7 of 8 (items 1-7 and the
    // separator-free end of item 8).
    assert!(judged_complete >= 7, "{judged_complete}");
    // The stop reason still tells: with it, no cut is complete.
    for cut in cuts(&r[..tail]) {
        assert_ne!(
            check_output(cut, &p, Some("length")).verdict,
            Verdict::Complete
        );
    }
}

#[test]
fn numbering_with_the_total_is_the_fallback() {
    let p = Protocol::english();
    let r = reply(&p, false, true);
    let tail = r.find("Total:").unwrap();
    let item8 = r.find("## Item 8/8").unwrap();
    for cut in cuts(&r[..item8]) {
        let c = check_output(cut, &p, None);
        if !c.items.is_empty() {
            assert_eq!(c.declared_total, Some(8));
            assert!(
                matches!(c.verdict, Verdict::Truncated { .. }),
                "cut at {}",
                cut.len()
            );
        }
    }
    assert!(tail > item8);
}

#[test]
fn inconsistent_numbers() {
    let p = Protocol::english();
    let r = reply(&p, true, true).replace("## Item 3/8", "## Item 4/8");
    assert!(matches!(
        check_output(&r, &p, None).verdict,
        Verdict::Inconsistent { .. }
    ));
    let r = reply(&p, true, true).replace("Total: 8", "Total: 7");
    assert!(matches!(
        check_output(&r, &p, None).verdict,
        Verdict::Inconsistent { .. }
    ));
}

#[test]
fn cut_json_keeps_total_and_complete_items() {
    let mut json = String::from("{\"total\": 8, \"items\": [");
    for (k, it) in ITEMS.iter().enumerate() {
        if k > 0 {
            json.push_str(", ");
        }
        json.push_str(&format!(
            "{{\"location\": \"{}\", \"severity\": \"{}\", \"claim\": \"{}\", \"quote\": \"{}\"}}",
            it.0,
            it.1,
            it.2,
            it.3.replace('"', "\\\"")
        ));
    }
    json.push_str("]}");
    let full = check_output(&json, &Protocol::english(), None);
    assert_eq!(full.verdict, Verdict::Complete);
    assert_eq!(full.items.len(), 8);
    let mut seen_total = 0;
    for cut in cuts(&json) {
        let c = check_output(cut, &Protocol::english(), Some("length"));
        assert_ne!(c.verdict, Verdict::Complete, "cut at {}", cut.len());
        if cut.len() > 14 {
            assert_eq!(c.declared_total, Some(8), "cut at {}", cut.len());
            seen_total += 1;
        }
        assert!(c.items.len() <= 8);
    }
    assert!(seen_total > 0);
    let half = check_output(&json[..json.len() / 2], &Protocol::english(), None);
    assert!(!half.items.is_empty() && half.items.len() < 8);
    assert_eq!(half.items[0].location, "src/quote.ts:5");
}

#[test]
fn continuation_names_locations_only_and_is_small() {
    let p = Protocol::english();
    let r = reply(&p, true, true);
    let cut = &r[..r.find("## Item 6/8").unwrap() + 20];
    let c = check_output(cut, &p, Some("length"));
    assert_eq!(c.items.len(), 5);
    assert!(c.dropped_partial);
    let prompt = continuation_prompt(&c, &p);
    assert!(prompt.contains("remaining 3 items"), "{prompt}");
    assert!(prompt.contains("from 6/8"), "{prompt}");
    assert!(prompt.contains("src/api.ts:44"));
    assert!(!prompt.contains("retry count"), "texts are not re-sent");
    assert!(
        prompt.len() < cut.len(),
        "{} vs {}",
        prompt.len(),
        cut.len()
    );
    let ja = Protocol::japanese();
    let rj = reply(&ja, true, true);
    let at = (0..=600).rev().find(|&i| rj.is_char_boundary(i)).unwrap();
    let cj = check_output(&rj[..at], &ja, Some("length"));
    assert!(continuation_prompt(&cj, &ja).contains("残りの"));
}

#[test]
fn output_size_and_declared_edits() {
    assert!(output_size_warning(225, 8, 8192).is_none());
    assert!(output_size_warning(225, 40, 8192).is_some());
    assert_eq!(declared_edits("EDITS: 3\nsrc/a.py\n"), Some(3));
    assert_eq!(declared_edits("no count here"), None);
}

#[test]
fn declared_edit_count_catches_a_cut_between_edits() {
    use patchbay::{apply, ApplyOptions, Status};
    let mut files = std::collections::BTreeMap::new();
    files.insert("a.py".to_string(), "x = 1\ny = 2\nz = 3\n".to_string());
    let block =
        |o: &str, n: &str| format!("a.py\n<<<<<<< SEARCH\n{o}\n=======\n{n}\n>>>>>>> REPLACE\n");
    let two = format!("{}{}", block("x = 1", "x = 10"), block("y = 2", "y = 20"));
    let opt = ApplyOptions::default();
    // Two complete blocks and no declaration: looks complete, applies.
    assert_eq!(apply(&two, &files, &opt).status, Status::Applied);
    // Three declared, two arrived: the cut fell between blocks.
    let r = apply(&format!("EDITS: 3\n{two}"), &files, &opt);
    assert_eq!(r.status, Status::Truncated);
    assert!(r.files[0].content.is_none());
    assert!(r.feedback.contains("declared 3 edits"), "{}", r.feedback);
    assert!(
        r.feedback.contains("starting with edit 3"),
        "{}",
        r.feedback
    );
    assert!(r.feedback.contains("a.py lines 1-1"), "{}", r.feedback);
    let r = apply(&format!("EDITS: 2\n{two}"), &files, &opt);
    assert_eq!(r.status, Status::Applied);
}
