//! `patchbay run`: a model edits files on disk through the core's edit
//! loop (`patchbay::edit_loop`), over HTTP to Ollama or an
//! OpenAI-compatible server. Each round's changes are written all or
//! nothing through the commit layer (`commit.rs`), under the root's lock;
//! `--dry-run` writes nothing.

use crate::args::{RunArgs, ServerFlags};
use crate::commit::{self, CommitError};
use crate::fsio::{self, Change, Expect, Root, Stamp};
use crate::http::Model;
use crate::term::shown;
use crate::Failure;
use patchbay::budget::tokens::Tokenizer;
use patchbay::edit_loop::wire::{self, ollama, ChatEvent, ChatOptions, Provider};
use patchbay::edit_loop::{Decision, EditLoop, FileChange, LoopConfig, Outcome, Pushed};
use patchbay::{EditStatus, FormatName};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// The default server address of a provider.
pub fn default_url(p: Provider) -> &'static str {
    match p {
        Provider::Ollama => "http://localhost:11434",
        Provider::Openai => "http://localhost:1234",
    }
}

impl ServerFlags {
    /// The server's address: `--url`, or the provider's default.
    pub fn address(&self) -> &str {
        self.url.as_deref().unwrap_or(default_url(self.provider))
    }

    /// The loop of one task in one format, with the context the model
    /// gets and the tokenizer its server counts with.
    pub fn loop_config(
        &self,
        task: &str,
        format: FormatName,
        context_length: usize,
        tokenizer: Tokenizer,
    ) -> LoopConfig {
        LoopConfig {
            task: task.to_owned(),
            format,
            context_length,
            reply_limit: self.reply_limit,
            rounds: self.rounds,
            early_stop: !self.no_early_stop,
            tokenizer,
            max_reply_bytes: self.max_reply_bytes,
            ..LoopConfig::default()
        }
    }
}

pub fn run(o: &RunArgs) -> Result<i32, Failure> {
    if o.files.is_empty() {
        return Err(Failure::Usage("run needs at least one FILE".into()));
    }
    let s = &o.server;
    let root = Root::open(&o.root)
        .map_err(Failure::Io)?
        .allow_git_dir(o.allow_git_dir);
    let model = Model::new(s.address(), s.provider, &o.model, s.idle_timeout);
    let facts = model.facts().map_err(Failure::Io)?;
    let ctx = wire::choose_context(s.provider, s.num_ctx, facts.context_length);
    let num_ctx = ctx.num_ctx;
    if let Some(w) = &ctx.warning {
        eprintln!("patchbay: warning: {}", shown(w));
    }
    let reload = ollama::reload_note(&facts.loaded, &o.model, num_ctx);
    for note in facts.note.iter().chain(reload.iter()) {
        eprintln!("patchbay: note: {}", shown(note));
    }
    let _lock = if o.dry_run {
        None
    } else {
        crate::journal::lock(&root).map_err(Failure::Io)?
    };
    let mut disk = Disk::read(&root, &o.files)?;
    let cfg = s.loop_config(&o.task, o.format, num_ctx, facts.tokenizer);
    let mut lp =
        EditLoop::new(cfg, disk.texts.clone()).map_err(|e| Failure::Usage(e.to_string()))?;
    let chat = ChatOptions {
        seed: o.seed,
        think: ollama::think_for(&facts.capabilities, s.think),
        ..ChatOptions::default()
    };
    let show = if o.json { Show::Json } else { Show::Text };
    let mut write = |changes: &[FileChange]| {
        if o.dry_run {
            Ok(())
        } else {
            disk.commit(changes)
        }
    };
    let outcomes = drive(&mut lp, &model, &chat, &mut write, show).map_err(Failure::Io)?;
    let last = outcomes.last().map(|o| &o.decision);
    if o.dry_run && !o.json {
        println!("Dry run: nothing was written.");
    }
    Ok(if last == Some(&Decision::Done) { 0 } else { 1 })
}

/// How `drive` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    Quiet,
    Text,
    Json,
}

