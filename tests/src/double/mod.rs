//! The model-server double: a small HTTP server (std::net, one thread a
//! connection) that speaks Ollama's native API and the OpenAI-compatible
//! chat API the way the real servers do, with scripted replies, so the
//! loop, the CLI's `run` and `arena`, and the page can be tested against
//! the wire without a model.
//!
//! Ollama's behaviour reproduced (its `docs/api.md`, `envconfig` and
//! `server/routes.go`):
//! - `GET /api/version`, `GET /api/tags`, `POST /api/show` (with
//!   `model_info["<arch>.context_length"]` and `capabilities`), `GET /api/ps`
//!   (with the `context_length` the model is loaded with);
//! - `POST /api/chat`, NDJSON over chunked transfer: content chunks,
//!   `message.thinking` chunks for a thinking model unless `think: false`, a
//!   final chunk with `done_reason` (`stop`, `length`), counts and
//!   nanosecond durations; a scripted cut closes the connection without the
//!   final chunk; a scripted error sends `{"error": ...}` under status 200;
//!   an unknown model is a 404 with `{"error": ...}` before any stream;
//!   `think: true` to a model without the `thinking` capability is a 400;
//! - the origin rule: a request whose `Origin` is not allowed gets 403 and
//!   no CORS headers; `localhost`, `127.0.0.1` and `0.0.0.0` (http and
//!   https, any port), `app://`, `file://`, `tauri://`, `vscode-webview://`
//!   and `vscode-file://` origins and the `OLLAMA_ORIGINS` list are allowed,
//!   with CORS headers, and an `OPTIONS` preflight answers 204.
//!
//! The OpenAI-compatible side: `GET /v1/models` (with llama-server's
//! `meta.n_ctx` and a `/props` when a model has a `servedContext`),
//! `POST /v1/chat/completions`
//! as SSE `data:` chunks with `finish_reason`, a usage chunk when
//! `stream_options.include_usage` is set, and `data: [DONE]`.
//!
//! `GET /_double/requests` returns the chat bodies received so far (for
//! tests that check what a client sent).
//!
//! Connections: one request a connection (`Connection: close`), or, with
//! the script's `keepAlive`, llama-server's keep-alive that closes under the
//! client (see [`Script::keep_alive`]); `dropChats` drops chat requests
//! before any response byte. [`Double::dropped`] counts the requests lost
//! either way.

pub mod arena;
pub mod flood;
mod http;
pub mod script;

pub use flood::Flood;
pub use script::{End, ModelDef, Reply, Script};

use serde_json::{json, Value};
use std::io;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

/// A running double. It stops when the process ends (tests run it on a
/// thread of their own process).
pub struct Double {
    pub port: u16,
    log: Arc<Mutex<Vec<Value>>>,
    dropped: Arc<AtomicUsize>,
}

impl Double {
    /// Binds `127.0.0.1:port` (0 picks a free port) and serves `script`.
    pub fn start(script: Script, port: u16) -> io::Result<Double> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let port = listener.local_addr()?.port();
        let log = Arc::new(Mutex::new(vec![]));
        let dropped = Arc::new(AtomicUsize::new(0));
        let shared = Arc::new(State {
            script,
            log: log.clone(),
            dropped: dropped.clone(),
            chats_seen: AtomicUsize::new(0),
        });
        thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let s = shared.clone();
                thread::spawn(move || {
                    let _ = serve(&s, conn);
                });
            }
        });
        Ok(Double { port, log, dropped })
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The chat request bodies received, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// The requests whose connection the double closed before answering.
    pub fn dropped(&self) -> usize {
        self.dropped.load(Ordering::SeqCst)
    }
}

struct State {
    script: Script,
    log: Arc<Mutex<Vec<Value>>>,
    dropped: Arc<AtomicUsize>,
    /// Chat requests read so far (for `drop_chats`).
    chats_seen: AtomicUsize,
}

fn serve(s: &State, mut conn: TcpStream) -> io::Result<()> {
    let Some(req) = http::read_request(&mut conn)? else {
        return Ok(());
    };
    let is_chat =
        req.method == "POST" && (req.path == "/api/chat" || req.path == "/v1/chat/completions");
    if is_chat && s.chats_seen.fetch_add(1, Ordering::SeqCst) < s.script.drop_chats {
        s.dropped.fetch_add(1, Ordering::SeqCst);
        return Ok(());
    }
    let asks_close = req
        .header("connection")
        .is_some_and(|v| v.eq_ignore_ascii_case("close"));
    let keep = s.script.keep_alive && !asks_close;
    answer(s, conn.try_clone()?, &req, keep)?;
    // The kept connection is closing by the time the next request on it
    // arrives: that request is read and lost.
    if keep && http::read_request(&mut conn)?.is_some() {
        s.dropped.fetch_add(1, Ordering::SeqCst);
    }
    Ok(())
}

