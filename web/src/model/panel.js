// The local-model panel: settings, the request before it is sent, Run and
// Stop, and one entry per round. The engine's worker drives the core's edit
// loop over a streaming fetch (engine/model.js); this file only shows what
// it posts: reply text streams into the reply editor (so the page's receipts
// and matches follow it live), each round's record lands in its entry, and
// the run's result in the diff view. Its handlers change the panel's state
// (`ModelState`) and ask for `renderModel`, which draws it.
//
// A flood stays off the page's thread: the worker merges a round's chunks
// and forwards a bounded head of its text (engine/model.js), and the rounds
// (rounds.js) take what arrives once an animation frame, a bounded share of
// it, into editors that hold a bounded amount; what is left out is said in
// the round's note ("... 3.1 MB not shown").
import { diagnose } from './doctor.js';
import { FRAME_BYTES, renderRounds, roundEvent, stopRound } from './rounds.js';
import { byId, fill, make, writeText } from '../dom.js';

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
    body: root.ownerDocument.body,
  };
}

/** @typedef {ReturnType<typeof modelElements>} ModelElements */
/** @typedef {import('../state.js').ModelState} ModelState */

/**
 * What the panel's handlers are handed: the page's API, the panel's
 * elements and state, and `render(budget)`, which draws the panel and the
 * arena beside it (the arena shows the panel's models and shares its Run).
 * @typedef {import('../main.js').PanelApi & { ui: ModelElements, model: ModelState, render: (budget?: number) => void }} ModelApi
 */

/**
 * The loop's settings: the panel's boxes, with what the server said of the picked model (the arena runs with them too).
 * @param {{ ui: ModelElements, model: ModelState, currentCase: () => import('../state.js').Case }} api
 */
export function settings({ ui, model, currentCase }) {
  const c = currentCase();
  return {
    base: ui.url.value.trim(),
    provider: ui.provider.value,
    model: ui.model.value,
    think: ui.think.checked,
    capabilities: model.capabilities,
    // The context the server serves the model with, when its list says (OpenAI-compatible servers).
    served: model.models?.find((m) => m.name === ui.model.value)?.contextLength || undefined,
    files: Object.fromEntries(c.files.filter((f) => f.path).map((f) => [f.path, f.text])),
    config: {
      task: ui.task.value,
      format: ui.format.value,
      contextLength: Number(ui.ctx.value),
      replyLimit: Number(ui.replyLimit.value),
      rounds: Number(ui.rounds.value),
      earlyStop: ui.earlyStop.checked,
    },
  };
}

/**
 * Draws the panel from `state`; `arenaRunning` keeps Run off while the arena uses the loop.
 * `budget` is how much queued reply text the rounds may take (all of it unless told).
 * @param {ModelElements} ui
 * @param {ModelState} state
 * @param {boolean} arenaRunning
 * @param {{ editor: import('@codemirror/view').EditorView, setText: (view: import('@codemirror/view').EditorView, text: string) => void }} reply
 * @param {number} [budget]
 */
export function renderModel(ui, state, arenaRunning, reply, budget = Infinity) {
  writeText(ui.status, state.connection);
  const d = state.diagnosis;
  ui.doctor.hidden = !d;
  if (d) {
    ui.doctor.dataset.kind = d.kind;
    writeText(ui.doctor.querySelector('p'), d.text);
    fill(ui.doctor.querySelector('ul'), d, () => d.fix.map((line) => make('li', { textContent: line })));
  }
  if (state.models) fill(ui.model, state.models, () => state.models.map((m) => new Option(m.name, m.name)));
  if (state.context !== state.drawnContext) {
    ui.ctx.value = String(state.context.length);
    state.drawnContext = state.context;
  }
  writeText(ui.budget, state.preview.budget);
  writeText(ui.request, state.preview.request);
  ui.run.disabled = state.running || arenaRunning || !state.models?.length;
  ui.stop.disabled = !state.running;
  writeText(ui.runStatus, state.runStatus);
  if (state.outcome === null) delete ui.body.dataset.modelRun;
  else ui.body.dataset.modelRun = state.outcome;
  renderRounds(ui.roundsList, state.rounds, reply, budget);
}

/**
 * Shows a failure, with the doctor's diagnosis when it is the connection's.
 * @param {ModelApi} api
 * @param {Error} error
 * @param {ReturnType<typeof settings>} s
 */
async function showFailure(api, error, s) {
  api.model.connection = `failed: ${error.message}`;
  api.render();
  const d = await diagnose(error, {
    base: s.base, origin: location.origin, protocol: location.protocol, model: s.model, provider: s.provider,
    probe: (url) => fetch(url, { mode: 'no-cors' }),
  });
  Object.assign(api.model, { diagnosis: d, connection: `failed: ${d.kind}` });
  api.render();
}

