//! Ollama's native API, as its `docs/api.md` documents it.
//!
//! - `GET /api/version` → `{"version": "0.5.1"}`
//! - `GET /api/tags` → `{"models": [{"name", "size", "details": {...}}]}`
//! - `POST /api/show {"model"}` → `model_info["<arch>.context_length"]`
//!   (the architecture is `model_info["general.architecture"]`) and
//!   `capabilities` (`completion`, `thinking`, `vision`, `tools`, ...)
//! - `GET /api/ps` → the loaded models, with the context actually allocated
//!   (`context_length`, in versions that report it)
//! - `POST /api/chat` with `stream: true`: one JSON object a line, each with
//!   `message.content` (and `message.thinking` for thinking models); the
//!   last has `done: true`, `done_reason`, `prompt_eval_count`, `eval_count`
//!   and durations in nanoseconds, any of which may be missing. An error
//!   before the stream is an HTTP status with `{"error": "..."}`; an error
//!   during it is a last `{"error": "..."}` line under status 200.

use super::{ChatEvent, ChatOptions, Ending, LineSplitter};
use crate::edit_loop::Message;
use serde_json::{json, Value};

pub const VERSION: &str = "/api/version";
pub const TAGS: &str = "/api/tags";
pub const SHOW: &str = "/api/show";
pub const PS: &str = "/api/ps";
pub const CHAT: &str = "/api/chat";

/// The body of a streaming `/api/chat` request. `think` is sent only when
/// set: a model without the `thinking` capability refuses the field.
pub fn chat_body(model: &str, messages: &[Message], opt: &ChatOptions) -> Value {
    let mut options = serde_json::Map::new();
    if let Some(n) = opt.num_ctx {
        options.insert("num_ctx".into(), json!(n));
    }
    if let Some(n) = opt.num_predict {
        options.insert("num_predict".into(), json!(n));
    }
    if let Some(s) = opt.seed {
        options.insert("seed".into(), json!(s));
    }
    let mut body = json!({
        "model": model,
        "messages": messages,
        "stream": true,
        "options": options,
    });
    if let Some(t) = opt.think {
        body["think"] = json!(t);
    }
    body
}

/// The body of `/api/show`.
pub fn show_body(model: &str) -> Value {
    json!({ "model": model })
}

/// `think: false` for a model that can think, unless the user turned it on;
/// nothing for one that cannot (the field would be refused).
pub fn think_for(capabilities: &[String], user_wants: bool) -> Option<bool> {
    capabilities
        .iter()
        .any(|c| c == "thinking")
        .then_some(user_wants)
}

/// One model a server lists: of Ollama's `/api/tags`, or of an
/// OpenAI-compatible `/v1/models` (`openai::parse_models`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelEntry {
    pub name: String,
    pub size: Option<u64>,
    pub family: Option<String>,
    pub parameter_size: Option<String>,
    /// The context the server serves the model with, when the list says
    /// (OpenAI-compatible servers' own fields; Ollama's list has none).
    pub context_length: Option<usize>,
}

/// What `/api/show` says about a model.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    pub architecture: Option<String>,
    /// `details.family` (`qwen2`, `llama`, `gemma3`, ...): which token
    /// estimator fits (`tokens::Family::from_name`).
    pub family: Option<String>,
    /// The longest context the model was trained for.
    pub context_length: Option<usize>,
    pub capabilities: Vec<String>,
}

/// One loaded model of `/api/ps`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Loaded {
    pub name: String,
    /// The context allocated for it (changing `num_ctx` reloads the model).
    pub context_length: Option<usize>,
    pub size_vram: Option<u64>,
}

fn parse(body: &str, what: &str) -> Result<Value, String> {
    serde_json::from_str(body).map_err(|e| format!("{what}: not JSON ({e})"))
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn usize_of(v: &Value, key: &str) -> Option<usize> {
    v.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

/// `/api/version`'s version string.
pub fn parse_version(body: &str) -> Result<String, String> {
    let v = parse(body, VERSION)?;
    str_of(&v, "version").ok_or_else(|| format!("{VERSION}: no \"version\" in {body:.80}"))
}

/// `/api/tags`' models, in the server's order.
pub fn parse_tags(body: &str) -> Result<Vec<ModelEntry>, String> {
    let v = parse(body, TAGS)?;
    let list = v
        .get("models")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{TAGS}: no \"models\" list"))?;
    Ok(list
        .iter()
        .filter_map(|m| {
            let d = m.get("details").cloned().unwrap_or(Value::Null);
            Some(ModelEntry {
                name: str_of(m, "name").or_else(|| str_of(m, "model"))?,
                size: m.get("size").and_then(Value::as_u64),
                family: str_of(&d, "family"),
                parameter_size: str_of(&d, "parameter_size"),
                context_length: None,
            })
        })
        .collect())
}

