//! The edit loop: a model edits files in rounds, written once and sans-IO
//! so that the CLI and the page drive the same decisions and only move
//! bytes.
//!
//! [`EditLoop::new`] takes the task, the files and the knobs
//! ([`LoopConfig`]). Each round:
//!
//! 1. [`EditLoop::next_request`] gives the messages to send (provider-
//!    neutral `role`/`content`), `num_ctx`, the reply limit and the
//!    engine's token estimate. The first holds the prompt kit's system
//!    prompt and the task with every file in its format's view, whole or as
//!    the sections the budget plan chose (`prompt.rs`).
//! 2. [`EditLoop::push`] takes the reply as it streams, through the
//!    incremental parser ([`crate::reply::stream::Stream`]), and says when to stop
//!    generating: an edit already failed and `early_stop` is on.
//! 3. [`EditLoop::end`] takes how the reply ended ([`wire::Ending`]) and
//!    decides ([`Decision`]): `done`; `retry` with the engine's feedback;
//!    `continue` after a cut reply (the reply limit, or no final chunk),
//!    keeping its complete edits and asking for the rest; or `give_up` when
//!    the rounds are spent. It returns the file changes of the round, all or
//!    nothing, for the caller to write.
//!
//! A round's reply (its text and its thinking) may take
//! [`EditLoop::reply_cap`] bytes: past that, or past a server line longer
//! than the decoder's limit ([`EditLoop::decoder`]), the loop says stop
//! and the reply counts as cut by the reply limit, so a server that
//! ignores the limit or streams without end costs bounded memory in every
//! transport.
//!
//! With `partial` (the default, Aider's rule) a round keeps the edits that
//! applied and asks again only for the others, showing the changed files
//! anew; an edit a previous round applied that the model sends again is a
//! no-op, not a failure. A continuation is judged joined to the complete
//! edits of the cut reply, so `EDITS: N` and overlaps see the whole set.

pub mod accounting;
pub mod arena;
mod prompt;
pub mod wire;

use crate::apply::report::{FileStatus, Report, Status};
use crate::apply::transaction;
use crate::budget::tokens::Tokenizer;
use crate::edit::{Code, EditStatus, Op, Parsed};
use crate::formats::{FormatName, View};
use crate::reply::stream::{Event, Stream};
use crate::{ApplyOptions, Options, StopReason};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use wire::Ending;

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

/// A chat message, as both APIs take it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Message {
        Message {
            role,
            content: content.into(),
        }
    }
}

/// What the loop is asked to do, and its knobs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub struct LoopConfig {
    pub task: String,
    /// An edit format name (not `auto`: the model is told one format).
    #[cfg_attr(feature = "ts", ts(type = "FormatName"))]
    pub format: FormatName,
    /// The model's context window (`num_ctx`), in tokens.
    pub context_length: usize,
    /// The reply limit (`num_predict`), in tokens.
    pub reply_limit: usize,
    /// Requests at most, the first included (retries and continuations
    /// both spend one).
    pub rounds: usize,
    /// Stop generating at the first edit that fails.
    pub early_stop: bool,
    /// Keep the edits that applied when others fail (and ask only for
    /// those); off, a round applies all its edits or none.
    pub partial: bool,
    /// `estimate:FAMILY` or an exact vocabulary's name.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub tokenizer: Tokenizer,
    /// The most bytes of reply text and thinking a round reads before it
    /// stops and counts the reply as cut; none: [`BYTES_PER_TOKEN`] for
    /// each token of `reply_limit`.
    pub max_reply_bytes: Option<usize>,
}

/// Bytes a reply may take for each token of its limit: sixteen times what
/// a token of code averages (about four bytes), beyond the longest token
/// of the common vocabularies, so only a server that ignores the limit
/// reaches the cap.
pub const BYTES_PER_TOKEN: usize = 64;

/// What a server line may add to the reply it carries (JSON escapes and
/// the chunk's fields), for the decoder's line limit.
const LINE_OVERHEAD: usize = 64 << 10;

