// The local-model panel: settings, the request before it is sent, Run and
// Stop, and one entry per round. The engine's worker drives the core's edit
// loop over a streaming fetch (engine/model.js); this file only shows what
// it posts: reply text streams into the reply editor (so the page's receipts
// and matches follow it live), each round's record lands in its entry, and
// the run's result in the diff view.
//
// A flood stays off the page's thread: the worker merges a round's chunks
// and forwards a bounded head of its text (engine/model.js), and this file
// applies what arrives once an animation frame, at most FRAME_BYTES of it,
// into editors that hold at most EDITOR_MAX; what is left out is said in
// the round's note ("... 3.1 MB not shown").
import { diagnose } from './doctor.js';
import { byId, make } from '../dom.js';

const FIELDS = `
  <h2>Local model</h2>
  <div class="row">
    <label>Provider <select id="ollama-provider" data-testid="ollama-provider">
      <option value="ollama">Ollama</option><option value="openai">OpenAI-compatible</option></select></label>
    <label>Base URL <input id="ollama-url" data-testid="ollama-url" value="http://localhost:11434" size="28"></label>
    <button id="ollama-connect" data-testid="ollama-connect" type="button">Connect</button>
    <span id="ollama-status" data-testid="ollama-status" role="status">not connected</span>
  </div>
  <div id="ollama-doctor" data-testid="ollama-doctor" hidden><p></p><ul></ul></div>
  <div class="row">
    <label>Model <select id="ollama-model" data-testid="ollama-model"></select></label>
    <label>Context <input id="ollama-ctx" data-testid="ollama-ctx" type="number" min="256" value="8192" size="7"></label>
    <label>Format <select id="ollama-format" data-testid="ollama-format"></select></label>
    <label>Reply limit <input id="ollama-reply-limit" data-testid="ollama-reply-limit" type="number" min="1" value="2048" size="6"></label>
    <label>Rounds <input id="ollama-rounds" data-testid="ollama-rounds" type="number" min="1" value="3" size="3"></label>
    <label><input id="ollama-early-stop" data-testid="ollama-early-stop" type="checkbox" checked> early stop</label>
    <label><input id="ollama-think" data-testid="ollama-think" type="checkbox"> think</label>
  </div>
  <label class="block">Task <textarea id="task" data-testid="task" rows="3"></textarea></label>
  <details id="ollama-request-box"><summary>The request <span id="ollama-budget" data-testid="ollama-budget"></span></summary>
    <pre id="ollama-request" data-testid="ollama-request"></pre></details>
  <div class="row">
    <button id="run" data-testid="run" type="button" disabled>Run</button>
    <button id="stop" data-testid="stop" type="button" class="secondary" disabled>Stop</button>
    <span id="ollama-run-status" data-testid="ollama-run-status"></span>
  </div>
  <ol id="ollama-rounds-list" data-testid="ollama-rounds-list"></ol>`;

/**
 * The panel's elements inside `root` (the arena reads the settings from them too).
 * @param {ParentNode} root
 */
export function modelElements(root) {
  return {
    provider: byId(root, 'ollama-provider', HTMLSelectElement),
    url: byId(root, 'ollama-url', HTMLInputElement),
    connect: byId(root, 'ollama-connect', HTMLButtonElement),
    status: byId(root, 'ollama-status'),
    doctor: byId(root, 'ollama-doctor'),
    model: byId(root, 'ollama-model', HTMLSelectElement),
    ctx: byId(root, 'ollama-ctx', HTMLInputElement),
    format: byId(root, 'ollama-format', HTMLSelectElement),
    replyLimit: byId(root, 'ollama-reply-limit', HTMLInputElement),
    rounds: byId(root, 'ollama-rounds', HTMLInputElement),
    earlyStop: byId(root, 'ollama-early-stop', HTMLInputElement),
    think: byId(root, 'ollama-think', HTMLInputElement),
    task: byId(root, 'task', HTMLTextAreaElement),
    budget: byId(root, 'ollama-budget'),
    request: byId(root, 'ollama-request'),
    run: byId(root, 'run', HTMLButtonElement),
    stop: byId(root, 'stop', HTMLButtonElement),
    runStatus: byId(root, 'ollama-run-status'),
    roundsList: byId(root, 'ollama-rounds-list', HTMLOListElement),
  };
}

