// The playground: wires the editors, the engine's worker and the panels.
// Every change in an editor re-runs the engine (in the worker); the newest
// answer wins and older ones are dropped. The page's state is one declared
// object (state.js): this file writes the page's fields and hands each panel
// its own part, which the panel's handlers change before they ask for the
// panel's render function; that function draws it into elements handed to
// the panel here.
//
// Readiness, for tests and benchmarks: `<body data-ready="true">` and a
// `patchbay:ready` event on `document` once the engine is loaded and the
// first case has run; `<body data-settled>` is "true" when no run or panel
// update is scheduled or under way ("false" otherwise), with a
// `patchbay:settled` event each time it becomes true.
import './style.css';
import { createEngine } from './engine/index.js';
import { LEVELS, LEVEL_NOTES, matchesFromReport, offsetOf, setMatches } from 'patchbay/codemirror';
import { createFileEditor, createReplyEditor, foldReasoning, setText } from './editors.js';
import { EXAMPLES, FILE } from './examples.js';
import { Files } from './files.js';
import { setupReview } from './review.js';
import { renderModel, setupModelPanel } from './model/panel.js';
import { renderArena, setupArena } from './model/arena.js';
import { noteFor, resultElements, setStatus, showEditTokens, showFormat, showReceipts, showRejected } from './report.js';
import { setupUdiff } from './udiff.js';
import { caseFromHash, hashOf, lastCase, remember } from './share.js';
import { copyButton } from './copy.js';
import { setupTags } from './tags.js';
import { setupTokens } from './tokens.js';
import { setupCompare } from './compare.js';
import { setupOutline } from './outline.js';
import { setupLab } from './lab.js';
import { addressOf, panelFromQuery, renderNav, setupNav } from './nav.js';
import { createState, settled } from './state.js';
import { byId, make } from './dom.js';

/** @typedef {import('./state.js').Case} Case */
/** @typedef {import('./state.js').RunInput} RunInput */
/** @typedef {import('./state.js').Shown} Shown */
/** @typedef {import('./state.js').Panel} Panel */
/** @typedef {import('./report.js').Receipt} Receipt */
/** @typedef {import('patchbay').Report} Report */

/** The elements this file draws into or listens to, found once. */
const ui = {
  ...resultElements(document),
  example: byId(document, 'example', HTMLSelectElement),
  format: byId(document, 'format', HTMLSelectElement),
  partial: byId(document, 'partial', HTMLInputElement),
  apply: byId(document, 'apply', HTMLButtonElement),
  share: byId(document, 'share', HTMLButtonElement),
  shareNote: byId(document, 'share-note'),
  legend: /** @type {HTMLElement} */ (document.querySelector('[data-testid=legend]')),
  elapsed: byId(document, 'elapsed'),
  useResult: byId(document, 'use-result', HTMLButtonElement),
  copyFeedback: byId(document, 'copy-feedback', HTMLButtonElement),
  continuationBox: byId(document, 'continuation-box'),
  continuationNote: byId(document, 'continuation-note'),
  continuation: byId(document, 'continuation'),
  copyContinuation: byId(document, 'copy-continuation', HTMLButtonElement),
  formatList: byId(document, 'format-list'),
  sections: byId(document, 'sections'),
  jumpResult: byId(document, 'jump-result', HTMLButtonElement),
  resultCard: byId(document, 'result-card'),
  file: byId(document, 'file'),
};

const state = createState(panelFromQuery(location.search));
/** Whoever waits for the page to settle (`idle()`), called once it has. */
const waiting = /** @type {(() => void)[]} */ ([]);

const fileEditor = createFileEditor(byId(document, 'file'), () => changed());
const replyEditor = createReplyEditor(byId(document, 'reply'), () => changed());
const files = new Files(byId(document, 'file-card'), fileEditor, () => changed(), state.files);
const review = setupReview(byId(document, 'result-card'), resultWithout, state.review);
const tags = setupTags(byId(document, 'file-card'), fileEditor, files, () => state.engine, state.tags);
const tokens = setupTokens(byId(document, 'tokens-panel'), () => state.engine, state.tokens, {
  replyTokens: byId(document, 'reply-tokens'),
  context: () => ({ format: ui.format.value, feedback: ui.feedback.textContent ?? '', path: files.path }),
  budget: state.budget,
});
const udiff = setupUdiff(byId(document, 'udiff-panel'), state.udiff);

