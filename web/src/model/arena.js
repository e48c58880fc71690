// The format arena in the page: one task (the current file and task box) or
// the shipped task set, across several edit formats and models of the
// server connected in the model panel, N trials each. Every run is the
// model panel's loop in the worker (engine/model.js `arenaRun`), one at a
// time; the core scores it and sums the runs (the CLI's `patchbay arena`
// scoring, `patchbay::edit_loop::arena`). This file picks the runs, shows
// the table and the chart, and offers the results as the CLI's JSON. Its
// handlers change the arena's state (`ArenaState`) and ask for
// `renderArena`, which draws it.
import { settings } from './panel.js';
import { byId, fill, make, writeText } from '../dom.js';

const FIELDS = `
  <h2 id="arena-title">Format arena</h2>
  <p class="muted">Which edit format does your model handle? Runs the task in every format and with every model
    picked here, against the server connected above and with its settings (context, reply limit, rounds, early stop),
    and scores each run as <code>patchbay arena</code> does.</p>
  <div class="arena-picks">
    <fieldset><legend>Formats</legend><div id="arena-formats" data-testid="arena-formats"></div></fieldset>
    <fieldset><legend>Models</legend><div id="arena-models" data-testid="arena-models"><span class="muted">connect first</span></div></fieldset>
    <fieldset><legend>Tasks</legend>
      <label><input type="radio" name="arena-source" value="current" data-testid="arena-source-current" checked> the current file and task</label>
      <label><input type="radio" name="arena-source" value="set" data-testid="arena-source-set"> the shipped task set (with expected results)</label>
    </fieldset>
  </div>
  <div class="row">
    <label>Trials <input id="arena-trials" data-testid="arena-trials" type="number" min="1" max="50" value="1" size="3"></label>
    <button id="arena-run" data-testid="arena-run" type="button">Run the arena</button>
    <button id="arena-stop" data-testid="arena-stop" type="button" class="secondary" disabled>Stop</button>
    <button id="arena-download" data-testid="arena-download" type="button" class="secondary" disabled>Download JSON</button>
    <span id="arena-status" data-testid="arena-status" role="status"></span>
  </div>
  <div class="scroll"><table id="arena-table" data-testid="arena-table" aria-labelledby="arena-title">
    <thead><tr><th scope="col">model</th><th scope="col">format</th><th scope="col">runs</th><th scope="col">well-formed</th>
      <th scope="col">applied 1st round</th><th scope="col">applied</th><th scope="col">expected result</th>
      <th scope="col">mean rounds</th><th scope="col">prompt tokens</th><th scope="col">output tokens</th>
      <th scope="col">early stops</th><th scope="col">truncations</th><th scope="col">errors</th><th scope="col">mean wall s</th></tr></thead>
    <tbody></tbody></table></div>
  <figure id="arena-chart" data-testid="arena-chart" class="arena-chart" hidden></figure>`;

/** The summary's columns in the table's order (after model and format), each as its cell's text. */
const COLUMNS = [
  (r) => r.runs, (r) => r.wellFormed, (r) => r.appliedFirstRound, (r) => r.applied, (r) => r.matchesExpected,
  (r) => (r.rounds / r.runs).toFixed(2), (r) => r.promptTokens, (r) => r.outputTokens, (r) => r.earlyStops,
  (r) => r.truncations, (r) => r.errors, (r) => (r.wallMs / r.runs / 1000).toFixed(2),
];

/**
 * The arena's elements inside `root`.
 * @param {HTMLElement} root
 */
function arenaElements(root) {
  return {
    root,
    formats: byId(root, 'arena-formats'),
    models: byId(root, 'arena-models'),
    trials: byId(root, 'arena-trials', HTMLInputElement),
    run: byId(root, 'arena-run', HTMLButtonElement),
    stop: byId(root, 'arena-stop', HTMLButtonElement),
    download: byId(root, 'arena-download', HTMLButtonElement),
    status: byId(root, 'arena-status'),
    table: byId(root, 'arena-table', HTMLTableElement),
    chart: byId(root, 'arena-chart'),
    body: root.ownerDocument.body,
  };
}

/** @typedef {ReturnType<typeof arenaElements>} ArenaElements */
/** @typedef {import('../state.js').ArenaState} ArenaState */
/** @typedef {import('../state.js').ModelState} ModelState */

/**
 * What the arena's handlers are handed: the page's API, the model panel's
 * elements (its settings) and state, the arena's state, and `render()`.
 * @typedef {import('../main.js').PanelApi & { ui: import('./panel.js').ModelElements, model: ModelState, arena: ArenaState, render: () => void }} ArenaApi
 */

/**
 * A checkbox labelled `value`, for the formats and models lists.
 * @param {string} value
 * @param {string} testid
 */
function choice(value, testid) {
  return make('label', {}, make('input', { type: 'checkbox', value, data: { testid } }), ` ${value}`);
}

