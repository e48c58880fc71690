//! Wire formats of the model servers, sans-IO: request bodies to send and
//! incremental decoders that turn the bytes of a streamed reply into
//! [`ChatEvent`]s. A transport (the CLI's HTTP client, the page's `fetch`)
//! only moves bytes; everything that reads them is here, so both read the
//! same server the same way.
//!
//! Both servers stream one JSON value a line (Ollama: NDJSON; OpenAI
//! compatible: SSE `data:` lines). [`LineSplitter`] cuts the byte stream at
//! `\n`; a chunk boundary may fall anywhere, even inside a UTF-8 character,
//! since a multi-byte character never holds the byte `0x0A` and a line is
//! decoded only once it is whole. A line longer than the splitter's limit
//! is not kept: the splitter stops there and the decoder says
//! [`ChatEvent::Overflow`], so an endless line costs bounded memory.

pub mod ollama;
pub mod openai;

use crate::StopReason;
use serde::{Deserialize, Serialize};

/// Which API a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Ollama's native API (`/api/chat`, NDJSON).
    #[default]
    Ollama,
    /// `/v1/chat/completions` with SSE (LM Studio, llama.cpp's
    /// `llama-server`, vLLM, and Ollama's own compatibility layer).
    Openai,
}

impl std::str::FromStr for Provider {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ollama" => Ok(Provider::Ollama),
            "openai" => Ok(Provider::Openai),
            _ => Err(format!("unknown provider {s:?}; expected ollama or openai")),
        }
    }
}

/// Sampling and size knobs of one chat request, common to both APIs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub struct ChatOptions {
    /// The context window to allocate (Ollama `options.num_ctx`; always
    /// sent, since Ollama's default is small and it truncates silently).
    pub num_ctx: Option<usize>,
    /// The reply limit in tokens (`num_predict`, `max_tokens`).
    pub num_predict: Option<usize>,
    pub seed: Option<u64>,
    /// Ollama's `think`: sent as given; `None` leaves it out.
    pub think: Option<bool>,
}

/// The window asked of Ollama when the user names none: a model may support
/// more, but memory grows with it and Ollama reloads the model for each
/// change.
pub const DEFAULT_CONTEXT: usize = 8192;

/// The context a run plans its budget with, and what to tell the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ContextChoice {
    pub num_ctx: usize,
    /// Set when the user asked for more than the server has.
    pub warning: Option<String>,
}

/// Chooses the context from the user's setting (`asked`) and the server's
/// (`served`: the most Ollama's model takes, from `/api/show`; the context
/// an OpenAI-compatible server was started with, fixed for every request).
/// Asking for more than the server has is planned with the server's, with
/// a warning: the prompt would not fit what the server really holds.
/// Without a setting, Ollama gets at most [`DEFAULT_CONTEXT`]; an
/// OpenAI-compatible server's whole context is used, since it is allocated
/// whatever the request says.
pub fn choose_context(
    provider: Provider,
    asked: Option<usize>,
    served: Option<usize>,
) -> ContextChoice {
    match (asked, served) {
        (Some(a), Some(s)) if a > s => {
            let what = match provider {
                Provider::Ollama => "the model takes at most",
                Provider::Openai => "the server serves",
            };
            ContextChoice {
                num_ctx: s,
                warning: Some(format!(
                    "a context of {a} tokens was asked for, but {what} {s}: planning with {s}"
                )),
            }
        }
        (Some(a), _) => ContextChoice {
            num_ctx: a,
            warning: None,
        },
        (None, Some(s)) => ContextChoice {
            num_ctx: match provider {
                Provider::Ollama => s.min(DEFAULT_CONTEXT),
                Provider::Openai => s,
            },
            warning: None,
        },
        (None, None) => ContextChoice {
            num_ctx: DEFAULT_CONTEXT,
            warning: None,
        },
    }
}

