//! The model-server double speaks the wire as the real servers do: checked
//! with raw HTTP over a socket (no client library between), the bodies
//! decoded by hand for the chunked streams.

use patchbay::edit_loop::wire::{ollama, openai, ChatEvent};
use patchbay_tests::double::{Double, End, ModelDef, Reply, Script};
use std::io::{Read, Write};
use std::net::TcpStream;

struct Answer {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

fn ask(d: &Double, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut c = TcpStream::connect(("127.0.0.1", d.port)).unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (n, v) in headers {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    c.write_all(req.as_bytes()).unwrap();
    let mut raw = vec![];
    let _ = c.read_to_end(&mut raw);
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut body = raw[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    Answer { status, head, body }
}

/// The payload of a chunked body (as far as it goes, for a cut one).
fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = vec![];
    while let Some(k) = b.windows(2).position(|w| w == b"\r\n") {
        let n = usize::from_str_radix(std::str::from_utf8(&b[..k]).unwrap(), 16).unwrap();
        if n == 0 || b.len() < k + 2 + n {
            break;
        }
        out.extend_from_slice(&b[k + 2..k + 2 + n]);
        b = &b[k + 4 + n..];
    }
    out
}

fn script() -> Script {
    Script {
        models: vec![
            ModelDef {
                loaded_context: Some(4096),
                ..ModelDef::default()
            },
            ModelDef {
                name: "thinker:8b".into(),
                capabilities: vec!["completion".into(), "thinking".into()],
                ..ModelDef::default()
            },
        ],
        origins: vec!["https://app.example.org".into()],
        replies: vec![
            Reply {
                task: Some("cut".into()),
                text: "héllo wörld".into(),
                end: End::Cut,
                chunk_chars: Some(3),
                ..Reply::default()
            },
            Reply {
                task: Some("error".into()),
                text: "partial".into(),
                end: End::Error,
                error: Some("boom".into()),
                ..Reply::default()
            },
            Reply {
                task: Some("long".into()),
                text: "a b c".into(),
                end: End::Length,
                prompt_tokens: Some(42),
                ..Reply::default()
            },
            Reply {
                text: "日本語のテキスト".into(),
                thinking: "thinking…".into(),
                chunk_chars: Some(2),
                ..Reply::default()
            },
        ],
        ..Script::default()
    }
}

fn chat(model: &str, content: &str, extra: &str) -> String {
    format!(
        r#"{{"model":"{model}","messages":[{{"role":"user","content":"{content}"}}],"stream":true{extra}}}"#
    )
}

fn ollama_events(a: &Answer) -> (Vec<ChatEvent>, patchbay::edit_loop::wire::Ending) {
    let mut d = ollama::ChatDecoder::default();
    let mut ev = d.push(&a.body);
    let (rest, end) = d.finish();
    ev.extend(rest);
    (ev, end)
}

fn content(ev: &[ChatEvent]) -> String {
    ev.iter()
        .filter_map(|e| match e {
            ChatEvent::Content { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn models_show_version_and_ps() {
    let d = Double::start(script(), 0).unwrap();
    let v = ask(&d, "GET", "/api/version", &[], "");
    assert_eq!(ollama::parse_version(&v.text()).unwrap(), "0.12.6");
    let tags = ollama::parse_tags(&ask(&d, "GET", "/api/tags", &[], "").text()).unwrap();
    assert_eq!(
        tags.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["coder:7b", "thinker:8b"]
    );
    let show = ask(&d, "POST", "/api/show", &[], r#"{"model":"thinker:8b"}"#);
    let info = ollama::parse_show(&show.text()).unwrap();
    assert_eq!(
        (info.context_length, info.capabilities.len()),
        (Some(32768), 2)
    );
    assert_eq!(
        ask(&d, "POST", "/api/show", &[], r#"{"model":"nope"}"#).status,
        404
    );
    let ps = ollama::parse_ps(&ask(&d, "GET", "/api/ps", &[], "").text()).unwrap();
    assert_eq!((ps.len(), ps[0].context_length), (1, Some(4096)));
    let models = openai::parse_models(&ask(&d, "GET", "/v1/models", &[], "").text()).unwrap();
    let names: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["coder:7b", "thinker:8b"]);
    assert!(models.iter().all(|m| m.context_length.is_none()));
}

#[test]
fn the_origin_rule() {
    let d = Double::start(script(), 0).unwrap();
    let bad = ask(
        &d,
        "GET",
        "/api/version",
        &[("Origin", "https://evil.example.com")],
        "",
    );
    assert_eq!(bad.status, 403);
    assert_eq!(bad.header("access-control-allow-origin"), None);
    for ok in [
        "http://localhost:5173",
        "http://127.0.0.1:8080",
        "https://app.example.org",
    ] {
        let a = ask(&d, "GET", "/api/version", &[("Origin", ok)], "");
        assert_eq!(
            (a.status, a.header("access-control-allow-origin").as_deref()),
            (200, Some(ok))
        );
        let pre = ask(
            &d,
            "OPTIONS",
            "/api/chat",
            &[("Origin", ok), ("Access-Control-Request-Method", "POST")],
            "",
        );
        assert_eq!(pre.status, 204);
        assert!(pre
            .header("access-control-allow-methods")
            .unwrap()
            .contains("POST"));
        assert!(pre
            .header("access-control-allow-headers")
            .unwrap()
            .contains("Content-Type"));
    }
    let pre = ask(
        &d,
        "OPTIONS",
        "/api/chat",
        &[("Origin", "http://other.test")],
        "",
    );
    assert_eq!(
        (pre.status, pre.header("access-control-allow-origin")),
        (403, None)
    );
    let none = ask(&d, "GET", "/api/version", &[], "");
    assert_eq!(
        (none.status, none.header("access-control-allow-origin")),
        (200, None)
    );
}

#[test]
fn streams_end_cut_fail_and_think_as_scripted() {
    let d = Double::start(script(), 0).unwrap();
    let a = ask(&d, "POST", "/api/chat", &[], &chat("coder:7b", "long", ""));
    let (ev, end) = ollama_events(&a);
    assert_eq!(
        (content(&ev), end.reason.as_deref(), end.prompt_tokens),
        ("a b c".into(), Some("length"), Some(42))
    );

    let (ev, end) = ollama_events(&ask(
        &d,
        "POST",
        "/api/chat",
        &[],
        &chat("coder:7b", "cut", ""),
    ));
    assert_eq!(content(&ev), "héllo wörld");
    assert!(!end.finished);

    let (ev, _) = ollama_events(&ask(
        &d,
        "POST",
        "/api/chat",
        &[],
        &chat("coder:7b", "error", ""),
    ));
    assert!(ev.contains(&ChatEvent::Error {
        message: "boom".into()
    }));

    let (ev, end) = ollama_events(&ask(
        &d,
        "POST",
        "/api/chat",
        &[],
        &chat("thinker:8b", "x", ""),
    ));
    assert!(ev.iter().any(|e| matches!(e, ChatEvent::Thinking { .. })));
    assert_eq!(
        (content(&ev), end.finished),
        ("日本語のテキスト".into(), true)
    );
    let (ev, _) = ollama_events(&ask(
        &d,
        "POST",
        "/api/chat",
        &[],
        &chat("thinker:8b", "x", r#","think":false"#),
    ));
    assert!(!ev.iter().any(|e| matches!(e, ChatEvent::Thinking { .. })));
    assert_eq!(
        ask(
            &d,
            "POST",
            "/api/chat",
            &[],
            &chat("coder:7b", "x", r#","think":true"#)
        )
        .status,
        400
    );

    let missing = ask(&d, "POST", "/api/chat", &[], &chat("nope:1b", "x", ""));
    assert_eq!(missing.status, 404);
    assert!(patchbay::edit_loop::wire::error_message(404, &missing.text()).contains("not found"));
    assert_eq!(d.requests().len(), 7, "every chat body is logged");
}

#[test]
fn the_openai_side_streams_sse() {
    let d = Double::start(script(), 0).unwrap();
    let a = ask(
        &d,
        "POST",
        "/v1/chat/completions",
        &[],
        &chat(
            "coder:7b",
            "long",
            r#","stream_options":{"include_usage":true}"#,
        ),
    );
    assert!(a
        .header("content-type")
        .unwrap()
        .starts_with("text/event-stream"));
    let mut dec = openai::ChatDecoder::default();
    let mut ev = dec.push(&a.body);
    let (rest, end) = dec.finish();
    ev.extend(rest);
    assert_eq!(content(&ev), "a b c");
    assert!(a.text().trim_end().ends_with("data: [DONE]"));
    assert_eq!(
        (end.reason.as_deref(), end.prompt_tokens, end.output_tokens),
        (Some("length"), Some(42), Some(1))
    );
    let missing = ask(
        &d,
        "POST",
        "/v1/chat/completions",
        &[],
        &chat("nope", "x", ""),
    );
    assert_eq!(missing.status, 404);
    assert!(missing.text().contains("\"message\""));
}

/// The standalone binary (for the page's browser tests): it says where it
/// listens, then serves the arena's scripted models.
#[test]
fn the_standalone_double_serves_the_arena_models() {
    use std::io::BufRead;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_model-double"))
        .args(["--port", "0", "--arena"])
        .arg(root.join("arena/tasks"))
        .arg("--scenarios")
        .arg(root.join("arena/scenarios.json"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line.trim().rsplit(':').next().unwrap().parse().unwrap();
    let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    c.write_all(b"GET /api/tags HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut raw = String::new();
    let _ = c.read_to_string(&mut raw);
    let _ = child.kill();
    let _ = child.wait();
    let body = raw.split("\r\n\r\n").nth(1).unwrap();
    let names: Vec<String> = ollama::parse_tags(body)
        .unwrap()
        .into_iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(names, ["coder:7b", "tiny:1b"]);
}