/** @typedef {ReturnType<typeof modelElements>} ModelElements */
/** @typedef {import('../main.js').PanelApi & { ui: ModelElements }} ModelApi */

/** Most reply text the reply editor and a round's entry hold. */
const EDITOR_MAX = 512 << 10;
/** Most text put into the editors in one animation frame. */
const FRAME_BYTES = 128 << 10;
/** Most receipts listed in a round's entry. */
const RECEIPTS_SHOWN = 500;

/** A count of characters as the note says it. */
function size(n) {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KB`;
  return `${n} characters`;
}

/** The loop's settings from the panel (the arena runs with them too). */
export function settings(api) {
  const c = api.currentCase();
  return {
    base: api.ui.url.value.trim(),
    provider: api.ui.provider.value,
    model: api.ui.model.value,
    think: api.ui.think.checked,
    capabilities: JSON.parse(api.ui.think.dataset.capabilities ?? '[]'),
    // The context the server serves the model with, when its list says (OpenAI-compatible servers).
    served: Number(api.ui.model.selectedOptions[0]?.dataset.context) || undefined,
    files: Object.fromEntries(c.files.filter((f) => f.path).map((f) => [f.path, f.text])),
    config: {
      task: api.ui.task.value,
      format: api.ui.format.value,
      contextLength: Number(api.ui.ctx.value),
      replyLimit: Number(api.ui.replyLimit.value),
      rounds: Number(api.ui.rounds.value),
      earlyStop: api.ui.earlyStop.checked,
    },
  };
}

/** Shows a failure, with the doctor's diagnosis when it is the connection's. */
async function showFailure(api, error, s) {
  api.ui.status.textContent = `failed: ${error.message}`;
  const d = await diagnose(error, {
    base: s.base, origin: location.origin, protocol: location.protocol, model: s.model, provider: s.provider,
    probe: (url) => fetch(url, { mode: 'no-cors' }),
  });
  const box = api.ui.doctor;
  box.hidden = false;
  box.dataset.kind = d.kind;
  box.querySelector('p').textContent = d.text;
  box.querySelector('ul').replaceChildren(...d.fix.map((line) => make('li', { textContent: line })));
  api.ui.status.textContent = `failed: ${d.kind}`;
}

/** Lists the server's models; picks the first and reads its context length. */
async function connect(api) {
  const s = settings(api);
  api.ui.doctor.hidden = true;
  api.ui.status.textContent = 'connecting...';
  try {
    const models = await api.engine.model.list(s.base, s.provider);
    api.ui.model.replaceChildren(...models.map((m) => {
      const option = new Option(m.name, m.name);
      if (m.contextLength) option.dataset.context = String(m.contextLength);
      return option;
    }));
    api.ui.status.textContent = `connected: ${models.length} model${models.length === 1 ? '' : 's'}`;
    api.ui.run.disabled = models.length === 0;
    await modelPicked(api);
  } catch (e) {
    await showFailure(api, e, s);
  }
}

/**
 * The panel's context follows the server's: Ollama's /api/show gives the
 * model's; an OpenAI-compatible server's model list gives the one it serves.
 */
async function modelPicked(api) {
  const s = settings(api);
  if (s.provider === 'openai' && s.served) api.ui.ctx.value = String(s.served);
  if (s.provider !== 'ollama' || !s.model) return preview(api);
  try {
    const info = await api.engine.model.show(s.base, s.model);
    if (info.contextLength) api.ui.ctx.value = String(info.contextLength);
    api.ui.think.dataset.capabilities = JSON.stringify(info.capabilities);
  } catch (e) {
    await showFailure(api, e, s);
  }
  return preview(api);
}

/** The first request, shown before it is sent, with its token budget. */
async function preview(api) {
  const s = settings(api);
  try {
    const { request, warning } = await api.engine.model.preview(s);
    const warned = warning ? `; warning: ${warning}` : '';
    api.ui.budget.textContent = `(~${request.promptEstimate} prompt tokens + ${request.numPredict} reply, num_ctx ${request.numCtx}${warned})`;
    api.ui.request.textContent = request.messages.map((m) => `## ${m.role}\n${m.content}`).join('\n\n');
  } catch (e) {
    api.ui.budget.textContent = `(${e.message})`;
  }
}

