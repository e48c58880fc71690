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
import { byId, fill, make } from './dom.js';

/** @typedef {import('patchbay/codemirror').Match} Match */

/** @typedef {import('./state.js').ReviewState} ReviewState */

/**
 * The result card's elements inside `root`.
 * @param {ParentNode} root
 */
function reviewElements(root) {
  return {
    tabs: [...root.querySelectorAll('.view-tab')].filter((t) => t instanceof HTMLElement),
    edits: byId(root, 'edit-review'),
    diff: byId(root, 'diff'),
    result: byId(root, 'result'),
  };
}

/**
 * The editors that draw the diff, and the result and mode they were drawn
 * for (`drawn`): a render that changes neither keeps them as they are, with
 * the changes accepted or rejected in them.
 * @typedef {object} DiffViews
 * @property {import('@codemirror/view').EditorView | null} unified
 * @property {import('@codemirror/merge').MergeView | null} split
 * @property {readonly [string, number] | null} drawn
 * @property {import('@codemirror/state').Extension} basics
 */

/**
 * Draws the review from `state`: the view tabs, one Keep/Reject toggle an
 * edit (none for a single-edit result: the diff's own buttons do it), and
 * the result three ways. `onToggle(index)` is a toggle's click.
 * @param {ReturnType<typeof reviewElements>} ui
 * @param {ReviewState} state
 * @param {DiffViews} views
 * @param {(index: number) => void} onToggle
 */
export function renderReview(ui, state, views, onToggle) {
  for (const tab of ui.tabs) tab.setAttribute('aria-selected', String(tab.dataset.view === state.mode));
  const bar = ui.edits;
  bar.hidden = state.edits.length < 2;
  fill(bar, bar.hidden ? null : state.edits, () => bar.hidden ? [] : [
    make('span', { className: 'label', textContent: 'Edits' }),
    ...state.edits.map((e) => {
      const b = make('button', { type: 'button', name: 'edit-toggle', className: 'secondary small edit-toggle', data: { edit: String(e.index) } });
      b.addEventListener('click', () => onToggle(e.index));
      return b;
    }),
  ]);
  for (const b of bar.querySelectorAll('button')) {
    const index = Number(/** @type {HTMLElement} */ (b).dataset.edit);
    const kept = !state.rejected.has(index);
    b.setAttribute('aria-pressed', String(!kept));
    b.textContent = `edit ${index}: ${kept ? 'kept' : 'rejected'}`;
    /** @type {HTMLElement} */ (b).title = kept ? `Reject edit ${index}: the result without it` : `Keep edit ${index} again`;
  }
  ui.result.hidden = state.mode !== 'text';
  ui.diff.hidden = state.mode === 'text';
  if (views.drawn?.[0] === state.mode && views.drawn[1] === state.shown) return;
  views.drawn = [state.mode, state.shown];
  if (state.mode === 'text') ui.result.textContent = state.reviewed;
  else if (state.mode === 'unified') drawUnified(ui.diff, state, views);
  else drawSplit(ui.diff, state, views);
}

/**
 * A CR LF original keeps CR LF in the reviewed text.
 * @param {ReviewState} state
 */
function lineBreak(state) {
  return state.original.includes('\r\n') ? EditorState.lineSeparator.of('\r\n') : [];
}

/**
 * The unified diff, its Accept/Reject buttons writing the reviewed text into `state`.
 * @param {HTMLElement} diff
 * @param {ReviewState} state
 * @param {DiffViews} views
 */
function drawUnified(diff, state, views) {
  views.split?.destroy();
  views.split = null;
  const editorState = EditorState.create({
    doc: state.reviewed,
    extensions: [views.basics, lineBreak(state), EditorView.editable.of(false), reviewExtensions(state.original, (doc) => (state.reviewed = doc), state.matches)],
  });
  if (!views.unified) {
    diff.replaceChildren();
    views.unified = createPlainEditor(diff, '', [], 'Result under review');
  }
  views.unified.setState(editorState);
}

/**
 * Side by side, edits in the right-hand editor writing the reviewed text into `state`.
 * @param {HTMLElement} diff
 * @param {ReviewState} state
 * @param {DiffViews} views
 */
function drawSplit(diff, state, views) {
  views.unified?.destroy();
  views.unified = null;
  views.split?.destroy();
  diff.replaceChildren();
  const listen = EditorView.updateListener.of((u) => {
    if (u.docChanged && u.view === views.split?.b) state.reviewed = u.state.sliceDoc();
  });
  views.split = sideBySide(diff, state.original, state.reviewed, [views.basics, lineBreak(state), listen]);
}

/**
 * The review in `root` (the result card: its view tabs, edit bar, diff and
 * text), its part of the page's state in `state`. `withoutEdits(skip)`
 * resolves to `{result, matches}`: the result with the edits numbered in
 * `skip` set aside. Returns `show(original, result, matches, edits)`, which
 * reviews a new result (decisions made on an older one are dropped), and
 * `text()`, the result as reviewed.
 * @param {ParentNode} root
 * @param {(skip: number[]) => Promise<{ result: string, matches: Match[] }>} withoutEdits
 * @param {ReviewState} state
 */
export function setupReview(root, withoutEdits, state) {
  const ui = reviewElements(root);
  /** @type {DiffViews} */
  const views = { unified: null, split: null, drawn: null, basics: reviewBasics('Result under review') };
  const render = () => renderReview(ui, state, views, toggle);
  /**
   * @param {string} result
   * @param {readonly Match[]} matches
   */
  const update = (result, matches) => {
    Object.assign(state, { result, matches, reviewed: result, shown: state.shown + 1 });
    render();
  };
  /**
   * Flips one edit and asks the engine for the result without the rejected ones (the newest answer wins).
   * @param {number} index
   */
  async function toggle(index) {
    if (state.rejected.has(index)) state.rejected.delete(index);
    else state.rejected.add(index);
    render();
    const asked = ++state.asked;
    const { result, matches } = await withoutEdits([...state.rejected].sort((a, b) => a - b));
    if (asked === state.asked) update(result, matches);
  }
  for (const tab of ui.tabs) {
    tab.addEventListener('click', () => {
      state.mode = /** @type {ReviewState['mode']} */ (tab.dataset.view);
      render();
    });
  }
  return {
    /**
     * @param {string} original
     * @param {string} result
     * @param {readonly Match[]} [matches]
     * @param {{ index: number }[]} [edits] the file's applied receipts, each offered Keep/Reject
     */
    show(original, result, matches = [], edits = []) {
      Object.assign(state, { original, edits, rejected: new Set(), asked: state.asked + 1 });
      update(result, matches);
    },
    /** The result as reviewed: rejected changes reverted. */
    text: () => state.reviewed,
  };
}
