//! The edit loop (`patchbay::edit_loop`) and the model servers' wire
//! formats as JS sees them: a class that only forwards. The caller moves
//! bytes (a streaming `fetch`); reading them (NDJSON or SSE) and every
//! decision (retry, continue, stop early) stay in the core, the same code
//! the CLI's `run` drives.

use patchbay::edit_loop::wire::{self, ollama, openai, ChatOptions, Decoder, Provider};
use patchbay::edit_loop::{self as core_loop, arena, LoopConfig, Message};
use patchbay_js::JsResult;
use patchbay_js::{error, files as files_arg, range_error, string, to_js, type_error};
use wasm_bindgen::prelude::*;

/// A model editing files in rounds. Per round: `nextRequest()` (the
/// messages, `numCtx`, the estimate) and `chatRequest()` (its path and
/// body for the server), then `pushBytes()` with each chunk of the
/// streamed body (stop reading when it says `stop`), then `end()`: the
/// decision and the round's file changes.
#[wasm_bindgen]
pub struct EditLoop {
    lp: core_loop::EditLoop,
    provider: Provider,
    model: String,
    think: Option<bool>,
    /// The sampling seed sent with every request (the arena's trials).
    seed: Option<u64>,
    /// The open round: its messages and knobs, and its reply's decoder.
    open: Option<(Vec<Message>, ChatOptions, Decoder)>,
}

#[wasm_bindgen]
impl EditLoop {
    /// `provider` is `ollama` or `openai`; `think` is sent as given
    /// (Ollama's `think`), absent left out; so is `seed`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Files")] files: JsValue,
        #[wasm_bindgen(unchecked_param_type = "LoopConfig")] config: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Provider")] provider: &str,
        model: &str,
        think: Option<bool>,
        seed: Option<u32>,
    ) -> JsResult<EditLoop> {
        let files = files_arg(&files)?;
        let cfg: LoopConfig = patchbay_js::options(Some(config), "config")?;
        let provider: Provider = provider.parse().map_err(range_error)?;
        let lp = core_loop::EditLoop::new(cfg, files).map_err(|e| match e {
            core_loop::LoopError::DoesNotFit { .. } => error(e),
            _ => range_error(e),
        })?;
        Ok(EditLoop {
            lp,
            provider,
            model: model.to_owned(),
            think,
            seed: seed.map(u64::from),
            open: None,
        })
    }

    /// The next round's request, or `undefined` once the loop is finished.
    #[wasm_bindgen(js_name = nextRequest, unchecked_return_type = "Request | undefined")]
    pub fn next_request(&mut self) -> JsResult {
        let Some(req) = self.lp.next_request() else {
            self.open = None;
            return Ok(JsValue::UNDEFINED);
        };
        let opt = ChatOptions {
            num_ctx: Some(req.num_ctx),
            num_predict: Some(req.num_predict),
            think: self.think,
            seed: self.seed,
        };
        // The loop's decoder: its line limit follows the loop's reply cap.
        self.open = Some((req.messages.clone(), opt, self.lp.decoder(self.provider)));
        to_js(&req)
    }

    /// The open round's chat request: `{ path, body }` (`body` is the JSON
    /// text to POST to the server's base URL + `path`).
    #[wasm_bindgen(js_name = chatRequest, unchecked_return_type = "{ path: string, body: string }")]
    pub fn chat_request(&self) -> JsResult {
        let (messages, opt, _) = self.open.as_ref().ok_or_else(no_round)?;
        let (path, body) = wire::chat_request(self.provider, &self.model, messages, opt);
        to_js(&serde_json::json!({ "path": path, "body": body.to_string() }))
    }

    /// Takes a chunk of the streamed body: the server's events (reply and
    /// thinking text, errors) and what the reply's text completed.
    #[wasm_bindgen(js_name = pushBytes, unchecked_return_type = "{ chat: ChatEvent[], pushed: Pushed }")]
    pub fn push_bytes(&mut self, bytes: &[u8]) -> JsResult {
        let (_, _, decoder) = self.open.as_mut().ok_or_else(no_round)?;
        let chat = decoder.push(bytes);
        self.forward(chat)
    }

    /// Ends the open round (the body ended, was cut, or was stopped):
    /// the decoder's last events, the loop's outcome, and the output
    /// tokens per second when the server gave both figures.
    #[wasm_bindgen(
        unchecked_return_type = "{ chat: ChatEvent[], pushed: Pushed, outcome: Outcome, tokensPerSecond: number | null }"
    )]
    pub fn end(&mut self) -> JsResult {
        let (_, _, mut decoder) = self.open.take().ok_or_else(no_round)?;
        let (mut chat, ending) = decoder.finish();
        let pushed = self.lp.push_chat(&mut chat);
        let outcome = self.lp.end(&ending);
        let rate = ending.tokens_per_second();
        to_js(
            &serde_json::json!({ "chat": chat, "pushed": pushed, "outcome": outcome, "tokensPerSecond": rate }),
        )
    }

    /// The files as the rounds so far left them.
    #[wasm_bindgen(unchecked_return_type = "Files")]
    pub fn files(&self) -> JsResult {
        to_js(self.lp.files())
    }

    #[wasm_bindgen(js_name = isFinished)]
    pub fn is_finished(&self) -> bool {
        self.lp.is_finished()
    }

    /// The arena's score of this run as it ended (`patchbay::edit_loop::arena::score`):
    /// `run` says which run it was, its wall time and the error that ended it, if any;
    /// `expected` is the task's expected files (absent: the task has none, nothing matches).
    #[wasm_bindgen(unchecked_return_type = "RunScore")]
    pub fn score(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Partial<RunScore>")] run: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Files | undefined")] expected: JsValue,
    ) -> JsResult {
        let run: arena::RunScore = patchbay_js::record(&run, "run")?;
        let expected = match expected.is_undefined() || expected.is_null() {
            true => None,
            false => Some(files_arg(&expected)?),
        };
        to_js(&arena::score(run, &self.lp, expected.as_ref()))
    }
}

