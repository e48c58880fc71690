//! `patchbay run` end to end against the model-server double: retries,
//! continuations after a cut (by the limit, by the connection), thinking
//! models, server errors, both providers, dry runs. Each expected file is
//! written out by hand.

mod common;

use common::{assert_stderr_has, assert_stdout_has, show, stderr, stdout, Sandbox};
use patchbay_tests::double::{Double, End, Flood, ModelDef, Reply, Script};
use std::fs;
use std::process::{Command, Output, Stdio};

const APP: &str = "def greet(name):\n    print(\"Hello, \" + name)\n\n\ndef farewell(name):\n    print(\"Goodbye, \" + name)\n";
const BOTH: &str = "def greet(name):\n    print(\"Hello, \" + name + \"!\")\n\n\ndef farewell(name):\n    print(\"Goodbye, \" + name + \"!\")\n";

fn sr(old: &str, new: &str) -> String {
    format!("app.py\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n")
}
fn greet() -> String {
    sr(
        "    print(\"Hello, \" + name)",
        "    print(\"Hello, \" + name + \"!\")",
    )
}
fn bye() -> String {
    sr(
        "    print(\"Goodbye, \" + name)",
        "    print(\"Goodbye, \" + name + \"!\")",
    )
}

/// Both edits of the task in one reply.
fn both_edits() -> String {
    format!("{}{}", greet(), bye())
}

/// A double whose first reply is `first` and whose second makes both edits.
fn then_both(first: &str) -> Double {
    double(vec![
        reply(1, first, End::Stop),
        reply(2, &both_edits(), End::Stop),
    ])
}

fn reply(round: usize, text: &str, end: End) -> Reply {
    Reply {
        round: Some(round),
        text: text.into(),
        end,
        chunk_chars: Some(7),
        ..Reply::default()
    }
}

fn double(replies: Vec<Reply>) -> Double {
    let script = Script {
        replies,
        models: vec![
            ModelDef::default(),
            ModelDef {
                name: "thinker:8b".into(),
                capabilities: vec!["completion".into(), "thinking".into()],
                ..ModelDef::default()
            },
        ],
        ..Script::default()
    };
    Double::start(script, 0).unwrap()
}

/// The arguments of `patchbay run` against `url`: the task on `app.py`
/// with a small context and reply limit, `extra` added, `coder:7b` unless
/// `extra` names a model.
fn run_args<'a>(url: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "--url",
        url,
        "--format",
        "search-replace",
        "--task",
        "Add exclamation marks.",
        "--num-ctx",
        "4096",
        "--reply-limit",
        "512",
    ];
    if !extra.contains(&"--model") {
        args.extend(["--model", "coder:7b"]);
    }
    args.extend(extra);
    args.push("app.py");
    args
}

fn run(sb: &Sandbox, d: &Double, extra: &[&str]) -> Output {
    common::patchbay(&sb.dir, &run_args(&d.url(), extra))
}

/// A fresh sandbox holding `app.py` ([`APP`]).
fn with_app(tag: &str) -> Sandbox {
    let sb = Sandbox::new(tag);
    sb.write("app.py", APP);
    sb
}

/// Asserts that the run exited 0 with both edits in `app.py`.
#[track_caller]
fn assert_both_written(sb: &Sandbox, o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}", show(o));
    assert_eq!(app(sb), BOTH);
}

fn app(sb: &Sandbox) -> String {
    fs::read_to_string(sb.path("app.py")).unwrap()
}

#[test]
fn a_failed_edit_is_retried_with_feedback_and_written() {
    let sb = with_app("run-retry");
    let bad = sr(
        "    print(\"Hi, \" + name)",
        "    print(\"Hello, \" + name + \"!\")",
    );
    let d = then_both(&bad);
    let o = run(&sb, &d, &["--no-early-stop"]);
    assert_both_written(&sb, &o);
    let reqs = d.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0]["options"]["num_ctx"], 4096);
    assert_eq!(reqs[0]["options"]["num_predict"], 512);
    assert!(reqs[0].get("think").is_none(), "not a thinking model");
    let last = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert!(
        last["content"].as_str().unwrap().contains("not_found"),
        "{last}"
    );
    let out = stdout(&o);
    assert!(
        out.contains("round 1: edits failed") && out.contains("round 2: done"),
        "{}",
        show(&o)
    );
}