/**
 * Fills `section` with the panel and wires it.
 * @param {HTMLElement} section
 * @param {import('../main.js').PanelApi} page
 * @param {string[]} formats
 */
export function setupModelPanel(section, page, formats) {
  section.innerHTML = FIELDS;
  section.hidden = false;
  const api = { ...page, ui: modelElements(section) };
  for (const f of formats.filter((n) => n !== 'auto')) api.ui.format.add(new Option(f, f));
  const rounds = new RoundList(api.ui.roundsList, api);
  api.engine.onLoop = (event) => rounds.event(event);
  api.ui.connect.addEventListener('click', () => connect(api));
  api.ui.model.addEventListener('change', () => modelPicked(api));
  for (const input of [api.ui.task, api.ui.format, api.ui.ctx, api.ui.replyLimit, api.ui.rounds]) input.addEventListener('change', () => preview(api));
  api.ui.run.addEventListener('click', () => runModel(api, rounds));
  api.ui.stop.addEventListener('click', () => api.engine.model.stop());
}

/** Runs the loop; the result lands in the diff view. */
async function runModel(api, rounds) {
  const s = settings(api);
  const original = api.currentCase();
  rounds.clear(original);
  api.ui.run.disabled = true;
  api.ui.stop.disabled = false;
  api.ui.runStatus.textContent = 'running';
  try {
    const result = await api.engine.model.run(s);
    const last = result.outcomes.at(-1);
    const word = result.stopped ? 'stopped' : (last?.decision.decision ?? 'no round');
    api.ui.runStatus.textContent = word;
    if (result.stopped) rounds.stopped();
    await api.idle();
    const path = api.files.path;
    const before = original.files.find((f) => f.path === path)?.text ?? '';
    api.review.show(before, result.files[path] ?? before, []);
    document.body.dataset.modelRun = word;
  } catch (e) {
    api.ui.runStatus.textContent = `failed: ${e.message}`;
    document.body.dataset.modelRun = 'failed';
    await showFailure(api, e, s);
  } finally {
    api.ui.run.disabled = false;
    api.ui.stop.disabled = true;
  }
}

/** The rounds of a run, one `[data-round]` entry each, fed by the worker's events. */
class RoundList {
  constructor(list, api) {
    this.list = list;
    this.api = api;
    this.frame = 0;
  }

  clear(original) {
    this.list.replaceChildren();
    this.current = null;
    this.original = original;
  }

  event(e) {
    if (e.kind === 'round') this.start(e.request);
    else if (e.kind === 'chunk') this.chunk(e);
    else if (e.kind === 'end') this.end(e);
  }

  /** A new round: its entry, and an empty reply editor the reply streams into. */
  start(request) {
    this.drain();
    const li = document.createElement('li');
    li.dataset.round = String(request.round);
    li.innerHTML = '<span class="status"></span> <span class="tokens"></span> <span class="note" data-testid="ollama-reply-note"></span><details><summary>request</summary><pre class="request"></pre></details><details><summary>reply</summary><pre class="reply"></pre></details><details class="thinking" hidden><summary>thinking</summary><pre></pre></details><ul class="receipts"></ul>';
    li.querySelector('.status').textContent = `round ${request.round} (${request.kind}): streaming`;
    li.querySelector('.tokens').textContent = `~${request.promptEstimate} prompt tokens estimated`;
    li.querySelector('.request').textContent = request.messages.map((m) => `## ${m.role}\n${m.content}`).join('\n\n');
    this.list.append(li);
    this.current = { li, request, started: performance.now(), held: 0, hidden: 0, hiddenThinking: 0, hiddenReceipts: 0, receipts: 0, text: [], thinking: [], events: [] };
    this.api.setText(this.api.replyEditor, '');
  }

  /** Queues a chunk for the next animation frame. */
  chunk({ chat, pushed, hidden = 0, hiddenThinking = 0, hiddenReceipts = 0 }) {
    const round = this.current;
    if (!round) return;
    for (const c of chat) {
      if (c.kind === 'content') round.text.push(c.text);
      else if (c.kind === 'thinking') round.thinking.push(c.text);
    }
    round.events.push(...pushed.events);
    round.hidden += hidden;
    round.hiddenThinking += hiddenThinking;
    round.hiddenReceipts += hiddenReceipts;
    round.capped ||= pushed.capped;
    this.frame ||= requestAnimationFrame(() => this.paint());
  }

