// The unified-diff panel: when the reply is a udiff, says hunk by hunk why
// strict application (`git apply`) fails or succeeds, shows the repaired diff
// and warns when GNU patch with its default fuzz would silently put a hunk
// somewhere else. Every answer comes from the engine; this file lays it out.
import { copyButton } from './copy.js';
import { byId, fill, make } from './dom.js';

/** Verdicts where patch reports success for a hunk put in the wrong place. */
export const SILENT = new Set(['misplaced', 'no_safe_place']);

function hunkItem(h, fuzz) {
  const item = make('li');
  item.dataset.testid = 'hunk';
  item.dataset.strict = h.strictOk ? 'ok' : 'fails';
  const lenient = h.lenientLines
    ? `patchbay applies it at lines ${h.lenientLines[0]}-${h.lenientLines[1]}`
    : 'patchbay refuses it';
  const head = make('div', { className: 'hunk-head' });
  head.append(
    make('strong', { textContent: `Hunk ${h.hunk}` }),
    ` (${h.path ?? 'no file'}, reply line ${h.outputLine}) `,
    make('code', { textContent: h.header.trim() }),
    ': ',
    make('span', { textContent: h.strictOk ? 'git apply accepts it' : 'git apply fails', className: h.strictOk ? 'ok' : 'bad' }),
    `; ${lenient}.`,
  );
  const findings = make('ul');
  for (const f of h.findings) {
    const li = make('li', { textContent: f.message, className: f.fatal ? 'fatal' : '' });
    li.dataset.testid = 'finding';
    li.dataset.kind = f.kind;
    findings.append(li);
  }
  item.append(head, findings);
  const r = fuzz.find((x) => x.hunk === h.hunk);
  if (r) {
    const p = make('p', { textContent: `GNU patch: ${r.message}`, className: `patch ${SILENT.has(r.verdict) ? 'warn' : 'muted'}` });
    p.dataset.testid = 'patch-verdict';
    p.dataset.verdict = r.verdict;
    item.append(p);
  }
  return item;
}

/** @typedef {ReturnType<typeof udiffElements>} UdiffElements */
/** @typedef {import('./state.js').Engine} Engine */

/**
 * The panel's elements inside `root`.
 * @param {HTMLElement} root
 */
function udiffElements(root) {
  return {
    panel: root,
    note: byId(root, 'udiff-note'),
    warning: byId(root, 'fuzz-warning'),
    diagnosis: byId(root, 'diagnosis'),
    repaired: byId(root, 'repaired', HTMLTextAreaElement),
    repairNote: byId(root, 'repair-note'),
    copy: byId(root, 'copy-repaired', HTMLButtonElement),
  };
}

/** @typedef {import('./state.js').UdiffState} UdiffState */

/**
 * Draws the panel from `state`: hidden unless the reply is a udiff; the
 * hunks' verdicts, the fuzz warning and the repaired diff.
 * @param {UdiffElements} ui
 * @param {UdiffState} state
 */
export function renderUdiff(ui, state) {
  ui.panel.hidden = !state.shown;
  if (!state.shown || !state.diagnosis) return;
  const { hunks, fuzz, note } = state.diagnosis;
  ui.note.textContent = note;
  const silent = fuzz.filter((r) => SILENT.has(r.verdict));
  ui.warning.hidden = silent.length === 0;
  ui.warning.textContent = silent.length
    ? `GNU patch (default fuzz 2) would report success and silently misapply this diff: ${silent
        .map((r) => `hunk ${r.hunk}: ${r.message}`)
        .join('; ')}.`
    : '';
  fill(ui.diagnosis, state.diagnosis, () => hunks.map((h) => hunkItem(h, fuzz)));
  const repair = state.repair;
  if (!repair) return;
  ui.repaired.value = repair.text;
  ui.repairNote.textContent = repair.error ?? 'A corrected diff that git apply accepts, with the same result as patchbay:';
  ui.copy.disabled = repair.error !== null;
}

/**
 * The hunks' diagnosis and GNU patch's verdicts for a udiff reply.
 * @param {Engine} engine
 * @param {Record<string, string>} files
 * @param {string} reply
 * @returns {Promise<UdiffState['diagnosis']>}
 */
async function diagnosis(engine, files, reply) {
  try {
    const [hunks, fuzz] = await Promise.all([engine.diagnoseUdiff(files, reply), engine.simulatePatchFuzz(files, reply)]);
    const failing = hunks.filter((h) => !h.strictOk).length;
    const note =
      hunks.length === 0
        ? 'No hunk found in the reply.'
        : `${hunks.length} hunk${hunks.length === 1 ? '' : 's'}; ${
            failing === 0 ? 'git apply accepts every one' : `git apply fails on ${failing}`
          }.`;
    return { hunks, fuzz, note };
  } catch (e) {
    return { hunks: [], fuzz: [], note: `No diagnosis: ${e?.message ?? e}` };
  }
}

/**
 * The repaired diff, or why there is none.
 * @param {Engine} engine
 * @param {Record<string, string>} files
 * @param {string} reply
 * @returns {Promise<UdiffState['repair']>}
 */
async function repair(engine, files, reply) {
  try {
    return { text: await engine.repairUdiff(files, reply), error: null };
  } catch (e) {
    return { text: '', error: String(e?.message ?? e) };
  }
}

/**
 * The panel in `root`, its part of the page's state in `state`:
 * `show(engine, files, reply, format)` draws it for a report (hidden unless
 * the format is udiff), `hide()` hides it.
 * @param {HTMLElement} root
 * @param {UdiffState} state
 */
export function setupUdiff(root, state) {
  const ui = udiffElements(root);
  copyButton(ui.copy, () => ui.repaired.value, () => ui.repaired.select());
  return {
    /**
     * @param {Engine} engine
     * @param {Record<string, string>} files
     * @param {string} reply
     * @param {string} format
     */
    show: async (engine, files, reply, format) => {
      state.shown = format === 'udiff';
      renderUdiff(ui, state);
      if (!state.shown) return;
      state.diagnosis = await diagnosis(engine, files, reply);
      renderUdiff(ui, state);
      state.repair = await repair(engine, files, reply);
      renderUdiff(ui, state);
    },
    hide: () => {
      state.shown = false;
      renderUdiff(ui, state);
    },
  };
}
