//! Hostile streams for the transports' bounds: a reply without end (text
//! or thinking), one line without end, a server that goes silent, and (in
//! `http.rs`) bytes sent one at a time. Each is bounded, so a client that
//! never stops costs the double a bounded time: it ends after
//! [`FLOOD_SECONDS`], after the reply's `floodBytes`, or when the client
//! closes the connection, whichever comes first.

use super::http::Writer;
use super::script::{End, Reply};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::io;
use std::time::{Duration, Instant};

/// How a reply floods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Flood {
    /// Reply text chunks without end (a server that ignores the limit).
    Stream,
    /// Thinking chunks without end.
    Thinking,
    /// One line that never ends.
    Line,
    /// The answer's head and the reply's first chunk, then nothing.
    Silent,
}

/// The longest a flood goes on.
pub const FLOOD_SECONDS: u64 = 60;

/// Flood text a chunk: 1 KB, so a flood reaches its bytes quickly.
const PIECE: usize = 1024;

/// Serves `reply`'s flood as Ollama (NDJSON) or as an OpenAI-compatible
/// server (SSE) would send it.
pub fn serve(
    w: &mut Writer,
    model: &str,
    reply: &Reply,
    mode: Flood,
    openai: bool,
) -> io::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(FLOOD_SECONDS);
    let ctype = if openai {
        "text/event-stream"
    } else {
        "application/x-ndjson"
    };
    w.head(ctype)?;
    let limit = reply.flood_bytes.unwrap_or(u64::MAX);
    let text = "flood ".repeat(PIECE / 6) + "\n";
    match mode {
        Flood::Stream | Flood::Thinking => {
            if !reply.text.is_empty() {
                w.chunk(frame(openai, &chunk(model, &reply.text, false, openai)).as_bytes())?;
            }
            let line = frame(
                openai,
                &chunk(model, &text, mode == Flood::Thinking, openai),
            );
            let mut sent = 0u64;
            while sent < limit && Instant::now() < deadline {
                w.chunk(line.as_bytes())?;
                sent += text.len() as u64;
            }
            let end = super::script::ending_lines(model, reply, openai);
            for l in end {
                w.chunk(frame(openai, &l).as_bytes())?;
            }
            if reply.end == End::Cut {
                return w.close();
            }
            w.last()
        }
        Flood::Line => {
            let open = if openai {
                format!("data: {{\"id\":\"chatcmpl-1\",\"model\":\"{model}\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"")
            } else {
                format!(
                    "{{\"model\":\"{model}\",\"message\":{{\"role\":\"assistant\",\"content\":\""
                )
            };
            w.chunk(open.as_bytes())?;
            let piece = vec![b'a'; 8 * PIECE];
            let mut sent = 0u64;
            while sent < limit && Instant::now() < deadline {
                w.chunk(&piece)?;
                sent += piece.len() as u64;
            }
            w.close()
        }
        Flood::Silent => {
            let first = chunk(model, &reply.text, false, openai);
            w.chunk(frame(openai, &first).as_bytes())?;
            w.wait_for_close(deadline)
        }
    }
}

/// One streamed line of text or thinking.
fn chunk(model: &str, text: &str, thinking: bool, openai: bool) -> String {
    match (openai, thinking) {
        (false, false) => json!({ "model": model, "message": { "role": "assistant", "content": text }, "done": false }),
        (false, true) => json!({ "model": model, "message": { "role": "assistant", "content": "", "thinking": text }, "done": false }),
        (true, false) => json!({ "id": "chatcmpl-1", "model": model, "choices": [{ "index": 0, "delta": { "content": text }, "finish_reason": null }] }),
        (true, true) => json!({ "id": "chatcmpl-1", "model": model, "choices": [{ "index": 0, "delta": { "reasoning_content": text }, "finish_reason": null }] }),
    }
    .to_string()
}

/// A line as the API frames it.
fn frame(openai: bool, line: &str) -> String {
    if openai {
        format!("data: {line}\n\n")
    } else {
        format!("{line}\n")
    }
}