/**
 * The case as plain data (what the hash and localStorage keep).
 * @returns {Case}
 */
function currentCase() {
  return {
    files: files.snapshot(),
    active: files.active,
    reply: replyEditor.state.doc.toString(),
    format: /** @type {import('patchbay').FormatName} */ (ui.format.value || 'auto'),
    partial: ui.partial.checked,
  };
}

/**
 * Replaces the whole case.
 * @param {Case} c
 */
function loadCase(c) {
  files.load(c.files, c.active);
  setText(replyEditor, c.reply);
  if ([...ui.format.options].some((o) => o.value === c.format)) ui.format.value = c.format;
  ui.partial.checked = c.partial;
  changed();
}

/** Draws whether the page is settled; wakes whoever waits for it. */
function renderActivity() {
  const now = settled(state);
  const was = state.drawnSettled;
  state.drawnSettled = now;
  document.body.dataset.settled = String(now);
  if (!now) return;
  for (const wake of waiting.splice(0)) wake();
  if (!was) document.dispatchEvent(new CustomEvent('patchbay:settled'));
}

/**
 * Resolves once no run or panel update is scheduled or under way.
 * @returns {Promise<void>}
 */
function idle() {
  return new Promise((resolve) => (settled(state) ? resolve() : waiting.push(resolve)));
}

/**
 * Something changed: run as soon as the current task's changes are done
 * (a microtask, so no timer's delay). The engine works in its worker, so
 * typing never waits for it; changes made while it works are coalesced
 * into one more run.
 */
function changed() {
  if (!state.engine || state.queued) return;
  state.queued = true;
  renderActivity();
  queueMicrotask(() => {
    state.queued = false;
    run();
  });
}

/** Runs the engine on the case; one request at a time, the newest wins. */
async function run() {
  if (state.busy) {
    state.again = true;
    return;
  }
  state.busy = true;
  renderActivity();
  const seq = ++state.seq;
  const c = currentCase();
  /** @type {RunInput} */
  const input = { ...c, path: files.path, original: c.files[c.active]?.text ?? '', doc: fileEditor.view.state.doc, started: performance.now() };
  try {
    await runOnce(input, seq);
  } finally {
    state.busy = false;
    if (state.again) {
      state.again = false;
      run();
    } else {
      renderActivity();
    }
  }
}

/**
 * The engine's options for the case `input`.
 * @param {RunInput} input
 */
function applyOptions(input) {
  return { format: input.format, partial: input.partial, defaultPath: input.path || null };
}

/**
 * One run: the engine's answer, then the panels drawn from it.
 * @param {RunInput} input
 * @param {number} seq
 */
async function runOnce(input, seq) {
  const engine = state.engine;
  const map = Object.fromEntries(input.files.filter((f) => f.path).map((f) => [f.path, f.text]));
  // Both requests go at once: the worker answers the second right after the first.
  const detecting = input.format === 'auto' ? engine.detectFormat(input.reply) : null;
  let report;
  try {
    report = await engine.applyEdits(map, input.reply, applyOptions(input));
  } catch (e) {
    showRejected(ui, e);
    udiff.hide();
    return;
  }
  const detection = await detecting;
  const adopted = replyPath(report, input);
  if (adopted !== null) {
    files.rename(adopted, false, `path taken from the reply (was ${input.path || 'empty'})`);
    state.again = true;
    return;
  }
  state.shown = { report, detection, input, map, seq, ms: performance.now() - input.started, inFrame: engine.answeredInFrame() };
  renderResult(state.shown);
  performance.mark('patchbay-result', { detail: seq });
  scheduleDetails(state.shown);
  rememberSoon();
}

/**
 * The diff, tag view, udiff panel and token counts follow after the next
 * paint. Diffing a big file takes the main thread for a while, so for one
 * the update waits until typing pauses; a newer result cancels an older wait.
 * @param {Shown} shown
 */
function scheduleDetails(shown) {
  clearTimeout(state.details?.timer);
  const pause = shown.input.doc.lines > 5000 ? 300 : 0;
  const ticket = {
    timer: setTimeout(() => {
      requestAnimationFrame(async () => {
        await renderDetails(shown);
        if (state.details !== ticket) return;
        performance.mark('patchbay-details', { detail: state.seq });
        state.details = null;
        renderActivity();
      });
    }, pause),
  };
  state.details = ticket;
}