#[test]
fn a_reply_cut_by_the_limit_or_the_connection_is_continued() {
    for end in [End::Length, End::Cut] {
        let sb = with_app("run-cut");
        let first = format!("EDITS: 2\n{}{}", greet(), &bye()[..30]);
        let d = double(vec![reply(1, &first, end), reply(2, &bye(), End::Stop)]);
        let o = run(&sb, &d, &[]);
        assert_eq!(o.status.code(), Some(0), "{end:?} {}", show(&o));
        assert_eq!(app(&sb), BOTH, "{end:?}");
        let cont = d.requests()[1]["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()["content"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(cont.contains("starting with edit 2"), "{cont}");
    }
}

#[test]
fn partial_rounds_are_written_and_a_repeat_is_a_no_op() {
    let sb = with_app("run-partial");
    let bad_bye = sr(
        "    print(\"Bye, \" + name)",
        "    print(\"Goodbye, \" + name + \"!\")",
    );
    let d = then_both(&format!("{}{bad_bye}", greet()));
    let o = run(&sb, &d, &["--no-early-stop", "--json"]);
    assert_both_written(&sb, &o);
    let rounds: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rounds.len(), 2);
    assert_eq!(rounds[0]["changed"][0], "app.py");
    assert_eq!(rounds[1]["noops"], 1);
    assert_eq!(rounds[1]["decision"]["decision"], "done");
}

