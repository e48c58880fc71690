// The playground: wires the editors, the engine's worker and the panels.
// Every change in an editor re-runs the engine (debounced, in the worker);
// the newest answer wins and older ones are dropped.
import './style.css';
import { createEngine } from './engine/index.js';
import { LEVELS, LEVEL_NOTES, matchesFromReport, offsetOf, setMatches } from 'patchbay/codemirror';
import { createFileEditor, createReplyEditor, foldReasoning, setText } from './editors.js';
import { EXAMPLES, FILE } from './examples.js';
import { Files } from './files.js';
import { Review } from './review.js';
import { setupModelPanel } from './model/panel.js';
import { setupArena } from './model/arena.js';
import { noteFor, setStatus, showEditTokens, showFormat, showReceipts, showRejected } from './report.js';
import { hideUdiff, showUdiff } from './udiff.js';
import { caseFromHash, hashOf, lastCase, remember } from './share.js';
import { copyButton } from './copy.js';
import { Tags } from './tags.js';
import { Tokens } from './tokens.js';
import { setupCompare } from './compare.js';
import { setupOutline } from './outline.js';
import { setupLab } from './lab.js';

const $ = (id) => document.getElementById(id);
const page = { engine: null, report: null, input: null, seq: 0, busy: false, again: false, queued: false, details: null };

const fileEditor = createFileEditor($('file'), () => changed());
const replyEditor = createReplyEditor($('reply'), () => changed());
const files = new Files(fileEditor, () => changed());
const review = new Review(resultWithout);
const tags = new Tags(fileEditor, files, () => page.engine);
const tokens = new Tokens(() => page.engine);

/** The case as plain data (what the hash and localStorage keep). */
function currentCase() {
  return {
    files: files.snapshot(),
    active: files.active,
    reply: replyEditor.state.doc.toString(),
    format: $('format').value || 'auto',
    partial: $('partial').checked,
  };
}

/** Replaces the whole case. */
function loadCase(c) {
  files.load(c.files, c.active);
  setText(replyEditor, c.reply);
  if ([...$('format').options].some((o) => o.value === c.format)) $('format').value = c.format;
  $('partial').checked = c.partial;
  changed();
}

/**
 * Something changed: run as soon as the current task's changes are done
 * (a microtask, so no timer's delay). The engine works in its worker, so
 * typing never waits for it; changes made while it works are coalesced
 * into one more run.
 */
function changed() {
  if (!page.engine) return;
  document.body.dataset.pending = 'true';
  if (page.queued) return;
  page.queued = true;
  queueMicrotask(() => {
    page.queued = false;
    run();
  });
}

/** Tests and the benchmark wait for `data-pending="false"`: no run or panel update scheduled or under way. */
function updatePending() {
  document.body.dataset.pending = String(page.busy || page.queued || page.details !== null);
}