/// How a streamed reply ended, as the server said (any figure may be
/// missing: servers differ, and a cut stream has none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub struct Ending {
    /// The final chunk arrived (`done: true`, `[DONE]` or a
    /// `finish_reason`); `false` means the connection was cut.
    pub finished: bool,
    /// The raw reason (`stop`, `length`, `load`, ...).
    pub reason: Option<String>,
    pub prompt_tokens: Option<usize>,
    pub output_tokens: Option<usize>,
    /// Nanoseconds, as Ollama reports them.
    pub total_ns: Option<u64>,
    pub load_ns: Option<u64>,
    pub prompt_ns: Option<u64>,
    pub eval_ns: Option<u64>,
}

impl Ending {
    /// A finished reply that ended for `reason` (`stop`, `length`), with
    /// no figures.
    pub fn finished_with(reason: &str) -> Ending {
        Ending {
            finished: true,
            reason: Some(reason.into()),
            ..Ending::default()
        }
    }

    /// The reason as the engine reads it: `length` cuts, `stop` completes;
    /// anything else (or none) says nothing.
    pub fn stop_reason(&self) -> Option<StopReason> {
        self.reason.as_deref().and_then(|r| r.parse().ok())
    }

    /// Whether the reply was cut: by the reply limit or by the connection.
    pub fn cut(&self) -> bool {
        !self.finished || self.stop_reason() == Some(StopReason::Length)
    }

    /// Output tokens per second, when the server gave both figures.
    pub fn tokens_per_second(&self) -> Option<f64> {
        let (n, ns) = (self.output_tokens?, self.eval_ns?);
        (ns > 0).then(|| n as f64 * 1e9 / ns as f64)
    }
}

/// One thing a streamed reply said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ChatEvent {
    /// Reply text.
    Content { text: String },
    /// Reasoning text of a thinking model, shown apart, never parsed.
    Thinking { text: String },
    /// The final chunk.
    Done { ending: Ending },
    /// The server reported an error inside a 200 stream, or sent a line
    /// that is not what its API sends.
    Error { message: String },
    /// A line grew past `limit` bytes without ending: nothing of it or
    /// after it is read.
    Overflow { limit: usize },
}

/// The path and JSON body of a streamed chat request to `provider`.
pub fn chat_request(
    provider: Provider,
    model: &str,
    messages: &[super::Message],
    opt: &ChatOptions,
) -> (&'static str, serde_json::Value) {
    match provider {
        Provider::Ollama => (ollama::CHAT, ollama::chat_body(model, messages, opt)),
        Provider::Openai => (openai::CHAT, openai::chat_body(model, messages, opt)),
    }
}

/// The decoder of a provider's streamed chat reply.
#[derive(Debug)]
pub enum Decoder {
    Ollama(ollama::ChatDecoder),
    Openai(openai::ChatDecoder),
}

impl Decoder {
    /// A decoder whose lines may take [`MAX_LINE`] bytes.
    pub fn new(provider: Provider) -> Decoder {
        Decoder::bounded(provider, MAX_LINE)
    }

    /// A decoder whose lines may take `max_line` bytes (the edit loop's
    /// [`crate::edit_loop::EditLoop::decoder`] derives it from the reply
    /// cap).
    pub fn bounded(provider: Provider, max_line: usize) -> Decoder {
        let lines = LineSplitter::new(max_line);
        match provider {
            Provider::Ollama => {
                let mut d = ollama::ChatDecoder::default();
                d.lines = lines;
                Decoder::Ollama(d)
            }
            Provider::Openai => {
                let mut d = openai::ChatDecoder::default();
                d.lines = lines;
                Decoder::Openai(d)
            }
        }
    }

    /// The events the bytes complete; [`ChatEvent::Overflow`] last when a
    /// line outgrew the limit.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<ChatEvent> {
        let (mut out, lines) = match self {
            Decoder::Ollama(d) => (d.push(bytes), &mut d.lines),
            Decoder::Openai(d) => (d.push(bytes), &mut d.lines),
        };
        if lines.take_overflow() {
            out.push(ChatEvent::Overflow { limit: lines.max });
        }
        out
    }

    /// The end of the body: its last events and how the reply ended.
    pub fn finish(&mut self) -> (Vec<ChatEvent>, Ending) {
        match self {
            Decoder::Ollama(d) => d.finish(),
            Decoder::Openai(d) => d.finish(),
        }
    }
}

