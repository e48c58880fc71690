//! Every decision of the loop, on small files whose expected texts are
//! written out by hand.

use super::*;

const APP: &str = "def greet(name):\n    print(\"Hello, \" + name)\n\n\ndef farewell(name):\n    print(\"Goodbye, \" + name)\n";

fn files() -> BTreeMap<String, String> {
    BTreeMap::from([("app.py".to_string(), APP.to_string())])
}

fn cfg(format: &str) -> LoopConfig {
    LoopConfig {
        task: "Make greet and farewell end with an exclamation mark.".into(),
        format: format.parse().unwrap(),
        context_length: 4096,
        reply_limit: 512,
        ..LoopConfig::default()
    }
}

fn stop() -> Ending {
    Ending::finished_with("stop")
}

fn length() -> Ending {
    Ending::finished_with("length")
}

/// A search/replace loop that reads every reply to its end (no early stop).
fn patient() -> EditLoop {
    let mut c = cfg("search-replace");
    c.early_stop = false;
    EditLoop::new(c, files()).unwrap()
}

/// The last message of the next request: the loop's word to the model.
fn next_message(l: &mut EditLoop) -> String {
    let r = l.next_request().expect("a round");
    r.messages.last().unwrap().content.clone()
}

fn sr(old: &str, new: &str) -> String {
    format!("app.py\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n")
}

const GREET_OLD: &str = "    print(\"Hello, \" + name)";
const GREET_NEW: &str = "    print(\"Hello, \" + name + \"!\")";
const BYE_OLD: &str = "    print(\"Goodbye, \" + name)";
const BYE_NEW: &str = "    print(\"Goodbye, \" + name + \"!\")";
const BOTH: &str = "def greet(name):\n    print(\"Hello, \" + name + \"!\")\n\n\ndef farewell(name):\n    print(\"Goodbye, \" + name + \"!\")\n";

/// The reply that makes both edits of the task, counted.
fn both_edits() -> String {
    format!(
        "EDITS: 2\n{}{}",
        sr(GREET_OLD, GREET_NEW),
        sr(BYE_OLD, BYE_NEW)
    )
}

/// A reply whose greet edit applies and whose farewell edit is not found.
fn greet_and_a_bad_bye() -> String {
    format!(
        "{}{}",
        sr(GREET_OLD, GREET_NEW),
        sr("    print(\"Bye\")", BYE_NEW)
    )
}

/// Feeds a reply in chunks of `step` bytes (on char boundaries).
fn feed(l: &mut EditLoop, reply: &str, step: usize) -> Vec<Pushed> {
    let mut out = vec![];
    let mut i = 0;
    while i < reply.len() {
        let mut j = (i + step).min(reply.len());
        while !reply.is_char_boundary(j) {
            j += 1;
        }
        out.push(l.push(&reply[i..j]));
        i = j;
    }
    out
}

fn round(l: &mut EditLoop, reply: &str, end: &Ending) -> Outcome {
    l.next_request().expect("a round");
    feed(l, reply, 7);
    l.end(end)
}

#[test]
fn first_request_has_the_kit_the_task_and_the_view() {
    let mut l = EditLoop::new(cfg("search-replace"), files()).unwrap();
    let r = l.next_request().unwrap();
    let kit = crate::budget::prompts::kit(crate::FormatName::SearchReplace).unwrap();
    assert_eq!(
        r.messages[0],
        Message::new(Role::System, kit.system_prompt())
    );
    assert!(r.messages[1].content.starts_with("Task: Make greet"));
    assert!(r.messages[1]
        .content
        .contains(&format!("app.py\n```\n{APP}```\n")));
    assert_eq!(
        (r.round, r.kind, r.num_ctx, r.num_predict),
        (1, RoundKind::First, 4096, 512)
    );
    assert_eq!(
        r.plan.as_ref().unwrap().files[0].mode,
        crate::budget::FileMode::Whole
    );
    let by_hand: usize = r
        .messages
        .iter()
        .map(|m| LoopConfig::default().tokenizer.count(&m.content) + accounting::PER_MESSAGE)
        .sum();
    assert_eq!(r.prompt_estimate, by_hand);

    let mut h = EditLoop::new(cfg("hashline"), files()).unwrap();
    let view = crate::formats::hashline::tags::view(APP, crate::TagOptions::default());
    assert!(h.next_request().unwrap().messages[1]
        .content
        .contains(&view));
    let mut c = EditLoop::new(cfg("lines"), files()).unwrap();
    assert!(c.next_request().unwrap().messages[1]
        .content
        .contains(&crate::formats::lines::seen::crc_view("app.py", APP)));
}

