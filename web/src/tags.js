// The tags toggle: the file as the model sees it. In the gutter (`N:TAG`
// beside each line), as the hashline view's text, or as the `lines`
// format's numbered view with the file's CRC-32; the text can be copied.
import { setTags, tagsFromView } from 'patchbay/codemirror';
import { copyButton } from './copy.js';
import { byId } from './dom.js';

export class Tags {
  /**
   * `root` holds the tags bar and the tag text.
   * @param {ParentNode} root
   * @param {ReturnType<typeof import('./editors.js').createFileEditor>} editor
   * @param {import('./files.js').Files} files
   * @param {() => import('./state.js').Engine} engine
   */
  constructor(root, editor, files, engine) {
    this.editor = editor;
    this.files = files;
    this.engine = engine;
    this.text = '';
    this.ui = {
      on: byId(root, 'tags', HTMLInputElement),
      length: byId(root, 'tag-length', HTMLSelectElement),
      view: byId(root, 'tag-view', HTMLSelectElement),
      copy: byId(root, 'copy-tags', HTMLButtonElement),
      text: byId(root, 'tag-text'),
    };
    for (const input of [this.ui.on, this.ui.length, this.ui.view]) input.addEventListener('change', () => this.refresh());
    copyButton(this.ui.copy, () => this.text);
  }

  get on() {
    return this.ui.on.checked;
  }

  /** Recomputes the shown view for the file as it is now. */
  async refresh() {
    const view = this.ui.view.value;
    this.editor.showTags(this.on && view === 'gutter');
    this.ui.text.hidden = !this.on || view === 'gutter';
    this.ui.copy.disabled = !this.on;
    if (!this.on) return;
    const doc = this.editor.view.state.doc;
    const text = this.editor.view.state.sliceDoc();
    const tagLength = Number(this.ui.length.value);
    this.text =
      view === 'crc'
        ? await this.engine().crcView(this.files.path || 'file', text)
        : await this.engine().tagView(text, { len: tagLength });
    // The file changed while the engine worked: a newer refresh follows.
    if (this.editor.view.state.doc !== doc) return;
    if (view === 'gutter') this.editor.view.dispatch({ effects: setTags.of(tagsFromView(this.text)) });
    else this.ui.text.textContent = this.text;
    this.ui.text.dataset.view = view;
  }
}