/**
 * Lists the server's models; picks the first and reads its context length.
 * @param {ModelApi} api
 */
async function connect(api) {
  const s = settings(api);
  Object.assign(api.model, { diagnosis: null, connection: 'connecting...' });
  api.render();
  try {
    const models = await api.engine.model.list(s.base, s.provider);
    Object.assign(api.model, { models, connection: `connected: ${models.length} model${models.length === 1 ? '' : 's'}` });
    api.render();
    await modelPicked(api);
  } catch (e) {
    await showFailure(api, e, s);
  }
}

/**
 * The panel's context follows the server's: Ollama's /api/show gives the
 * model's; an OpenAI-compatible server's model list gives the one it serves.
 * @param {ModelApi} api
 */
async function modelPicked(api) {
  const s = settings(api);
  if (s.provider === 'openai' && s.served) api.model.context = { length: s.served };
  if (s.provider === 'ollama' && s.model) {
    try {
      const info = await api.engine.model.show(s.base, s.model);
      if (info.contextLength) api.model.context = { length: info.contextLength };
      api.model.capabilities = info.capabilities;
    } catch (e) {
      await showFailure(api, e, s);
    }
  }
  api.render();
  return preview(api);
}

/**
 * The first request, shown before it is sent, with its token budget.
 * @param {ModelApi} api
 */
async function preview(api) {
  const s = settings(api);
  try {
    const { request, warning } = await api.engine.model.preview(s);
    const warned = warning ? `; warning: ${warning}` : '';
    api.model.preview = {
      budget: `(~${request.promptEstimate} prompt tokens + ${request.numPredict} reply, num_ctx ${request.numCtx}${warned})`,
      request: request.messages.map((m) => `## ${m.role}\n${m.content}`).join('\n\n'),
    };
  } catch (e) {
    api.model.preview = { ...api.model.preview, budget: `(${e.message})` };
  }
  api.render();
}

/**
 * Fills `section` with the panel and wires it to `state`; `render(budget)`
 * draws it (and the arena beside it, which main.js adds).
 * @param {HTMLElement} section
 * @param {import('../main.js').PanelApi} page
 * @param {string[]} formats
 * @param {ModelState} state
 * @param {(budget?: number) => void} render
 */
export function setupModelPanel(section, page, formats, state, render) {
  section.innerHTML = FIELDS;
  section.hidden = false;
  /** @type {ModelApi} */
  const api = { ...page, ui: modelElements(section), model: state, render };
  for (const f of formats.filter((n) => n !== 'auto')) api.ui.format.add(new Option(f, f));
  api.engine.onLoop = (event) => roundEvent(state, event, { drawAll: () => drawAll(api), drawSoon: () => drawSoon(api) });
  api.ui.connect.addEventListener('click', () => connect(api));
  api.ui.model.addEventListener('change', () => modelPicked(api));
  for (const input of [api.ui.task, api.ui.format, api.ui.ctx, api.ui.replyLimit, api.ui.rounds]) input.addEventListener('change', () => preview(api));
  api.ui.run.addEventListener('click', () => runModel(api));
  api.ui.stop.addEventListener('click', () => api.engine.model.stop());
  return api.ui;
}

/**
 * Draws everything the rounds have queued (at a round's end, or Stop).
 * @param {ModelApi} api
 */
function drawAll(api) {
  cancelAnimationFrame(api.model.frame);
  api.model.frame = 0;
  api.render();
}

/**
 * Asks for a frame that draws a share of what the rounds have queued, and another while text is left.
 * @param {ModelApi} api
 */
function drawSoon(api) {
  api.model.frame ||= requestAnimationFrame(() => {
    api.model.frame = 0;
    api.render(FRAME_BYTES);
    if (api.model.rounds.some((r) => r.text.length)) drawSoon(api);
  });
}

/**
 * Runs the loop; the result lands in the diff view.
 * @param {ModelApi} api
 */
async function runModel(api) {
  const s = settings(api);
  const original = api.currentCase();
  Object.assign(api.model, { rounds: [], running: true, runStatus: 'running', outcome: null });
  api.render();
  try {
    const result = await api.engine.model.run(s);
    const last = result.outcomes.at(-1);
    const word = result.stopped ? 'stopped' : (last?.decision.decision ?? 'no round');
    api.model.runStatus = word;
    if (result.stopped) {
      drawAll(api);
      stopRound(api.model);
    }
    api.render();
    await api.idle();
    const path = api.files.path;
    const before = original.files.find((f) => f.path === path)?.text ?? '';
    api.review.show(before, result.files[path] ?? before, []);
    api.model.outcome = word;
  } catch (e) {
    Object.assign(api.model, { runStatus: `failed: ${e.message}`, outcome: 'failed' });
    api.render();
    await showFailure(api, e, s);
  } finally {
    api.model.running = false;
    drawAll(api);
  }
}