#[test]
fn a_good_reply_is_done_with_its_changes() {
    let mut l = EditLoop::new(cfg("search-replace"), files()).unwrap();
    let reply = both_edits();
    let o = round(&mut l, &reply, &stop());
    assert_eq!(o.decision, Decision::Done);
    assert_eq!(
        o.changes,
        [FileChange {
            path: "app.py".into(),
            content: Some(BOTH.into())
        }]
    );
    assert_eq!(l.files()["app.py"], BOTH);
    assert!(l.is_finished() && l.next_request().is_none());
    assert_eq!(
        o.record.events.len(),
        2,
        "both edits judged while streaming"
    );
}

#[test]
fn a_failed_edit_retries_with_the_feedback_then_succeeds() {
    let mut l = patient();
    let o = round(&mut l, &sr("    print(\"Hi\")", GREET_NEW), &stop());
    assert_eq!(o.decision, Decision::Retry);
    assert!(o.changes.is_empty());
    let r = l.next_request().unwrap();
    assert_eq!((r.round, r.kind), (2, RoundKind::Retry));
    let last = r.messages.last().unwrap();
    assert_eq!(last.role, Role::User);
    assert!(
        last.content.contains("not_found") && last.content.contains("Reminder of the format"),
        "{}",
        last.content
    );
    assert_eq!(r.messages[2].role, Role::Assistant);
    feed(&mut l, &sr(GREET_OLD, GREET_NEW), 5);
    let o = l.end(&stop());
    assert_eq!(o.decision, Decision::Done);
    assert_eq!(l.files()["app.py"], APP.replace(GREET_OLD, GREET_NEW));
}

#[test]
fn early_stop_at_the_first_failing_edit() {
    let mut l = EditLoop::new(cfg("search-replace"), files()).unwrap();
    l.next_request();
    let reply = format!(
        "{}{}",
        sr("    print(\"Hi\")", GREET_NEW),
        sr(BYE_OLD, BYE_NEW)
    );
    let pushed = feed(&mut l, &reply, 4);
    let first_stop = pushed.iter().position(|p| p.stop).expect("a stop");
    let head_len = sr("    print(\"Hi\")", GREET_NEW).len();
    assert!(
        first_stop * 4 < head_len + 4,
        "stopped within the chunk that completed the failing edit"
    );
    assert!(
        pushed[first_stop + 1..].iter().all(|p| p.events.is_empty()),
        "ignored after the stop"
    );
    let o = l.end(&stop());
    assert_eq!(o.decision, Decision::Retry);
    assert!(o.record.early_stop && o.changes.is_empty());
    assert_eq!(l.files()["app.py"], APP);
    let msg = next_message(&mut l);
    assert!(msg.contains("edit 1 (app.py): not_found"), "{msg}");

    let mut l = patient();
    l.next_request();
    assert!(feed(&mut l, &reply, 4).iter().all(|p| !p.stop));
}

