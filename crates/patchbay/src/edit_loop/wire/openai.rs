//! The OpenAI-compatible chat API that LM Studio, llama.cpp's
//! `llama-server`, vLLM and Ollama's `/v1` layer serve.
//!
//! `POST /v1/chat/completions` with `stream: true` answers with server-sent
//! events: `data: {...}` lines, each a `chat.completion.chunk` whose
//! `choices[0].delta.content` (and, from some servers, `reasoning_content`)
//! carries text and whose last choice has a `finish_reason`; with
//! `stream_options.include_usage` a last chunk with empty `choices` carries
//! `usage.prompt_tokens` and `usage.completion_tokens`; the stream ends with
//! `data: [DONE]`. An error inside the stream is `data: {"error": {...}}`.
//!
//! The context a server serves has no field in the API; each server says it
//! its own way: llama-server in `/v1/models` (`data[].meta.n_ctx`) and
//! `/props` (`default_generation_settings.n_ctx`, the context of a slot),
//! vLLM in `/v1/models` (`max_model_len`), LM Studio in its
//! `/api/v0/models` (`loaded_context_length`, `max_context_length`).

use super::ollama::ModelEntry;
use super::{ChatEvent, ChatOptions, Ending, LineSplitter};
use crate::edit_loop::Message;
use serde_json::{json, Value};

pub const CHAT: &str = "/v1/chat/completions";
pub const MODELS: &str = "/v1/models";
/// llama-server's settings, with the context of a slot.
pub const PROPS: &str = "/props";
/// LM Studio's own model list, with the loaded context.
pub const LMSTUDIO_MODELS: &str = "/api/v0/models";

/// The body of a streaming chat request. `num_ctx` has no field in this
/// API: the server's own setting (LM Studio's, `llama-server -c`) holds.
pub fn chat_body(model: &str, messages: &[Message], opt: &ChatOptions) -> Value {
    let mut body = json!({
        "model": model,
        "messages": messages,
        "stream": true,
        "stream_options": { "include_usage": true },
    });
    if let Some(n) = opt.num_predict {
        body["max_tokens"] = json!(n);
    }
    if let Some(s) = opt.seed {
        body["seed"] = json!(s);
    }
    body
}

/// The models of `/v1/models` (or LM Studio's `/api/v0/models`, the same
/// shape), with the context each is served with when the server says.
pub fn parse_models(body: &str) -> Result<Vec<ModelEntry>, String> {
    let v: Value = serde_json::from_str(body).map_err(|e| format!("{MODELS}: not JSON ({e})"))?;
    let list = v
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{MODELS}: no \"data\" list"))?;
    Ok(list
        .iter()
        .filter_map(|m| {
            Some(ModelEntry {
                name: m.get("id").and_then(Value::as_str)?.to_owned(),
                context_length: served_context(m),
                ..ModelEntry::default()
            })
        })
        .collect())
}

/// The context of one listed model: what is loaded before what could be.
fn served_context(m: &Value) -> Option<usize> {
    let at = |path: &[&str]| {
        let v = path.iter().try_fold(m, |v, k| v.get(k))?;
        v.as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n > 0)
    };
    at(&["meta", "n_ctx"]) // llama-server
        .or_else(|| at(&["loaded_context_length"])) // LM Studio
        .or_else(|| at(&["max_model_len"])) // vLLM
        .or_else(|| at(&["context_length"]))
        .or_else(|| at(&["max_context_length"])) // LM Studio, not loaded
}

/// The context of the listed model named `name`; the first listed when the
/// name is not there (llama-server answers any name with its one model).
pub fn model_context(models: &[ModelEntry], name: &str) -> Option<usize> {
    models
        .iter()
        .find(|m| m.name == name)
        .or_else(|| models.first())
        .and_then(|m| m.context_length)
}

/// The context of a slot from llama-server's `/props`.
pub fn parse_props(body: &str) -> Option<usize> {
    let v: Value = serde_json::from_str(body).ok()?;
    let n = v
        .pointer("/default_generation_settings/n_ctx")
        .or_else(|| v.get("n_ctx"))?;
    n.as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n > 0)
}

