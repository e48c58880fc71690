// The unified-diff panel: when the reply is a udiff, says hunk by hunk why
// strict application (`git apply`) fails or succeeds, shows the repaired diff
// and warns when GNU patch with its default fuzz would silently put a hunk
// somewhere else (seed 000's lesson). Every answer comes from the core through
// the wasm module; this file only lays it out.
import { diagnoseUdiff, repairUdiff, simulatePatchFuzz } from './pkg/patchbay_wasm.js';

const $ = (id) => document.getElementById(id);

/** Verdicts where patch reports success for a hunk put in the wrong place. */
const SILENT = new Set(['misplaced', 'no_safe_place']);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

/** One list item per hunk: its verdicts, the findings, and patch's placement. */
function showHunks(hunks, fuzz) {
  const list = $('diagnosis');
  list.replaceChildren();
  for (const h of hunks) {
    const item = el('li');
    item.dataset.testid = 'hunk';
    item.dataset.strict = h.strictOk ? 'ok' : 'fails';
    const lenient = h.lenientLines
      ? `patchbay applies it at lines ${h.lenientLines[0]}-${h.lenientLines[1]}`
      : 'patchbay refuses it';
    const head = el('div', '', 'hunk-head');
    head.append(
      el('strong', `Hunk ${h.hunk}`),
      ` (${h.path ?? 'no file'}, reply line ${h.outputLine}) `,
      el('code', h.header.trim()),
      ': ',
      el('span', h.strictOk ? 'git apply accepts it' : 'git apply fails', h.strictOk ? 'ok' : 'bad'),
      `; ${lenient}.`,
    );
    const findings = el('ul');
    for (const f of h.findings) {
      const li = el('li', f.message, f.fatal ? 'fatal' : '');
      li.dataset.testid = 'finding';
      li.dataset.kind = f.kind;
      findings.append(li);
    }
    item.append(head, findings);
    const r = fuzz.find((x) => x.hunk === h.hunk);
    if (r) {
      const p = el('p', `GNU patch: ${r.message}`, `patch ${SILENT.has(r.verdict) ? 'warn' : 'muted'}`);
      p.dataset.testid = 'patch-verdict';
      p.dataset.verdict = r.verdict;
      item.append(p);
    }
    list.append(item);
  }
}

function showRepair(reply, files) {
  $('copy-repaired').textContent = 'Copy';
  try {
    $('repaired').value = repairUdiff(files, reply);
    $('repair-note').textContent = 'A corrected diff that git apply accepts, with the same result as patchbay:';
    $('copy-repaired').disabled = false;
  } catch (e) {
    $('repaired').value = '';
    $('repair-note').textContent = String(e?.message ?? e);
    $('copy-repaired').disabled = true;
  }
}

/** Shows the panel for a udiff reply, hides it for anything else. */
export function showUdiff(files, reply, format) {
  const panel = $('udiff-panel');
  panel.hidden = format !== 'udiff';
  if (panel.hidden) return;
  let hunks, fuzz, note;
  try {
    hunks = diagnoseUdiff(files, reply);
    fuzz = simulatePatchFuzz(files, reply);
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
  $('udiff-note').textContent = note;
  const silent = fuzz.filter((r) => SILENT.has(r.verdict));
  const warning = $('fuzz-warning');
  warning.hidden = silent.length === 0;
  warning.textContent = silent.length
    ? `GNU patch (default fuzz 2) would report success and silently misapply this diff: ${silent
        .map((r) => `hunk ${r.hunk}: ${r.message}`)
        .join('; ')}.`
    : '';
  showHunks(hunks, fuzz);
  showRepair(reply, files);
}

/** Hides the panel (the request itself was rejected). */
export function hideUdiff() {
  $('udiff-panel').hidden = true;
}

async function copy() {
  const text = $('repaired').value;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard permission (an insecure origin, a denied prompt): select it for Ctrl+C.
    $('repaired').select();
    $('copy-repaired').textContent = 'Selected';
    return;
  }
  $('copy-repaired').textContent = 'Copied';
}

$('copy-repaired').addEventListener('click', copy);
