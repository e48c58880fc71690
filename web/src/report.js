// Lays out one engine report: the status, the format and why, a note on
// the shown file, the receipts and the feedback. Every fact comes from the
// report; this file only decides the words. It draws into the elements
// it is given (`resultElements`), never looks them up itself.
import { byId } from './dom.js';

/** @typedef {import('patchbay').Report} Report */
/** @typedef {import('patchbay').Detection} Detection */
/** @typedef {Report['files'][number]['edits'][number] & { path: string }} Receipt */

/**
 * The elements a report is drawn into.
 * @typedef {object} ResultElements
 * @property {HTMLElement} status
 * @property {HTMLElement} formatUsed
 * @property {HTMLElement} formatWhy
 * @property {HTMLElement} note
 * @property {HTMLTableElement} receipts
 * @property {HTMLElement} feedback
 * @property {HTMLElement} navStatus the status's copy in the section bar
 */

/**
 * The report's elements inside `root`.
 * @param {ParentNode} root
 * @returns {ResultElements}
 */
export function resultElements(root) {
  return {
    status: byId(root, 'status'),
    formatUsed: byId(root, 'format-used'),
    formatWhy: byId(root, 'format-why'),
    note: byId(root, 'note'),
    receipts: byId(root, 'receipts', HTMLTableElement),
    feedback: byId(root, 'feedback'),
    navStatus: byId(root, 'nav-status'),
  };
}

/**
 * @param {ResultElements} ui
 * @param {string} text
 * @param {string} [kind] the badge's colour, `text` unless told
 */
export function setStatus(ui, text, kind) {
  for (const badge of [ui.status, ui.navStatus]) {
    badge.textContent = text;
    badge.className = `badge ${kind ?? text}`;
  }
}

/**
 * @param {HTMLTableRowElement} row
 * @param {string | null | undefined} text
 * @param {string} [cls]
 */

function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text ?? '';
  if (cls) td.className = cls;
  return td;
}

/**
 * What the note says about the shown file at `path`.
 * @param {Report} report
 * @param {string} path
 */
export function noteFor(report, path) {
  if (!path) return 'The shown file has no path: give it one (replies name the files they edit by path).';
  const mine = report.files.find((f) => f.path === path);
  const applied = (mine?.edits ?? []).filter((e) => e.status === 'applied').length;
  const total = mine?.edits.length ?? 0;
  let note;
  if (mine?.content !== undefined && report.status !== 'applied') {
    note = `Partial mode: ${applied} of ${total} edits of ${path} applied; the diff shows them, the receipts say why the rest failed.`;
  } else if (mine?.content !== undefined) {
    note = `${path}, ${mine.status}.`;
  } else if (mine?.status === 'deleted') {
    note = `${path} is deleted by this reply.`;
  } else if (report.status === 'applied') {
    note = `${path} was not touched by this reply.`;
  } else {
    note = `Nothing was applied; ${path} is unchanged.`;
  }
  const others = report.files.filter((f) => f.path !== path).map((f) => `${f.path} (${f.status})`);
  if (others.length > 0) note += ` Other files in the reply: ${others.join(', ')}.`;
  const r = report.reasoning;
  if (r) note += ` The reasoning section <${r.tag}> (reply lines ${r.lines[0]}-${r.lines[1]}) was skipped: nothing in it is read.`;
  return note;
}

/**
 * The receipts table (token counts follow, `showEditTokens`); `onPick(receipt)` on a click.
 * @param {ResultElements} ui
 * @param {Report} report
 * @param {(r: Receipt) => void} onPick
 */
export function showReceipts(ui, report, onPick) {
  const body = ui.receipts.tBodies[0];
  body.replaceChildren();
  const receipts = report.files.flatMap((f) => f.edits.map((r) => ({ ...r, path: f.path })));
  receipts.sort((a, b) => a.index - b.index);
  for (const r of receipts) {
    const row = body.insertRow();
    row.dataset.testid = 'receipt';
    row.dataset.status = r.status;
    if (r.code) row.dataset.code = r.code;
    if (r.strategy) row.dataset.level = r.strategy;
    row.dataset.index = String(r.index);
    row.tabIndex = 0;
    row.title = 'Show in the file';
    cell(row, String(r.index), 'index');
    cell(row, r.path, 'path');
    cell(row, r.status, `status ${r.status}`);
    cell(row, r.code, 'code');
    cell(row, r.strategy, 'strategy');
    cell(row, r.lines ? `${r.lines[0]}-${r.lines[1]}` : '', 'lines');
    cell(row, '', 'tokens');
    cell(row, r.message, 'message');
    const pick = () => onPick(r);
    row.addEventListener('click', pick);
    row.addEventListener('keydown', (e) => e.key === 'Enter' && pick());
  }
  if (receipts.length === 0) {
    const row = body.insertRow();
    const td = cell(row, report.code ? `no edit receipts (${report.code})` : 'no edits', 'empty');
    td.colSpan = 8;
  }
}

/**
 * Fills the receipts' token column: `counts` maps an edit's index to its tokens.
 * @param {ResultElements} ui
 * @param {Map<number, number>} counts
 */
export function showEditTokens(ui, counts) {
  for (const row of ui.receipts.tBodies[0].rows) {
    const n = counts.get(Number(row.dataset.index));
    if (n !== undefined) row.querySelector('td.tokens').textContent = String(n);
  }
}

/**
 * Shows the format used, and when it was detected, why.
 * @param {ResultElements} ui
 * @param {Report} report
 * @param {Detection | null} detection
 */
export function showFormat(ui, report, detection) {
  ui.formatUsed.textContent = `format: ${report.format}${detection ? ' (detected)' : ''}`;
  ui.formatWhy.textContent = detection
    ? `Detected ${detection.format} (confidence ${Math.round(detection.confidence * 100)}%): ${detection.reason}.`
    : 'Format chosen in the menu.';
}

/**
 * The page for a request the engine rejected as a whole (bad options).
 * @param {ResultElements} ui
 * @param {unknown} error
 */
export function showRejected(ui, error) {
  setStatus(ui, 'error');
  ui.formatUsed.textContent = '';
  ui.formatWhy.textContent = '';
  ui.note.textContent = 'The request itself was rejected.';
  ui.receipts.tBodies[0].replaceChildren();
  ui.feedback.textContent = error instanceof Error ? error.message : String(error);
}
