// The result against the original, three ways: a unified diff with
// Accept/Reject on each change (@codemirror/merge through the extension in
// patchbay/codemirror), side by side, and the plain result text. Above
// them, Keep/Reject for each edit: a rejected edit is set aside by the
// engine (`skip`), which gives the result of the reply without it, so the
// line breaks and the file's end are the engine's, not patched up here.
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { reviewExtensions, sideBySide } from 'patchbay/codemirror';
import { createPlainEditor, reviewBasics } from './editors.js';

const $ = (id) => document.getElementById(id);

export class Review {
  /** `withoutEdits(skip)` resolves to `{result, matches}`: the result with the edits numbered in `skip` set aside. */
  constructor(withoutEdits) {
    this.withoutEdits = withoutEdits;
    this.edits = [];
    this.rejected = new Set();
    this.asked = 0;
    this.mode = 'unified';
    this.original = '';
    this.result = '';
    this.matches = [];
    this.reviewed = '';
    this.unified = null;
    this.split = null;
    this.basics = reviewBasics('Result under review');
    for (const tab of document.querySelectorAll('.view-tab')) {
      tab.addEventListener('click', () => this.setMode(tab.dataset.view));
    }
  }

  /**
   * Shows `result` against `original` (`matches` label the changes; `edits`
   * are the file's applied receipts, each offered Keep/Reject); decisions
   * made on an older result are dropped.
   */
  show(original, result, matches = [], edits = []) {
    this.original = original;
    this.edits = edits;
    this.rejected = new Set();
    this.asked++;
    this.showEdits();
    this.update(result, matches);
  }

  update(result, matches) {
    this.matches = matches;
    this.result = result;
    this.reviewed = result;
    this.render();
  }

  /** One Keep/Reject toggle an edit (none for a single-edit result: the diff's own buttons do it). */
  showEdits() {
    const bar = $('edit-review');
    bar.hidden = this.edits.length < 2;
    bar.replaceChildren();
    if (bar.hidden) return;
    const label = document.createElement('span');
    label.className = 'label';
    label.textContent = 'Edits';
    bar.append(label);
    for (const e of this.edits) {
      const b = document.createElement('button');
      b.type = 'button';
      b.name = 'edit-toggle';
      b.className = 'secondary small edit-toggle';
      b.dataset.edit = String(e.index);
      b.addEventListener('click', () => this.toggle(e.index, b));
      this.label(b, e.index);
      bar.append(b);
    }
  }

  label(button, index) {
    const kept = !this.rejected.has(index);
    button.setAttribute('aria-pressed', String(!kept));
    button.textContent = `edit ${index}: ${kept ? 'kept' : 'rejected'}`;
    button.title = kept ? `Reject edit ${index}: the result without it` : `Keep edit ${index} again`;
  }

  /** Flips one edit and asks the engine for the result without the rejected ones (the newest answer wins). */
  async toggle(index, button) {
    if (this.rejected.has(index)) this.rejected.delete(index);
    else this.rejected.add(index);
    this.label(button, index);
    const asked = ++this.asked;
    const { result, matches } = await this.withoutEdits([...this.rejected].sort((a, b) => a - b));
    if (asked === this.asked) this.update(result, matches);
  }

  setMode(mode) {
    this.mode = mode;
    for (const tab of document.querySelectorAll('.view-tab')) tab.setAttribute('aria-selected', String(tab.dataset.view === mode));
    this.render();
  }

  /** A CR LF original keeps CR LF in the reviewed text. */
  lineBreak() {
    return this.original.includes('\r\n') ? EditorState.lineSeparator.of('\r\n') : [];
  }

  /** The result as reviewed: rejected changes reverted. */
  text() {
    return this.reviewed;
  }

  render() {
    const diff = $('diff');
    $('result').hidden = this.mode !== 'text';
    diff.hidden = this.mode === 'text';
    if (this.mode === 'text') {
      $('result').textContent = this.reviewed;
      return;
    }
    if (this.mode === 'unified') this.renderUnified(diff);
    else this.renderSplit(diff);
  }

  renderUnified(diff) {
    this.split?.destroy();
    this.split = null;
    const state = EditorState.create({
      doc: this.reviewed,
      extensions: [this.basics, this.lineBreak(), EditorView.editable.of(false), reviewExtensions(this.original, (doc) => (this.reviewed = doc), this.matches)],
    });
    if (this.unified) this.unified.setState(state);
    else {
      diff.replaceChildren();
      this.unified = createPlainEditor(diff, '', [], 'Result under review');
      this.unified.setState(state);
    }
  }

  renderSplit(diff) {
    this.unified?.destroy();
    this.unified = null;
    this.split?.destroy();
    diff.replaceChildren();
    const listen = EditorView.updateListener.of((u) => {
      if (u.docChanged && u.view === this.split?.b) this.reviewed = u.state.sliceDoc();
    });
    this.split = sideBySide(diff, this.original, this.reviewed, [this.basics, this.lineBreak(), listen]);
  }
}