#[test]
fn a_cut_reply_continues_and_joins_the_complete_edits() {
    let mut l = EditLoop::new(cfg("search-replace"), files()).unwrap();
    let whole = both_edits();
    let cut_at = whole.find("    print(\"Goodbye").unwrap() + 10;
    let o = round(&mut l, &whole[..cut_at], &length());
    assert_eq!(o.decision, Decision::Continue);
    assert!(o.record.cut && o.changes.is_empty());
    let r = l.next_request().unwrap();
    assert_eq!(r.kind, RoundKind::Continuation);
    let msg = &r.messages.last().unwrap().content;
    assert!(
        msg.contains("Complete and located, do not resend: edit 1 (app.py lines 2-2)")
            && msg.contains("starting with edit 2"),
        "{msg}"
    );
    feed(&mut l, &sr(BYE_OLD, BYE_NEW), 9);
    let o = l.end(&stop());
    assert_eq!(o.decision, Decision::Done, "{:?}", o.record.report);
    assert_eq!(l.files()["app.py"], BOTH);
    assert_eq!(
        o.record.reply,
        sr(BYE_OLD, BYE_NEW),
        "the record keeps the round's own text"
    );
}

/// A reply cut inside its first edit has no complete edit to keep: the
/// continuation that sends that edit again from its start (path line
/// included, as the message asks) is judged on its own.
#[test]
fn a_reply_cut_in_its_first_edit_continues_from_that_edit() {
    for format in ["search-replace", "whole", "apply-patch", "udiff"] {
        let mut l = EditLoop::new(cfg(format), files()).unwrap();
        let whole = render_both(format);
        for cut_at in [whole.find("print").unwrap(), whole.len() / 2] {
            let mut l2 = EditLoop::new(cfg(format), files()).unwrap();
            let o = round(&mut l2, &whole[..cut_at], &length());
            assert_eq!(o.decision, Decision::Continue, "{format} cut at {cut_at}");
            l2.next_request().unwrap();
            feed(&mut l2, &whole, 9);
            let o = l2.end(&stop());
            assert_eq!(
                o.decision,
                Decision::Done,
                "{format} cut at {cut_at}: {:?}",
                o.record.report.map(|r| r.feedback)
            );
            assert_eq!(l2.files()["app.py"], BOTH, "{format}");
        }
        let o = round(&mut l, &whole, &stop());
        assert_eq!(o.decision, Decision::Done, "{format} uncut");
    }
}

/// Both changes of the tests in `format`, as its renderer writes them.
fn render_both(format: &str) -> String {
    crate::render(format.parse().unwrap(), "app.py", APP, BOTH).expect("known format")
}

#[test]
fn a_cut_reply_whose_complete_edit_failed_is_retried_whole() {
    let mut l = patient();
    let whole = format!(
        "{}{}",
        sr("    print(\"Hi\")", GREET_NEW),
        sr(BYE_OLD, BYE_NEW)
    );
    let o = round(&mut l, &whole[..whole.len() - 20], &length());
    assert_eq!(o.decision, Decision::Retry);
    let r = l.next_request().unwrap();
    let msg = &r.messages.last().unwrap().content;
    assert!(
        msg.contains("not_found") && msg.contains("send the whole reply again"),
        "{msg}"
    );
    feed(
        &mut l,
        &format!("{}{}", sr(GREET_OLD, GREET_NEW), sr(BYE_OLD, BYE_NEW)),
        8,
    );
    assert_eq!(l.end(&stop()).decision, Decision::Done);
    assert_eq!(
        l.files()["app.py"],
        BOTH,
        "nothing of the cut reply was kept"
    );
}

#[test]
fn a_stream_without_final_chunk_is_a_cut() {
    let mut l = EditLoop::new(cfg("search-replace"), files()).unwrap();
    let o = round(&mut l, &sr(GREET_OLD, GREET_NEW), &Ending::default());
    assert_eq!(o.decision, Decision::Continue);
    let msg = next_message(&mut l);
    assert!(msg.contains("connection closed"), "{msg}");
}

