// Outline and slice: the file's definitions (the syntax module, tree-sitter
// grammars, loads in the engine's worker the first time), a click scrolls
// to one; "slice" cuts a symbol out to send alone, and a reply written
// against the slice (any format) is applied to it and spliced back into
// the whole file.
import { byId } from './dom.js';

function symbolItem(s, onGo, onSlice) {
  const item = document.createElement('li');
  item.dataset.testid = 'outline-symbol';
  item.dataset.kind = s.kind;
  item.dataset.lines = `${s.lines[0]}-${s.lines[1]}`;
  item.style.paddingLeft = `${s.depth * 1.2}em`;
  const kind = document.createElement('span');
  kind.className = 'muted';
  kind.textContent = `${s.kind} `;
  const name = document.createElement('button');
  name.type = 'button';
  name.className = 'link';
  name.textContent = s.qualified;
  name.title = `lines ${s.lines[0]}-${s.lines[1]}: show in the file`;
  name.addEventListener('click', () => onGo(s));
  const slice = document.createElement('button');
  slice.type = 'button';
  slice.className = 'secondary small';
  slice.dataset.testid = 'slice-button';
  slice.textContent = 'slice';
  slice.title = 'Send only this symbol';
  slice.addEventListener('click', () => onSlice(s));
  item.append(kind, name, ` ${s.lines[0]}-${s.lines[1]} `, slice);
  return item;
}

/**
 * The panel's elements inside `root`.
 * @param {ParentNode} root
 */
function outlineElements(root) {
  return {
    list: byId(root, 'outline'),
    note: byId(root, 'outline-note'),
    button: byId(root, 'outline-button'),
    box: byId(root, 'slice-box'),
    sliceNote: byId(root, 'slice-note'),
    sliceText: byId(root, 'slice-text'),
    reply: byId(root, 'slice-reply', HTMLTextAreaElement),
    apply: byId(root, 'slice-apply'),
    status: byId(root, 'slice-status'),
    keep: byId(root, 'slice-keep', HTMLButtonElement),
    result: byId(root, 'slice-result'),
  };
}

/**
 * The panel in `root`; the outline is cleared when the path or the shown file changes.
 * @param {HTMLElement} root
 * @param {import('./main.js').PanelApi} api
 */
export function setupOutline(root, { engine, files, fileEditor, selectLines, setText, pathInput, fileTabs }) {
  const panel = root;
  const ui = outlineElements(root);
  let current = null;
  const clear = () => {
    ui.list.replaceChildren();
    ui.note.textContent = '';
    ui.box.hidden = true;
    delete panel.dataset.state;
  };
  pathInput.addEventListener('input', clear);
  fileTabs.addEventListener('click', clear);

  const cut = async (s) => {
    const text = files.snapshot()[files.active].text;
    try {
      current = { slice: await engine.syntax.slice(files.path, text, s.qualified), text };
      ui.box.hidden = false;
      ui.sliceNote.textContent = `${current.slice.kind} ${current.slice.symbol}, lines ${current.slice.lines.join('-')} of ${files.path}: the model sees only this.`;
      ui.sliceText.textContent = current.slice.text;
      ui.result.textContent = '';
      ui.status.textContent = '';
    } catch (e) {
      ui.sliceNote.textContent = `No slice: ${e.message}`;
    }
  };

  ui.apply.addEventListener('click', async () => {
    if (!current) return;
    try {
      const r = await engine.syntax.applyToSlice(current.text, current.slice, ui.reply.value, { format: 'auto' });
      ui.status.textContent = `${r.report.status} (${r.report.format}); the whole file after the splice:`;
      ui.status.dataset.status = r.report.status;
      ui.result.textContent = r.text;
      ui.keep.disabled = r.report.status !== 'applied';
    } catch (e) {
      ui.keep.disabled = true;
      ui.status.textContent = `Not spliced: ${e.message}`;
      ui.status.dataset.status = 'error';
    }
  });

  ui.keep.addEventListener('click', () => {
    setText(fileEditor.view, ui.result.textContent);
    ui.box.hidden = true;
  });

  ui.button.addEventListener('click', async () => {
    ui.note.textContent = 'Loading the syntax module...';
    ui.list.replaceChildren();
    try {
      const text = files.snapshot()[files.active].text;
      const outline = await engine.syntax.outline(files.path, text);
      ui.list.replaceChildren(...outline.symbols.map((s) => symbolItem(s, (x) => selectLines(x.lines[0], x.lines[1]), cut)));
      ui.note.textContent = `${outline.symbols.length} symbols (${outline.language})`;
      panel.dataset.state = 'ready';
    } catch (e) {
      ui.note.textContent = `No outline: ${e.message}`;
      panel.dataset.state = 'error';
    }
  });
}