impl LoopConfig {
    /// What the model is shown of a file in the loop's format.
    fn view(&self) -> View {
        crate::formats::by_id(self.format).map_or(View::Plain, |f| f.view())
    }
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            task: String::new(),
            format: FormatName::SearchReplace,
            context_length: 8192,
            reply_limit: 2048,
            rounds: 3,
            early_stop: true,
            partial: true,
            tokenizer: Tokenizer::default(),
            max_reply_bytes: None,
        }
    }
}

/// Why a loop cannot start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum LoopError {
    UnknownFormat {
        message: String,
    },
    /// The budget planner's `does_not_fit`: not even the minimum fits.
    DoesNotFit {
        message: String,
    },
    BadConfig {
        message: String,
    },
}

impl std::fmt::Display for LoopError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoopError::UnknownFormat { message }
            | LoopError::DoesNotFit { message }
            | LoopError::BadConfig { message } => f.write_str(message),
        }
    }
}
impl std::error::Error for LoopError {}

/// What a round is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum RoundKind {
    First,
    Retry,
    Continuation,
}

/// One request to send.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// 1-based.
    pub round: usize,
    pub kind: RoundKind,
    pub messages: Vec<Message>,
    pub num_ctx: usize,
    pub num_predict: usize,
    /// The engine's estimate of the prompt's tokens.
    pub prompt_estimate: usize,
    /// The budget plan of the first request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<crate::budget::Plan>,
    /// What fitting the prompt into the window did or could not do.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The server's count that scales the estimate (learned from the first
    /// round the server counted; none before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<accounting::Calibration>,
}

/// What to do after a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Every edit applied (or the model only re-sent applied ones).
    Done,
    /// Edits failed: send the feedback (the next request carries it).
    Retry,
    /// The reply was cut: ask for the rest.
    Continue,
    /// Rounds spent or nothing to go on.
    GiveUp { reason: String },
}

/// A file's new state after a round: `None` deletes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileChange {
    pub path: String,
    pub content: Option<String>,
}

/// What [`EditLoop::push`] found in a chunk.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Pushed {
    /// Edits judged as they completed (each located alone).
    pub events: Vec<Event>,
    /// Stop generating: an edit failed and `early_stop` is on, or the
    /// reply reached its cap (`capped`).
    pub stop: bool,
    /// The reply reached [`EditLoop::reply_cap`] (or a server line the
    /// decoder's limit): the rest is unread and the reply counts as cut.
    pub capped: bool,
}

/// The record of one round.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RoundRecord {
    pub round: usize,
    pub kind: RoundKind,
    /// This round's reply text (a continuation's own part).
    pub reply: String,
    /// The report of the round's edits (file texts left out); none when
    /// the reply was cut or stopped early.
    pub report: Option<Report>,
    pub events: Vec<Event>,
    /// Edits that repeated one a previous round applied.
    pub noops: usize,
    pub early_stop: bool,
    pub cut: bool,
    pub ending: Ending,
    pub prompt_estimate: usize,
    pub warnings: Vec<String>,
    pub decision: Decision,
    /// Paths the round wrote or deleted.
    pub changed: Vec<String>,
}

/// The end of a round: its decision, its changes, its record.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Outcome {
    pub decision: Decision,
    pub changes: Vec<FileChange>,
    pub record: RoundRecord,
}

/// The state machine; see the module docs.
pub struct EditLoop {
    cfg: LoopConfig,
    files: BTreeMap<String, String>,
    messages: Vec<Message>,
    opt: ApplyOptions,
    round: usize,
    kind: RoundKind,
    plan: Option<crate::budget::Plan>,
    /// The open round: its stream, estimate, events, early stop.
    open: Option<Open>,
    /// The complete edits of a cut reply, joined before the continuation.
    prefix: String,
    /// Edits applied by earlier rounds: (path, op).
    applied: Vec<(String, Op)>,
    finished: bool,
    records: Vec<RoundRecord>,
    /// The template's overhead, learned from the server's first count.
    calibration: Option<accounting::Calibration>,
}