#[test]
fn a_re_sent_applied_edit_is_a_no_op() {
    let mut l = patient();
    // Round 1: greet applies (partial), farewell fails.
    let o = round(&mut l, &greet_and_a_bad_bye(), &stop());
    assert_eq!(o.decision, Decision::Retry);
    let greeted = APP.replace(GREET_OLD, GREET_NEW);
    assert_eq!(
        o.changes,
        [FileChange {
            path: "app.py".into(),
            content: Some(greeted.clone())
        }]
    );
    let msg = next_message(&mut l);
    assert!(msg.contains("now read:") && msg.contains(&greeted), "{msg}");
    // Round 2: both again, farewell fixed.
    feed(
        &mut l,
        &format!("{}{}", sr(GREET_OLD, GREET_NEW), sr(BYE_OLD, BYE_NEW)),
        6,
    );
    let o = l.end(&stop());
    assert_eq!(o.decision, Decision::Done, "{:?}", o.record.report);
    assert_eq!(o.record.noops, 1);
    assert_eq!(l.files()["app.py"], BOTH);
}

#[test]
fn only_no_ops_is_done() {
    let mut l = patient();
    round(&mut l, &greet_and_a_bad_bye(), &stop());
    let o = round(&mut l, &sr(GREET_OLD, GREET_NEW), &stop());
    assert_eq!((o.decision, o.record.noops), (Decision::Done, 1));
    assert!(o.changes.is_empty());
}

#[test]
fn rounds_run_out() {
    let mut c = cfg("search-replace");
    c.rounds = 2;
    let mut l = EditLoop::new(c, files()).unwrap();
    assert_eq!(
        round(&mut l, "no edits here\n", &stop()).decision,
        Decision::Retry
    );
    let o = round(&mut l, "still none\n", &stop());
    assert!(
        matches!(&o.decision, Decision::GiveUp { reason } if reason.contains("2 rounds")),
        "{:?}",
        o.decision
    );
    assert!(l.next_request().is_none());
}

#[test]
fn a_low_prompt_count_warns() {
    let mut l = EditLoop::new(cfg("search-replace"), files()).unwrap();
    let e = Ending {
        prompt_tokens: Some(20),
        ..stop()
    };
    let o = round(&mut l, &sr(GREET_OLD, GREET_NEW), &e);
    assert!(
        o.record.warnings.iter().any(|w| w.contains("counted 20")),
        "{:?}",
        o.record.warnings
    );
    let mut l = EditLoop::new(cfg("search-replace"), files()).unwrap();
    let est = l.next_request().unwrap().prompt_estimate;
    feed(&mut l, &sr(GREET_OLD, GREET_NEW), 50);
    let o = l.end(&Ending {
        prompt_tokens: Some(est),
        ..stop()
    });
    assert!(o.record.warnings.is_empty());
}

#[test]
fn a_large_file_is_sent_in_sections() {
    let (text, mut l) = big_loop(cfg("lines"), "In f123, return x + 1000 instead.", 1500);
    let r = l.next_request().unwrap();
    let fp = &r.plan.as_ref().unwrap().files[0];
    assert_eq!(fp.mode, crate::budget::FileMode::Sections);
    let user = &r.messages[1].content;
    assert!(
        user.contains("def f123(x):") && !user.contains("def f300(x):"),
        "{user}"
    );
    // f123 starts at line 3 * 123 + 1 = 370, its body is line 371; the model edits it by number and CRC.
    let crc = crate::file_crc(&text);
    let reply = format!("@@ big.py 371:371 crc32={crc:08x}\n    return x + 1000\n@@ end\n");
    let o = {
        feed(&mut l, &reply, 11);
        l.end(&stop())
    };
    assert_eq!(o.decision, Decision::Done, "{:?}", o.record.report);
    let want = text.replace("    return x + 123\n", "    return x + 1000\n");
    assert!(l.files()["big.py"] == want, "f123 alone changed");
}

#[test]
fn bad_configs_are_typed_errors() {
    assert!(matches!(
        EditLoop::new(cfg("auto"), files()),
        Err(LoopError::UnknownFormat { .. })
    ));
    let mut c = cfg("whole");
    c.rounds = 0;
    assert!(matches!(
        EditLoop::new(c, files()),
        Err(LoopError::BadConfig { .. })
    ));
    let mut c = cfg("whole");
    c.context_length = 600;
    c.reply_limit = 500;
    assert!(matches!(
        EditLoop::new(c, files()),
        Err(LoopError::DoesNotFit { .. })
    ));
}

