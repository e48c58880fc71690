// The format arena in the page: one task (the current file and task box) or
// the shipped task set, across several edit formats and models of the
// server connected in the model panel, N trials each. Every run is the
// model panel's loop in the worker (engine/model.js `arenaRun`), one at a
// time; the core scores it and sums the runs (the CLI's `patchbay arena`
// scoring, `patchbay::edit_loop::arena`). This file picks the runs, shows
// the table and the chart, and offers the results as the CLI's JSON.
import { modelElements, settings } from './panel.js';
import { byId, make } from '../dom.js';

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
 * @param {ParentNode} root
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
  };
}

/** @typedef {import('./panel.js').ModelApi & { arena: ReturnType<typeof arenaElements> }} ArenaApi */

/** @param {ParentNode} box */
const checked = (box) => [...box.querySelectorAll('input:checked')].map((i) => /** @type {HTMLInputElement} */ (i).value);

/** A checkbox labelled `value`, for the formats and models lists. */
function choice(value, on, testid) {
  const label = document.createElement('label');
  const input = Object.assign(document.createElement('input'), { type: 'checkbox', value, checked: on });
  input.dataset.testid = testid;
  label.append(input, ` ${value}`);
  return label;
}

/**
 * The models list follows the model panel's (filled when it connects); all are picked at first.
 * @param {ArenaApi} api
 */
function followModels(api) {
  const select = api.ui.model;
  const fill = () => {
    const names = [...select.options].map((o) => o.value);
    if (names.length) api.arena.models.replaceChildren(...names.map((n) => choice(n, true, 'arena-model')));
  };
  new MutationObserver(fill).observe(select, { childList: true });
  fill();
}

/**
 * Fills `section` with the arena and wires it; it runs with the settings of the model panel in `modelRoot`.
 * @param {HTMLElement} section
 * @param {HTMLElement} modelRoot
 * @param {import('../main.js').PanelApi} page
 * @param {string[]} formats
 */
export function setupArena(section, modelRoot, page, formats) {
  section.innerHTML = FIELDS;
  section.hidden = false;
  const api = { ...page, ui: modelElements(modelRoot), arena: arenaElements(section) };
  const picked = new Set(['search-replace', 'udiff']);
  api.arena.formats.replaceChildren(...formats.filter((f) => f !== 'auto').map((f) => choice(f, picked.has(f), 'arena-format')));
  followModels(api);
  const state = { results: null, stopping: false };
  api.arena.run.addEventListener('click', () => runArena(api, state));
  api.arena.stop.addEventListener('click', () => {
    state.stopping = true;
    api.engine.model.stop();
  });
  api.arena.download.addEventListener('click', () => download(state.results));
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

/** Runs the arena one run at a time; the table and chart follow each run. */
async function runArena(api, state) {
  const base = settings(api);
  const formats = checked(api.arena.formats);
  const models = checked(api.arena.models);
  const trials = Math.max(1, Number(api.arena.trials.value) || 1);
  if (!base.base || !formats.length || !models.length) {
    api.arena.status.textContent = 'connect, then pick at least one format and one model';
    return;
  }
  const source = /** @type {HTMLInputElement} */ (api.arena.root.querySelector('input[name="arena-source"]:checked')).value;
  const runs = plan(models, await tasksOf(source, base), formats, trials);
  delete document.body.dataset.arenaRun;
  state.results = null;
  api.arena.table.tBodies[0].replaceChildren();
  api.arena.chart.hidden = true;
  busy(api, true, state);
  state.stopping = false;
  const scores = [];
  let word = 'done';
  try {
    const capabilities = await capabilitiesOf(api, base, models);
    for (const [k, r] of runs.entries()) {
      const name = `run ${k + 1} of ${runs.length}: ${r.model} ${r.format} ${r.task.name} #${r.trial}`;
      api.arena.status.textContent = name;
      const done = await oneRun(api, { ...base, capabilities: capabilities.get(r.model) }, r);
      if (done.stopped || state.stopping) {
        word = 'stopped';
        break;
      }
      scores.push(done.score);
      state.results = await api.engine.model.arenaResults(scores);
      show(api, state.results, source === 'set');
      api.arena.status.textContent = `${name}: ${await api.engine.model.arenaVerdict(done.score)}`;
    }
    api.arena.status.textContent = `${word}: ${scores.length} of ${runs.length} runs`;
  } catch (e) {
    word = 'failed';
    api.arena.status.textContent = `failed: ${e.message}`;
  } finally {
    busy(api, false, state);
    document.body.dataset.arenaRun = word;
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
 * Disables what must not start while the arena runs (the model panel's Run shares the worker's loop).
 * @param {ArenaApi} api
 * @param {boolean} on
 * @param {{ results: object | null }} state
 */
function busy(api, on, state) {
  api.arena.run.disabled = on;
  api.ui.run.disabled = on || api.ui.model.options.length === 0;
  api.arena.stop.disabled = !on;
  api.arena.download.disabled = on || !state.results;
}

/**
 * The table (one row per model and format) and the chart.
 * @param {ArenaApi} api
 * @param {{ summary: object[] }} results
 * @param {boolean} hasExpected
 */
function show(api, results, hasExpected) {
  const rows = results.summary.map((r) => {
    const tr = document.createElement('tr');
    tr.dataset.model = r.model;
    tr.dataset.format = r.format;
    const cells = [r.model, r.format, ...COLUMNS.map((c) => String(c(r)))];
    if (!hasExpected) cells[6] = '–';
    tr.append(...cells.map((text, i) => Object.assign(document.createElement(i < 2 ? 'th' : 'td'), { textContent: text })));
    /** @type {HTMLTableCellElement} */ (tr.firstChild).scope = 'row';
    return tr;
  });
  api.arena.table.tBodies[0].replaceChildren(...rows);
  drawChart(api.arena.chart, results.summary);
}

const SERIES = [
  { key: 'appliedFirstRound', label: 'applied in the first round', cls: 'first' },
  { key: 'applied', label: 'applied', cls: 'applied' },
];

/**
 * Horizontal bars, two per model and format (applied in the first round,
 * applied), as rates of the runs: an SVG that scales to the card's width
 * (narrow: each pair's name sits above its bars, so the bars keep the width),
 * with the figures in text beside each bar and in its title.
 */
function drawChart(figure, summary) {
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
  const caption = document.createElement('figcaption');
  caption.id = 'arena-chart-caption';
  caption.append('Share of runs per model and format: ', ...SERIES.map((s) => Object.assign(document.createElement('span'), { className: `key ${s.cls}`, textContent: s.label })));
  figure.replaceChildren(svg, caption);
  figure.hidden = false;
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
