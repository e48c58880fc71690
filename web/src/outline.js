// Outline and slice: the file's definitions (the syntax module, tree-sitter
// grammars, loads in the engine's worker the first time), a click scrolls
// to one; "slice" cuts a symbol out to send alone, and a reply written
// against the slice (any format) is applied to it and spliced back into
// the whole file.
import { byId, fill, make } from './dom.js';

/**
 * One symbol of the outline: a click on its name shows it, "slice" cuts it out.
 * @param {import('patchbay/syntax').OutlineSymbol} s
 * @param {(s: import('patchbay/syntax').OutlineSymbol) => void} onGo
 * @param {(s: import('patchbay/syntax').OutlineSymbol) => void} onSlice
 */
function symbolItem(s, onGo, onSlice) {
  const lines = `${s.lines[0]}-${s.lines[1]}`;
  const name = make('button', { type: 'button', className: 'link', textContent: s.qualified, title: `lines ${lines}: show in the file` });
  name.addEventListener('click', () => onGo(s));
  const slice = make('button', { type: 'button', className: 'secondary small', textContent: 'slice', title: 'Send only this symbol', data: { testid: 'slice-button' } });
  slice.addEventListener('click', () => onSlice(s));
  const item = make('li', { data: { testid: 'outline-symbol', kind: s.kind, lines } },
    make('span', { className: 'muted', textContent: `${s.kind} ` }), name, ` ${lines} `, slice);
  item.style.paddingLeft = `${s.depth * 1.2}em`;
  return item;
}

/**
 * The panel's elements inside `root`.
 * @param {HTMLElement} root
 */
function outlineElements(root) {
  return {
    root,
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

/** @typedef {ReturnType<typeof outlineElements>} OutlineElements */

/**
 * Draws the outline and the slice box from `state`; `symbol` makes a symbol's entry.
 * @param {OutlineElements} ui
 * @param {import('./state.js').OutlineState} state
 * @param {(s: import('patchbay/syntax').OutlineSymbol) => HTMLElement} symbol
 */
export function renderOutline(ui, state, symbol) {
  const ready = state.status === 'ready';
  fill(ui.list, ready ? state.outline : null, () => (ready ? state.outline.symbols.map(symbol) : []));
  ui.note.textContent = {
    none: '',
    loading: 'Loading the syntax module...',
    ready: ready && `${state.outline.symbols.length} symbols (${state.outline.language})`,
    error: `No outline: ${state.error}`,
  }[state.status];
  if (ready || state.status === 'error') ui.root.dataset.state = state.status;
  else if (state.status === 'none') delete ui.root.dataset.state;
  ui.box.hidden = !state.open;
  renderSlice(ui, state);
}

/**
 * The slice box: the cut symbol, and the reply spliced back into the file.
 * @param {OutlineElements} ui
 * @param {import('./state.js').OutlineState} state
 */
function renderSlice(ui, state) {
  const { cut, splice } = state;
  ui.sliceNote.textContent = state.cutError !== null
    ? `No slice: ${state.cutError}`
    : cut && `${cut.slice.kind} ${cut.slice.symbol}, lines ${cut.slice.lines.join('-')} of ${cut.path}: the model sees only this.`;
  ui.sliceText.textContent = cut?.slice.text ?? '';
  ui.result.textContent = splice?.text ?? '';
  if (state.spliceError !== null) {
    ui.status.textContent = `Not spliced: ${state.spliceError}`;
    ui.status.dataset.status = 'error';
  } else if (splice) {
    ui.status.textContent = `${splice.status} (${splice.format}); the whole file after the splice:`;
    ui.status.dataset.status = splice.status;
  } else {
    ui.status.textContent = '';
    delete ui.status.dataset.status;
  }
  ui.keep.disabled = state.spliceError !== null || splice?.status !== 'applied';
}

/**
 * The panel in `root`, its part of the page's state in `state`; the outline
 * is cleared when the path or the shown file changes.
 * @param {HTMLElement} root
 * @param {import('./main.js').PanelApi} api
 * @param {import('./state.js').OutlineState} state
 */
export function setupOutline(root, { engine, files, fileEditor, selectLines, setText, pathInput, fileTabs }, state) {
  const ui = outlineElements(root);
  /** @param {import('patchbay/syntax').OutlineSymbol} s */
  const cut = async (s) => {
    const text = files.snapshot()[files.active].text;
    try {
      state.cut = { slice: await engine.syntax.slice(files.path, text, s.qualified), text, path: files.path };
      Object.assign(state, { cutError: null, open: true, splice: null, spliceError: null });
    } catch (e) {
      state.cutError = String(e.message);
    }
    render();
  };
  const symbol = (/** @type {import('patchbay/syntax').OutlineSymbol} */ s) => symbolItem(s, (x) => selectLines(x.lines[0], x.lines[1]), cut);
  const render = () => renderOutline(ui, state, symbol);
  const clear = () => {
    Object.assign(state, { status: 'none', open: false });
    render();
  };
  pathInput.addEventListener('input', clear);
  fileTabs.addEventListener('click', clear);

  ui.apply.addEventListener('click', async () => {
    if (!state.cut) return;
    try {
      const r = await engine.syntax.applyToSlice(state.cut.text, state.cut.slice, ui.reply.value, { format: 'auto' });
      state.splice = { status: r.report.status, format: r.report.format, text: r.text };
      state.spliceError = null;
    } catch (e) {
      state.spliceError = String(e.message);
    }
    render();
  });

  ui.keep.addEventListener('click', () => {
    setText(fileEditor.view, state.splice?.text ?? '');
    state.open = false;
    render();
  });

  ui.button.addEventListener('click', async () => {
    state.status = 'loading';
    render();
    try {
      const text = files.snapshot()[files.active].text;
      state.outline = await engine.syntax.outline(files.path, text);
      state.status = 'ready';
    } catch (e) {
      state.error = String(e.message);
      state.status = 'error';
    }
    render();
  });
}