/// 400 two-line functions with a blank line after each: `f{i}` starts at
/// line 3i+1, its body is line 3i+2.
fn big() -> String {
    (0..400)
        .map(|i| format!("def f{i}(x):\n    return x + {i}\n\n"))
        .collect()
}

/// A loop on `big.py` ([`big`], returned too) for `task`, in a window of
/// `context_length` tokens with replies of 300.
fn big_loop(c: LoopConfig, task: &str, context_length: usize) -> (String, EditLoop) {
    let text = big();
    let files = BTreeMap::from([("big.py".to_string(), text.clone())]);
    let c = LoopConfig {
        task: task.into(),
        context_length,
        reply_limit: 300,
        ..c
    };
    (text, EditLoop::new(c, files).unwrap())
}

fn hashline_edit(path: &str, text: &str, line: usize, new: &str) -> String {
    let old = text.lines().nth(line - 1).unwrap();
    let tag = crate::formats::hashline::tags::tag(old, line, crate::TagOptions::default());
    format!("{{\"op\": \"replace\", \"path\": \"{path}\", \"line\": {line}, \"tag\": \"{tag}\", \"new\": \"{new}\"}}\n")
}

#[test]
fn a_large_changed_file_is_shown_again_only_where_it_changed() {
    let c = LoopConfig {
        early_stop: false,
        ..cfg("hashline")
    };
    let (text, mut l) = big_loop(c, "In f123 and f124, add 1000 to x.", 2000);
    let good = hashline_edit("big.py", &text, 371, "    return x + 1123");
    let bad = "{\"op\": \"replace\", \"path\": \"big.py\", \"line\": 374, \"tag\": \"ZZZZ\", \"new\": \"    return x + 1124\"}\n";
    let o = round(&mut l, &format!("{good}{bad}"), &stop());
    assert_eq!(o.decision, Decision::Retry, "{:?}", o.record.report);
    let once = text.replace("    return x + 123\n", "    return x + 1123\n");
    assert!(l.files()["big.py"] == once);
    let r = l.next_request().unwrap();
    let msg = &r.messages.last().unwrap().content;
    let new_line = crate::formats::hashline::tags::tag(
        "    return x + 1123",
        371,
        crate::TagOptions::default(),
    );
    assert!(
        msg.contains(&format!("371:{new_line}     return x + 1123")),
        "{msg}"
    );
    assert!(msg.contains("big.py (lines 368-374 of 1200"), "{msg}");
    assert!(
        !msg.contains("def f300"),
        "only the changed region is shown again"
    );
    feed(
        &mut l,
        &hashline_edit("big.py", &once, 374, "    return x + 1124"),
        13,
    );
    let o = l.end(&stop());
    assert_eq!(o.decision, Decision::Done, "{:?}", o.record.report);
    let want = once.replace("    return x + 124\n", "    return x + 1124\n");
    assert!(l.files()["big.py"] == want);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn replies() -> Vec<String> {
        vec![
            both_edits(),
            format!(
                "{}{}",
                sr("    print(\"Hi\")", GREET_NEW),
                sr(BYE_OLD, BYE_NEW)
            ),
            format!("EDITS: 3\n{}", sr(GREET_OLD, GREET_NEW)),
            "no edits at all\n".to_string(),
        ]
    }

    /// Where every chunk ends, from a seed: 1 to 40 bytes, on char boundaries.
    fn split(text: &str, seed: &[u8]) -> Vec<String> {
        let mut out = vec![];
        let (mut i, mut k) = (0, 0);
        while i < text.len() {
            let mut j = (i + 1 + usize::from(seed[k % seed.len()]) % 40).min(text.len());
            while !text.is_char_boundary(j) {
                j += 1;
            }
            out.push(text[i..j].to_owned());
            (i, k) = (j, k + 1);
        }
        out
    }

    proptest! {
        /// The decision, the changes and the next message do not depend on
        /// how the reply was chunked (early stop off: with it on, where the
        /// reply stops depends on the chunk that completed the failing edit).
        #[test]
        fn chunking_does_not_change_the_outcome(which in 0usize..4, seed in proptest::collection::vec(any::<u8>(), 1..16), cut in any::<bool>()) {
            let reply = &replies()[which];
            let end = if cut { length() } else { stop() };
            let run = |parts: &[String]| {
                let mut l = patient();
                l.next_request();
                for p in parts {
                    l.push(p);
                }
                let o = l.end(&end);
                let next = l.next_request().map(|r| r.messages.last().unwrap().content.clone());
                (o.decision, o.changes, next)
            };
            prop_assert_eq!(run(std::slice::from_ref(reply)), run(&split(reply, &seed)));
        }

        /// Any text, any ending, any number of rounds: no panic, and the
        /// loop ends within its rounds.
        #[test]
        fn any_reply_ends_within_the_rounds(texts in proptest::collection::vec("(<<<<<<< SEARCH|=======|>>>>>>> REPLACE|app.py|```|\\{\"|@@ |    print|\n|[a-z ]{0,8}){0,30}", 1..5), ends in proptest::collection::vec(0u8..3, 5), format in 0usize..7) {
            let formats = ["search-replace", "whole", "udiff", "apply-patch", "tool-call", "hashline", "lines"];
            let mut l = EditLoop::new(cfg(formats[format]), files()).unwrap();
            let mut rounds = 0;
            while let Some(_r) = l.next_request() {
                let text = &texts[rounds % texts.len()];
                for p in split(text, &[7, 3, 11]) {
                    l.push(&p);
                }
                let end = match ends[rounds % ends.len()] { 0 => stop(), 1 => length(), _ => Ending::default() };
                l.end(&end);
                rounds += 1;
                prop_assert!(rounds <= 3, "more rounds than configured");
            }
            prop_assert!(l.is_finished());
        }
    }
}