/// An arena's results from its runs' scores: `{ runs, summary }`, the JSON
/// `patchbay arena --out` writes.
#[wasm_bindgen(js_name = arenaResults, unchecked_return_type = "ArenaResults")]
pub fn arena_results(
    #[wasm_bindgen(unchecked_param_type = "RunScore[]")] runs: JsValue,
) -> JsResult {
    let runs: Vec<arena::RunScore> = patchbay_js::list(&runs, "runs")?;
    to_js(&arena::Results::new(runs))
}

/// One line on a run's result (`patchbay arena`'s progress line).
#[wasm_bindgen(js_name = arenaVerdict)]
pub fn arena_verdict(
    #[wasm_bindgen(unchecked_param_type = "RunScore")] run: JsValue,
) -> JsResult<String> {
    let run: arena::RunScore = patchbay_js::record(&run, "run")?;
    Ok(arena::verdict(&run))
}

impl EditLoop {
    fn forward(&mut self, mut chat: Vec<wire::ChatEvent>) -> JsResult {
        let pushed = self.lp.push_chat(&mut chat);
        to_js(&serde_json::json!({ "chat": chat, "pushed": pushed }))
    }
}

fn no_round() -> JsValue {
    type_error("no round is open: call nextRequest first")
}

/// The models a server lists: Ollama's `/api/tags` body, or an
/// OpenAI-compatible `/v1/models` body (with the context each is served
/// with, when the server says).
#[wasm_bindgen(js_name = parseModels, unchecked_return_type = "ModelEntry[]")]
pub fn parse_models(
    #[wasm_bindgen(unchecked_param_type = "Provider")] provider: &str,
    body: JsValue,
) -> JsResult {
    let body = string(&body, "body")?;
    let list = match provider.parse().map_err(range_error)? {
        Provider::Ollama => ollama::parse_tags(&body),
        Provider::Openai => openai::parse_models(&body),
    };
    to_js(&list.map_err(error)?)
}

/// What Ollama's `/api/show` body says of a model (context length,
/// family, capabilities).
#[wasm_bindgen(js_name = parseModelInfo, unchecked_return_type = "ModelInfo")]
pub fn parse_model_info(body: &str) -> JsResult {
    to_js(&ollama::parse_show(body).map_err(error)?)
}

/// The context of a slot from llama-server's `/props` body (undefined when
/// the body does not say).
#[wasm_bindgen(js_name = parseProps)]
pub fn parse_props(body: &str) -> Option<u32> {
    openai::parse_props(body).and_then(|n| u32::try_from(n).ok())
}

/// The context a run plans with (`wire::choose_context`): the user's
/// setting (`asked`, absent for none) against the server's (`served`),
/// with a warning when the user asked for more than the server has.
#[wasm_bindgen(js_name = chooseContext, unchecked_return_type = "ContextChoice")]
pub fn choose_context(
    #[wasm_bindgen(unchecked_param_type = "Provider")] provider: &str,
    asked: Option<u32>,
    served: Option<u32>,
) -> JsResult {
    let provider: Provider = provider.parse().map_err(range_error)?;
    let c = wire::choose_context(
        provider,
        asked.map(|n| n as usize),
        served.map(|n| n as usize),
    );
    to_js(&c)
}

/// The body of Ollama's `/api/show` request for `model`.
#[wasm_bindgen(js_name = showBody)]
pub fn show_body(model: &str) -> String {
    ollama::show_body(model).to_string()
}

/// Ollama's `think` for a model with `capabilities` (from `/api/show`):
/// what the user wants when the model can think, else left out.
#[wasm_bindgen(js_name = thinkFor)]
pub fn think_for(capabilities: Vec<String>, wants: bool) -> Option<bool> {
    ollama::think_for(&capabilities, wants)
}

/// The message of a server's error body (either API's shape).
#[wasm_bindgen(js_name = serverError)]
pub fn server_error(status: u16, body: &str) -> String {
    wire::error_message(status, body)
}

/// The wire paths, so the caller builds no URL of its own.
#[wasm_bindgen(js_name = serverPaths, unchecked_return_type = "{ version: string, tags: string, show: string, models: string, props: string }")]
pub fn server_paths() -> JsResult {
    to_js(&serde_json::json!({
        "version": ollama::VERSION, "tags": ollama::TAGS, "show": ollama::SHOW, "models": openai::MODELS,
        "props": openai::PROPS,
    }))
}
