// Format comparison: from the file and a wanted result (the engine's result,
// or text edited by hand), every format's canonical edit with its bytes,
// tokens and whether it applies unambiguously, and the advisor's pick. Any
// of them loads into the reply editor in one click.
import { EditorView } from '@codemirror/view';
import { createPlainEditor, setText } from './editors.js';
import { byId, loadButton } from './dom.js';

function card(cost, picked, onLoad) {
  const article = document.createElement('article');
  article.dataset.testid = 'compare-format';
  article.dataset.format = cost.format;
  article.dataset.unambiguous = String(cost.unambiguous);
  if (picked) article.classList.add('picked');
  const h = document.createElement('h3');
  h.textContent = `${cost.format}${picked ? ' (advised)' : ''}`;
  const facts = document.createElement('p');
  facts.className = 'muted';
  facts.textContent = `${cost.bytes} bytes · ${cost.tokens} tokens · ${
    cost.unambiguous ? 'applies unambiguously' : `does not apply: ${cost.problem ?? 'ambiguous'}`
  }`;
  const pre = document.createElement('pre');
  pre.className = 'code small-code';
  pre.textContent = cost.edit;
  const load = loadButton('compare-load', 'Load into the reply', () => onLoad(cost));
  article.append(h, facts, load, pre);
  return article;
}

/**
 * The panel in `root`.
 * @param {HTMLElement} root
 * @param {import('./main.js').PanelApi} api
 */
export function setupCompare(root, { engine, files, replyEditor, review, tokenizer, pickFormat }) {
  const ui = {
    target: byId(root, 'compare-target'),
    note: byId(root, 'compare-note'),
    advice: byId(root, 'advice'),
    grid: byId(root, 'compare-grid'),
    run: byId(root, 'compare-run'),
  };
  let timer = null;
  const soon = EditorView.updateListener.of((u) => {
    if (!u.docChanged || !u.transactions.some((t) => t.isUserEvent('input') || t.isUserEvent('delete'))) return;
    clearTimeout(timer);
    timer = setTimeout(run, 250);
  });
  const target = createPlainEditor(ui.target, '', soon, 'Wanted result');
  async function run() {
    const before = files.snapshot()[files.active].text;
    const after = target.state.doc.toString();
    try {
      const family = tokenizer().split(':')[1];
      const c = await engine.compare(before, after, { path: files.path || 'file', tokenizer: `estimate:${family}` });
      ui.note.textContent = `${c.changedLines} of ${c.linesBefore} lines change (${Math.round(c.changeRatio * 100)}%), tokens by ${c.tokenizer}.`;
      ui.advice.textContent = `Advised: ${c.recommendation.format}. ${c.recommendation.reason}.`;
      ui.advice.dataset.format = c.recommendation.format;
      const load = (cost) => {
        setText(replyEditor, cost.edit);
        pickFormat(cost.format);
      };
      ui.grid.replaceChildren(...c.formats.map((f) => card(f, f.format === c.recommendation.format, load)));
      root.dataset.state = 'ready';
    } catch (e) {
      ui.note.textContent = `No comparison: ${e.message}`;
      root.dataset.state = 'error';
    }
  }
  ui.run.addEventListener('click', () => {
    setText(target, review.text());
    run();
  });
}
