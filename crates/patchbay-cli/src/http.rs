//! The transport of `run` and `arena`: HTTP to a model server with `ureq`,
//! the reply read as it streams. Everything that reads what the server
//! says (bodies, NDJSON and SSE lines, errors) is the core's
//! `edit_loop::wire`; this file only moves bytes and names connection
//! problems with their fix.
//!
//! Every request goes out on a connection of its own (`Connection: close`).
//! A kept-alive connection can be closed by the server at a moment the
//! client cannot see: llama-server advertises keep-alive yet closes the
//! connection a moment after the last byte of every streamed reply, and a
//! request sent on it in that moment is lost unread. A round takes seconds,
//! so a connection each costs nothing measurable on a local server. A
//! request whose connection still dies before any byte of the answer
//! arrives (a server that drops it) is sent once more, on a fresh
//! connection: nothing of it was answered, so nothing is doubled that the
//! caller saw.
//!
//! Every read from the socket waits at most the idle timeout
//! (`--idle-timeout`, ureq's per-read timeout): a server that goes silent,
//! before its answer's head or in the middle of a stream, ends the request
//! with a message naming the option, instead of a wait without end. How
//! much of a reply is read is the edit loop's decision (its reply cap and
//! the decoder's line limit): this file stops when the loop says stop.

use patchbay::edit_loop::wire::{
    self, ollama, openai, ChatEvent, ChatOptions, Decoder, Ending, Provider,
};
use patchbay::edit_loop::Message;
use std::io::Read;
use std::time::Duration;

/// A model on a server.
pub struct Model {
    agent: ureq::Agent,
    pub base: String,
    pub provider: Provider,
    pub name: String,
    /// The longest wait for the next byte.
    idle: Duration,
}

/// What the server says about the model before a run.
pub struct ModelFacts {
    /// The most the server gives: Ollama's model's trained context, or the
    /// context an OpenAI-compatible server was started with.
    pub context_length: Option<usize>,
    /// The token estimator of the model's family (o200k when unknown).
    pub tokenizer: patchbay::budget::tokens::Tokenizer,
    pub capabilities: Vec<String>,
    /// The context it is loaded with now (Ollama `/api/ps`).
    pub loaded: Vec<ollama::Loaded>,
    /// Something worth telling before the first round.
    pub note: Option<String>,
}

