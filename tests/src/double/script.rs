//! What the double serves: its models and scripted replies (a JSON file
//! for the standalone binary), and the exact lines of each reply.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The double's whole behaviour.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Script {
    pub version: String,
    pub models: Vec<ModelDef>,
    /// Extra allowed origins, as `OLLAMA_ORIGINS` lists them (comma
    /// separated there; `*` is a wildcard).
    pub origins: Vec<String>,
    /// Tried in order; the first that matches a request answers it.
    pub replies: Vec<Reply>,
    /// Count the prompt when a reply does not give `promptTokens`: about
    /// four characters a token, fitted into `options.num_ctx` the way
    /// Ollama does (whole messages dropped from the front, system messages
    /// and the last one kept).
    pub count_prompt: bool,
    /// Keep connections alive the way llama-server does, closing them on
    /// its own schedule: each response advertises keep-alive, and the
    /// connection is closed, unread, when the next request arrives on it
    /// (llama-server closes after every streamed reply, a moment after its
    /// last byte, and a client that reuses the connection in that moment
    /// loses its request). A request that says `Connection: close` is
    /// answered with the connection closed.
    pub keep_alive: bool,
    /// Close the connection of this many chat requests, once each has been
    /// read, before any response byte (a server that drops a request).
    pub drop_chats: usize,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            version: "0.12.6".into(),
            models: vec![ModelDef::default()],
            origins: vec![],
            replies: vec![],
            count_prompt: false,
            keep_alive: false,
            drop_chats: 0,
        }
    }
}

/// A model the double knows.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelDef {
    pub name: String,
    pub architecture: String,
    pub context_length: usize,
    /// The context it is loaded with (`/api/ps`); none: not loaded.
    pub loaded_context: Option<usize>,
    pub capabilities: Vec<String>,
    pub parameter_size: String,
    /// The context an OpenAI-compatible server serves it with, said the
    /// way llama-server says it (`/v1/models` `meta.n_ctx`, `/props`).
    pub served_context: Option<usize>,
}

impl Default for ModelDef {
    fn default() -> Self {
        ModelDef {
            name: "coder:7b".into(),
            architecture: "qwen2".into(),
            context_length: 32768,
            loaded_context: None,
            capabilities: vec!["completion".into()],
            parameter_size: "7.6B".into(),
            served_context: None,
        }
    }
}

impl ModelDef {
    pub fn can_think(&self) -> bool {
        self.capabilities.iter().any(|c| c == "thinking")
    }

    /// `/api/show`'s answer.
    pub fn show(&self) -> Value {
        let a = &self.architecture;
        json!({
            "modelfile": format!("FROM {}", self.name),
            "parameters": "",
            "template": "{{ .Prompt }}",
            "details": { "parent_model": "", "format": "gguf", "family": a, "families": [a], "parameter_size": self.parameter_size, "quantization_level": "Q4_K_M" },
            "model_info": { "general.architecture": a, format!("{a}.context_length"): self.context_length },
            "capabilities": self.capabilities,
        })
    }
}

/// How a scripted reply ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum End {
    /// A final chunk with `done_reason: "stop"`.
    #[default]
    Stop,
    /// A final chunk with `done_reason: "length"` (the reply limit).
    Length,
    /// The connection closes without a final chunk.
    Cut,
    /// A `{"error": ...}` line under status 200, then the stream ends.
    Error,
}

/// One scripted reply and the requests it answers.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Reply {
    /// Only for this model.
    pub model: Option<String>,
    /// Only when the first user message (the task) contains this.
    pub task: Option<String>,
    /// Only when the system prompt contains this (it names the format).
    pub system: Option<String>,
    /// Only for this round (the number of user messages).
    pub round: Option<usize>,
    pub text: String,
    /// Content characters a chunk (default 24).
    pub chunk_chars: Option<usize>,
    /// Reasoning sent first as `message.thinking` chunks.
    pub thinking: String,
    pub end: End,
    pub error: Option<String>,
    /// `prompt_eval_count` (left out when not set, as servers may).
    pub prompt_tokens: Option<usize>,
    /// Milliseconds waited after each streamed line (default none).
    pub pause_ms: u64,
    /// Milliseconds waited after each byte of the stream (slow bytes).
    pub byte_ms: u64,
    /// Stream without end (bounded: see `flood.rs`) instead of `text`.
    pub flood: Option<super::flood::Flood>,
    /// The flood's bytes at most (then the reply ends as `end` says).
    pub flood_bytes: Option<u64>,
    /// Answer with this status and `text` as a plain body instead of a
    /// stream (a server failing with its own page).
    pub status: Option<u16>,
}

