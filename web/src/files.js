// The files of the case: one tab each, the active one in the file editor
// (each keeps its own EditorState, so its own undo history), its path in
// the Path box. A path the user never typed may be taken from the reply.
import { byId, make } from './dom.js';

/** @typedef {import('./state.js').FilesState} FilesState */
/** @typedef {ReturnType<typeof import('./editors.js').createFileEditor>} FileEditor */

/**
 * The files' elements inside `root`.
 * @param {ParentNode} root
 */
function filesElements(root) {
  return {
    path: byId(root, 'path', HTMLInputElement),
    pathNote: byId(root, 'path-note'),
    tabs: byId(root, 'tabs'),
    add: byId(root, 'add-file', HTMLButtonElement),
    remove: byId(root, 'remove-file', HTMLButtonElement),
  };
}

/**
 * Draws the files from `state`: the active one in the editor (when it is
 * not the one `drawn` holds), its path in the Path box (unless the box
 * already says it, as while it is typed), the note, the tabs.
 * `onPick(i)` is a tab's click.
 * @param {ReturnType<typeof filesElements>} ui
 * @param {FilesState} state
 * @param {FileEditor} editor
 * @param {{ file: object | null }} drawn the file the editor shows
 * @param {(i: number) => void} onPick
 */
export function renderFiles(ui, state, editor, drawn, onPick) {
  const f = state.list[state.active];
  if (drawn.file !== f) {
    editor.show(f.state);
    drawn.file = f;
  }
  if (ui.path.value.trim() !== f.path) ui.path.value = f.path;
  ui.pathNote.textContent = state.note;
  editor.setLanguage(f.path);
  ui.tabs.replaceChildren(...state.list.map((x, i) => {
    const b = make('button', { type: 'button', role: 'tab', textContent: x.path || '(no path)', data: { testid: 'tab' } });
    b.setAttribute('aria-selected', String(i === state.active));
    b.addEventListener('click', () => onPick(i));
    return b;
  }));
  ui.remove.disabled = state.list.length <= 1;
}

export class Files {
  /**
   * `root` holds the tabs, the path box and the add and remove buttons;
   * `editor` from createFileEditor; `onChange()` hears any change of files
   * or paths; `state` is the files' part of the page's state.
   * @param {ParentNode} root
   * @param {FileEditor} editor
   * @param {() => void} onChange
   * @param {FilesState} state
   */
  constructor(root, editor, onChange, state) {
    this.editor = editor;
    this.onChange = onChange;
    this.state = state;
    this.ui = filesElements(root);
    /** The file the editor shows. */
    this.drawn = { file: null };
    this.ui.path.addEventListener('input', () => this.rename(this.ui.path.value, true));
    this.ui.add.addEventListener('click', () => this.add(this.freshName(), '', true));
    this.ui.remove.addEventListener('click', () => this.remove(this.state.active));
  }

  get list() {
    return this.state.list;
  }

  get active() {
    return this.state.active;
  }

  render() {
    renderFiles(this.ui, this.state, this.editor, this.drawn, (i) => this.show(i));
  }

  /**
   * Replaces every file: `[{path, text}]`, `active` shown.
   * @param {{ path: string, text: string }[]} files
   */
  load(files, active = 0) {
    const list = files.map((f) => ({ path: f.path, state: this.editor.fileState(f.text), typed: false }));
    if (list.length === 0) list.push({ path: 'untitled.txt', state: this.editor.fileState(''), typed: false });
    Object.assign(this.state, { list, active: -1 });
    this.show(Math.min(active, list.length - 1));
  }

  /** The files as plain data, the shown one's text up to date. */
  snapshot() {
    this.save();
    return this.list.map((f) => ({ path: f.path, text: f.state.sliceDoc() }));
  }

  get path() {
    return this.list[this.active]?.path ?? '';
  }

  /** Whether the user typed the active file's path (then it is never replaced). */
  get typed() {
    return this.list[this.active]?.typed ?? false;
  }

  /** Keeps the editor's state (the person's edits) in the shown file's entry. */
  save() {
    if (this.active >= 0 && this.list[this.active]) this.list[this.active].state = this.editor.view.state;
  }

  /** @param {number} i */
  show(i) {
    this.save();
    this.state.active = i;
    this.state.note = this.list[i].state.lineBreak === '\r\n' ? 'CR LF line endings' : '';
    this.render();
    this.onChange();
  }

  /**
   * @param {string} path
   * @param {string} text
   * @param {boolean} focus the person added it: its path is theirs to type
   */
  add(path, text, focus) {
    this.save();
    this.list.push({ path, state: this.editor.fileState(text), typed: focus });
    this.show(this.list.length - 1);
    if (focus) this.ui.path.select();
  }

  /** @param {number} i */
  remove(i) {
    if (this.list.length <= 1) return;
    this.list.splice(i, 1);
    this.state.active = -1;
    this.show(Math.max(0, i - 1));
  }

  /**
   * Sets the active file's path; `typed` when the user wrote it; `note` says where it came from.
   * @param {string} path
   * @param {boolean} typed
   * @param {string} [note]
   */
  rename(path, typed, note) {
    const f = this.list[this.active];
    f.path = path.trim();
    f.typed ||= typed;
    if (note !== undefined) this.state.note = note;
    this.render();
    this.onChange();
  }

  freshName() {
    const names = new Set(this.list.map((f) => f.path));
    for (let n = 1; ; n++) if (!names.has(`untitled-${n}.txt`)) return `untitled-${n}.txt`;
  }
}