struct Open {
    stream: Stream,
    estimates: Vec<usize>,
    events: Vec<Event>,
    stopped: bool,
    /// What fitting the prompt into the window did.
    warnings: Vec<String>,
    /// Bytes of reply text and thinking taken so far.
    received: usize,
    /// Why reading stopped at the cap, when it did.
    capped: Option<String>,
}

impl Open {
    /// How much of `text` the cap leaves room for (at a character
    /// boundary); records the cap when `text` does not fit whole.
    fn budget(&mut self, text: &str, cap: usize) -> usize {
        let left = cap.saturating_sub(self.received);
        if text.len() <= left {
            self.received += text.len();
            return text.len();
        }
        let mut k = left;
        while !text.is_char_boundary(k) {
            k -= 1;
        }
        self.received += k;
        self.capped = Some(format!(
            "the reply passed {cap} bytes, the most a round reads ({}): reading stopped there, and the reply counts as cut",
            cap_origin()
        ));
        k
    }
}

/// How the default cap is derived, for the messages.
fn cap_origin() -> String {
    format!("{BYTES_PER_TOKEN} bytes for each token of the reply limit, unless set")
}

impl EditLoop {
    pub fn new(cfg: LoopConfig, files: BTreeMap<String, String>) -> Result<EditLoop, LoopError> {
        let kit =
            crate::budget::prompts::kit(cfg.format).ok_or_else(|| LoopError::UnknownFormat {
                message: crate::UnknownFormat(cfg.format.to_string()).to_string(),
            })?;
        if cfg.max_reply_bytes == Some(0) {
            return Err(LoopError::BadConfig {
                message: "the reply cap (max_reply_bytes) must be at least 1 byte".into(),
            });
        }
        if cfg.rounds == 0 || cfg.reply_limit == 0 || cfg.context_length <= cfg.reply_limit {
            return Err(LoopError::BadConfig {
                message: format!("rounds ({}) and the reply limit ({}) must be at least 1, and the context ({}) larger than the reply limit", cfg.rounds, cfg.reply_limit, cfg.context_length),
            });
        }
        let system = kit.system_prompt();
        let first =
            prompt::first_message(&cfg, &system, &files).map_err(|e| LoopError::DoesNotFit {
                message: e.to_string(),
            })?;
        let opt = ApplyOptions {
            format: cfg.format,
            transaction: Options {
                partial: cfg.partial,
                seen: first.seen,
                ..Options::default()
            },
            ..ApplyOptions::default()
        };
        Ok(EditLoop {
            messages: vec![
                Message::new(Role::System, system),
                Message::new(Role::User, first.text),
            ],
            plan: Some(first.plan),
            cfg,
            files,
            opt,
            round: 1,
            kind: RoundKind::First,
            open: None,
            prefix: String::new(),
            applied: vec![],
            finished: false,
            records: vec![],
            calibration: None,
        })
    }

    /// The current texts of the files (after the rounds so far).
    pub fn files(&self) -> &BTreeMap<String, String> {
        &self.files
    }