/// Runs the loop to its end over `model`: each request streamed into the
/// loop, each round's changes handed to `write` before the next request.
pub fn drive(
    lp: &mut EditLoop,
    model: &Model,
    chat: &ChatOptions,
    write: &mut dyn FnMut(&[FileChange]) -> Result<(), String>,
    show: Show,
) -> Result<Vec<Outcome>, String> {
    let mut outcomes = vec![];
    while let Some(req) = lp.next_request() {
        let opt = ChatOptions {
            num_ctx: Some(req.num_ctx),
            num_predict: Some(req.num_predict),
            ..chat.clone()
        };
        if show == Show::Text {
            let kind = format!("{:?}", req.kind).to_lowercase();
            let scaled = req.calibration.map_or(String::new(), |c| {
                format!(
                    " (scaled by round {}'s count: the server counted {} where the engine estimated {}, {:+} tokens of template)",
                    c.round, c.counted, c.estimate, c.overhead()
                )
            });
            eprintln!(
                "round {} ({kind}): ~{} prompt tokens{scaled}, num_ctx {}",
                req.round, req.prompt_estimate, req.num_ctx
            );
        }
        let started = Instant::now();
        let mut echo = Echo::default();
        let mut dec = lp.decoder(model.provider);
        let mut on_chat = |chat: &mut Vec<ChatEvent>| {
            let p = lp.push_chat(chat);
            if show == Show::Text {
                tell(&p, chat, &mut echo);
            } else {
                echo.count(chat);
            }
            !p.stop
        };
        let ending = model.chat(&req.messages, &opt, &mut dec, &mut on_chat)?;
        if show == Show::Text && echo.shown > 0 {
            eprintln!();
        }
        let thinking = echo.total;
        let outcome = lp.end(&ending);
        write(&outcome.changes)?;
        report_round(&outcome, started.elapsed(), thinking, show);
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

/// The most thinking echoed a round: a thinking model's reasoning is for
/// watching, and a server that streams it without end must not fill the
/// terminal or a log.
const ECHO_LIMIT: usize = 16 << 10;

/// The thinking of a round: bytes taken, bytes echoed.
#[derive(Default)]
struct Echo {
    total: usize,
    shown: usize,
}

impl Echo {
    fn count(&mut self, chat: &[ChatEvent]) {
        for e in chat {
            if let ChatEvent::Thinking { text } = e {
                self.total += text.len();
            }
        }
    }

    /// Echoes thinking to stderr up to [`ECHO_LIMIT`], then says once that
    /// the rest is not shown.
    fn thinking(&mut self, text: &str) {
        self.total += text.len();
        if self.shown >= ECHO_LIMIT {
            return;
        }
        if self.shown == 0 {
            eprint!("  thinking: ");
        }
        let mut k = text.len().min(ECHO_LIMIT - self.shown);
        while !text.is_char_boundary(k) {
            k -= 1;
        }
        eprint!("{}", shown(&text[..k]));
        self.shown += k.max(1);
        if self.shown >= ECHO_LIMIT {
            eprint!("\n  ... thinking past {} KB is not shown", ECHO_LIMIT >> 10);
        }
    }
}

/// What a read gave, as it arrives: thinking (bounded), each edit's
/// receipt, and why the reply stops.
fn tell(p: &Pushed, chat: &[ChatEvent], echo: &mut Echo) {
    for e in chat {
        if let ChatEvent::Thinking { text } = e {
            echo.thinking(text);
        }
    }
    for e in &p.events {
        let r = &e.receipt;
        let what = match (r.status, r.code) {
            (EditStatus::Failed, Some(c)) => format!("failed: {c}"),
            (s, _) => format!("{s:?}").to_lowercase(),
        };
        eprintln!("  edit {} {}: {what}", r.index, shown(&e.path));
    }
    if p.capped {
        eprintln!("  stopping the reply: it reached the reply cap (--max-reply-bytes)");
    } else if p.stop {
        eprintln!("  stopping the reply: an edit failed");
    }
}

fn report_round(o: &Outcome, wall: Duration, thinking: usize, show: Show) {
    let r = &o.record;
    match show {
        Show::Quiet => {}
        Show::Json => {
            let mut v = serde_json::to_value(r).unwrap_or_default();
            v["wallMs"] = serde_json::json!(wall.as_millis() as u64);
            println!("{v}");
        }
        Show::Text => {
            let real = |n: Option<usize>| n.map_or("?".to_string(), |n| n.to_string());
            let rate = r
                .ending
                .tokens_per_second()
                .map(|t| format!(", {t:.1} tokens/s"))
                .unwrap_or_default();
            let think = if thinking > 0 {
                format!(", {thinking} bytes of thinking")
            } else {
                String::new()
            };
            println!(
                "round {}: {} (prompt {} tokens, estimated {}; reply {} tokens{rate}{think}; {:.1} s)",
                r.round,
                decision_word(&o.decision),
                real(r.ending.prompt_tokens),
                r.prompt_estimate,
                real(r.ending.output_tokens),
                wall.as_secs_f64()
            );
            for c in &r.changed {
                println!("  changed {}", shown(c));
            }
            if r.noops > 0 {
                println!("  {} edit(s) repeated applied ones (no-ops)", r.noops);
            }
            for w in &r.warnings {
                println!("  warning: {}", shown(w));
            }
            if let (Decision::Retry, Some(rep)) = (&o.decision, &r.report) {
                println!("{}", shown(&rep.feedback));
            }
        }
    }
}

fn decision_word(d: &Decision) -> String {
    match d {
        Decision::Done => "done".into(),
        Decision::Retry => "edits failed, retrying with the feedback".into(),
        Decision::Continue => "reply cut, asking for the rest".into(),
        Decision::GiveUp { reason } => format!("gave up: {}", shown(reason)),
    }
}

/// The files as read, with their stamps, resolved under the root.
struct Disk<'a> {
    root: &'a Root,
    texts: BTreeMap<String, String>,
    stamps: BTreeMap<String, Stamp>,
}

impl<'a> Disk<'a> {
    fn read(root: &'a Root, files: &[String]) -> Result<Disk<'a>, Failure> {
        let mut d = Disk {
            root,
            texts: BTreeMap::new(),
            stamps: BTreeMap::new(),
        };
        for f in files {
            let rel = relative(root, f)?;
            let r = root.resolve(&rel).map_err(refusal)?;
            match fsio::read_stamped(&r.real, &rel).map_err(Failure::Io)? {
                Some((text, stamp)) => {
                    d.texts.insert(rel.clone(), text);
                    d.stamps.insert(rel, stamp);
                }
                None => return Err(Failure::Io(format!("{f}: no such file"))),
            }
        }
        Ok(d)
    }

    /// Writes one round's changes all or nothing, then re-stamps them so
    /// the next round's commit checks against what this one wrote.
    fn commit(&mut self, changes: &[FileChange]) -> Result<(), String> {
        let mut list = vec![];
        for c in changes {
            // Said before resolving: the model gets the rule's own words.
            if let Some(why) = self.root.reserved(&c.path) {
                return Err(format!("{why}; nothing of this round was written"));
            }
            let r = self.root.resolve(&c.path).map_err(|e| match e {
                fsio::Refusal::Escape(m) | fsio::Refusal::Io(m) => m,
            })?;
            let expect = self
                .stamps
                .get(&c.path)
                .map_or(Expect::Absent, |s| Expect::Same(s.clone()));
            list.push(match &c.content {
                Some(t) => Change::Write {
                    path: r.real.clone(),
                    content: t,
                    expect,
                },
                None => Change::Delete {
                    path: r.entry.clone(),
                    expect,
                },
            });
        }
        commit::commit(self.root, &list).map_err(|e| match e {
            CommitError::Io(m) => m,
            CommitError::Changed { path, why } => format!("{} changed on disk while the model worked ({why}); nothing of this round was written", self.root.shown(&path)),
            CommitError::Reserved { why, .. } => format!("{why}; nothing of this round was written"),
        })?;
        for c in changes {
            let r = self
                .root
                .resolve(&c.path)
                .map_err(|_| format!("{} vanished", c.path))?;
            match fsio::read_stamped(&r.real, &c.path)? {
                Some((_, s)) => self.stamps.insert(c.path.clone(), s),
                None => self.stamps.remove(&c.path),
            };
        }
        Ok(())
    }
}

fn refusal(r: fsio::Refusal) -> Failure {
    match r {
        fsio::Refusal::Escape(m) | fsio::Refusal::Io(m) => Failure::Io(m),
    }
}

/// A FILE argument as a path relative to the root.
fn relative(root: &Root, f: &str) -> Result<String, Failure> {
    let p = Path::new(f);
    if p.is_absolute() {
        return root.relative(p).ok_or_else(|| {
            Failure::Usage(format!("{f} is not inside --root {}", root.dir().display()))
        });
    }
    Ok(f.trim_start_matches("./").to_owned())
}