#[test]
fn a_history_past_the_window_keeps_the_files_and_the_last_round() {
    let mut c = cfg("search-replace");
    c.context_length = 2400;
    c.reply_limit = 300;
    c.rounds = 4;
    let mut l = EditLoop::new(c, files()).unwrap();
    let junk: String = (0..120).map(|k| format!("    line_{k} = {k}\n")).collect();
    let bad = sr(junk.trim_end(), GREET_NEW);
    for _ in 0..2 {
        assert_eq!(round(&mut l, &bad, &stop()).decision, Decision::Retry);
    }
    let r = l.next_request().unwrap();
    let text: Vec<&str> = r.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        r.messages.len(),
        4,
        "system, task and files, the last reply, its feedback"
    );
    assert!(
        text[1].starts_with("Task: ") && text[1].contains(APP),
        "the files are still there"
    );
    assert_eq!(r.messages[2].role, Role::Assistant);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("2 messages of the earlier rounds were left out")),
        "{:?}",
        r.warnings
    );
    assert!(r.prompt_estimate <= 2400 - 300, "{}", r.prompt_estimate);
    feed(&mut l, &sr(GREET_OLD, GREET_NEW), 10);
    let o = l.end(&stop());
    assert_eq!(o.decision, Decision::Done);
    assert!(o.record.warnings.iter().any(|w| w.contains("left out")));
}

#[test]
fn a_stopped_reply_ends_unread_whatever_the_transport_decoded() {
    let mut l = EditLoop::new(cfg("search-replace"), files()).unwrap();
    l.next_request().unwrap();
    let bad = sr("    print(\"Nope\")", "    print(\"x\")");
    assert!(feed(&mut l, &bad, 200).iter().any(|p| p.stop));
    // The final line (with its counts) came in the same read as the stop.
    let counted = Ending {
        output_tokens: Some(40),
        prompt_tokens: Some(100),
        ..stop()
    };
    let o = l.end(&counted);
    assert!(o.record.early_stop);
    assert_eq!(o.record.ending, Ending::default());
}