/// Reads the SSE stream of a chat completion.
#[derive(Debug, Default)]
pub struct ChatDecoder {
    pub(super) lines: LineSplitter,
    ending: Ending,
    done: bool,
}

impl ChatDecoder {
    /// The events the bytes complete. `Done` comes at `[DONE]`, once the
    /// usage chunk (sent after the `finish_reason` one) had its chance.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<ChatEvent> {
        let lines = self.lines.push(bytes);
        lines.into_iter().flat_map(|l| self.line(l)).collect()
    }

    /// The end of the body. A stream that gave a `finish_reason` but no
    /// `[DONE]` has ended (some servers omit it); one with neither was cut.
    pub fn finish(&mut self) -> (Vec<ChatEvent>, Ending) {
        // A last event cut off with the connection is dropped.
        let whole = |l: &Result<String, String>| {
            l.as_deref().is_ok_and(|t| {
                let d = t.strip_prefix("data:").map_or("", str::trim);
                d == "[DONE]" || serde_json::from_str::<Value>(d).is_ok()
            })
        };
        let mut out: Vec<ChatEvent> = (self.lines.finish())
            .filter(whole)
            .map(|l| self.line(l))
            .unwrap_or_default();
        if !self.done && self.ending.reason.is_some() {
            self.done = true;
            self.ending.finished = true;
            out.push(ChatEvent::Done {
                ending: self.ending.clone(),
            });
        }
        let mut e = self.ending.clone();
        e.finished = self.done;
        (out, e)
    }

    fn line(&mut self, line: Result<String, String>) -> Vec<ChatEvent> {
        let line = match line {
            Ok(l) => l,
            Err(lossy) => return vec![bad(&lossy, "not UTF-8")],
        };
        // SSE: comments start with `:`, other fields (`event:`, `id:`) are
        // not data; only `data:` lines carry chunks.
        let Some(data) = line.strip_prefix("data:") else {
            return vec![];
        };
        let data = data.trim();
        if data == "[DONE]" {
            if self.done {
                return vec![];
            }
            self.done = true;
            self.ending.finished = true;
            return vec![ChatEvent::Done {
                ending: self.ending.clone(),
            }];
        }
        match serde_json::from_str::<Value>(data) {
            Ok(v) => self.chunk(&v),
            Err(e) => vec![bad(data, &e.to_string())],
        }
    }

    fn chunk(&mut self, v: &Value) -> Vec<ChatEvent> {
        if let Some(e) = v.get("error") {
            let message = e
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| e.to_string(), str::to_owned);
            return vec![ChatEvent::Error { message }];
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            let n = |k| u.get(k).and_then(Value::as_u64).map(|n| n as usize);
            self.ending.prompt_tokens = n("prompt_tokens");
            self.ending.output_tokens = n("completion_tokens");
        }
        let mut out = vec![];
        let choice = v.get("choices").and_then(|c| c.get(0));
        let Some(choice) = choice else { return out };
        let delta = choice.get("delta").cloned().unwrap_or(Value::Null);
        let text = |k: &str| {
            delta
                .get(k)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
        };
        if let Some(t) = text("reasoning_content").or_else(|| text("reasoning")) {
            out.push(ChatEvent::Thinking { text: t.to_owned() });
        }
        if let Some(t) = text("content") {
            out.push(ChatEvent::Content { text: t.to_owned() });
        }
        if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
            self.ending.reason = Some(r.to_owned());
        }
        out
    }
}