/** Resolves once no run or panel update is scheduled or under way. */
function idle() {
  return new Promise((resolve) => {
    const check = () => {
      if (document.body.dataset.pending !== 'true') {
        observer.disconnect();
        resolve();
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { attributes: true, attributeFilter: ['data-pending'] });
    check();
  });
}

/** Runs the engine on the case; one request at a time, the newest wins. */
async function run() {
  document.body.dataset.pending = 'true';
  if (page.busy) {
    page.again = true;
    return;
  }
  page.busy = true;
  const seq = ++page.seq;
  const c = currentCase();
  const input = { ...c, path: files.path, original: c.files[c.active]?.text ?? '', doc: fileEditor.view.state.doc, started: performance.now() };

  try {
    await runOnce(input, seq);
  } finally {
    page.busy = false;
    if (page.again) {
      page.again = false;
      run();
    } else {
      updatePending();
    }
  }
}

/** The engine's options for the case `input`. */
function applyOptions(input) {
  return { format: input.format, partial: input.partial, defaultPath: input.path || null };
}

async function runOnce(input, seq) {
  const engine = page.engine;
  const map = Object.fromEntries(input.files.filter((f) => f.path).map((f) => [f.path, f.text]));
  const options = applyOptions(input);
  // Both requests go at once: the worker answers the second right after the first.
  const detecting = input.format === 'auto' ? engine.detectFormat(input.reply) : null;
  let report;
  try {
    report = await engine.applyEdits(map, input.reply, options);
  } catch (e) {
    showRejected(e);
    hideUdiff();
    return;
  }
  const detection = await detecting;
  if (adoptReplyPath(report, input)) return;
  page.report = report;
  page.input = input;
  showResult(report, detection, input);
  $('elapsed').textContent = `${Math.round(performance.now() - input.started)} ms`;
  document.body.dataset.seq = String(seq);
  document.body.dataset.inFrame = String(engine.answeredInFrame());
  performance.mark('patchbay-result', { detail: seq });
  scheduleDetails(report, input, map);
  rememberSoon();
}

/**
 * The diff, tag view, udiff panel and token counts follow after the next
 * paint. Diffing a big file takes the main thread for a while, so for one
 * the update waits until typing pauses; a newer result cancels an older wait.
 */
function scheduleDetails(report, input, map) {
  clearTimeout(page.details?.timer);
  const ticket = {};
  page.details = ticket;
  const pause = input.doc.lines > 5000 ? 300 : 0;
  ticket.timer = setTimeout(() => {
    requestAnimationFrame(async () => {
      await showDetails(report, input, map);
      if (page.details !== ticket) return;
      performance.mark('patchbay-details', { detail: page.seq });
      page.details = null;
      updatePending();
    });
  }, pause);
}

/** Keeps the case in localStorage, at most once a second (a big file costs a copy each time). */
function rememberSoon() {
  if (page.remembering) return;
  page.remembering = setTimeout(() => {
    page.remembering = null;
    remember(currentCase());
  }, 1000);
}

/**
 * With one file whose path the user never typed, a reply that edits one
 * other, missing path means the pasted file is that one: take its path.
 */
function adoptReplyPath(report, input) {
  if (input.files.length !== 1 || files.typed) return false;
  const named = report.files.filter((f) => f.path !== input.path);
  const mine = report.files.find((f) => f.path === input.path);
  if (named.length !== 1 || mine) return false;
  if (!named[0].edits.some((e) => e.code === 'file_missing')) return false;
  files.rename(named[0].path, false);
  $('path-note').textContent = `path taken from the reply (was ${input.path || 'empty'})`;
  page.again = true;
  return true;
}

/** What must follow a keystroke at once: status, format, note, feedback, receipts, decorations. */
function showResult(report, detection, input) {
  setStatus(report.status);
  showFormat(report, detection);
  $('note').textContent = noteFor(report, input.path);
  $('feedback').textContent = report.feedback;
  showReceipts(report, (r) => pickReceipt(r));
  showMatches(report, input);
  foldReasoning(replyEditor, report.reasoning);
}

/** What may follow a frame later: the diff, the udiff panel, tags and token counts. */
async function showDetails(report, input, map) {
  const mine = report.files.find((f) => f.path === input.path);
  const edits = (mine?.edits ?? []).filter((e) => e.status === 'applied' && e.lines);
  page.shown = { input, map };
  review.show(input.original, mine?.content ?? input.original, matchesFromReport(report, input.path), edits);
  await Promise.all([
    showContinuation(report, input.reply),
    tokens.editCounts(input.reply, report).then(showEditTokens, () => {}),
    showUdiff(page.engine, map, input.reply, report.format),
    tags.refresh(),
    tokens.update({ file: input.original, reply: input.reply, result: mine?.content ?? input.original }),
  ]);
}

/** The shown file's result with the edits numbered in `skip` set aside, as the engine applies the reply without them. */
async function resultWithout(skip) {
  const { input, map } = page.shown;
  const report = await page.engine.applyEdits(map, input.reply, { ...applyOptions(input), skip });
  const mine = report.files.find((f) => f.path === input.path);
  return { result: mine?.content ?? input.original, matches: matchesFromReport(report, input.path) };
}

/** For a cut-off reply, what the count check found and the prompt that asks for the rest. */
async function showContinuation(report, reply) {
  const box = $('continuation-box');
  box.hidden = report.status !== 'truncated';
  if (box.hidden) return;
  const { check, continuation } = await page.engine.checkOutput(reply, {});
  const declared = check.declaredTotal === null ? 'no count declared' : `${check.declaredTotal} declared`;
  $('continuation-note').textContent = `Count check: ${check.verdict} (${declared}${check.missing ? `, ${check.missing} missing` : ''}).`;
  $('continuation').textContent = continuation;
}

/** Decorates the file editor with the matches, if it still shows the text they were found in. */
function showMatches(report, input) {
  const view = fileEditor.view;
  if (view.state.doc !== input.doc) return;
  view.dispatch({ effects: setMatches.of(matchesFromReport(report, input.path)) });
}

/** Scrolls the file editor to an edit's lines (or its closest region). */
function pickReceipt(r) {
  if (r.path !== files.path) {
    const i = files.list.findIndex((f) => f.path === r.path);
    if (i < 0) return;
    files.show(i);
  }
  const m = matchesFromReport(page.report, r.path).find((x) => x.index === r.index);
  if (!m) return;
  selectRange(m.from, m.to);
}

/** Selects and scrolls to positions `from`-`to` of the file editor (an edit's range, or its closest region). */
function selectRange(from, to) {
  const { view } = fileEditor;
  const doc = view.state.doc;
  view.dispatch({ selection: { anchor: offsetOf(doc, from), head: offsetOf(doc, to) }, scrollIntoView: true });
  view.focus();
}

/** Selects and scrolls to lines `from`-`to` (1-based) of the file editor. */
export function selectLines(from, to) {
  const { view } = fileEditor;
  const doc = view.state.doc;
  const a = doc.line(Math.min(Math.max(1, from), doc.lines));
  const b = doc.line(Math.min(Math.max(from, to), doc.lines));
  view.dispatch({ selection: { anchor: a.from, head: b.to }, scrollIntoView: true });
  view.focus();
}

function showLegend() {
  const legend = $('legend') ?? document.querySelector('[data-testid=legend]');
  for (const level of LEVELS) {
    const s = document.createElement('span');
    s.className = `pb-level-${level}`;
    s.textContent = level;
    s.title = LEVEL_NOTES[level];
    legend.append(s);
  }
  const closest = document.createElement('span');
  closest.className = 'pb-closest';
  closest.textContent = 'failed: closest region';
  legend.append(closest);
}

function setupExamples() {
  // The menu goes back to its first line after each pick, so the same example can be picked again.
  $('example').add(new Option('Load an example...', ''));
  for (const [i, e] of EXAMPLES.entries()) $('example').add(new Option(e.label, String(i)));
  $('example').addEventListener('change', () => {
    const e = EXAMPLES[Number($('example').value)];
    $('example').value = '';
    if (!e) return;
    loadExample({ files: [{ path: e.path ?? 'src/app.py', text: e.file ?? FILE }], reply: e.reply, format: 'auto' });
  });
}

/** Loads an example or lesson; the case it replaces can be restored with one click. */
export function loadExample(c) {
  const previous = currentCase();
  loadCase({ active: 0, partial: false, format: 'auto', ...c });
  const note = $('share-note');
  note.replaceChildren('Loaded. ');
  const undo = document.createElement('button');
  undo.type = 'button';
  undo.className = 'link';
  undo.dataset.testid = 'restore-case';
  undo.textContent = 'Restore the previous case';
  undo.addEventListener('click', () => {
    loadCase(previous);
    note.textContent = 'Previous case restored.';
  });
  note.append(undo);
}

function share() {
  const hash = hashOf(currentCase());
  history.replaceState(null, '', hash);
  const url = location.href;
  navigator.clipboard?.writeText(url).then(
    () => ($('share-note').textContent = `Link copied (${url.length} characters); the case is in the hash only.`),
    () => ($('share-note').textContent = `The address now holds the case (${url.length} characters).`),
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

async function main() {
  setupExamples();
  showLegend();
  const start = caseFromHash(location.hash) ?? lastCase();
  loadCase(start ?? { files: [{ path: 'src/app.py', text: FILE }], reply: EXAMPLES[0].reply, format: 'auto', partial: false });
  page.engine = createEngine({ onProgress: (p) => tokens.progress(p) });
  let names;
  try {
    names = await page.engine.formats();
  } catch (e) {
    setStatus('error');
    $('note').textContent = `Could not load the WebAssembly module (build it with scripts/build-web.sh): ${e.message}`;
    return;
  }
  for (const name of ['auto', ...names.filter((n) => n !== 'auto')]) $('format').add(new Option(name, name));
  if (start) $('format').value = start.format;
  $('format-list').textContent = names.filter((n) => n !== 'auto').join(', ');
  $('format').addEventListener('change', changed);
  $('partial').addEventListener('change', changed);
  $('apply').addEventListener('click', run);
  $('share').addEventListener('click', share);
  $('use-result').addEventListener('click', keepResult);
  copyButton($('copy-feedback'), () => $('feedback').textContent);
  copyButton($('copy-continuation'), () => $('continuation').textContent);
  setupKeys();
  // The last edits before leaving are kept even within the second rememberSoon waits.
  addEventListener('pagehide', () => remember(currentCase()));
  const api = { engine: page.engine, files, fileEditor, replyEditor, review, loadExample, selectLines, currentCase, setText, idle };
  setupCompare(api);
  setupOutline(api);
  setupModelPanel(api, names);
  setupArena(api, names);
  await run();
  document.body.dataset.ready = 'true';
  performance.mark('patchbay-ready');
  // The core's second part (other formats, the udiff tools, the comparison) comes after the first
  // result. The lab's verdicts are some thirty engine calls, many of them of the second part: after
  // it has come, not before (a call that needs it sooner loads it then; so would they, a second time).
  page.engine.whenRest().then(() => setupLab(api));
}

/** Makes the reviewed result the file; files the reply created become tabs. */
function keepResult() {
  if (!page.report) return;
  setText(fileEditor.view, review.text());
  for (const f of page.report.files) {
    if (f.status === 'created' && !files.list.some((x) => x.path === f.path)) files.add(f.path, f.content ?? '', false);
  }
}

main();