/**
 * The models offered: the model panel's, once it has connected.
 * @param {ModelState} model
 */
function modelsOf(model) {
  return model.models?.map((m) => m.name) ?? [];
}

/**
 * The models picked: all of the panel's list but those unticked since it came.
 * @param {ArenaState} arena
 * @param {ModelState} model
 */
function pickedModels(arena, model) {
  const unticked = arena.unticked.from === model.models ? arena.unticked.names : new Set();
  return modelsOf(model).filter((m) => !unticked.has(m));
}

/**
 * Draws the arena from its state; the models list follows the model panel's (`model`).
 * @param {ArenaElements} ui
 * @param {ArenaState} state
 * @param {ModelState} model
 */
export function renderArena(ui, state, model) {
  fill(ui.formats, state.formats, () => state.formats.map((f) => choice(f, 'arena-format')));
  for (const box of ui.formats.querySelectorAll('input')) box.checked = state.pickedFormats.has(box.value);
  const names = modelsOf(model);
  if (names.length) {
    fill(ui.models, model.models, () => names.map((n) => choice(n, 'arena-model')));
    const picked = new Set(pickedModels(state, model));
    for (const box of ui.models.querySelectorAll('input')) box.checked = picked.has(box.value);
  }
  ui.run.disabled = state.running;
  ui.stop.disabled = !state.running;
  ui.download.disabled = state.running || !state.results;
  writeText(ui.status, state.status);
  fill(ui.table.tBodies[0], state.results, () => (state.results ? rows(state.results, state.hasExpected) : []));
  ui.chart.hidden = !state.results;
  if (state.results) fill(ui.chart, state.results, () => chart(state.results.summary));
  if (state.outcome === null) delete ui.body.dataset.arenaRun;
  else ui.body.dataset.arenaRun = state.outcome;
}

/**
 * Fills `section` with the arena and wires it to `state`; it runs with the
 * settings of the model panel (`modelUi`, `model`). Returns its elements, for `renderArena`.
 * @param {HTMLElement} section
 * @param {import('./panel.js').ModelElements} modelUi
 * @param {import('../main.js').PanelApi} page
 * @param {string[]} formats
 * @param {{ arena: ArenaState, model: ModelState, render: () => void }} states
 */
export function setupArena(section, modelUi, page, formats, { arena, model, render }) {
  section.innerHTML = FIELDS;
  section.hidden = false;
  const ui = arenaElements(section);
  /** @type {ArenaApi} */
  const api = { ...page, ui: modelUi, model, arena, render };
  arena.formats = formats.filter((f) => f !== 'auto');
  ui.formats.addEventListener('change', (e) => {
    const box = /** @type {HTMLInputElement} */ (e.target);
    if (box.checked) arena.pickedFormats.add(box.value);
    else arena.pickedFormats.delete(box.value);
    render();
  });
  ui.models.addEventListener('change', (e) => {
    const box = /** @type {HTMLInputElement} */ (e.target);
    if (arena.unticked.from !== model.models) arena.unticked = { from: model.models, names: new Set() };
    if (box.checked) arena.unticked.names.delete(box.value);
    else arena.unticked.names.add(box.value);
    render();
  });
  ui.run.addEventListener('click', () => runArena(api, ui));
  ui.stop.addEventListener('click', () => {
    arena.stopping = true;
    api.engine.model.stop();
  });
  ui.download.addEventListener('click', () => download(arena.results));
  return ui;
}

/** The tasks of the chosen source: the current case (no expected result), or the shipped set. */
async function tasksOf(source, base) {
  if (source === 'set') return (await import('arena-tasks')).default;
  return [{ name: 'current', task: base.config.task, before: base.files, after: undefined }];
}

/** Every run, in the CLI's order: model, task, format, trial (seeds 1, 2, ... as the CLI's default). */
function plan(models, tasks, formats, trials) {
  const runs = [];
  for (const model of models) {
    for (const task of tasks) {
      for (const format of formats) {
        for (let trial = 1; trial <= trials; trial++) runs.push({ model, task, format, trial, seed: trial });
      }
    }
  }
  return runs;
}

/**
 * Runs the arena one run at a time; the table and chart follow each run.
 * @param {ArenaApi} api
 * @param {ArenaElements} ui the arena's boxes: trials and the task source
 */