fn bad(line: &str, why: &str) -> ChatEvent {
    let shown: String = line.chars().take(80).collect();
    ChatEvent::Error {
        message: format!("the server sent an event that is not a chat chunk ({why}): {shown}"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{content, decode};
    use super::*;
    use crate::edit_loop::wire::Provider;
    use crate::edit_loop::Role;

    fn sse(chunks: &[&str]) -> String {
        chunks.iter().map(|c| format!("data: {c}\n\n")).collect()
    }

    #[test]
    fn decodes_content_finish_usage_and_done_in_any_split() {
        let body = sse(&[
            r#"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"think"},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Hé"},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"llo"},"finish_reason":"length"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#,
            "[DONE]",
        ]);
        for step in [1, 2, 7, body.len()] {
            let (events, rest, end) = decode(Provider::Openai, &body, step);
            assert!(rest.is_empty());
            assert_eq!(content(&events), "Héllo");
            assert!(events.contains(&ChatEvent::Thinking {
                text: "think".into()
            }));
            assert_eq!(
                events
                    .iter()
                    .filter(|e| matches!(e, ChatEvent::Done { .. }))
                    .count(),
                1
            );
            assert!(end.finished && end.cut(), "length cuts");
            assert_eq!((end.prompt_tokens, end.output_tokens), (Some(12), Some(3)));
        }
    }

    #[test]
    fn cut_streams_errors_and_missing_done() {
        let mut d = ChatDecoder::default();
        d.push(b"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\ndata: {\"choi");
        let (rest, end) = d.finish();
        assert!(!end.finished && rest.is_empty(), "{rest:?}");

        let mut d = ChatDecoder::default();
        let ev = d.push(b": keep-alive\ndata: {\"error\":{\"message\":\"boom\"}}\n");
        assert_eq!(
            ev,
            [ChatEvent::Error {
                message: "boom".into()
            }]
        );

        let mut d = ChatDecoder::default();
        d.push(b"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n");
        let (ev, end) = d.finish();
        assert!(matches!(ev[..], [ChatEvent::Done { .. }]));
        assert!(end.finished && !end.cut());
    }

    #[test]
    fn request_body_and_models() {
        let m = [Message::new(Role::System, "s")];
        let opt = ChatOptions {
            num_predict: Some(100),
            seed: Some(1),
            ..ChatOptions::default()
        };
        let b = chat_body("m", &m, &opt);
        assert_eq!(b["stream_options"]["include_usage"], true);
        assert_eq!(b["max_tokens"], 100);
        assert_eq!(b["messages"][0]["role"], "system");
        let names: Vec<String> =
            parse_models(r#"{"object":"list","data":[{"id":"a"},{"id":"b"}]}"#)
                .unwrap()
                .into_iter()
                .map(|m| m.name)
                .collect();
        assert_eq!(names, ["a", "b"]);
    }

    /// Each server's own field, as its documentation and (llama-server)
    /// a real answer show it.
    #[test]
    fn the_served_context_of_each_server() {
        // llama-server: one body with an Ollama-like `models` and `data`.
        let llama = r#"{"models":[{"name":"m.gguf","model":"m.gguf"}],"object":"list","data":[{"id":"m.gguf","object":"model","owned_by":"llamacpp","meta":{"vocab_type":2,"n_vocab":49152,"n_ctx_train":8192,"n_ctx":4096,"n_embd":576}}]}"#;
        let vllm = r#"{"object":"list","data":[{"id":"Qwen/Qwen2.5-7B","object":"model","max_model_len":32768}]}"#;
        let lmstudio = r#"{"object":"list","data":[{"id":"qwen","type":"llm","state":"loaded","max_context_length":131072,"loaded_context_length":16384},{"id":"gemma","state":"not-loaded","max_context_length":8192}]}"#;
        let ctx = |body: &str, name: &str| model_context(&parse_models(body).unwrap(), name);
        assert_eq!(ctx(llama, "m.gguf"), Some(4096));
        assert_eq!(ctx(llama, "any-name"), Some(4096), "its one model answers");
        assert_eq!(ctx(vllm, "Qwen/Qwen2.5-7B"), Some(32768));
        assert_eq!(ctx(lmstudio, "qwen"), Some(16384), "loaded before max");
        assert_eq!(ctx(lmstudio, "gemma"), Some(8192));
        assert_eq!(ctx(r#"{"data":[{"id":"x"}]}"#, "x"), None);
        let props = r#"{"default_generation_settings":{"id":0,"n_ctx":4096,"params":{}},"total_slots":4,"chat_template":"..."}"#;
        assert_eq!(parse_props(props), Some(4096));
        assert_eq!(parse_props("<html>"), None);
        assert_eq!(
            parse_props(r#"{"default_generation_settings":{"n_ctx":0}}"#),
            None
        );
    }
}