    pub fn records(&self) -> &[RoundRecord] {
        &self.records
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The most bytes of reply text and thinking a round reads:
    /// `max_reply_bytes`, else [`BYTES_PER_TOKEN`] for each token of the
    /// reply limit.
    pub fn reply_cap(&self) -> usize {
        (self.cfg.max_reply_bytes)
            .unwrap_or_else(|| self.cfg.reply_limit.saturating_mul(BYTES_PER_TOKEN))
    }

    /// A decoder of `provider`'s stream whose lines may take what the cap
    /// allows plus the line's own fields and escapes (twice the cap): a
    /// longer line is [`wire::ChatEvent::Overflow`], which caps the reply.
    pub fn decoder(&self, provider: wire::Provider) -> wire::Decoder {
        let cap = self.reply_cap();
        wire::Decoder::bounded(
            provider,
            cap.saturating_mul(2).saturating_add(LINE_OVERHEAD),
        )
    }

    /// The request of the next round, or `None` once the loop is finished.
    /// Opens the round: its reply goes to [`EditLoop::push`].
    pub fn next_request(&mut self) -> Option<Request> {
        if self.finished {
            return None;
        }
        let (estimates, warnings) = self.fit_history();
        let mut stream = Stream::new(self.files.clone(), self.opt.clone());
        // The cut reply's complete edits come first; their receipts were
        // shown in the round that sent them.
        stream.push(&self.prefix);
        let req = Request {
            round: self.round,
            kind: self.kind,
            messages: self.messages.clone(),
            num_ctx: self.cfg.context_length,
            num_predict: self.cfg.reply_limit,
            prompt_estimate: estimates.iter().sum(),
            plan: self.plan.take(),
            warnings: warnings.clone(),
            calibration: self.calibration,
        };
        self.open = Some(Open {
            stream,
            estimates,
            events: vec![],
            stopped: false,
            warnings,
            received: 0,
            capped: None,
        });
        Some(req)
    }

    /// Keeps the prompt within the window: when the history has grown past
    /// it, the rounds before the last are left out and the task and files
    /// are shown as they are now (Ollama would drop the oldest messages,
    /// the files first). Returns the estimates and what was done.
    fn fit_history(&mut self) -> (Vec<usize>, Vec<String>) {
        let room = self.cfg.context_length.saturating_sub(self.cfg.reply_limit);
        let mut est = self.estimate();
        let mut warnings = vec![];
        let n = self.messages.len();
        if est.iter().sum::<usize>() > room && n > 4 {
            let system = self.messages[0].content.clone();
            let last = self.messages[n - 2..].to_vec();
            // The files get what the last exchange and the reply leave,
            // in the planner's (unscaled) tokens.
            let left = room.saturating_sub(est[n - 2..].iter().sum::<usize>());
            let ratio = self.calibration.map_or(1.0, |c| c.ratio());
            let cfg = LoopConfig {
                context_length: self.cfg.reply_limit + (left as f64 / ratio) as usize,
                ..self.cfg.clone()
            };
            if let Ok(fresh) = prompt::first_message(&cfg, &system, &self.files) {
                self.messages.truncate(1);
                self.messages.push(Message::new(Role::User, fresh.text));
                self.messages.extend(last);
                if let (Some(mut shown), Some(now)) = (fresh.seen, self.opt.transaction.seen.take())
                {
                    shown.merge(now);
                    self.opt.transaction.seen = Some(shown);
                }
                warnings.push(format!("the conversation outgrew the window: the {} messages of the earlier rounds were left out, and the files are shown as they are now", n - 4));
                est = self.estimate();
            }
        }
        let total: usize = est.iter().sum();
        if total > room {
            warnings.push(format!("the prompt is estimated at {total} tokens, more than the {room} that num_ctx {} leaves beside the reply limit: the server will drop or cut part of it", self.cfg.context_length));
        }
        (est, warnings)
    }

    /// The estimate of each message, scaled by the learned calibration.
    fn estimate(&self) -> Vec<usize> {
        let est = accounting::estimate(&self.messages, self.cfg.tokenizer);
        match &self.calibration {
            Some(c) => c.scale(&est),
            None => est,
        }
    }

    /// Learns the template's overhead from the first count of a whole
    /// prompt (a stopped round has none).
    fn learn(&mut self, estimates: &[usize], ending: &Ending) {
        if self.calibration.is_some() {
            return;
        }
        if let Some(n) = ending.prompt_tokens {
            self.calibration =
                accounting::Calibration::learn(self.round, estimates.iter().sum(), n);
        }
    }

    /// Takes a chunk of the reply, as much of it as the cap leaves. After
    /// a stop or the cap, chunks are ignored.
    pub fn push(&mut self, chunk: &str) -> Pushed {
        self.push_part(chunk).0
    }

    /// [`EditLoop::push`], and how many bytes of `chunk` it took.
    fn push_part(&mut self, chunk: &str) -> (Pushed, usize) {
        let (early, cap) = (self.cfg.early_stop, self.reply_cap());
        let Some(open) = self.open_for_more() else {
            return (Pushed::default(), 0);
        };
        let fits = open.budget(chunk, cap);
        let events = open.stream.push(&chunk[..fits]);
        // A re-sent applied edit reads `already_applied`: not a failure.
        let failed = events.iter().any(|e| {
            e.receipt.status == EditStatus::Failed && e.receipt.code != Some(Code::AlreadyApplied)
        });
        open.stopped = early && failed;
        open.events.extend(events.iter().cloned());
        let capped = open.capped.is_some();
        let p = Pushed {
            events,
            stop: open.stopped || capped,
            capped,
        };
        (p, fits)
    }

    /// The open round while it still reads (not stopped, not capped).
    fn open_for_more(&mut self) -> Option<&mut Open> {
        (self.open.as_mut()).filter(|o| !o.stopped && o.capped.is_none())
    }

    /// Thinking counts toward the cap: cut to what it leaves.
    fn take_thinking(&mut self, text: &mut String) -> Pushed {
        let cap = self.reply_cap();
        let Some(open) = self.open_for_more() else {
            return Pushed::default();
        };
        text.truncate(open.budget(text, cap));
        let capped = open.capped.is_some();
        Pushed {
            stop: capped,
            capped,
            ..Pushed::default()
        }
    }

    /// A server line past the decoder's limit: the reply is capped there.
    fn overflowed(&mut self, limit: usize) -> Pushed {
        let Some(open) = self.open_for_more() else {
            return Pushed::default();
        };
        open.capped = Some(format!("the server sent a line of more than {limit} bytes (twice the reply cap and 64 KB): reading stopped there, and the reply counts as cut"));
        Pushed {
            stop: true,
            capped: true,
            ..Pushed::default()
        }
    }

    /// Takes the reply text of a transport's decoded `chat` events, in
    /// order, up to a stop: the events after it are dropped from `chat` as
    /// unread, so a stopped reply shows what the loop took, however the
    /// network chunked it (the CLI's transport stops reading there too).
    pub fn push_chat(&mut self, chat: &mut Vec<wire::ChatEvent>) -> Pushed {
        let mut all = Pushed::default();
        for i in 0..chat.len() {
            let p = match &mut chat[i] {
                wire::ChatEvent::Content { text } => {
                    let (p, took) = self.push_part(text);
                    // The event shows what the loop took.
                    text.truncate(took);
                    p
                }
                wire::ChatEvent::Thinking { text } => self.take_thinking(text),
                wire::ChatEvent::Overflow { limit } => {
                    let limit = *limit;
                    self.overflowed(limit)
                }
                _ => continue,
            };
            all.events.extend(p.events);
            if p.stop {
                (all.stop, all.capped) = (true, p.capped);
                chat.truncate(i + 1);
                break;
            }
        }
        all
    }

    /// Ends the round with how the reply ended; decides what comes next.
    /// A reply stopped early ends unread (`Ending::default()`: no final
    /// chunk, no counts), whatever the transport had already decoded past
    /// the stop, so its record does not depend on how the network chunked
    /// the stream (the CLI's transport stops reading there; the page's
    /// reads may hold the final line too).
    pub fn end(&mut self, ending: &Ending) -> Outcome {
        let Some(open) = self.open.take() else {
            let reason = "no round is open: call next_request first".to_string();
            return self.no_round(ending, reason);
        };
        let unread = Ending::default();
        // A capped reply ends as the reply limit ends one: cut, its
        // complete edits kept for the continuation, nothing applied.
        let at_cap = Ending::finished_with("length");
        let ending = match (open.stopped, &open.capped) {
            (true, _) => &unread,
            (false, Some(_)) => &at_cap,
            (false, None) => ending,
        };
        let (round, kind) = (self.round, self.kind);
        let text = open.stream.text().into_owned();
        let reply = text.get(self.prefix.len()..).unwrap_or("").to_owned();
        let mut warnings = open.warnings.clone();
        warnings.extend(open.capped.clone());
        if let Some(w) = ending.prompt_tokens.and_then(|n| {
            accounting::truncation_warning(
                &self.messages,
                &open.estimates,
                n,
                self.cfg.context_length,
            )
        }) {
            warnings.push(w);
        }
        self.learn(&open.estimates, ending);
        self.messages
            .push(Message::new(Role::Assistant, reply.clone()));
        let judged = if open.stopped {
            self.after_early_stop(&open.events)
        } else if ending.cut() {
            let why = match (&open.capped, ending.finished) {
                (Some(_), _) => format!(
                    "it passed {} bytes, the most a reply may take",
                    self.reply_cap()
                ),
                (None, true) => "it reached the reply limit".into(),
                (None, false) => "the connection closed before the final chunk".into(),
            };
            self.after_cut(&text, &why)
        } else {
            self.judge(&text)
        };
        let decision = self.spend_round(judged.decision, judged.next);
        let record = RoundRecord {
            round,
            kind,
            reply,
            report: judged.report.map(Report::without_content),
            events: open.events,
            noops: judged.noops,
            early_stop: open.stopped,
            cut: !open.stopped && ending.cut(),
            ending: ending.clone(),
            prompt_estimate: open.estimates.iter().sum(),
            warnings,
            decision: decision.clone(),
            changed: judged.changes.iter().map(|c| c.path.clone()).collect(),
        };
        self.records.push(record.clone());
        Outcome {
            decision,
            changes: judged.changes,
            record,
        }
    }

    fn no_round(&mut self, ending: &Ending, reason: String) -> Outcome {
        let decision = Decision::GiveUp { reason };
        let record = RoundRecord {
            round: self.round,
            kind: self.kind,
            reply: String::new(),
            report: None,
            events: vec![],
            noops: 0,
            early_stop: false,
            cut: false,
            ending: ending.clone(),
            prompt_estimate: 0,
            warnings: vec![],
            decision: decision.clone(),
            changed: vec![],
        };
        Outcome {
            decision,
            changes: vec![],
            record,
        }
    }

    /// Turns a wish for another round into one, or gives up when the rounds
    /// are spent; queues the next message.
    fn spend_round(&mut self, d: Decision, next: Option<(RoundKind, String)>) -> Decision {
        let wants_more = matches!(d, Decision::Retry | Decision::Continue);
        if !wants_more {
            self.finished = true;
            return d;
        }
        if self.round >= self.cfg.rounds {
            self.finished = true;
            let what = if d == Decision::Continue {
                "the reply was cut"
            } else {
                "edits failed"
            };
            return Decision::GiveUp {
                reason: format!("{what} and all {} rounds are spent", self.cfg.rounds),
            };
        }
        if let Some((kind, message)) = next {
            self.kind = kind;
            self.messages.push(Message::new(Role::User, message));
        }
        self.round += 1;
        d
    }

    /// Stopped at a failing edit: nothing applies; the retry names the
    /// failures and asks for the whole set again.
    fn after_early_stop(&mut self, events: &[Event]) -> Judged {
        self.prefix.clear();
        let mut msg = String::from(
            "I stopped your reply early because an edit failed, so nothing of it was applied:\n",
        );
        for e in events
            .iter()
            .filter(|e| e.receipt.status == EditStatus::Failed)
        {
            let code = e.receipt.code.map_or("failed", Code::as_str);
            let m = e.receipt.message.as_deref().unwrap_or("");
            msg.push_str(&format!(
                "- edit {} ({}): {code}: {m}\n",
                e.receipt.index, e.path
            ));
        }
        msg.push_str("Send the whole reply again with every edit corrected.");
        msg.push_str(&self.reminder());
        Judged::new(Decision::Retry, Some((RoundKind::Retry, msg)))
    }

    /// A cut reply: its complete edits are kept (joined to what comes
    /// next) and the model is asked for the rest from the cut edit on.
    fn after_cut(&mut self, text: &str, why: &str) -> Judged {
        let opt = ApplyOptions {
            stop_reason: Some(StopReason::Length),
            ..self.opt.clone()
        };
        let (name, parsed) = crate::parse_reply(text, &opt);
        let (parsed, noops) = self.without_noops(parsed);
        let report = transaction::run(name, &parsed, &self.files, &opt.transaction_options());
        let mut j = self.continuation(text, &parsed, report, why);
        j.noops = noops;
        j
    }

    /// After a cut: the complete edits are kept and the engine's feedback
    /// (which edits are kept, where to start again) asks for the rest;
    /// when a complete edit already failed, the whole reply goes back.
    fn continuation(&mut self, text: &str, parsed: &Parsed, report: Report, why: &str) -> Judged {
        let failed = report
            .receipts()
            .iter()
            .any(|r| r.status == EditStatus::Failed && r.code != Some(Code::Truncated));
        if failed {
            self.prefix.clear();
            let mut msg = crate::budget::prompts::retry_message(&report).unwrap_or_default();
            msg.push_str(&format!(
                "\n\nThe reply was also cut off ({why}): send the whole reply again, corrected."
            ));
            let mut j = Judged::new(Decision::Retry, Some((RoundKind::Retry, msg)));
            j.report = Some(report);
            return j;
        }
        let mut prefix = text.get(..kept_end(text, parsed)).unwrap_or("").to_owned();
        if !prefix.is_empty() && !prefix.ends_with('\n') {
            prefix.push('\n');
        }
        self.prefix = prefix;
        let msg = format!(
            "Your reply was cut off ({why}).\n{}\nWrite the cut edit again from its start; no EDITS line is needed this time.",
            report.feedback.trim_end()
        );
        let mut j = Judged::new(Decision::Continue, Some((RoundKind::Continuation, msg)));
        j.report = Some(report);
        j
    }

    /// A complete reply: no-ops out, the transaction, the files updated.
    fn judge(&mut self, text: &str) -> Judged {
        let opt = ApplyOptions {
            stop_reason: Some(StopReason::Stop),
            ..self.opt.clone()
        };
        let (name, parsed) = crate::parse_reply(text, &opt);
        let (parsed, noops) = self.without_noops(parsed);
        if parsed.edits.is_empty() && noops > 0 {
            self.prefix.clear();
            let mut j = Judged::new(Decision::Done, None);
            j.noops = noops;
            return j;
        }
        let report = transaction::run(name, &parsed, &self.files, &opt.transaction_options());
        if report.status == Status::Truncated {
            let mut j =
                self.continuation(text, &parsed, report, "it declared more edits than arrived");
            j.noops = noops;
            return j;
        }
        self.prefix.clear();
        // The texts the report's files had, for showing what changed.
        let before: BTreeMap<String, String> = (report.files.iter())
            .filter_map(|f| Some((f.path.clone(), self.files.get(&f.path)?.clone())))
            .collect();
        let changes = self.take_changes(&report, &parsed);
        let mut j = if report.status == Status::Applied {
            Judged::new(Decision::Done, None)
        } else {
            let msg = self.retry_message(&report, &changes, &before, noops);
            Judged::new(Decision::Retry, Some((RoundKind::Retry, msg)))
        };
        (j.report, j.changes, j.noops) = (Some(report), changes, noops);
        j
    }

    /// Drops the edits equal to one an earlier round applied (same target,
    /// same operation): sending them again changes nothing.
    fn without_noops(&self, mut parsed: Parsed) -> (Parsed, usize) {
        if self.applied.is_empty() {
            return (parsed, 0);
        }
        let default = self.opt.transaction.default_path.as_deref();
        let mut keep = vec![];
        let mut mentions = vec![];
        let mut lines = vec![];
        let before = parsed.edits.len();
        for (i, e) in parsed.edits.drain(..).enumerate() {
            let path = transaction::target_path(&e, default).ok();
            let again =
                path.is_some_and(|p| self.applied.iter().any(|(ap, op)| *ap == p && *op == e.op));
            if !again {
                if let Some((_, m)) = parsed.mentions.iter().find(|(k, _)| *k == i) {
                    mentions.push((keep.len(), m.clone()));
                }
                // The reply lines stay paired with their edit.
                lines.extend(parsed.lines.get(i).copied());
                keep.push(e);
            }
        }
        let noops = before - keep.len();
        parsed.edits = keep;
        parsed.mentions = mentions;
        parsed.lines = lines;
        (parsed, noops)
    }

    /// Writes the report's new texts into the loop's files and remembers
    /// the edits that applied.
    fn take_changes(&mut self, report: &Report, parsed: &Parsed) -> Vec<FileChange> {
        let mut out = vec![];
        for f in &report.files {
            let change = match (f.status, &f.content) {
                (FileStatus::Deleted, _) => Some(None),
                (FileStatus::Skipped | FileStatus::Failed, None) => None,
                (_, Some(c)) => Some(Some(c.clone())),
                (_, None) => None,
            };
            let Some(content) = change else { continue };
            match &content {
                Some(c) => self.files.insert(f.path.clone(), c.clone()),
                None => self.files.remove(&f.path),
            };
            for r in f.edits.iter().filter(|r| r.status == EditStatus::Applied) {
                if let Some(e) = r.index.checked_sub(1).and_then(|i| parsed.edits.get(i)) {
                    self.applied.push((f.path.clone(), e.op.clone()));
                }
            }
            out.push(FileChange {
                path: f.path.clone(),
                content,
            });
        }
        out
    }

    /// The engine's feedback, what the no-ops were, and the changed files
    /// shown anew (line numbers, tags and the `lines` CRC moved with them).
    fn retry_message(
        &mut self,
        report: &Report,
        changes: &[FileChange],
        before: &BTreeMap<String, String>,
        noops: usize,
    ) -> String {
        let mut msg = crate::budget::prompts::retry_message(report).unwrap_or_default();
        if noops > 0 {
            msg.push_str(&format!(
                "\n\n{noops} edit(s) repeated ones already applied; they were skipped."
            ));
        }
        let mut seen = self.opt.transaction.seen.take().unwrap_or_default();
        // A changed file is shown whole when it takes at most a quarter of
        // the window, else only where it changed.
        let budget = self.cfg.context_length / 4;
        let shown: Vec<String> = changes
            .iter()
            .filter_map(|c| {
                let new = c.content.as_deref()?;
                let old = before.get(&c.path).map_or("", String::as_str);
                Some(prompt::changed_view(
                    self.cfg.view(),
                    &c.path,
                    (old, new),
                    budget,
                    self.cfg.tokenizer,
                    &mut seen,
                ))
            })
            .collect();
        if self.cfg.view().keeps_seen() {
            self.opt.transaction.seen = Some(seen);
        }
        if !shown.is_empty() {
            msg.push_str("\n\nThe edits that applied are kept; do not send them again. The changed files now read:\n");
            msg.push_str(&shown.join("\n"));
        }
        msg
    }

    fn reminder(&self) -> String {
        crate::budget::prompts::kit(self.cfg.format)
            .map(|k| format!("\n\nReminder of the format:\n{}", k.instructions))
            .unwrap_or_default()
    }
}

/// Where the kept part of a cut reply ends: after the last complete edit
/// before the cut one. Not at the cut edit's start, which would keep the
/// lines that open it (its path line, a fence, a file header): the
/// continuation writes that edit again from its start, and the joined
/// reply would carry its opening twice (or, with no complete edit before
/// it, a path line with nothing to name).
fn kept_end(text: &str, parsed: &Parsed) -> usize {
    let complete = match parsed.edits.iter().position(crate::edit::Edit::is_cut) {
        Some(k) => &parsed.edits[..k],
        None => &parsed.edits[..],
    };
    complete.last().map_or(0, |e| e.span.end.min(text.len()))
}

/// A round's judgement before the rounds are counted.
struct Judged {
    decision: Decision,
    next: Option<(RoundKind, String)>,
    report: Option<Report>,
    changes: Vec<FileChange>,
    noops: usize,
}

impl Judged {
    fn new(decision: Decision, next: Option<(RoundKind, String)>) -> Judged {
        Judged {
            decision,
            next,
            report: None,
            changes: vec![],
            noops: 0,
        }
    }
}

#[cfg(test)]
mod tests;