/// A transport's decoded events go in up to the stop; what came after it
/// in the same read is dropped as unread, thinking and errors included.
#[test]
fn push_chat_takes_the_reply_up_to_a_stop_and_drops_the_rest() {
    use super::wire::ChatEvent;
    let mut l = EditLoop::new(cfg("search-replace"), files()).unwrap();
    l.next_request().unwrap();
    let bad = sr("    print(\"Nope\")", "    print(\"x\")");
    let (head, tail) = bad.split_at(bad.len() / 2);
    let text = |t: &str| ChatEvent::Content {
        text: t.to_string(),
    };
    let mut chat = vec![
        ChatEvent::Thinking { text: "hm".into() },
        text(head),
        text(tail),
        text(&sr(BYE_OLD, BYE_NEW)),
        ChatEvent::Error {
            message: "late".into(),
        },
    ];
    let pushed = l.push_chat(&mut chat);
    assert!(pushed.stop);
    assert_eq!(pushed.events.len(), 1, "{pushed:?}");
    assert_eq!(
        chat.len(),
        3,
        "cut after the content that stopped: {chat:?}"
    );
    // Nothing more goes in after a stop.
    let mut more = vec![text(&sr(BYE_OLD, BYE_NEW))];
    assert_eq!(l.push_chat(&mut more), Pushed::default());
}

/// Round 1's real count scales round 2's estimate: each message's
/// estimate (the plain estimator's) times counted/estimated, rounded up.
#[test]
fn the_first_count_calibrates_the_following_rounds() {
    let bad = sr("    print(\"Hi\")", GREET_NEW);
    // Not stopped early: a stopped round ends unread, without counts.
    let c = LoopConfig {
        early_stop: false,
        ..cfg("search-replace")
    };
    let mut l = EditLoop::new(c, files()).unwrap();
    let r1 = l.next_request().unwrap();
    assert_eq!(r1.calibration, None);
    let est1 = r1.prompt_estimate;
    let counted = est1 * 5 / 4;
    feed(&mut l, &bad, 9);
    let o = l.end(&Ending {
        prompt_tokens: Some(counted),
        ..stop()
    });
    assert_eq!(o.decision, Decision::Retry);
    let r2 = l.next_request().unwrap();
    let c = r2.calibration.expect("learned from round 1");
    assert_eq!((c.round, c.estimate, c.counted), (1, est1, counted));
    let plain = accounting::estimate(&r2.messages, Tokenizer::default());
    let want: usize = plain.iter().map(|&t| (t * counted).div_ceil(est1)).sum();
    assert_eq!(r2.prompt_estimate, want);
    assert!(r2.prompt_estimate > plain.iter().sum::<usize>());
}

/// A calibrated estimate that no longer fits the window is said before
/// the request is sent, where the plain estimate would have fitted.
#[test]
fn a_calibrated_prompt_over_the_window_warns() {
    let bad = sr("    print(\"Hi\")", GREET_NEW);
    let second = |context_length: usize, counted: Option<usize>| {
        let c = LoopConfig {
            context_length,
            early_stop: false,
            ..cfg("search-replace")
        };
        let mut l = EditLoop::new(c, files()).unwrap();
        let est1 = l.next_request().unwrap().prompt_estimate;
        feed(&mut l, &bad, 9);
        l.end(&Ending {
            prompt_tokens: counted.map(|f| est1 * f / 10),
            ..stop()
        });
        l.next_request().unwrap()
    };
    let plain = second(8192, None).prompt_estimate;
    let fits = second(512 + plain + 5, None);
    assert!(fits.warnings.is_empty(), "{:?}", fits.warnings);
    let over = second(512 + plain + 5, Some(15));
    assert!(
        over.warnings.iter().any(|w| w.contains("more than the")),
        "{:?}",
        over.warnings
    );
}

