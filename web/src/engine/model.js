// A local model driven from the engine's worker: the transport only. The
// core's edit loop (`EditLoop`, through the package) decides every round and
// reads every byte the server sends (NDJSON or SSE); this file moves those
// bytes with a streaming fetch, aborts it on Stop or when the loop says stop,
// and posts what happens as `{loop: event}` messages for the page.
//
// A server may flood (a reply without end, at loopback speed): the core
// caps what a round reads (`maxReplyBytes`), and this file bounds what the
// page is sent, so the page's thread never drowns: chunk events are merged
// and posted at most every FLUSH_MS, the text of a round is forwarded up to
// SHOWN bytes (thinking up to THINKING_SHOWN, receipts up to RECEIPTS) and
// only counted past that, and long messages in the posted requests and
// records are cut for showing. The read loop yields to the worker's event
// loop every YIELD_MS, so Stop (a message) is heard at once.
import { EditLoop, arenaResults, arenaVerdict, chooseContext, parseModelInfo, parseModels, serverError, serverPaths, showBody, thinkFor } from 'patchbay';

let controller = null;

/** Most reply text a round forwards to the page; the rest is counted. */
export const SHOWN = 512 << 10;
const THINKING_SHOWN = 64 << 10;
const RECEIPTS = 500;
/** Longest gap between posts of a streaming round's chunks. */
const FLUSH_MS = 40;
/** Longest the read loop runs before letting a message (Stop) in. */
const YIELD_MS = 20;
/** Longest message text a posted request or record carries. */
const MESSAGE_SHOWN = 64 << 10;
const post = (event) => self.postMessage({ loop: event });
const url = (base, path) => base.replace(/\/+$/, '') + path;

/** A JSON answer of the server; a status other than 200 is an Error with the server's message. */
async function fetchText(address, init) {
  const response = await fetch(address, init);
  const text = await response.text();
  if (!response.ok) throw Object.assign(new Error(serverError(response.status, text)), { status: response.status });
  return text;
}

/** The models the server lists. */
export async function listModels(base, provider) {
  const paths = serverPaths();
  return parseModels(provider, await fetchText(url(base, provider === 'ollama' ? paths.tags : paths.models)));
}

/** What Ollama says of a model (its context length, capabilities). */
export async function showModel(base, model) {
  const init = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: showBody(model) };
  return parseModelInfo(await fetchText(url(base, serverPaths().show), init));
}

/**
 * The context the loop plans with, as the core chooses it: the panel's
 * setting against what the server serves (`served`, from its model list),
 * with a warning when the setting asks for more.
 */
function contextOf({ provider, config, served }) {
  return chooseContext(provider, config.contextLength || undefined, served || undefined);
}

/** The loop of a run: Ollama's `think` as the core decides it from the model's capabilities. */
function loopOf(settings) {
  const { files, config, provider, model, think, capabilities, seed } = settings;
  const sent = provider === 'ollama' ? thinkFor(capabilities ?? [], think) : undefined;
  const planned = { ...config, contextLength: contextOf(settings).numCtx };
  return new EditLoop(files, planned, provider, model, sent, seed);
}

/** The first request of a run, before anything is sent: the messages, their estimate, the body, the context's warning. */
export function preview(settings) {
  const loop = loopOf(settings);
  const request = loop.nextRequest();
  return { request, chat: loop.chatRequest(), warning: contextOf(settings).warning };
}