impl Model {
    /// `idle` bounds each wait for the server's next byte.
    pub fn new(base: &str, provider: Provider, name: &str, idle: Duration) -> Model {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_per_read(Some(idle))
            .build()
            .into();
        Model {
            agent,
            base: base.trim_end_matches('/').to_owned(),
            provider,
            name: name.to_owned(),
            idle,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A small JSON exchange: the status and the body.
    fn exchange(
        &self,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<(u16, String), String> {
        let url = self.url(path);
        let mut resp = self.send(&url, body.map(|b| b.to_string()).as_deref())?;
        let status = resp.status().as_u16();
        let text = resp.body_mut().read_to_string().map_err(|e| {
            if timed_out(&e) {
                self.silent()
            } else {
                format!("{url}: reading the answer failed: {e}")
            }
        })?;
        Ok((status, text))
    }

    /// Reads the model's context length and capabilities (Ollama), or
    /// checks that the server lists it (OpenAI-compatible).
    pub fn facts(&self) -> Result<ModelFacts, String> {
        match self.provider {
            Provider::Ollama => {
                let (status, body) =
                    self.exchange(ollama::SHOW, Some(&ollama::show_body(&self.name)))?;
                if status == 404 {
                    return Err(self.not_found());
                }
                if status != 200 {
                    return Err(wire::error_message(status, &body));
                }
                let info = ollama::parse_show(&body)?;
                let loaded = match self.exchange(ollama::PS, None) {
                    Ok((200, b)) => ollama::parse_ps(&b).unwrap_or_default(),
                    _ => vec![],
                };
                let family = info
                    .family
                    .as_deref()
                    .and_then(patchbay::budget::tokens::Family::from_name);
                Ok(ModelFacts {
                    tokenizer: patchbay::budget::tokens::Tokenizer::estimate(
                        family.unwrap_or_default(),
                    ),
                    context_length: info.context_length,
                    capabilities: info.capabilities,
                    loaded,
                    note: None,
                })
            }
            Provider::Openai => self.openai_facts(),
        }
    }

    /// The OpenAI-compatible server's models and the context it serves:
    /// from `/v1/models`, else llama-server's `/props`, else LM Studio's
    /// own list (each server says it its own way; see `wire::openai`).
    fn openai_facts(&self) -> Result<ModelFacts, String> {
        let (status, body) = self.exchange(openai::MODELS, None)?;
        let models = if status == 200 {
            openai::parse_models(&body)?
        } else {
            vec![]
        };
        let mut context_length = openai::model_context(&models, &self.name);
        if context_length.is_none() {
            context_length = match self.exchange(openai::PROPS, None) {
                Ok((200, b)) => openai::parse_props(&b),
                _ => None,
            };
        }
        if context_length.is_none() {
            context_length = match self.exchange(openai::LMSTUDIO_MODELS, None) {
                Ok((200, b)) => openai::parse_models(&b)
                    .ok()
                    .and_then(|m| openai::model_context(&m, &self.name)),
                _ => None,
            };
        }
        // Some servers (llama-server) serve their one model whatever the
        // name: an unlisted name is worth a note, not a refusal.
        let ids: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
        let note = (!ids.is_empty() && !ids.contains(&self.name.as_str())).then(|| {
            format!(
                "the server at {} does not list model {:?} (it lists {}); its own model may answer",
                self.base,
                self.name,
                ids.join(", ")
            )
        });
        Ok(ModelFacts {
            tokenizer: patchbay::budget::tokens::Tokenizer::default(),
            context_length,
            capabilities: vec![],
            loaded: vec![],
            note,
        })
    }

    /// Streams one chat through `dec` (the loop's, bounded by its reply
    /// cap): each read's events go to `on_chat`, which returns `false` to
    /// stop reading (the connection is closed, which makes the server
    /// stop); an error the server reports in the stream ends the chat with
    /// it. A read error in the middle is a cut (the ending is not
    /// `finished`); a server silent for the idle timeout is an error.
    pub fn chat(
        &self,
        messages: &[Message],
        opt: &ChatOptions,
        dec: &mut Decoder,
        on_chat: &mut dyn FnMut(&mut Vec<ChatEvent>) -> bool,
    ) -> Result<Ending, String> {
        let (path, body) = wire::chat_request(self.provider, &self.name, messages, opt);
        let url = self.url(path);
        let mut resp = self.send(&url, Some(&body.to_string()))?;
        let status = resp.status().as_u16();
        if status != 200 {
            let text = resp.body_mut().read_to_string().unwrap_or_default();
            return Err(match status {
                404 => self.not_found(),
                _ => wire::error_message(status, &text),
            });
        }
        let mut reader = resp.body_mut().as_reader();
        let mut buf = vec![0u8; 8192];
        // The loop takes the events in order up to a stop; what came after
        // it in the same read counts as unread, so a stopped reply ends the
        // same way however the network chunked it (cut, without counts).
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if timed_out(&e) => return Err(self.silent()),
                Err(_) => break,
            };
            let mut events = dec.push(&buf[..n]);
            let more = on_chat(&mut events);
            server_failed(&events)?;
            if !more {
                return Ok(Ending::default());
            }
        }
        let (mut rest, ending) = dec.finish();
        let more = on_chat(&mut rest);
        server_failed(&rest)?;
        Ok(if more { ending } else { Ending::default() })
    }

    /// The idle timeout passed without a byte from the server.
    fn silent(&self) -> String {
        format!(
            "the server at {} sent nothing for {} s (--idle-timeout); it may be stuck or overloaded: look at its log, or allow more with --idle-timeout",
            self.base,
            self.idle.as_secs_f64()
        )
    }

    /// Sends a GET (no body) or a JSON POST on a connection of its own, and
    /// once more when that connection died before any byte of the answer.
    fn send(
        &self,
        url: &str,
        body: Option<&str>,
    ) -> Result<ureq::http::Response<ureq::Body>, String> {
        let attempt = || match body {
            Some(b) => self
                .agent
                .post(url)
                .header("Content-Type", "application/json")
                .header("Connection", "close")
                .send(b),
            None => self.agent.get(url).header("Connection", "close").call(),
        };
        match attempt() {
            Err(e) if lost_before_answer(&e) => attempt().map_err(|e| {
                if lost_before_answer(&e) {
                    format!(
                        "the server at {} closed the connection before answering, twice ({e}); it may be restarting or overloaded: look at its log",
                        self.base
                    )
                } else {
                    self.unreachable(&e)
                }
            }),
            r => r.map_err(|e| self.unreachable(&e)),
        }
    }

    fn not_found(&self) -> String {
        match self.provider {
            Provider::Ollama => format!(
                "model {:?} not found on {}; pull it first: ollama pull {}",
                self.name, self.base, self.name
            ),
            Provider::Openai => format!(
                "model {:?} not found on {}; load it in the server first",
                self.name, self.base
            ),
        }
    }

    /// A transport error, with what to do about it.
    fn unreachable(&self, e: &ureq::Error) -> String {
        let hint = match self.provider {
            Provider::Ollama => "is Ollama running? Start it with `ollama serve` (or the app), or pass --url with its address",
            Provider::Openai => "is the server running (LM Studio's server, `llama-server --port ...`)? Pass --url with its address",
        };
        match e {
            ureq::Error::Timeout(ureq::Timeout::PerRead) => self.silent(),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                format!("no server answers at {}: {hint}", self.base)
            }
            ureq::Error::HostNotFound => {
                format!("the host of {} is not known: check --url", self.base)
            }
            other => format!("cannot reach {}: {other} ({hint})", self.base),
        }
    }
}

/// The connection died before the answer's head was read: the server
/// closed or reset it (a refused connection is no server at all).
fn lost_before_answer(e: &ureq::Error) -> bool {
    use std::io::ErrorKind as K;
    matches!(e, ureq::Error::Io(io) if matches!(
        io.kind(),
        K::UnexpectedEof | K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe
    ))
}

/// A read that waited the idle timeout (ureq's per-read timeout, carried
/// inside an I/O error by the body reader).
fn timed_out(e: &(dyn std::error::Error + 'static)) -> bool {
    let ureq_error = e.downcast_ref::<ureq::Error>().or_else(|| {
        (e.downcast_ref::<std::io::Error>())
            .and_then(|io| io.get_ref())
            .and_then(|inner| inner.downcast_ref::<ureq::Error>())
    });
    matches!(
        ureq_error,
        Some(ureq::Error::Timeout(ureq::Timeout::PerRead))
    )
}

/// The first error the server reported inside the stream.
fn server_failed(events: &[ChatEvent]) -> Result<(), String> {
    match events.iter().find_map(|e| match e {
        ChatEvent::Error { message } => Some(message),
        _ => None,
    }) {
        Some(m) => Err(format!("the server failed during the reply: {m}")),
        None => Ok(()),
    }
}