#[test]
fn dry_run_writes_nothing_and_giving_up_exits_1() {
    let sb = with_app("run-dry");
    let d = double(vec![reply(1, &greet(), End::Stop)]);
    let o = run(&sb, &d, &["--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert_eq!(app(&sb), APP);
    assert_stdout_has(&o, "Dry run");

    let d = double(vec![
        reply(1, "I cannot do that.\n", End::Stop),
        reply(2, "Still no.\n", End::Stop),
    ]);
    let o = run(&sb, &d, &["--rounds", "2"]);
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert_eq!(app(&sb), APP);
    assert_stdout_has(&o, "all 2 rounds are spent");
}

#[test]
fn thinking_models_get_think_false_unless_asked() {
    let sb = with_app("run-think");
    let mut r = reply(1, &greet(), End::Stop);
    r.thinking = "Let me look at greet first.".into();
    let d = double(vec![r]);
    let o = run(&sb, &d, &["--model", "thinker:8b", "--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert_eq!(d.requests()[0]["think"], false);
    assert!(!stdout(&o).contains("thinking"));
    let o = run(&sb, &d, &["--model", "thinker:8b", "--think", "--dry-run"]);
    assert_eq!(d.requests()[1]["think"], true);
    assert_stdout_has(
        &o,
        &format!("{} bytes of thinking", "Let me look at greet first.".len()),
    );
}

#[test]
fn server_errors_are_named_with_their_fix() {
    let sb = with_app("run-errors");
    let mut e = reply(1, &greet()[..20], End::Error);
    e.error = Some("CUDA error: out of memory".into());
    let d = double(vec![e]);
    let o = run(&sb, &d, &["--model", "nosuch:1b"]);
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
    assert_stderr_has(&o, "ollama pull nosuch:1b");
    let o = run(&sb, &d, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
    assert_stderr_has(&o, "CUDA error: out of memory");
    assert_eq!(app(&sb), APP);

    // A port nothing listens on: bind one, learn it, free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let o = Command::new(env!("CARGO_BIN_EXE_patchbay"))
        .args([
            "run",
            "--url",
            &format!("http://127.0.0.1:{port}"),
            "--model",
            "m",
            "--format",
            "whole",
            "--task",
            "t",
            "app.py",
        ])
        .current_dir(&sb.dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_stderr_has(&o, "ollama serve");
}

#[test]
fn the_openai_provider_streams_sse() {
    let sb = with_app("run-openai");
    let mut r = reply(1, &both_edits(), End::Stop);
    r.prompt_tokens = Some(5);
    let d = double(vec![r]);
    let o = run(&sb, &d, &["--provider", "openai"]);
    assert_both_written(&sb, &o);
    let req = &d.requests()[0];
    assert_eq!(req["stream_options"]["include_usage"], true);
    assert_eq!(req["max_tokens"], 512);
    // 5 prompt tokens for a prompt the engine puts in the hundreds.
    assert_stdout_has(&o, "warning: the server counted 5 prompt tokens");
}

#[test]
fn a_prompt_the_server_cut_is_reported_with_what_was_lost() {
    let sb = with_app("run-lost");
    let junk: String = (0..150).map(|k| format!("    line_{k} = {k}\n")).collect();
    let long_bad = sr(junk.trim_end(), "    pass");
    let mut script = Script {
        replies: vec![
            reply(1, &long_bad, End::Stop),
            reply(2, &both_edits(), End::Stop),
        ],
        ..Script::default()
    };
    // The double counts the prompt and drops the oldest messages beyond
    // num_ctx, as Ollama does.
    script.count_prompt = true;
    let d = Double::start(script, 0).unwrap();
    let url = d.url();
    let o = Command::new(env!("CARGO_BIN_EXE_patchbay"))
        .args([
            "run",
            "--url",
            &url,
            "--model",
            "coder:7b",
            "--format",
            "search-replace",
            "--task",
            "Add exclamation marks.",
            "--num-ctx",
            "1200",
            "--reply-limit",
            "200",
            "--no-early-stop",
            "app.py",
        ])
        .current_dir(&sb.dir)
        .output()
        .unwrap();
    assert_both_written(&sb, &o);
    let out = stdout(&o);
    let round2 = out.split("round 2:").nth(1).unwrap_or("");
    assert!(
        round2.contains("warning: the server counted"),
        "{}",
        show(&o)
    );
    assert!(
        round2.contains("message 2 (user: \"Task: Add exclamation marks.\")"),
        "{}",
        show(&o)
    );
    assert!(
        !out.split("round 2:").next().unwrap().contains("warning"),
        "round 1 fitted: {}",
        show(&o)
    );
}

#[test]
fn usage_errors_come_before_any_server_is_asked() {
    let sb = with_app("run-usage");
    let d = double(vec![]);
    let url = d.url();
    for args in [
        &[
            "run", "--url", &url, "--model", "coder:7b", "--format", "auto", "--task", "t",
            "app.py",
        ][..],
        &[
            "run", "--url", &url, "--model", "coder:7b", "--format", "whole", "--task", "t",
        ],
        &[
            "run", "--url", &url, "--format", "whole", "--task", "t", "app.py",
        ],
        &[
            "run", "--url", &url, "--model", "m", "--format", "whole", "--task", "t", "--rounds",
            "x", "app.py",
        ],
        &[
            "arena",
            "--url",
            &url,
            "--tasks",
            ".",
            "--models",
            "coder:7b",
            "--formats",
            "bogus",
        ],
        &["arena", "--url", &url, "--tasks", "."],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_patchbay"))
            .args(args)
            .current_dir(&sb.dir)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", show(&o));
    }
    assert!(d.requests().is_empty(), "no chat was sent");
}

/// A block that creates `path` with `text` (search-replace, empty SEARCH).
fn create(path: &str, text: &str) -> String {
    format!("{path}\n<<<<<<< SEARCH\n=======\n{text}>>>>>>> REPLACE\n")
}

/// Every entry under the sandbox, for "nothing else was written".
fn entries(sb: &Sandbox) -> Vec<String> {
    sb.listing("")
}

/// A model that writes a backup of app.py and then a journal naming it:
/// `run` refuses the first round (exit 2, nothing written), so the next
/// `apply` has nothing to "roll back". Without the rule, run wrote both
/// (exit 0) and the next apply replaced app.py with the model's text.
#[test]
fn run_never_writes_patchbays_own_files() {
    let sb = with_app("run-own");
    let journal = "{\"patchbay_journal\":1,\"pid\":1}\n{\"target\":\"app.py\",\"temp\":null,\"backup\":\".app.py.patchbay-1-0.orig\"}\n{\"state\":\"renaming\"}\n";
    // Round 1 writes the backup (an edit fails, so a round 2 comes);
    // round 2 the journal, alone, as a commit of one new file.
    let bad = sr("    print(\"Hi, \" + name)", "    print(\"Hi!\")");
    let backup = create(".app.py.patchbay-1-0.orig", "print(\"the model's text\")\n");
    let d = double(vec![
        reply(1, &format!("{backup}{bad}"), End::Stop),
        reply(2, &create(".patchbay-journal", journal), End::Stop),
    ]);
    let o = run(&sb, &d, &["--no-early-stop"]);
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
    assert_stderr_has(&o, "one of patchbay's own files");
    assert_eq!(app(&sb), APP, "nothing of the round is written");
    assert_eq!(entries(&sb), ["app.py"]);
    // The next writer finds nothing to replay.
    fs::write(sb.path("reply.txt"), greet()).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_patchbay"))
        .args(["apply", "--edits", "reply.txt", "--root", "."])
        .current_dir(&sb.dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(!stderr(&o).contains("rolled back"));
    assert!(app(&sb).contains("\"Hello, \" + name + \"!\""));
    assert!(!app(&sb).contains("the model's text"));
}

/// A model that writes a git hook: refused (exit 2, nothing written)
/// unless `--allow-git-dir`, with which the hook and the edit are written.
#[test]
fn run_refuses_git_folders_unless_allowed() {
    for allow in [false, true] {
        let sb = with_app("run-git");
        sb.write(".git/HEAD", "ref: refs/heads/main\n");
        let hook = create(".git/hooks/post-commit", "#!/bin/sh\necho hi\n");
        let d = double(vec![reply(1, &format!("{}{hook}", greet()), End::Stop)]);
        let extra: &[&str] = if allow { &["--allow-git-dir"] } else { &[] };
        let o = run(&sb, &d, extra);
        if allow {
            assert_eq!(o.status.code(), Some(0), "{}", show(&o));
            assert_eq!(sb.read(".git/hooks/post-commit"), "#!/bin/sh\necho hi\n");
            assert!(app(&sb).contains("\"Hello, \" + name + \"!\""));
        } else {
            assert_eq!(o.status.code(), Some(2), "{}", show(&o));
            let err = stderr(&o);
            assert!(
                err.contains(".git folder") && err.contains("--allow-git-dir"),
                "{err}"
            );
            assert_eq!(entries(&sb), [".git", ".git/HEAD", "app.py"]);
            assert_eq!(app(&sb), APP);
        }
    }
}

/// Three rounds against a server that keeps connections alive but closes
/// each one a moment after its reply, as llama-server does after every
/// stream: a request sent on such a connection is lost. Every round must
/// reach the server and no request may be lost.
#[test]
fn a_server_that_closes_kept_connections_loses_no_round() {
    for provider in ["openai", "ollama"] {
        let sb = with_app("run-keep-alive");
        let bad = |k: usize| sr(&format!("    print(\"Hi{k}\")"), "    pass");
        let script = Script {
            replies: (1..=3).map(|k| reply(k, &bad(k), End::Stop)).collect(),
            keep_alive: true,
            ..Script::default()
        };
        let d = Double::start(script, 0).unwrap();
        let o = run(&sb, &d, &["--provider", provider, "--rounds", "3"]);
        assert_eq!(o.status.code(), Some(1), "{provider}: {}", show(&o));
        let out = stdout(&o);
        assert!(
            out.contains("round 3: gave up: edits failed and all 3 rounds are spent"),
            "{provider}: {}",
            show(&o)
        );
        assert_eq!(d.requests().len(), 3, "{provider}: {}", show(&o));
        assert_eq!(
            d.dropped(),
            0,
            "{provider}: a request went out on a closing connection"
        );
        assert_eq!(app(&sb), APP);
    }
}

/// A request whose connection dies before any byte of the answer is sent
/// once more, on a fresh connection; a second loss is an error that says
/// what happened (exit 2), and nothing is sent a third time.
#[test]
fn a_request_lost_before_any_answer_is_sent_once_more() {
    for (drops, code) in [(1, 0), (2, 2)] {
        let sb = with_app("run-dropped");
        let script = Script {
            replies: vec![reply(1, &both_edits(), End::Stop)],
            drop_chats: drops,
            ..Script::default()
        };
        let d = Double::start(script, 0).unwrap();
        let o = run(&sb, &d, &["--provider", "openai"]);
        assert_eq!(o.status.code(), Some(code), "{drops}: {}", show(&o));
        assert_eq!(d.dropped(), drops, "{}", show(&o));
        if code == 0 {
            assert_eq!(app(&sb), BOTH);
            assert_eq!(d.requests().len(), 1);
        } else {
            assert_eq!(app(&sb), APP);
            assert!(d.requests().is_empty());
            assert_stderr_has(&o, "closed the connection before answering, twice");
        }
    }
}

/// The context llama-server serves is read from its `/v1/models` and
/// planned with; asking for more warns and plans with the server's. Round
/// 1's real count scales round 2's estimate.
#[test]
fn the_servers_context_and_the_first_count_shape_the_budget() {
    let sb = with_app("run-context");
    let bad = |k: usize| sr(&format!("    print(\"Hi{k}\")"), "    pass");
    let script = Script {
        replies: (1..=2).map(|k| reply(k, &bad(k), End::Stop)).collect(),
        models: vec![ModelDef {
            served_context: Some(3000),
            ..ModelDef::default()
        }],
        count_prompt: true,
        ..Script::default()
    };
    let d = Double::start(script, 0).unwrap();
    let url = d.url();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--url",
            &url,
            "--provider",
            "openai",
            "--model",
            "coder:7b",
            "--format",
            "search-replace",
            "--task",
            "Add exclamation marks.",
            "--reply-limit",
            "512",
            "--rounds",
            "2",
            "--no-early-stop",
        ];
        args.extend(extra);
        args.push("app.py");
        Command::new(env!("CARGO_BIN_EXE_patchbay"))
            .args(&args)
            .current_dir(&sb.dir)
            .output()
            .unwrap()
    };
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    let err = stderr(&o);
    assert_stderr_has(&o, "round 1 (first): ~");
    assert_stderr_has(&o, "num_ctx 3000");
    assert!(!err.contains("warning"), "{}", show(&o));
    // Round 1's estimate as printed, and the double's count of that very
    // request (its own rule: four characters a token).
    let est1: usize = err
        .split("round 1 (first): ~")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    let counted = patchbay_tests::double::script::counted_prompt(&d.requests()[0]);
    let line2 = err.lines().find(|l| l.starts_with("round 2")).unwrap();
    assert!(
        line2.contains(&format!(
            "the server counted {counted} where the engine estimated {est1}"
        )),
        "{line2}"
    );

    let o = run(&["--num-ctx", "8192"]);
    assert_stderr_has(
        &o,
        "warning: a context of 8192 tokens was asked for, but the server serves 3000",
    );
    assert_stderr_has(&o, "num_ctx 3000");
}

/// The address space `run` gets in the flood tests: a run that buffered
/// a flood would pass it within a second (the double sends hundreds of MB
/// a second) and abort; a bounded one stays far below.
const AS_LIMIT: &str = "--as=1073741824";

/// `run` under [`AS_LIMIT`], with its wall time.
fn run_bounded(sb: &Sandbox, d: &Double, extra: &[&str]) -> (Output, std::time::Duration) {
    let url = d.url();
    let extra: Vec<&str> = ["--rounds", "2"]
        .into_iter()
        .chain(extra.iter().copied())
        .collect();
    let mut args = vec![AS_LIMIT, env!("CARGO_BIN_EXE_patchbay")];
    args.extend(run_args(&url, &extra));
    let started = std::time::Instant::now();
    let o = Command::new("prlimit")
        .args(&args)
        .current_dir(&sb.dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (o, started.elapsed())
}

fn flood(mode: Flood, text: &str) -> Reply {
    Reply {
        text: text.into(),
        flood: Some(mode),
        ..Reply::default()
    }
}

/// A server that ignores the reply limit (text, thinking, or one line
/// without end, on both APIs): every round stops at the cap, counts as cut,
/// applies nothing, and says so; memory stays bounded and thinking echoed
/// to stderr stops at 16 KB.
#[test]
fn an_endless_reply_stops_at_the_cap_in_bounded_memory() {
    let cases = [
        (
            Flood::Stream,
            "ollama",
            "coder:7b",
            "the reply passed 32768 bytes",
        ),
        (
            Flood::Stream,
            "openai",
            "coder:7b",
            "the reply passed 32768 bytes",
        ),
        (
            Flood::Thinking,
            "ollama",
            "thinker:8b",
            "the reply passed 32768 bytes",
        ),
        (
            Flood::Thinking,
            "openai",
            "coder:7b",
            "the reply passed 32768 bytes",
        ),
        (
            Flood::Line,
            "ollama",
            "coder:7b",
            "a line of more than 131072 bytes",
        ),
        (
            Flood::Line,
            "openai",
            "coder:7b",
            "a line of more than 131072 bytes",
        ),
    ];
    for (mode, provider, model, said) in cases {
        let sb = with_app("run-flood");
        let d = double(vec![flood(mode, &greet())]);
        let (o, wall) = run_bounded(
            &sb,
            &d,
            &["--provider", provider, "--model", model, "--think"],
        );
        let what = format!("{mode:?} {provider}: {wall:?}\n{}", show(&o));
        assert_eq!(o.status.code(), Some(1), "{what}");
        assert!(wall.as_secs() < 20, "{what}");
        let (out, err) = (stdout(&o), stderr(&o));
        assert!(out.contains(said), "{what}");
        assert!(
            out.contains("the reply was cut and all 2 rounds are spent"),
            "{what}"
        );
        assert!(
            err.contains("stopping the reply: it reached the reply cap"),
            "{what}"
        );
        assert_eq!(app(&sb), APP, "nothing of a cut reply applies");
        if mode == Flood::Thinking && provider == "ollama" {
            assert!(err.contains("thinking past 16 KB is not shown"), "{what}");
            // Two rounds of 16 KB echoed, and the lines around them.
            assert!(err.len() < 2 * (16 << 10) + 2048, "{}", err.len());
        }
    }
}

/// `--max-reply-bytes` sets the cap: a 50 MB reply under a 1 MB cap is cut
/// at the cap.
#[test]
fn the_reply_cap_is_an_option() {
    let sb = with_app("run-cap");
    let mut r = flood(Flood::Stream, &greet());
    r.flood_bytes = Some(50 << 20);
    let d = double(vec![r]);
    let (o, _) = run_bounded(&sb, &d, &["--max-reply-bytes", "1000000"]);
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert_stdout_has(&o, "the reply passed 1000000 bytes");
    let o = run(&sb, &d, &["--max-reply-bytes", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
}

/// A server that goes silent mid-reply ends the run after the idle
/// timeout, with the option named; bytes that keep coming, however slowly,
/// are not idle.
#[test]
fn a_silent_server_times_out_and_slow_bytes_do_not() {
    let sb = with_app("run-silent");
    let d = double(vec![flood(Flood::Silent, "app.py\n")]);
    let (o, wall) = run_bounded(&sb, &d, &["--idle-timeout", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
    assert!(wall.as_secs_f64() < 10.0, "{wall:?}");
    assert_stderr_has(&o, "sent nothing for 1 s (--idle-timeout)");
    assert_eq!(app(&sb), APP);

    let mut slow = reply(1, &both_edits(), End::Stop);
    (slow.chunk_chars, slow.byte_ms) = (Some(400), 3);
    let d = double(vec![slow]);
    let (o, wall) = run_bounded(&sb, &d, &["--idle-timeout", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(
        wall.as_secs_f64() > 1.5,
        "slower in all than the idle timeout: {wall:?}"
    );
    assert_eq!(app(&sb), BOTH);
}

/// What a server says reaches the terminal with its control characters
/// shown, not obeyed: a 500 page with `ESC ]0;TITLE BEL` and `ESC [2J`,
/// in `run`'s error and in `arena`'s verdict line.
#[test]
fn a_servers_escapes_are_shown_not_obeyed() {
    let sb = with_app("run-escapes");
    let page = "boom \x1b]0;TITLE\x07 then \x1b[2J cleared";
    let d = double(vec![Reply {
        text: page.into(),
        status: Some(500),
        ..Reply::default()
    }]);
    let want = "boom \\u{1b}]0;TITLE\\u{7} then \\u{1b}[2J cleared";
    let o = run(&sb, &d, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
    let err = stderr(&o);
    assert_stderr_has(&o, &format!("HTTP 500: {want}"));
    assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");

    let tasks = sb.path("tasks");
    fs::create_dir_all(tasks.join("t1/before")).unwrap();
    fs::write(
        tasks.join("t1/task.json"),
        r#"{"task":"Add exclamation marks."}"#,
    )
    .unwrap();
    fs::write(tasks.join("t1/before/app.py"), APP).unwrap();
    let url = d.url();
    let o = Command::new(env!("CARGO_BIN_EXE_patchbay"))
        .args([
            "arena",
            "--url",
            &url,
            "--models",
            "coder:7b",
            "--formats",
            "search-replace",
        ])
        .args([
            "--num-ctx",
            "4096",
            "--reply-limit",
            "512",
            "--tasks",
            "tasks",
        ])
        .current_dir(&sb.dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    let (out, err) = (stdout(&o), stderr(&o));
    assert_stderr_has(&o, want);
    assert!(
        !err.contains('\x1b') && !out.contains('\x1b'),
        "{}",
        show(&o)
    );
}

/// A file name a model created reaches the terminal with its control
/// characters shown.
#[test]
fn a_created_files_name_is_shown_not_obeyed() {
    let sb = with_app("run-name");
    let name = "x\x1b[2Jy.py";
    let d = double(vec![reply(
        1,
        &format!("{name}\n<<<<<<< SEARCH\n=======\nprint(1)\n>>>>>>> REPLACE\n"),
        End::Stop,
    )]);
    let o = run(&sb, &d, &[]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(
        !out.contains('\x1b') && !err.contains('\x1b'),
        "{}",
        show(&o)
    );
    assert!(
        out.contains("x\\u{1b}[2Jy.py") || err.contains("x\\u{1b}[2Jy.py"),
        "{}",
        show(&o)
    );
}
