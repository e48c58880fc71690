// The unified-diff panel: when the reply is a udiff, says hunk by hunk why
// strict application (`git apply`) fails or succeeds, shows the repaired diff
// and warns when GNU patch with its default fuzz would silently put a hunk
// somewhere else. Every answer comes from the engine; this file lays it out.
import { copyButton } from './copy.js';
import { byId, make } from './dom.js';

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

/**
 * @param {UdiffElements} ui
 * @param {Engine} engine
 * @param {Record<string, string>} files
 * @param {string} reply
 */
async function showRepair(ui, engine, files, reply) {
  try {
    ui.repaired.value = await engine.repairUdiff(files, reply);
    ui.repairNote.textContent = 'A corrected diff that git apply accepts, with the same result as patchbay:';
    ui.copy.disabled = false;
  } catch (e) {
    ui.repaired.value = '';
    ui.repairNote.textContent = String(e?.message ?? e);
    ui.copy.disabled = true;
  }
}

/**
 * Shows the panel for a udiff reply, hides it for anything else.
 * @param {UdiffElements} ui
 * @param {Engine} engine
 * @param {Record<string, string>} files
 * @param {string} reply
 * @param {string} format the format the engine used
 */
async function showUdiff(ui, engine, files, reply, format) {
  const panel = ui.panel;
  panel.hidden = format !== 'udiff';
  if (panel.hidden) return;
  let hunks, fuzz, note;
  try {
    [hunks, fuzz] = await Promise.all([engine.diagnoseUdiff(files, reply), engine.simulatePatchFuzz(files, reply)]);
    const failing = hunks.filter((h) => !h.strictOk).length;
    note =
      hunks.length === 0
        ? 'No hunk found in the reply.'
        : `${hunks.length} hunk${hunks.length === 1 ? '' : 's'}; ${
            failing === 0 ? 'git apply accepts every one' : `git apply fails on ${failing}`
          }.`;
  } catch (e) {
    [hunks, fuzz, note] = [[], [], `No diagnosis: ${e?.message ?? e}`];
  }
  ui.note.textContent = note;
  const silent = fuzz.filter((r) => SILENT.has(r.verdict));
  const warning = ui.warning;
  warning.hidden = silent.length === 0;
  warning.textContent = silent.length
    ? `GNU patch (default fuzz 2) would report success and silently misapply this diff: ${silent
        .map((r) => `hunk ${r.hunk}: ${r.message}`)
        .join('; ')}.`
    : '';
  ui.diagnosis.replaceChildren(...hunks.map((h) => hunkItem(h, fuzz)));
  await showRepair(ui, engine, files, reply);
}

/**
 * The panel in `root`: `show(engine, files, reply, format)` draws it for a
 * report (hidden unless the format is udiff), `hide()` hides it.
 * @param {HTMLElement} root
 */
export function setupUdiff(root) {
  const ui = udiffElements(root);
  copyButton(ui.copy, () => ui.repaired.value, () => ui.repaired.select());
  return {
    /**
     * @param {Engine} engine
     * @param {Record<string, string>} files
     * @param {string} reply
     * @param {string} format
     */
    show: (engine, files, reply, format) => showUdiff(ui, engine, files, reply, format),
    hide: () => {
      root.hidden = true;
    },
  };
}