impl Reply {
    fn matches(&self, req: &Value) -> bool {
        let msgs = req["messages"].as_array().cloned().unwrap_or_default();
        let of_role = |r: &str| -> Vec<String> {
            msgs.iter()
                .filter(|m| m["role"] == r)
                .map(|m| m["content"].as_str().unwrap_or("").to_owned())
                .collect()
        };
        let users = of_role("user");
        let system = of_role("system").join("\n");
        self.model.as_deref().is_none_or(|m| req["model"] == m)
            && self
                .task
                .as_deref()
                .is_none_or(|t| users.first().is_some_and(|u| u.contains(t)))
            && self.system.as_deref().is_none_or(|s| system.contains(s))
            && self.round.is_none_or(|r| users.len() == r)
    }

    fn chunks(text: &str, n: usize) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        chars.chunks(n.max(1)).map(|c| c.iter().collect()).collect()
    }
}

/// Said when no scripted reply matches.
const UNSCRIPTED: &str = "(the double has no scripted reply for this request)";

impl Script {
    pub fn model(&self, name: &str) -> Option<&ModelDef> {
        // Ollama adds `:latest` to a name without a tag.
        let full = if name.contains(':') {
            name.to_owned()
        } else {
            format!("{name}:latest")
        };
        self.models
            .iter()
            .find(|m| m.name == name || m.name == full)
    }

    pub fn reply_for(&self, req: &Value) -> &Reply {
        static NONE: std::sync::OnceLock<Reply> = std::sync::OnceLock::new();
        self.replies
            .iter()
            .find(|r| r.matches(req))
            .unwrap_or_else(|| {
                NONE.get_or_init(|| Reply {
                    text: UNSCRIPTED.into(),
                    ..Reply::default()
                })
            })
    }

    pub fn tags(&self) -> Value {
        let models: Vec<Value> = self
            .models
            .iter()
            .map(|m| {
                json!({ "name": m.name, "model": m.name, "modified_at": "2026-01-01T00:00:00Z", "size": 4_683_075_271u64, "digest": "0".repeat(64),
                        "details": { "parent_model": "", "format": "gguf", "family": m.architecture, "families": [m.architecture], "parameter_size": m.parameter_size, "quantization_level": "Q4_K_M" } })
            })
            .collect();
        json!({ "models": models })
    }

    pub fn ps(&self) -> Value {
        let models: Vec<Value> = self
            .models
            .iter()
            .filter_map(|m| {
                let c = m.loaded_context?;
                Some(json!({ "name": m.name, "model": m.name, "size": 5_137_025_024u64, "digest": "0".repeat(64), "expires_at": "2026-01-01T00:05:00Z", "size_vram": 5_137_025_024u64, "context_length": c }))
            })
            .collect();
        json!({ "models": models })
    }

    pub fn openai_models(&self) -> Value {
        let data: Vec<Value> = self
            .models
            .iter()
            .map(|m| {
                let mut v = json!({ "id": m.name, "object": "model", "created": 1_767_225_600, "owned_by": "library" });
                if let Some(n) = m.served_context {
                    v["meta"] = json!({ "n_ctx": n, "n_ctx_train": m.context_length });
                }
                v
            })
            .collect();
        json!({ "object": "list", "data": data })
    }

    /// llama-server's `/props`: the context of a slot (the first model's).
    pub fn props(&self) -> Option<Value> {
        let n = self.models.first()?.served_context?;
        Some(
            json!({ "default_generation_settings": { "id": 0, "n_ctx": n, "params": {} }, "total_slots": 4 }),
        )
    }

    /// Ollama's rule (`envconfig.AllowedOrigins`): the loopback hosts on
    /// any port, the app schemes, and the configured list.
    pub fn origin_allowed(&self, origin: &str) -> bool {
        let mut allowed: Vec<String> = self.origins.clone();
        if let Ok(env) = std::env::var("OLLAMA_ORIGINS") {
            allowed.extend(env.split(',').map(|s| s.trim().to_owned()));
        }
        for host in ["localhost", "127.0.0.1", "0.0.0.0"] {
            for scheme in ["http", "https"] {
                allowed.push(format!("{scheme}://{host}"));
                allowed.push(format!("{scheme}://{host}:*"));
            }
        }
        for s in ["app", "file", "tauri", "vscode-webview", "vscode-file"] {
            allowed.push(format!("{s}://*"));
        }
        allowed.iter().any(|p| wildcard(p, origin))
    }
}

/// The prompt tokens Ollama would count for a chat request: each message
/// about a token per four characters plus its role markers; when that
/// exceeds `options.num_ctx`, the oldest non-system messages are dropped
/// until it fits (the last message always stays).
pub fn counted_prompt(req: &Value) -> usize {
    let msgs = req["messages"].as_array().cloned().unwrap_or_default();
    let cost: Vec<usize> = msgs
        .iter()
        .map(|m| {
            m["content"]
                .as_str()
                .unwrap_or("")
                .chars()
                .count()
                .div_ceil(4)
                + 4
        })
        .collect();
    let limit = req["options"]["num_ctx"]
        .as_u64()
        .map_or(usize::MAX, |n| n as usize);
    let mut total: usize = cost.iter().sum();
    for (i, m) in msgs.iter().enumerate() {
        if total <= limit || i + 1 == msgs.len() {
            break;
        }
        if m["role"] != "system" {
            total -= cost[i];
        }
    }
    total
}