  /** One frame's share of the queued text, thinking and receipts; the rest waits for the next frame. */
  paint() {
    this.frame = 0;
    const round = this.current;
    if (!round) return;
    let budget = FRAME_BYTES;
    let text = '';
    while (round.text.length && budget > 0) {
      const piece = round.text.shift();
      const part = piece.length <= budget ? piece : piece.slice(0, budget);
      if (part.length < piece.length) round.text.unshift(piece.slice(part.length));
      text += part;
      budget -= part.length;
    }
    this.show(round, text);
    const thinking = round.thinking.splice(0).join('');
    if (thinking) {
      const box = /** @type {HTMLElement} */ (round.li.querySelector('.thinking'));
      box.hidden = false;
      box.querySelector('pre').append(thinking);
    }
    this.receipts(round);
    this.note(round);
    if (round.text.length) this.frame = requestAnimationFrame(() => this.paint());
  }

  /** Appends reply text to the editor and the entry, up to EDITOR_MAX; counts the rest. */
  show(round, text) {
    const room = Math.max(0, EDITOR_MAX - round.held);
    const part = text.length <= room ? text : text.slice(0, room);
    round.hidden += text.length - part.length;
    if (!part) return;
    round.held += part.length;
    const view = this.api.replyEditor;
    view.dispatch({ changes: { from: view.state.doc.length, insert: part } });
    round.li.querySelector('.reply').append(part);
  }

  receipts(round) {
    const list = round.li.querySelector('.receipts');
    for (const ev of round.events.splice(0)) {
      if (round.receipts >= RECEIPTS_SHOWN) {
        round.hiddenReceipts += 1;
        continue;
      }
      round.receipts += 1;
      const r = ev.receipt;
      const item = document.createElement('li');
      item.textContent = `edit ${r.index} ${ev.path}: ${r.status}${r.code ? ` (${r.code})` : ''}`;
      list.append(item);
    }
  }

  /** What the round left out, and whether the reply reached its cap. */
  note(round) {
    const parts = [];
    if (round.hidden) parts.push(`... ${size(round.hidden)} of the reply not shown`);
    if (round.hiddenThinking) parts.push(`${size(round.hiddenThinking)} of thinking not shown`);
    if (round.hiddenReceipts) parts.push(`${round.hiddenReceipts} more receipts not listed`);
    if (round.capped) parts.push('the reply reached its cap: reading stopped there');
    round.li.querySelector('.note').textContent = parts.join('; ');
  }

  /** Paints everything still queued (at a round's end, or Stop). */
  drain() {
    const round = this.current;
    if (!round) return;
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const text = round.text.splice(0).join('');
    this.show(round, text);
    round.text = [];
    this.paint();
  }

  /** Stop aborted the open round: nothing of it was judged or applied. */
  stopped() {
    const round = this.current;
    if (!round) return;
    this.drain();
    round.li.querySelector('.status').textContent = `round ${round.request.round} (${round.request.kind}): stopped`;
    round.li.dataset.decision = 'stopped';
    this.current = null;
  }

  /** The round's record: decision, real token counts, duration, tokens per second. */
  end({ outcome, tokensPerSecond, ms }) {
    const round = this.current;
    if (!round) return;
    this.drain();
    const r = outcome.record;
    const d = outcome.decision;
    const word = d.decision === 'give_up' ? `give_up: ${d.reason}` : d.decision;
    const early = r.earlyStop ? ', stopped early' : '';
    const cut = r.cut ? ', cut' : '';
    round.li.querySelector('.status').textContent = `round ${r.round} (${r.kind}): ${word}${early}${cut}`;
    const note = round.li.querySelector('.note');
    if (r.warnings.length) note.textContent = [note.textContent, ...r.warnings].filter(Boolean).join('; ');
    const e = r.ending;
    const rate = tokensPerSecond === null ? '' : `, ${tokensPerSecond.toFixed(1)} tokens/s`;
    round.li.querySelector('.tokens').textContent =
      `prompt ~${r.promptEstimate} estimated, ${e.promptTokens ?? '?'} real; reply ${e.outputTokens ?? '?'} tokens${rate}; ${(ms / 1000).toFixed(2)} s`;
    round.li.dataset.decision = d.decision;
    this.current = null;
  }
}
