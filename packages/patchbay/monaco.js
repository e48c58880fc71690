// patchbay/monaco: what patchbay did to a file, in a Monaco editor. The
// range each edit matched as whole-line decorations by matcher level, with
// a hover; a failed edit's closest region and its first differing
// character; keep/reject per edit (the engine run again with the rejected
// edits set aside, `skip`); accepting a result as one undo step; a diff view
// on Monaco's diff editor; the `N:TAG` tags as line numbers.
//
// Everything is placed by the receipts' positions (`{ line, col }`): Monaco
// normalises a mixed file's line breaks and drops a BOM, so offsets into the
// original text would drift. Nothing is read from the feedback's words. The
// adapter imports nothing of Monaco: it works on the editor it is given
// (and, for the diff view, the `monaco` namespace).
import { applyEdits } from './index.js';
import { COLORS, LEVELS, levelTitle, receiptsOf, reportOfEvents } from './review.js';

export { LEVELS, LEVEL_NOTES } from './review.js';

/** A position as Monaco counts it (columns from 1). */
export function toMonaco(pos) {
  return { lineNumber: pos.line, column: pos.col + 1 };
}

/**
 * The lines `from`-`to` cover: `to` past the last one's break (an insertion: the line at `from`).
 * @param {{ line: number, col: number }} from
 * @param {{ line: number, col: number }} to
 * @returns {[number, number]}
 */
export function coveredLines(from, to) {
  const last = to.col === 0 && to.line > from.line ? to.line - 1 : to.line;
  return [from.line, Math.max(from.line, last)];
}

function wholeLines([first, last], className, hover) {
  return {
    range: { startLineNumber: first, startColumn: 1, endLineNumber: last, endColumn: 1 },
    options: { isWholeLine: true, className, hoverMessage: { value: hover }, stickiness: 1 },
  };
}

/**
 * The decorations of `report` for the file at `path` (`IModelDeltaDecoration`s):
 * applied edits as `pb-match pb-level-LEVEL` lines, failed ones' closest
 * region as `pb-match pb-closest` lines and its first difference as an
 * inline `pb-first-diff`.
 */
export function decorationsFromReport(report, path) {
  const out = [];
  for (const r of receiptsOf(report, path)) {
    if (r.status === 'applied' && r.fromPos) {
      const level = r.strategy ?? 'exact';
      out.push(wholeLines(coveredLines(r.fromPos, r.toPos), `pb-match pb-level-${level}`, levelTitle(r.index, level)));
    } else if (r.status === 'failed' && r.closest) {
      const c = r.closest;
      const hover = `edit ${r.index} failed (${r.code}): the closest region, ${c.similarity}% similar`;
      out.push(wholeLines(coveredLines(c.fromPos, c.toPos), 'pb-match pb-closest', hover));
      const d = c.firstDifference;
      if (d) {
        out.push({
          range: { startLineNumber: d.fileLine, startColumn: d.fileCol + 1, endLineNumber: d.fileLine, endColumn: d.fileCol + 2 },
          options: { inlineClassName: 'pb-first-diff', hoverMessage: { value: `edit ${r.index}: the first differing character` } },
        });
      }
    }
  }
  return out;
}

/** The decorations of a stream's events so far (each edit located alone as soon as it is complete) for `path`. */
export function decorationsFromEvents(events, path) {
  return decorationsFromReport(reportOfEvents(events, path), path);
}

/** Shows `report`'s decorations for `path` in `editor`; returns the collection (`.clear()` removes them). */
export function showReport(editor, report, path) {
  return editor.createDecorationsCollection(decorationsFromReport(report, path));
}

/**
 * The result of `reply` with the edits in `rejected` (numbers as in a
 * receipt's `index`) left out: the engine's own, run again with `skip`.
 */
export function keepOnly(files, reply, options, rejected) {
  return applyEdits(files, reply, { ...(options ?? {}), skip: [...rejected] });
}

/**
 * Replaces the editor's text with the new text of `path` in `report`, as one
 * undo step (undo once and the text before is back); false when the report
 * has no new text for it.
 */
export function acceptReport(editor, report, path) {
  const content = report?.files?.find((f) => f.path === path)?.content;
  const model = editor.getModel();
  if (typeof content !== 'string' || !model) return false;
  // Monaco keeps a BOM outside its text (it drops it from the model).
  const text = content.replace(/^\uFEFF/, '');
  editor.pushUndoStop();
  editor.executeEdits('patchbay', [{ range: model.getFullModelRange(), text, forceMoveMarkers: true }]);
  editor.pushUndoStop();
  return true;
}

/** `original` against `result` in Monaco's diff editor under `parent`; `monaco` is the editor's namespace. */
export function diffView(monaco, parent, original, result, options) {
  const editor = monaco.editor.createDiffEditor(parent, { readOnly: true, originalEditable: false, ...(options ?? {}) });
  editor.setModel({ original: monaco.editor.createModel(original), modified: monaco.editor.createModel(result) });
  return editor;
}

/** The `lineNumbers` option that shows each line's `N:TAG` (from `tagsFromView`), else its number. */
export function tagLineNumbers(tags) {
  return (n) => tags?.[n - 1] || String(n);
}

/** The tags of a tag view text (`N:TAG content` lines), one a line. */
export function tagsFromView(view) {
  const lines = view.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((l) => /^\d+:[^ ]*/.exec(l)?.[0] ?? '');
}

/** Styles for the classes above; add once to the page (`document.head.append(styleSheet())`). */
export function styleSheet() {
  const style = document.createElement('style');
  const c = COLORS.light;
  style.textContent = [
    ...LEVELS.map((l) => `.pb-level-${l}{background:${c[l]}}`),
    `.pb-closest{background:${c.closest};box-shadow:inset 3px 0 ${c.mark}}`, `.pb-first-diff{outline:2px solid ${c.mark};border-radius:2px}`,
  ].join('\n');
  return style;
}