/** Keeps the case in localStorage, at most once a second (a big file costs a copy each time). */
function rememberSoon() {
  if (state.remembering) return;
  state.remembering = setTimeout(() => {
    state.remembering = null;
    remember(currentCase());
  }, 1000);
}

/**
 * With one file whose path the user never typed, a reply that edits one
 * other, missing path means the pasted file is that one: its path, or null.
 * @param {Report} report
 * @param {RunInput} input
 * @returns {string | null}
 */
function replyPath(report, input) {
  if (input.files.length !== 1 || files.typed) return null;
  const named = report.files.filter((f) => f.path !== input.path);
  const mine = report.files.find((f) => f.path === input.path);
  if (named.length !== 1 || mine) return null;
  return named[0].edits.some((e) => e.code === 'file_missing') ? named[0].path : null;
}

/**
 * The result card and the receipts panel, at once after a keystroke's run:
 * status, format, note, feedback, receipts, decorations, the time it took;
 * `<body data-seq>` names the run shown.
 * @param {Shown} shown
 */
function renderResult({ report, detection, input, seq, ms, inFrame }) {
  setStatus(ui, report.status);
  showFormat(ui, report, detection);
  ui.note.textContent = noteFor(report, input.path);
  ui.feedback.textContent = report.feedback;
  showReceipts(ui, report, (r) => pickReceipt(r));
  showMatches(report, input);
  foldReasoning(replyEditor, report.reasoning);
  ui.elapsed.textContent = `${Math.round(ms)} ms`;
  document.body.dataset.seq = String(seq);
  document.body.dataset.inFrame = String(inFrame);
}

/**
 * What may follow a frame later: the diff, the udiff panel, tags and token counts.
 * @param {Shown} shown
 */
async function renderDetails({ report, input, map }) {
  const mine = report.files.find((f) => f.path === input.path);
  const edits = (mine?.edits ?? []).filter((e) => e.status === 'applied' && e.lines);
  review.show(input.original, mine?.content ?? input.original, matchesFromReport(report, input.path), edits);
  await Promise.all([
    renderContinuation(report, input.reply),
    tokens.editCounts(input.reply, report).then((counts) => showEditTokens(ui, counts), () => {}),
    udiff.show(state.engine, map, input.reply, report.format),
    tags.refresh(),
    tokens.update({ file: input.original, reply: input.reply, result: mine?.content ?? input.original }),
  ]);
}

/**
 * The shown file's result with the edits numbered in `skip` set aside, as the engine applies the reply without them.
 * @param {number[]} skip
 */
async function resultWithout(skip) {
  const { input, map } = state.shown;
  const report = await state.engine.applyEdits(map, input.reply, { ...applyOptions(input), skip });
  const mine = report.files.find((f) => f.path === input.path);
  return { result: mine?.content ?? input.original, matches: matchesFromReport(report, input.path) };
}

/**
 * For a cut-off reply, what the count check found and the prompt that asks for the rest.
 * @param {Report} report
 * @param {string} reply
 */
async function renderContinuation(report, reply) {
  ui.continuationBox.hidden = report.status !== 'truncated';
  if (ui.continuationBox.hidden) return;
  const { check, continuation } = await state.engine.checkOutput(reply, {});
  const declared = check.declaredTotal === null ? 'no count declared' : `${check.declaredTotal} declared`;
  const missing = check.verdict === 'truncated' && check.missing ? `, ${check.missing} missing` : '';
  ui.continuationNote.textContent = `Count check: ${check.verdict} (${declared}${missing}).`;
  ui.continuation.textContent = continuation;
}

/**
 * Decorates the file editor with the matches, if it still shows the text they were found in.
 * @param {Report} report
 * @param {RunInput} input
 */
function showMatches(report, input) {
  const view = fileEditor.view;
  if (view.state.doc !== input.doc) return;
  view.dispatch({ effects: setMatches.of(matchesFromReport(report, input.path)) });
}

/**
 * Scrolls the file editor to an edit's lines (or its closest region).
 * @param {Receipt} r
 */