/// The longest line a [`Decoder::new`] keeps: a streamed chunk is a token
/// or a few, and even a server that sends a whole reply in one line stays
/// far below it.
pub const MAX_LINE: usize = 4 << 20;

/// Cuts a byte stream into lines; bytes of an unfinished line wait, up to
/// `max` of them: a longer line ends the stream (`overflowed`).
#[derive(Debug, Clone)]
pub struct LineSplitter {
    buf: Vec<u8>,
    max: usize,
    /// A line outgrew `max`: nothing more is read.
    over: bool,
    /// The overflow is not told yet.
    untold: bool,
}

impl Default for LineSplitter {
    fn default() -> Self {
        LineSplitter::new(MAX_LINE)
    }
}

impl LineSplitter {
    pub fn new(max: usize) -> LineSplitter {
        LineSplitter {
            buf: vec![],
            max,
            over: false,
            untold: false,
        }
    }

    /// The lines completed by `bytes`, without their `\n` (or `\r\n`).
    /// A line that is not UTF-8 comes back as `Err` with its lossy text.
    /// After a line outgrew the limit, nothing.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Result<String, String>> {
        let mut out = vec![];
        if self.over {
            return out;
        }
        let mut rest = bytes;
        while let Some(k) = memchr::memchr(b'\n', rest) {
            if self.buf.len() + k > self.max {
                self.overflow();
                return out;
            }
            self.buf.extend_from_slice(&rest[..k]);
            rest = &rest[k + 1..];
            out.push(self.take());
        }
        if self.buf.len() + rest.len() > self.max {
            self.overflow();
            return out;
        }
        self.buf.extend_from_slice(rest);
        out
    }

    /// Whether a line outgrew the limit since the last call (told once).
    pub fn take_overflow(&mut self) -> bool {
        std::mem::take(&mut self.untold)
    }

    fn overflow(&mut self) {
        (self.over, self.untold) = (true, true);
        self.buf = Vec::new();
    }

    /// The last line, when the stream ended without a line break.
    pub fn finish(&mut self) -> Option<Result<String, String>> {
        (!self.buf.is_empty() && !self.over).then(|| self.take())
    }

    fn take(&mut self) -> Result<String, String> {
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        let bytes = std::mem::take(&mut self.buf);
        String::from_utf8(bytes).map_err(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// The message of an error body (`{"error": "..."}` for Ollama,
/// `{"error": {"message": "..."}}` for OpenAI-compatible servers), or the
/// body itself, shortened, when it is neither.
pub fn error_message(status: u16, body: &str) -> String {
    let v: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let e = v.as_ref().and_then(|v| v.get("error"));
    let msg = match e {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(o) => o
            .get("message")
            .and_then(|m| m.as_str())
            .map_or_else(|| o.to_string(), str::to_owned),
        None => body.trim().chars().take(200).collect(),
    };
    format!("HTTP {status}: {msg}")
}

/// What the decoders' tests share.
#[cfg(test)]
pub(super) mod testing {
    use super::{ChatEvent, Decoder, Ending, Provider};

    /// `body` fed to a provider's decoder `step` bytes at a time: the
    /// events of the pushes, those of the end, and how the reply ended.
    pub fn decode(
        provider: Provider,
        body: &str,
        step: usize,
    ) -> (Vec<ChatEvent>, Vec<ChatEvent>, Ending) {
        let mut d = Decoder::new(provider);
        let mut events = vec![];
        for part in body.as_bytes().chunks(step) {
            events.extend(d.push(part));
        }
        let (rest, end) = d.finish();
        (events, rest, end)
    }

    /// The reply text of the events: their content, joined.
    pub fn content(events: &[ChatEvent]) -> String {
        events
            .iter()
            .filter_map(|e| match e {
                ChatEvent::Content { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every split of a text with multi-byte characters gives the lines
    /// that `str::lines` gives.
    #[test]
    fn lines_survive_any_chunk_boundary() {
        let text = "{\"a\":\"héllo\"}\r\n{\"b\":\"日本語\"}\n\n{\"c\":\"🦀\"}";
        let want: Vec<&str> = text.lines().collect();
        let bytes = text.as_bytes();
        for cut in 0..=bytes.len() {
            for cut2 in cut..=bytes.len() {
                let mut s = LineSplitter::default();
                let mut got: Vec<String> = vec![];
                for part in [&bytes[..cut], &bytes[cut..cut2], &bytes[cut2..]] {
                    got.extend(s.push(part).into_iter().map(Result::unwrap));
                }
                got.extend(s.finish().map(Result::unwrap));
                assert_eq!(got, want, "cut at {cut}, {cut2}");
            }
        }
    }

    /// An endless line is dropped once past the limit, however it is
    /// chunked: the splitter's buffer never holds more than the limit.
    #[test]
    fn a_line_past_the_limit_is_dropped_and_told_once() {
        let mut s = LineSplitter::new(100);
        assert_eq!(s.push(b"short\n").len(), 1);
        for _ in 0..10_000 {
            assert!(s.push(&[b'a'; 37]).is_empty());
            assert!(s.buf.len() <= 100);
        }
        assert!(s.take_overflow());
        assert!(!s.take_overflow());
        assert!(s.push(b"\nlater\n").is_empty(), "nothing after an overflow");
        assert_eq!(s.finish(), None);
        let mut d = Decoder::bounded(Provider::Ollama, 64);
        let line = format!("{{\"message\":{{\"content\":\"{}", "x".repeat(100));
        assert_eq!(
            d.push(line.as_bytes()),
            vec![ChatEvent::Overflow { limit: 64 }]
        );
        assert!(d.push(b"\"}}\n").is_empty());
    }

    #[test]
    fn invalid_utf8_is_an_error_not_a_panic() {
        let mut s = LineSplitter::default();
        let got = s.push(b"ok\n\xff\xfe\n");
        assert_eq!(got[0], Ok("ok".to_string()));
        assert!(got[1].is_err());
    }

    #[test]
    fn error_bodies_of_both_apis() {
        assert_eq!(
            error_message(404, r#"{"error":"model 'x' not found"}"#),
            "HTTP 404: model 'x' not found"
        );
        assert_eq!(
            error_message(400, r#"{"error":{"message":"bad","type":"invalid"}}"#),
            "HTTP 400: bad"
        );
        assert_eq!(error_message(502, "Bad Gateway\n"), "HTTP 502: Bad Gateway");
    }

    #[test]
    fn the_context_is_the_servers_when_more_is_asked() {
        let c = choose_context(Provider::Openai, Some(8192), Some(4096));
        assert_eq!(c.num_ctx, 4096);
        let w = c.warning.unwrap();
        assert!(w.contains("8192") && w.contains("serves 4096"), "{w}");
        assert_eq!(
            choose_context(Provider::Openai, Some(2048), Some(4096)).num_ctx,
            2048
        );
        assert_eq!(
            choose_context(Provider::Openai, None, Some(32768)).num_ctx,
            32768
        );
        assert_eq!(
            choose_context(Provider::Ollama, None, Some(32768)).num_ctx,
            8192
        );
        assert_eq!(
            choose_context(Provider::Ollama, None, Some(2048)).num_ctx,
            2048
        );
        assert_eq!(
            choose_context(Provider::Ollama, Some(16384), None).num_ctx,
            16384
        );
        assert!(choose_context(Provider::Ollama, Some(65536), Some(32768))
            .warning
            .is_some());
        assert_eq!(
            choose_context(Provider::Openai, None, None).num_ctx,
            DEFAULT_CONTEXT
        );
    }

    #[test]
    fn ending_reads_the_stop_reason() {
        let e = |finished, reason: Option<&str>| Ending {
            finished,
            reason: reason.map(str::to_owned),
            ..Ending::default()
        };
        assert!(e(true, Some("length")).cut());
        assert!(e(false, None).cut());
        assert!(!e(true, Some("stop")).cut());
        assert_eq!(e(true, Some("load")).stop_reason(), None);
        let t = Ending {
            output_tokens: Some(50),
            eval_ns: Some(500_000_000),
            ..Ending::default()
        };
        assert_eq!(t.tokens_per_second(), Some(100.0));
    }
}