/// `/api/show`'s architecture, context length and capabilities.
pub fn parse_show(body: &str) -> Result<ModelInfo, String> {
    let v = parse(body, SHOW)?;
    let info = v.get("model_info").cloned().unwrap_or(Value::Null);
    let architecture = str_of(&info, "general.architecture");
    let context_length = architecture
        .as_deref()
        .and_then(|a| usize_of(&info, &format!("{a}.context_length")));
    let capabilities = v
        .get("capabilities")
        .and_then(Value::as_array)
        .map(|c| {
            c.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let family = v.get("details").and_then(|d| str_of(d, "family"));
    Ok(ModelInfo {
        family: family.or_else(|| architecture.clone()),
        architecture,
        context_length,
        capabilities,
    })
}

/// `/api/ps`' loaded models.
pub fn parse_ps(body: &str) -> Result<Vec<Loaded>, String> {
    let v = parse(body, PS)?;
    let list = v
        .get("models")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{PS}: no \"models\" list"))?;
    Ok(list
        .iter()
        .filter_map(|m| {
            Some(Loaded {
                name: str_of(m, "name").or_else(|| str_of(m, "model"))?,
                context_length: usize_of(m, "context_length"),
                size_vram: m.get("size_vram").and_then(Value::as_u64),
            })
        })
        .collect())
}

/// A note when the model is loaded with another context than the one
/// asked for: Ollama reloads it, which takes a while.
pub fn reload_note(loaded: &[Loaded], model: &str, num_ctx: usize) -> Option<String> {
    // Ollama names a model without a tag `NAME:latest`.
    let m = (loaded.iter()).find(|l| l.name == model || l.name == format!("{model}:latest"))?;
    let have = m.context_length?;
    (have != num_ctx).then(|| {
        format!("{model} is loaded with a context of {have} tokens; asking for num_ctx {num_ctx} makes Ollama reload it first")
    })
}

/// Reads `/api/chat`'s NDJSON stream.
#[derive(Debug, Default)]
pub struct ChatDecoder {
    pub(super) lines: LineSplitter,
    ending: Option<Ending>,
}

impl ChatDecoder {
    /// The events the bytes complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<ChatEvent> {
        let lines = self.lines.push(bytes);
        lines.into_iter().filter_map(|l| self.line(l)).collect()
    }

    /// The end of the body: a last line without a break, then the ending
    /// (not `finished` when no final chunk came: the connection was cut).
    /// A last line that is not JSON was cut off with the connection: it is
    /// dropped, not an error.
    pub fn finish(&mut self) -> (Vec<ChatEvent>, Ending) {
        let last = self
            .lines
            .finish()
            .filter(|l| {
                l.as_deref()
                    .is_ok_and(|t| serde_json::from_str::<Value>(t).is_ok())
            })
            .and_then(|l| self.line(l));
        (
            last.into_iter().collect(),
            self.ending.clone().unwrap_or_default(),
        )
    }

    fn line(&mut self, line: Result<String, String>) -> Option<ChatEvent> {
        let line = match line {
            Ok(l) => l,
            Err(lossy) => return Some(bad(&lossy, "not UTF-8")),
        };
        if line.trim().is_empty() {
            return None;
        }
        let v: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => return Some(bad(&line, &e.to_string())),
        };
        if let Some(e) = v.get("error") {
            let message = e.as_str().map_or_else(|| e.to_string(), str::to_owned);
            return Some(ChatEvent::Error { message });
        }
        let msg = v.get("message").cloned().unwrap_or(Value::Null);
        if v.get("done").and_then(Value::as_bool) == Some(true) {
            let e = ending(&v);
            self.ending = Some(e.clone());
            return Some(ChatEvent::Done { ending: e });
        }
        if let Some(t) = str_of(&msg, "thinking").filter(|t| !t.is_empty()) {
            return Some(ChatEvent::Thinking { text: t });
        }
        str_of(&msg, "content")
            .filter(|t| !t.is_empty())
            .map(|text| ChatEvent::Content { text })
    }
}

fn bad(line: &str, why: &str) -> ChatEvent {
    let shown: String = line.chars().take(80).collect();
    ChatEvent::Error {
        message: format!("the server sent a line that is not Ollama's chat JSON ({why}): {shown}"),
    }
}