function pickReceipt(r) {
  if (r.path !== files.path) {
    const i = files.list.findIndex((f) => f.path === r.path);
    if (i < 0) return;
    files.show(i);
  }
  const m = matchesFromReport(state.shown?.report, r.path).find((x) => x.index === r.index);
  if (!m) return;
  const { view } = fileEditor;
  const doc = view.state.doc;
  view.dispatch({ selection: { anchor: offsetOf(doc, m.from), head: offsetOf(doc, m.to) }, scrollIntoView: true });
  view.focus();
}

/**
 * Selects and scrolls to lines `from`-`to` (1-based) of the file editor.
 * @param {number} from
 * @param {number} to
 */
function selectLines(from, to) {
  const { view } = fileEditor;
  const doc = view.state.doc;
  const a = doc.line(Math.min(Math.max(1, from), doc.lines));
  const b = doc.line(Math.min(Math.max(from, to), doc.lines));
  view.dispatch({ selection: { anchor: a.from, head: b.to }, scrollIntoView: true });
  view.focus();
}

function renderLegend() {
  for (const level of LEVELS) ui.legend.append(make('span', { className: `pb-level-${level}`, textContent: level, title: LEVEL_NOTES[level] }));
  ui.legend.append(make('span', { className: 'pb-closest', textContent: 'failed: closest region' }));
}

function setupExamples() {
  // The menu goes back to its first line after each pick, so the same example can be picked again.
  ui.example.add(new Option('Load an example...', ''));
  for (const [i, e] of EXAMPLES.entries()) ui.example.add(new Option(e.label, String(i)));
  ui.example.addEventListener('change', () => {
    const e = EXAMPLES[Number(ui.example.value)];
    ui.example.value = '';
    if (!e) return;
    loadExample({ files: [{ path: e.path ?? 'src/app.py', text: e.file ?? FILE }], reply: e.reply, format: 'auto' });
  });
}

/**
 * Loads an example or lesson; the case it replaces can be restored with one click.
 * @param {Partial<Case> & Pick<Case, 'files' | 'reply'>} c
 */
function loadExample(c) {
  const previous = currentCase();
  loadCase({ active: 0, partial: false, format: 'auto', ...c });
  state.note = { text: 'Loaded. ', restore: previous };
  renderNote();
}

/** The note beside Share: what Share or a load did, with the load's Restore button. */
function renderNote() {
  const { text, restore } = state.note;
  if (!restore) {
    ui.shareNote.textContent = text;
    return;
  }
  const undo = make('button', { type: 'button', className: 'link', textContent: 'Restore the previous case', data: { testid: 'restore-case' } });
  undo.addEventListener('click', () => {
    loadCase(restore);
    state.note = { text: 'Previous case restored.', restore: null };
    renderNote();
  });
  ui.shareNote.replaceChildren(text, undo);
}

function share() {
  history.replaceState(null, '', `${location.search}${hashOf(currentCase())}`);
  const url = location.href;
  /** @param {string} text */
  const say = (text) => {
    state.note = { text, restore: null };
    renderNote();
  };
  navigator.clipboard?.writeText(url).then(
    () => say(`Link copied (${url.length} characters); the case is in the hash only.`),
    () => say(`The address now holds the case (${url.length} characters).`),
  );
}

function setupKeys() {
  document.addEventListener('keydown', (e) => {
    const mod = e.ctrlKey || e.metaKey;
    if (mod && e.key === 'Enter') {
      e.preventDefault();
      run();
    } else if (mod && e.key === 's') {
      e.preventDefault();
      share();
    } else if (e.altKey && e.key === '1') {
      fileEditor.view.focus();
    } else if (e.altKey && e.key === '2') {
      replyEditor.focus();
    }
  });
}

/**
 * Shows `panel`: recorded in the state and the address, then drawn.
 * @param {Panel} panel
 * @param {'click' | 'history'} how a click adds a history entry; Back and Forward only follow it
 */
function pickPanel(panel, how) {
  if (how === 'click' && panel !== state.panel) history.pushState(null, '', addressOf(location, panel));
  state.panel = panel;
  renderNav(ui.sections, document, state.panel);
  // A panel that starts low on the screen (below the result, or the editors in one column) is brought up.
  const shown = byId(document, `panel-${panel}`);
  if (how === 'click' && shown.getBoundingClientRect().top > innerHeight * 0.75) shown.scrollIntoView({ block: 'start' });
}