/// A reply that floods past its cap (text and thinking both count) stops
/// at the cap byte, ends as a cut by the reply limit, and applies nothing:
/// the complete edit before the cap is kept for the continuation.
#[test]
fn a_flood_stops_at_the_cap_and_counts_as_cut() {
    use wire::ChatEvent;
    let c = LoopConfig {
        max_reply_bytes: Some(4000),
        ..cfg("search-replace")
    };
    let mut l = EditLoop::new(c, files()).unwrap();
    assert_eq!(l.reply_cap(), 4000);
    l.next_request().unwrap();
    let first = sr(GREET_OLD, GREET_NEW);
    let mut taken = 0usize;
    let mut stopped_at = None;
    // 10 MB offered; the loop must stop long before.
    for k in 0..100_000 {
        let mut chat = vec![
            ChatEvent::Thinking {
                text: "é".repeat(25),
            },
            ChatEvent::Content {
                text: if k == 0 {
                    first.clone()
                } else {
                    "flood ".repeat(8)
                },
            },
        ];
        let p = l.push_chat(&mut chat);
        for e in &chat {
            if let ChatEvent::Thinking { text } | ChatEvent::Content { text } = e {
                taken += text.len();
            }
        }
        if p.stop {
            assert!(p.capped);
            stopped_at = Some(k);
            break;
        }
    }
    assert!(stopped_at.is_some_and(|k| k < 100), "{stopped_at:?}");
    // Every byte the events kept counts, up to the cap and not past it
    // (a character split by the cap is left out whole).
    assert!((3999..=4000).contains(&taken), "{taken}");
    let o = l.end(&stop());
    assert_eq!(o.decision, Decision::Continue);
    assert!(o.changes.is_empty(), "nothing of a cut reply applies");
    assert!(o.record.cut && !o.record.early_stop);
    assert_eq!(o.record.ending.reason.as_deref(), Some("length"));
    assert!(
        o.record
            .warnings
            .iter()
            .any(|w| w.contains("passed 4000 bytes")),
        "{:?}",
        o.record.warnings
    );
    let r2 = l.next_request().unwrap();
    let asked = &r2.messages.last().unwrap().content;
    assert!(asked.contains("it passed 4000 bytes"), "{asked}");
}

/// The default cap is the reply limit's tokens at `BYTES_PER_TOKEN`, and
/// a zero cap is a bad configuration.
#[test]
fn the_cap_follows_the_reply_limit_unless_set() {
    let l = EditLoop::new(cfg("search-replace"), files()).unwrap();
    assert_eq!(l.reply_cap(), 512 * 64);
    let zero = LoopConfig {
        max_reply_bytes: Some(0),
        ..cfg("search-replace")
    };
    assert!(matches!(
        EditLoop::new(zero, files()),
        Err(LoopError::BadConfig { .. })
    ));
}

/// One server line without end: the loop's decoder drops it past twice
/// the cap and 64 KB, and the loop counts the reply as cut, having held
/// no more than that line limit.
#[test]
fn an_endless_line_caps_the_reply() {
    for provider in [wire::Provider::Ollama, wire::Provider::Openai] {
        let mut l = EditLoop::new(cfg("search-replace"), files()).unwrap();
        l.next_request().unwrap();
        let mut dec = l.decoder(provider);
        let head: &[u8] = match provider {
            wire::Provider::Ollama => b"{\"message\":{\"role\":\"assistant\",\"content\":\"",
            wire::Provider::Openai => b"data: {\"choices\":[{\"delta\":{\"content\":\"",
        };
        let mut chat = dec.push(head);
        let limit = 2 * 512 * 64 + (64 << 10);
        let mut sent = head.len();
        let chunk = vec![b'a'; 8192];
        let mut p = l.push_chat(&mut chat);
        while !p.stop && sent < 100 << 20 {
            let mut chat = dec.push(&chunk);
            sent += chunk.len();
            p = l.push_chat(&mut chat);
        }
        assert!(p.stop && p.capped, "{provider:?}");
        assert!(sent > limit && sent <= limit + chunk.len(), "{sent}");
        let o = l.end(&Ending::default());
        assert_eq!(o.decision, Decision::Continue);
        assert!(
            o.record
                .warnings
                .iter()
                .any(|w| w.contains("a line of more than")),
            "{:?}",
            o.record.warnings
        );
    }
}