/** `text` cut to `max` UTF-16 units, with what was left out said. */
function cut(text, max) {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[... ${text.length - max} more characters not shown]`;
}

/** A request as the page shows it: each message cut to MESSAGE_SHOWN. */
const shownRequest = (r) => ({ ...r, messages: r.messages.map((m) => ({ ...m, content: cut(m.content, MESSAGE_SHOWN) })) });

/** An outcome as the page shows it: the round's reply cut to SHOWN. */
const shownOutcome = (o) => ({ ...o, record: { ...o.record, reply: cut(o.record.reply, SHOWN) } });

/**
 * A round's chunk events merged for the page: text up to SHOWN, thinking
 * up to THINKING_SHOWN, receipts up to RECEIPTS, the rest counted
 * (`hidden`, `hiddenThinking`, `hiddenReceipts`); posted at most every
 * FLUSH_MS and at the round's end.
 */
class Relay {
  constructor(tell) {
    this.tell = tell;
    this.sent = { text: 0, thinking: 0, receipts: 0 };
    this.clear();
    this.last = performance.now();
  }

  clear() {
    this.pending = { text: '', thinking: '', events: [], hidden: 0, hiddenThinking: 0, hiddenReceipts: 0, stop: false, capped: false };
  }

  add({ chat, pushed }) {
    const p = this.pending;
    for (const c of chat) {
      if (c.kind === 'content') [p.text, p.hidden] = this.take(c.text, 'text', SHOWN, p.text, p.hidden);
      else if (c.kind === 'thinking') [p.thinking, p.hiddenThinking] = this.take(c.text, 'thinking', THINKING_SHOWN, p.thinking, p.hiddenThinking);
    }
    for (const e of pushed.events) {
      if (this.sent.receipts < RECEIPTS) {
        p.events.push(e);
        this.sent.receipts += 1;
      } else p.hiddenReceipts += 1;
    }
    p.stop ||= pushed.stop;
    p.capped ||= pushed.capped;
    if (performance.now() - this.last >= FLUSH_MS) this.flush();
  }

  /** Appends what `text` may add to `shown` under `max`; counts the rest. */
  take(text, key, max, shown, hidden) {
    const room = Math.max(0, max - this.sent[key]);
    const part = text.length <= room ? text : text.slice(0, room);
    this.sent[key] += part.length;
    return [shown + part, hidden + text.length - part.length];
  }

  flush() {
    const p = this.pending;
    this.last = performance.now();
    const any = p.text || p.thinking || p.events.length || p.hidden || p.hiddenThinking || p.hiddenReceipts || p.stop;
    if (!any) return;
    const chat = [];
    if (p.thinking) chat.push({ kind: 'thinking', text: p.thinking });
    if (p.text) chat.push({ kind: 'content', text: p.text });
    this.tell({ kind: 'chunk', chat, pushed: { events: p.events, stop: p.stop, capped: p.capped },
      hidden: p.hidden, hiddenThinking: p.hiddenThinking, hiddenReceipts: p.hiddenReceipts });
    this.clear();
  }
}

/** Lets the worker's event loop run (a Stop message) when the read loop has held it YIELD_MS. */
async function breathe(state) {
  if (performance.now() - state.since < YIELD_MS) return;
  await new Promise((resolve) => setTimeout(resolve, 0));
  state.since = performance.now();
}

/** Streams one round's body into the loop, telling the page through `relay`; returns when it ended or the loop asked to stop. */
async function streamRound(loop, base, signal, relay) {
  const { path, body } = loop.chatRequest();
  const response = await fetch(url(base, path), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, signal });
  if (!response.ok) throw Object.assign(new Error(serverError(response.status, await response.text())), { status: response.status });
  const reader = response.body.getReader();
  const state = { since: performance.now() };
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (e) {
      if (signal.aborted) throw e;
      return; // a cut connection: the loop's end() reads it as a cut reply
    }
    if (chunk.done) return;
    const pushed = loop.pushBytes(chunk.value);
    relay.add(pushed);
    if (pushed.pushed.stop) {
      await reader.cancel().catch(() => {});
      return;
    }
    await breathe(state);
    if (signal.aborted) throw new DOMException('stopped', 'AbortError');
  }
}

/**
 * Drives `loop` to its end over `base`; `tell(event)` hears each round as it
 * starts, streams and ends; each round's outcome joins `outcomes`. Throws
 * on a connection error, and on Stop (`signal` aborted).
 */
async function drive(loop, base, signal, tell, outcomes = []) {
  for (let request = loop.nextRequest(); request; request = loop.nextRequest()) {
    const started = performance.now();
    tell({ kind: 'round', request: shownRequest(request) });
    const relay = new Relay(tell);
    try {
      await streamRound(loop, base, signal, relay);
    } finally {
      relay.flush();
    }
    const { chat, pushed, outcome, tokensPerSecond } = loop.end();
    relay.add({ chat, pushed });
    relay.flush();
    const shown = shownOutcome(outcome);
    tell({ kind: 'end', outcome: shown, tokensPerSecond, ms: performance.now() - started });
    outcomes.push(shown);
  }
}

/** Runs the loop to its end; each round is posted as it starts, streams and ends. */
export async function run(settings) {
  const loop = loopOf(settings);
  controller = new AbortController();
  const { signal } = controller;
  const outcomes = [];
  try {
    await drive(loop, settings.base, signal, post, outcomes);
    return { stopped: false, outcomes, files: loop.files() };
  } catch (e) {
    if (signal.aborted) return { stopped: true, outcomes, files: loop.files() };
    throw e;
  } finally {
    controller = null;
  }
}

/**
 * One run of the format arena: the same loop as `run`, to its end, scored
 * by the core against the task's `expected` files. `run` names it (task,
 * model, format, trial, seed). A connection error ends the run with that
 * error in its score, as in the CLI; Stop resolves `{stopped: true}`.
 */
export async function arenaRun(settings, run, expected) {
  const started = performance.now();
  controller = new AbortController();
  const { signal } = controller;
  let loop;
  try {
    loop = loopOf(settings);
    await drive(loop, settings.base, signal, () => {});
    return { score: loop.score({ ...run, wallMs: Math.round(performance.now() - started) }, expected) };
  } catch (e) {
    if (signal.aborted) return { stopped: true };
    const error = String(e?.message ?? e);
    const failed = { ...run, wallMs: Math.round(performance.now() - started), error };
    // A loop that could not start (the files do not fit) has no rounds: the
    // core's results read the run with its defaults, as the CLI scores it.
    return { score: loop ? loop.score(failed, expected) : arenaResults([failed]).runs[0] };
  } finally {
    controller = null;
  }
}

/** The arena's sums of `runs` (`{runs, summary}`) and one line on a run: the core's, as the CLI's. */
export { arenaResults, arenaVerdict };

/** Aborts the running fetch (Stop). */
export function stop() {
  controller?.abort();
  return controller !== null;
}