/** Makes the reviewed result the file; files the reply created become tabs. */
function keepResult() {
  const report = state.shown?.report;
  if (!report) return;
  setText(fileEditor.view, review.text());
  for (const f of report.files) {
    if (f.status === 'created' && !files.list.some((x) => x.path === f.path)) files.add(f.path, f.content ?? '', false);
  }
}

/** The page's controls that do not wait for the engine. */
function setupControls() {
  setupExamples();
  renderLegend();
  renderNav(ui.sections, document, state.panel);
  setupNav(ui.sections, pickPanel);
  ui.format.addEventListener('change', changed);
  ui.partial.addEventListener('change', changed);
  ui.apply.addEventListener('click', run);
  ui.share.addEventListener('click', share);
  ui.useResult.addEventListener('click', keepResult);
  ui.jumpResult.addEventListener('click', () => ui.resultCard.scrollIntoView({ block: 'start' }));
  copyButton(ui.copyFeedback, () => ui.feedback.textContent);
  copyButton(ui.copyContinuation, () => ui.continuation.textContent);
  setupKeys();
  // The last edits before leaving are kept even within the second rememberSoon waits.
  addEventListener('pagehide', () => remember(currentCase()));
}

/**
 * What the panels are handed: the engine, the editors and the case, and the
 * few page elements they read.
 * @param {NonNullable<typeof state.engine>} engine
 */
function panelApi(engine) {
  return {
    engine, files, fileEditor, replyEditor, review, loadExample, selectLines, currentCase, setText, idle,
    /** The tokenizer the budget panel has picked ("estimate:o200k_base", ...). */
    tokenizer: () => tokens.choice(),
    /** Sets the format menu, as a pick there would. */
    pickFormat: (/** @type {string} */ format) => {
      ui.format.value = format;
      changed();
    },
    /** Brings the file editor into view. */
    showFile: () => ui.file.scrollIntoView({ block: 'start' }),
    pathInput: byId(document, 'path', HTMLInputElement),
    fileTabs: byId(document, 'tabs'),
  };
}

/** @typedef {ReturnType<typeof panelApi>} PanelApi */

/**
 * The model panel and the arena beside it, drawn together: the arena offers
 * the panel's models, and either's run keeps the other's Run off.
 * @param {PanelApi} api
 * @param {string[]} names the engine's formats
 */
function setupModelTab(api, names) {
  const reply = { editor: replyEditor, setText };
  const render = (budget = Infinity) => {
    renderModel(modelUi, state.model, state.arena.running, reply, budget);
    renderArena(arenaUi, state.arena, state.model);
  };
  const modelUi = setupModelPanel(byId(document, 'model-panel'), api, names, state.model, render);
  const arenaUi = setupArena(byId(document, 'arena-panel'), modelUi, api, names, { arena: state.arena, model: state.model, render });
  render();
}

async function main() {
  setupControls();
  const start = caseFromHash(location.hash) ?? lastCase();
  loadCase(start ?? { files: [{ path: 'src/app.py', text: FILE }], reply: EXAMPLES[0].reply, format: 'auto', partial: false, active: 0 });
  const engine = createEngine({ onProgress: (p) => tokens.progress(p) });
  state.engine = engine;
  let names;
  try {
    names = await engine.formats();
  } catch (e) {
    setStatus(ui, 'error');
    ui.note.textContent = `Could not load the WebAssembly module (build it with scripts/build-web.sh): ${e.message}`;
    return;
  }
  for (const name of ['auto', ...names.filter((n) => n !== 'auto')]) ui.format.add(new Option(name, name));
  if (start) ui.format.value = start.format;
  ui.formatList.textContent = names.filter((n) => n !== 'auto').join(', ');
  const api = panelApi(engine);
  setupCompare(byId(document, 'compare-panel'), api, state.compare);
  setupOutline(byId(document, 'outline-panel'), api, state.outline);
  setupModelTab(api, names);
  await run();
  state.ready = true;
  document.body.dataset.ready = 'true';
  performance.mark('patchbay-ready');
  document.dispatchEvent(new CustomEvent('patchbay:ready'));
  // The core's second part (other formats, the udiff tools, the comparison) comes after the first
  // result. The lab's verdicts are some thirty engine calls, many of them of the second part: after
  // it has come, not before (a call that needs it sooner loads it then; so would they, a second time).
  engine.whenRest().then(() => setupLab(byId(document, 'lab'), api, state.lab));
}

main();
