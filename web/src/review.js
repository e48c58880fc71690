// The result against the original, three ways: a unified diff with
// Accept/Reject on each change (@codemirror/merge through the extension in
// codemirror/patchbay.js), side by side, and the plain result text.
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { reviewExtensions, sideBySide } from './codemirror/patchbay.js';
import { createPlainEditor, reviewBasics } from './editors.js';

const $ = (id) => document.getElementById(id);

export class Review {
  constructor() {
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

  /** Shows `result` against `original` (`matches` label the changes); decisions made on an older result are dropped. */
  show(original, result, matches = []) {
    this.matches = matches;
    this.original = original;
    this.result = result;
    this.reviewed = result;
    this.render();
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