fn answer(s: &State, mut conn: TcpStream, req: &http::Request, keep: bool) -> io::Result<()> {
    let origin = req.header("origin");
    let cors = match origin {
        None => None,
        Some(o) if s.script.origin_allowed(o) => Some(o.to_owned()),
        Some(_) => {
            return http::respond(&mut conn, 403, &[], "text/plain", b"", keep);
        }
    };
    let mut w = http::Writer::new(conn, cors);
    w.keep = keep;
    if req.method == "OPTIONS" {
        return w.preflight();
    }
    match (req.method.as_str(), req.path.as_str()) {
        ("GET" | "HEAD", "/") => w.text(200, "Ollama is running"),
        ("GET", "/api/version") => w.json(200, &json!({ "version": s.script.version })),
        ("GET", "/api/tags") => w.json(200, &s.script.tags()),
        ("GET", "/api/ps") => w.json(200, &s.script.ps()),
        ("POST", "/api/show") => show(s, &mut w, &req.body),
        ("POST", "/api/chat") => chat(s, &mut w, &req.body, false),
        ("GET", "/v1/models") => w.json(200, &s.script.openai_models()),
        ("GET", "/props") => match s.script.props() {
            Some(p) => w.json(200, &p),
            None => w.text(404, "404 page not found"),
        },
        ("POST", "/v1/chat/completions") => chat(s, &mut w, &req.body, true),
        ("GET", "/_double/requests") => {
            let log = s.log.lock().map(|l| l.clone()).unwrap_or_default();
            w.json(200, &Value::Array(log))
        }
        _ => w.text(404, "404 page not found"),
    }
}

fn show(s: &State, w: &mut http::Writer, body: &[u8]) -> io::Result<()> {
    let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let name = v["model"].as_str().or(v["name"].as_str()).unwrap_or("");
    match s.script.model(name) {
        Some(m) => w.json(200, &m.show()),
        None => w.json(
            404,
            &json!({ "error": format!("model '{name}' not found") }),
        ),
    }
}

fn chat(s: &State, w: &mut http::Writer, body: &[u8], openai: bool) -> io::Result<()> {
    let Ok(req) = serde_json::from_slice::<Value>(body) else {
        return w.json(400, &err(openai, "invalid JSON body"));
    };
    if let Ok(mut l) = s.log.lock() {
        l.push(req.clone());
    }
    let name = req["model"].as_str().unwrap_or("");
    let Some(model) = s.script.model(name) else {
        let msg = format!("model \"{name}\" not found, try pulling it first");
        return w.json(404, &err(openai, &msg));
    };
    let think = req.get("think").and_then(Value::as_bool);
    if !openai && think == Some(true) && !model.can_think() {
        return w.json(
            400,
            &err(false, &format!("\"{name}\" does not support thinking")),
        );
    }
    let mut reply = s.script.reply_for(&req).clone();
    if s.script.count_prompt && reply.prompt_tokens.is_none() {
        reply.prompt_tokens = Some(script::counted_prompt(&req));
    }
    let reply = &reply;
    if let Some(status) = reply.status {
        return w.text(status, &reply.text);
    }
    w.pause = std::time::Duration::from_millis(reply.pause_ms);
    w.byte_pause = std::time::Duration::from_millis(reply.byte_ms);
    if let Some(mode) = reply.flood {
        return flood::serve(w, name, reply, mode, openai);
    }
    let thinking = model.can_think() && think != Some(false) && !openai;
    if openai {
        let usage = req["stream_options"]["include_usage"].as_bool() == Some(true);
        w.sse(&script::openai_events(name, reply, usage))
    } else {
        w.ndjson(
            &script::ollama_lines(name, reply, thinking),
            reply.end == End::Cut,
        )
    }
}

fn err(openai: bool, msg: &str) -> Value {
    if openai {
        json!({ "error": { "message": msg, "type": "api_error", "param": null, "code": null } })
    } else {
        json!({ "error": msg })
    }
}
