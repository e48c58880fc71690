// The tags toggle: the file as the model sees it. In the gutter (`N:TAG`
// beside each line), as the hashline view's text, or as the `lines`
// format's numbered view with the file's CRC-32; the text can be copied.
import { setTags, tagsFromView } from 'patchbay/codemirror';
import { copyButton } from './copy.js';
import { byId, writeText } from './dom.js';

/** @typedef {import('./state.js').TagsState} TagsState */
/** @typedef {ReturnType<typeof import('./editors.js').createFileEditor>} FileEditor */

/**
 * The toggle's elements inside `root`.
 * @param {ParentNode} root
 */
function tagsElements(root) {
  return {
    on: byId(root, 'tags', HTMLInputElement),
    length: byId(root, 'tag-length', HTMLSelectElement),
    view: byId(root, 'tag-view', HTMLSelectElement),
    copy: byId(root, 'copy-tags', HTMLButtonElement),
    text: byId(root, 'tag-text'),
  };
}

/**
 * Draws `state`: the gutter's tags in `editor`, or the view's text.
 * @param {ReturnType<typeof tagsElements>} ui
 * @param {TagsState} state
 * @param {FileEditor} editor
 */
export function renderTags(ui, state, editor) {
  editor.showTags(state.on && state.view === 'gutter');
  ui.text.hidden = !state.on || state.view === 'gutter';
  ui.copy.disabled = !state.on;
  if (!state.on || state.textView === null) return;
  if (state.textView === 'gutter') editor.view.dispatch({ effects: setTags.of(tagsFromView(state.text)) });
  else writeText(ui.text, state.text);
  ui.text.dataset.view = state.textView;
}

/**
 * The toggle in `root`, its part of the page's state in `state`;
 * `refresh()` recomputes the shown view for the file as it is now.
 * @param {ParentNode} root
 * @param {FileEditor} editor
 * @param {import('./files.js').Files} files
 * @param {() => import('./state.js').Engine} engine
 * @param {TagsState} state
 */
export function setupTags(root, editor, files, engine, state) {
  const ui = tagsElements(root);
  const refresh = async () => {
    Object.assign(state, { on: ui.on.checked, view: ui.view.value });
    renderTags(ui, state, editor);
    if (!state.on) return;
    const doc = editor.view.state.doc;
    const text = editor.view.state.sliceDoc();
    const view = state.view;
    const shown = view === 'crc'
      ? await engine().crcView(files.path || 'file', text)
      : await engine().tagView(text, { len: Number(ui.length.value) });
    // The file changed while the engine worked: a newer refresh follows.
    if (editor.view.state.doc !== doc) return;
    Object.assign(state, { text: shown, textView: view });
    renderTags(ui, state, editor);
  };
  for (const input of [ui.on, ui.length, ui.view]) input.addEventListener('change', refresh);
  copyButton(ui.copy, () => state.text);
  return { refresh };
}