/// The figures of the final chunk.
fn ending(v: &Value) -> Ending {
    let ns = |k: &str| v.get(k).and_then(Value::as_u64);
    Ending {
        finished: true,
        reason: str_of(v, "done_reason"),
        prompt_tokens: usize_of(v, "prompt_eval_count"),
        output_tokens: usize_of(v, "eval_count"),
        total_ns: ns("total_duration"),
        load_ns: ns("load_duration"),
        prompt_ns: ns("prompt_eval_duration"),
        eval_ns: ns("eval_duration"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{content, decode};
    use super::*;
    use crate::edit_loop::wire::Provider;
    use crate::edit_loop::Role;

    /// The documented example stream, fed a byte at a time.
    #[test]
    fn decodes_the_documented_stream_byte_by_byte() {
        let stream = concat!(
            r#"{"model":"llama3.2","created_at":"2023-08-04T08:52:19.385406455-07:00","message":{"role":"assistant","content":"The","images":null},"done":false}"#,
            "\n",
            r#"{"model":"q","message":{"role":"assistant","content":"","thinking":"hmm"},"done":false}"#,
            "\n",
            r#"{"model":"llama3.2","message":{"role":"assistant","content":" sky é"},"done":false}"#,
            "\n",
            r#"{"model":"llama3.2","created_at":"2023-08-04T19:22:45.499127Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":4883583458,"load_duration":1334875,"prompt_eval_count":26,"prompt_eval_duration":342546000,"eval_count":282,"eval_duration":4535599000}"#,
            "\n"
        );
        let (events, rest, end) = decode(Provider::Ollama, stream, 1);
        assert!(rest.is_empty());
        assert_eq!(content(&events), "The sky é");
        assert!(events.contains(&ChatEvent::Thinking { text: "hmm".into() }));
        assert!(end.finished && !end.cut());
        assert_eq!(
            (end.prompt_tokens, end.output_tokens),
            (Some(26), Some(282))
        );
        assert_eq!(end.eval_ns, Some(4535599000));
    }

    #[test]
    fn a_stream_without_final_chunk_is_cut_and_an_error_line_is_an_error() {
        let mut d = ChatDecoder::default();
        let ev = d.push(b"{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"error\":\"out of memory\"}\n{\"mess");
        assert_eq!(
            ev[1],
            ChatEvent::Error {
                message: "out of memory".into()
            }
        );
        let (rest, end) = d.finish();
        assert!(rest.is_empty(), "a line cut with the connection is dropped");
        assert!(!end.finished && end.cut());
        let mut d = ChatDecoder::default();
        d.push(b"{\"error\":\"model crashed\"}");
        let (rest, _) = d.finish();
        assert_eq!(
            rest,
            [ChatEvent::Error {
                message: "model crashed".into()
            }]
        );
    }

    #[test]
    fn a_final_chunk_without_figures_still_ends() {
        let mut d = ChatDecoder::default();
        d.push(b"{\"done\":true,\"done_reason\":\"length\"}");
        let (_, end) = d.finish();
        assert!(end.finished && end.cut());
        assert_eq!(end.prompt_tokens, None);
    }

    #[test]
    fn request_body_and_server_answers() {
        let m = [Message::new(Role::User, "hi")];
        let opt = ChatOptions {
            num_ctx: Some(8192),
            num_predict: Some(512),
            seed: Some(7),
            think: Some(false),
        };
        let b = chat_body("qwen3", &m, &opt);
        assert_eq!(b["options"]["num_ctx"], 8192);
        assert_eq!(b["options"]["num_predict"], 512);
        assert_eq!(b["think"], false);
        assert_eq!(b["stream"], true);
        assert_eq!(b["messages"][0]["role"], "user");
        let plain = chat_body("m", &m, &ChatOptions::default());
        assert!(plain.get("think").is_none());

        assert_eq!(parse_version(r#"{"version":"0.5.1"}"#).unwrap(), "0.5.1");
        let show = r#"{"details":{"family":"qwen3"},"model_info":{"general.architecture":"llama","llama.context_length":8192},"capabilities":["completion","thinking"]}"#;
        let info = parse_show(show).unwrap();
        assert_eq!(info.context_length, Some(8192));
        assert_eq!(info.family.as_deref(), Some("qwen3"));
        assert_eq!(think_for(&info.capabilities, false), Some(false));
        assert_eq!(think_for(&["completion".into()], true), None);
        let tags = parse_tags(r#"{"models":[{"name":"llama3.2:latest","size":2019393189,"details":{"family":"llama","parameter_size":"3.2B"}}]}"#).unwrap();
        assert_eq!(tags[0].name, "llama3.2:latest");
        assert_eq!(tags[0].parameter_size.as_deref(), Some("3.2B"));
        let ps =
            parse_ps(r#"{"models":[{"name":"m","context_length":4096,"size_vram":1}]}"#).unwrap();
        assert_eq!(ps[0].context_length, Some(4096));
        assert!(reload_note(&ps, "m", 8192).unwrap().contains("reload"));
        assert_eq!(reload_note(&ps, "m", 4096), None);
        let tagged = parse_ps(r#"{"models":[{"name":"m:latest","context_length":4096}]}"#).unwrap();
        assert!(reload_note(&tagged, "m", 8192).is_some());
        assert!(parse_tags("{}").is_err() && parse_version("nope").is_err());
    }
}
