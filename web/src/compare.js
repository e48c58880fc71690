// Format comparison: from the file and a wanted result (the engine's result,
// or text edited by hand), every format's canonical edit with its bytes,
// tokens and whether it applies unambiguously, and the advisor's pick. Any
// of them loads into the reply editor in one click.
import { EditorView } from '@codemirror/view';
import { createPlainEditor, setText } from './editors.js';
import { byId, fill, loadButton, make } from './dom.js';

/**
 * One format's card; its button loads the edit into the reply.
 * @param {import('patchbay').FormatCost} cost
 * @param {boolean} picked the advisor's pick
 * @param {(cost: import('patchbay').FormatCost) => void} onLoad
 */
function card(cost, picked, onLoad) {
  const problem = cost.unambiguous ? 'applies unambiguously' : `does not apply: ${cost.problem ?? 'ambiguous'}`;
  return make('article', { className: picked ? 'picked' : '', data: { testid: 'compare-format', format: cost.format, unambiguous: String(cost.unambiguous) } },
    make('h3', { textContent: `${cost.format}${picked ? ' (advised)' : ''}` }),
    make('p', { className: 'muted', textContent: `${cost.bytes} bytes · ${cost.tokens} tokens · ${problem}` }),
    loadButton('compare-load', 'Load into the reply', () => onLoad(cost)),
    make('pre', { className: 'code small-code', textContent: cost.edit }));
}

/** @typedef {ReturnType<typeof compareElements>} CompareElements */

/**
 * The panel's elements inside `root`.
 * @param {HTMLElement} root
 */
function compareElements(root) {
  return {
    root,
    target: byId(root, 'compare-target'),
    note: byId(root, 'compare-note'),
    advice: byId(root, 'advice'),
    grid: byId(root, 'compare-grid'),
    run: byId(root, 'compare-run'),
  };
}

/**
 * Draws the comparison in `state` (its cards stay when a newer one fails);
 * `onLoad(cost)` is a card's button.
 * @param {CompareElements} ui
 * @param {import('./state.js').CompareState} state
 * @param {(cost: import('patchbay').FormatCost) => void} onLoad
 */
export function renderCompare(ui, state, onLoad) {
  const c = state.comparison;
  if (c) {
    ui.advice.textContent = `Advised: ${c.recommendation.format}. ${c.recommendation.reason}.`;
    ui.advice.dataset.format = c.recommendation.format;
    fill(ui.grid, c, () => c.formats.map((f) => card(f, f.format === c.recommendation.format, onLoad)));
  }
  if (state.error !== null) {
    ui.note.textContent = `No comparison: ${state.error}`;
    ui.root.dataset.state = 'error';
  } else if (c) {
    ui.note.textContent = `${c.changedLines} of ${c.linesBefore} lines change (${Math.round(c.changeRatio * 100)}%), tokens by ${c.tokenizer}.`;
    ui.root.dataset.state = 'ready';
  }
}

/**
 * The panel in `root`, its part of the page's state in `state`.
 * @param {HTMLElement} root
 * @param {import('./main.js').PanelApi} api
 * @param {import('./state.js').CompareState} state
 */
export function setupCompare(root, { engine, files, replyEditor, review, tokenizer, pickFormat }, state) {
  const ui = compareElements(root);
  /** @param {import('patchbay').FormatCost} cost */
  const load = (cost) => {
    setText(replyEditor, cost.edit);
    pickFormat(cost.format);
  };
  const render = () => renderCompare(ui, state, load);
  const soon = EditorView.updateListener.of((u) => {
    if (!u.docChanged || !u.transactions.some((t) => t.isUserEvent('input') || t.isUserEvent('delete'))) return;
    clearTimeout(state.timer);
    state.timer = setTimeout(run, 250);
  });
  const target = createPlainEditor(ui.target, '', soon, 'Wanted result');
  async function run() {
    state.timer = null;
    const before = files.snapshot()[files.active].text;
    const after = target.state.doc.toString();
    try {
      const family = tokenizer().split(':')[1];
      state.comparison = await engine.compare(before, after, { path: files.path || 'file', tokenizer: `estimate:${family}` });
      state.error = null;
    } catch (e) {
      state.error = String(e.message);
    }
    render();
  }
  ui.run.addEventListener('click', () => {
    setText(target, review.text());
    run();
  });
}