async function runArena(api, ui) {
  const { arena } = api;
  const base = settings(api);
  const formats = arena.formats.filter((f) => arena.pickedFormats.has(f));
  const models = pickedModels(arena, api.model);
  const trials = Math.max(1, Number(ui.trials.value) || 1);
  if (!base.base || !formats.length || !models.length) {
    arena.status = 'connect, then pick at least one format and one model';
    api.render();
    return;
  }
  const source = /** @type {HTMLInputElement} */ (ui.root.querySelector('input[name="arena-source"]:checked')).value;
  const runs = plan(models, await tasksOf(source, base), formats, trials);
  Object.assign(arena, { outcome: null, results: null, hasExpected: source === 'set', running: true, stopping: false });
  api.render();
  const scores = [];
  let word = 'done';
  try {
    const capabilities = await capabilitiesOf(api, base, models);
    for (const [k, r] of runs.entries()) {
      const name = `run ${k + 1} of ${runs.length}: ${r.model} ${r.format} ${r.task.name} #${r.trial}`;
      arena.status = name;
      api.render();
      const done = await oneRun(api, { ...base, capabilities: capabilities.get(r.model) }, r);
      if (done.stopped || arena.stopping) {
        word = 'stopped';
        break;
      }
      scores.push(done.score);
      arena.results = await api.engine.model.arenaResults(scores);
      api.render();
      arena.status = `${name}: ${await api.engine.model.arenaVerdict(done.score)}`;
      api.render();
    }
    arena.status = `${word}: ${scores.length} of ${runs.length} runs`;
  } catch (e) {
    word = 'failed';
    arena.status = `failed: ${e.message}`;
  } finally {
    Object.assign(arena, { running: false, outcome: word });
    api.render();
  }
}

/**
 * Each model's capabilities from Ollama's /api/show (whether it can think,
 * so `think` is sent as the panel says), as the CLI reads them per model.
 * A model the server does not show gets none: its runs fail with the
 * server's own error.
 */
async function capabilitiesOf(api, base, models) {
  const out = new Map();
  for (const m of models) {
    const info = base.provider === 'ollama' ? await api.engine.model.show(base.base, m).catch(() => null) : null;
    out.set(m, info?.capabilities ?? []);
  }
  return out;
}

/** One run in the worker, with the model panel's settings for this model, format, task and seed. */
function oneRun(api, base, { model, task, format, trial, seed }) {
  const s = { ...base, model, seed, files: task.before, config: { ...base.config, task: task.task, format } };
  return api.engine.model.arenaRun(s, { task: task.name, model, format, trial, seed }, task.after);
}

/**
 * The table's rows, one per model and format.
 * @param {import('patchbay').ArenaResults} results
 * @param {boolean} hasExpected
 */
function rows(results, hasExpected) {
  return results.summary.map((r) => {
    const cells = [r.model, r.format, ...COLUMNS.map((c) => String(c(r)))];
    if (!hasExpected) cells[6] = '–';
    const tr = make('tr', { data: { model: r.model, format: r.format } },
      ...cells.map((text, i) => make(i < 2 ? 'th' : 'td', { textContent: text })));
    /** @type {HTMLTableCellElement} */ (tr.firstChild).scope = 'row';
    return tr;
  });
}

const SERIES = [
  { key: 'appliedFirstRound', label: 'applied in the first round', cls: 'first' },
  { key: 'applied', label: 'applied', cls: 'applied' },
];

/**
 * Horizontal bars, two per model and format (applied in the first round,
 * applied), as rates of the runs: an SVG that scales to the card's width
 * (narrow: each pair's name sits above its bars, so the bars keep the width),
 * with the figures in text beside each bar and in its title; and its caption.
 * @param {import('patchbay').ArenaSummary[]} summary
 */
function chart(summary) {
  const [W, NAME, BAR, GAP] = [400, 15, 12, 8];
  const inner = W - 40;
  const group = NAME + 2 * BAR + GAP;
  const svg = svgNode('svg', { viewBox: `0 0 ${W} ${summary.length * group}`, role: 'img', 'aria-labelledby': 'arena-chart-caption' });
  summary.forEach((r, i) => {
    const y = i * group;
    svg.append(svgNode('text', { x: 0, y: y + NAME - 4, class: 'label' }, `${r.model} · ${r.format}`));
    SERIES.forEach((s, k) => {
      const rate = r.runs ? r[s.key] / r.runs : 0;
      const top = y + NAME + k * BAR;
      const bar = svgNode('rect', { x: 0, y: top, width: Math.max(1, rate * inner), height: BAR - 2, class: s.cls });
      bar.append(svgNode('title', {}, `${r.model}, ${r.format}: ${s.label} ${r[s.key]} of ${r.runs}`));
      svg.append(bar, svgNode('text', { x: rate * inner + 4, y: top + BAR - 3, class: 'value' }, `${Math.round(rate * 100)}%`));
    });
  });
  const caption = make('figcaption', { id: 'arena-chart-caption' }, 'Share of runs per model and format: ',
    ...SERIES.map((s) => make('span', { className: `key ${s.cls}`, textContent: s.label })));
  return [svg, caption];
}

/** An SVG element with `attrs` and, when given, its text. */
function svgNode(name, attrs, text) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The results as `patchbay arena --out` writes them. */
function download(results) {
  if (!results) return;
  const blob = new Blob([`${JSON.stringify(results, null, 2)}\n`], { type: 'application/json' });
  const a = Object.assign(document.createElement('a'), { href: URL.createObjectURL(blob), download: 'arena-results.json' });
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 0);
}