/// `*` matches any run of characters (one `*` at most, as gin's cors).
fn wildcard(pattern: &str, s: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == s,
        Some((a, b)) => s.len() >= a.len() + b.len() && s.starts_with(a) && s.ends_with(b),
    }
}

const CREATED: &str = "2026-01-01T00:00:00.000000Z";
/// Nanoseconds a generated chunk takes in the reported durations.
const NS_A_CHUNK: u64 = 20_000_000;

/// The lines that end a reply after its text (a final chunk, an error, or
/// none for a cut), as the API sends them.
pub fn ending_lines(model: &str, r: &Reply, openai: bool) -> Vec<String> {
    let r = Reply {
        text: String::new(),
        thinking: String::new(),
        ..r.clone()
    };
    let mut lines = if openai {
        openai_events(model, &r, false)
    } else {
        ollama_lines(model, &r, false)
    };
    // A cut is the flood's last chunk without these lines.
    lines.retain(|l| l != "<cut>");
    lines
}

/// The NDJSON lines of a reply.
pub fn ollama_lines(model: &str, r: &Reply, thinking: bool) -> Vec<String> {
    let n = r.chunk_chars.unwrap_or(24);
    let mut out = vec![];
    let line = |content: &str, think: Option<&str>| {
        let mut msg = json!({ "role": "assistant", "content": content });
        if let Some(t) = think {
            msg["thinking"] = json!(t);
        }
        json!({ "model": model, "created_at": CREATED, "message": msg, "done": false }).to_string()
    };
    if thinking {
        out.extend(
            Reply::chunks(&r.thinking, n)
                .iter()
                .map(|t| line("", Some(t))),
        );
    }
    let chunks = Reply::chunks(&r.text, n);
    out.extend(chunks.iter().map(|c| line(c, None)));
    match r.end {
        End::Cut => {}
        End::Error => out.push(json!({ "error": r.error.clone().unwrap_or_else(|| "an error was encountered while running the model".into()) }).to_string()),
        End::Stop | End::Length => {
            let eval = chunks.len() as u64;
            let mut last = json!({ "model": model, "created_at": CREATED, "message": { "role": "assistant", "content": "" }, "done": true,
                "done_reason": if r.end == End::Length { "length" } else { "stop" },
                "total_duration": 1_000_000 + eval * NS_A_CHUNK, "load_duration": 1_000_000, "eval_count": eval, "eval_duration": eval * NS_A_CHUNK });
            if let Some(p) = r.prompt_tokens {
                last["prompt_eval_count"] = json!(p);
                last["prompt_eval_duration"] = json!(p as u64 * 100_000);
            }
            out.push(last.to_string());
        }
    }
    out
}

/// The SSE `data:` payloads of a reply (`<cut>` last: close without
/// `[DONE]`).
pub fn openai_events(model: &str, r: &Reply, usage: bool) -> Vec<String> {
    let n = r.chunk_chars.unwrap_or(24);
    let chunk = |delta: Value, finish: Value| {
        json!({ "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_767_225_600, "model": model, "system_fingerprint": "fp_ollama",
                "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] })
        .to_string()
    };
    let chunks = Reply::chunks(&r.text, n);
    let mut out: Vec<String> = chunks
        .iter()
        .map(|c| chunk(json!({ "role": "assistant", "content": c }), Value::Null))
        .collect();
    match r.end {
        End::Cut => out.push("<cut>".into()),
        End::Error => {
            let msg = r
                .error
                .clone()
                .unwrap_or_else(|| "an error was encountered while running the model".into());
            out.push(json!({ "error": { "message": msg, "type": "api_error" } }).to_string());
            out.push("[DONE]".into());
        }
        End::Stop | End::Length => {
            let reason = if r.end == End::Length {
                "length"
            } else {
                "stop"
            };
            out.push(chunk(
                json!({ "role": "assistant", "content": "" }),
                json!(reason),
            ));
            if usage {
                let p = r.prompt_tokens.unwrap_or(0);
                let c = chunks.len();
                out.push(json!({ "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_767_225_600, "model": model, "choices": [],
                                 "usage": { "prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c } }).to_string());
            }
            out.push("[DONE]".into());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ollamas_origin_rule() {
        let s = Script {
            origins: vec![
                "https://app.example.org".into(),
                "http://*.corp.test".into(),
            ],
            ..Script::default()
        };
        for ok in [
            "http://localhost",
            "http://localhost:5173",
            "https://127.0.0.1:8443",
            "http://0.0.0.0:80",
            "file://",
            "app://x",
            "https://app.example.org",
            "http://dev.corp.test",
        ] {
            assert!(s.origin_allowed(ok), "{ok}");
        }
        for no in [
            "http://example.com",
            "http://localhost.evil.com",
            "https://app.example.org:8080",
            "null",
        ] {
            assert!(!s.origin_allowed(no), "{no}");
        }
    }
}
