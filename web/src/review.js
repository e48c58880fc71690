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
import { byId, make } from './dom.js';

/** @typedef {import('patchbay/codemirror').Match} Match */

export class Review {
  /**
   * `root` is the result card (its view tabs, edit bar, diff and text);
   * `withoutEdits(skip)` resolves to `{result, matches}`: the result with the edits numbered in `skip` set aside.
   * @param {ParentNode} root
   * @param {(skip: number[]) => Promise<{ result: string, matches: Match[] }>} withoutEdits
   */
  constructor(root, withoutEdits) {
    this.withoutEdits = withoutEdits;
    /** @type {{ index: number }[]} */
    this.edits = [];
    /** @type {Set<number>} */
    this.rejected = new Set();
    this.asked = 0;
    this.mode = 'unified';
    this.original = '';
    this.result = '';
    /** @type {readonly Match[]} */
    this.matches = [];
    this.reviewed = '';
    /** @type {import('@codemirror/view').EditorView | null} */
    this.unified = null;
    /** @type {import('@codemirror/merge').MergeView | null} */
    this.split = null;
    this.basics = reviewBasics('Result under review');
    this.ui = {
      tabs: [...root.querySelectorAll('.view-tab')].filter((t) => t instanceof HTMLElement),
      edits: byId(root, 'edit-review'),
      diff: byId(root, 'diff'),
      result: byId(root, 'result'),
    };
    for (const tab of this.ui.tabs) tab.addEventListener('click', () => this.setMode(tab.dataset.view));
  }

  /**
   * Shows `result` against `original` (`matches` label the changes; `edits`
   * are the file's applied receipts, each offered Keep/Reject); decisions
   * made on an older result are dropped.
   * @param {string} original
   * @param {string} result
   * @param {readonly Match[]} [matches]
   * @param {{ index: number }[]} [edits]
   */
  show(original, result, matches = [], edits = []) {
    this.original = original;
    this.edits = edits;
    this.rejected = new Set();
    this.asked++;
    this.showEdits();
    this.update(result, matches);
  }

  /**
   * @param {string} result
   * @param {readonly Match[]} matches
   */
  update(result, matches) {
    this.matches = matches;
    this.result = result;
    this.reviewed = result;
    this.render();
  }

  /** One Keep/Reject toggle an edit (none for a single-edit result: the diff's own buttons do it). */
  showEdits() {
    const bar = this.ui.edits;
    bar.hidden = this.edits.length < 2;
    bar.replaceChildren();
    if (bar.hidden) return;
    bar.append(make('span', { className: 'label', textContent: 'Edits' }));
    for (const e of this.edits) {
      const b = make('button', { type: 'button', name: 'edit-toggle', className: 'secondary small edit-toggle', data: { edit: String(e.index) } });
      b.addEventListener('click', () => this.toggle(e.index, b));
      this.label(b, e.index);
      bar.append(b);
    }
  }

  /**
   * @param {HTMLButtonElement} button
   * @param {number} index
   */
  label(button, index) {
    const kept = !this.rejected.has(index);
    button.setAttribute('aria-pressed', String(!kept));
    button.textContent = `edit ${index}: ${kept ? 'kept' : 'rejected'}`;
    button.title = kept ? `Reject edit ${index}: the result without it` : `Keep edit ${index} again`;
  }

  /**
   * Flips one edit and asks the engine for the result without the rejected ones (the newest answer wins).
   * @param {number} index
   * @param {HTMLButtonElement} button
   */
  async toggle(index, button) {
    if (this.rejected.has(index)) this.rejected.delete(index);
    else this.rejected.add(index);
    this.label(button, index);
    const asked = ++this.asked;
    const { result, matches } = await this.withoutEdits([...this.rejected].sort((a, b) => a - b));
    if (asked === this.asked) this.update(result, matches);
  }

  /** @param {string} mode "unified", "split" or "text" */
  setMode(mode) {
    this.mode = mode;
    for (const tab of this.ui.tabs) tab.setAttribute('aria-selected', String(tab.dataset.view === mode));
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
    const diff = this.ui.diff;
    this.ui.result.hidden = this.mode !== 'text';
    diff.hidden = this.mode === 'text';
    if (this.mode === 'text') {
      this.ui.result.textContent = this.reviewed;
      return;
    }
    if (this.mode === 'unified') this.renderUnified(diff);
    else this.renderSplit(diff);
  }

  /** @param {HTMLElement} diff */
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

  /** @param {HTMLElement} diff */
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
