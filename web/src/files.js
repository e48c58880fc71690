// The files of the case: one tab each, the active one in the file editor
// (each keeps its own EditorState, so its own undo history), its path in
// the Path box. A path the user never typed may be taken from the reply.
import { byId, make } from './dom.js';

export class Files {
  /**
   * `root` holds the tabs, the path box and the add and remove buttons;
   * `editor` from createFileEditor; `onChange()` hears any change of files or paths.
   * @param {ParentNode} root
   * @param {ReturnType<typeof import('./editors.js').createFileEditor>} editor
   * @param {() => void} onChange
   */
  constructor(root, editor, onChange) {
    this.editor = editor;
    this.onChange = onChange;
    /** @type {{ path: string, state: import('@codemirror/state').EditorState, typed: boolean }[]} */
    this.list = [];
    this.active = 0;
    this.ui = {
      path: byId(root, 'path', HTMLInputElement),
      pathNote: byId(root, 'path-note'),
      tabs: byId(root, 'tabs'),
      remove: byId(root, 'remove-file', HTMLButtonElement),
    };
    this.ui.path.addEventListener('input', () => this.rename(this.ui.path.value, true));
    byId(root, 'add-file').addEventListener('click', () => this.add(this.freshName(), '', true));
    this.ui.remove.addEventListener('click', () => this.remove(this.active));
  }

  /**
   * Replaces every file: `[{path, text}]`, `active` shown.
   * @param {{ path: string, text: string }[]} files
   */
  load(files, active = 0) {
    this.list = files.map((f) => ({ path: f.path, state: this.editor.fileState(f.text), typed: false }));
    if (this.list.length === 0) this.list.push({ path: 'untitled.txt', state: this.editor.fileState(''), typed: false });
    this.active = -1;
    this.show(Math.min(active, this.list.length - 1));
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

  save() {
    if (this.active >= 0 && this.list[this.active]) this.list[this.active].state = this.editor.view.state;
  }

  show(i) {
    if (i !== this.active) {
      this.save();
      this.active = i;
      this.editor.show(this.list[i].state);
    }
    this.ui.path.value = this.list[i].path;
    this.ui.pathNote.textContent = this.editor.view.state.lineBreak === '\r\n' ? 'CR LF line endings' : '';
    this.editor.setLanguage(this.list[i].path);
    this.renderTabs();
    this.onChange();
  }

  add(path, text, focus) {
    this.save();
    this.list.push({ path, state: this.editor.fileState(text), typed: focus });
    this.show(this.list.length - 1);
    if (focus) this.ui.path.select();
  }

  remove(i) {
    if (this.list.length <= 1) return;
    this.list.splice(i, 1);
    this.active = -1;
    this.show(Math.max(0, i - 1));
  }

  /** Sets the active file's path; `typed` when the user wrote it. */
  rename(path, typed) {
    const f = this.list[this.active];
    f.path = path.trim();
    f.typed ||= typed;
    if (!typed) this.ui.path.value = f.path;
    this.editor.setLanguage(f.path);
    this.renderTabs();
    this.onChange();
  }

  freshName() {
    const names = new Set(this.list.map((f) => f.path));
    for (let n = 1; ; n++) if (!names.has(`untitled-${n}.txt`)) return `untitled-${n}.txt`;
  }

  renderTabs() {
    this.ui.tabs.replaceChildren();
    for (const [i, f] of this.list.entries()) {
      const b = make('button', { type: 'button', role: 'tab', textContent: f.path || '(no path)', data: { testid: 'tab' } });
      b.setAttribute('aria-selected', String(i === this.active));
      b.addEventListener('click', () => this.show(i));
      this.ui.tabs.append(b);
    }
    this.ui.remove.disabled = this.list.length <= 1;
  }
}
