// The tags toggle: the file as the model sees it. In the gutter (`N:TAG`
// beside each line), as the hashline view's text, or as the `lines`
// format's numbered view with the file's CRC-32; the text can be copied.
import { setTags, tagsFromView } from 'patchbay/codemirror';
import { copyButton } from './copy.js';

const $ = (id) => document.getElementById(id);

export class Tags {
  constructor(editor, files, engine) {
    this.editor = editor;
    this.files = files;
    this.engine = engine;
    this.text = '';
    for (const id of ['tags', 'tag-length', 'tag-view']) $(id).addEventListener('change', () => this.refresh());
    copyButton($('copy-tags'), () => this.text);
  }

  get on() {
    return $('tags').checked;
  }

  /** Recomputes the shown view for the file as it is now. */
  async refresh() {
    const view = $('tag-view').value;
    this.editor.showTags(this.on && view === 'gutter');
    $('tag-text').hidden = !this.on || view === 'gutter';
    $('copy-tags').disabled = !this.on;
    if (!this.on) return;
    const doc = this.editor.view.state.doc;
    const text = this.editor.view.state.sliceDoc();
    const tagLength = Number($('tag-length').value);
    this.text =
      view === 'crc'
        ? await this.engine().crcView(this.files.path || 'file', text)
        : await this.engine().tagView(text, { len: tagLength });
    // The file changed while the engine worked: a newer refresh follows.
    if (this.editor.view.state.doc !== doc) return;
    if (view === 'gutter') this.editor.view.dispatch({ effects: setTags.of(tagsFromView(this.text)) });
    else $('tag-text').textContent = this.text;
    $('tag-text').dataset.view = view;
  }
}
