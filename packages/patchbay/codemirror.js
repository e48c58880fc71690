// patchbay/codemirror: a CodeMirror 6 extension that shows what patchbay did
// to a file: the `N:TAG` tags a hashline reply cites, in a gutter; the range
// each edit of a reply matched, coloured by the matcher level that found it;
// for an edit that failed, the closest region and the first differing
// character; and a review of the result with accept/reject per edit and per
// change, on @codemirror/merge. It knows nothing of the page: feed it a
// report (`matchesFromReport`) and tags (`setTags`) through its effects.
//
// Everything is placed by the receipts' positions (`{ line, col }`), never by
// their offsets: CodeMirror holds every `\r\n` as one character, so offsets
// into the original text drift on a CRLF file; and nothing is read from the
// feedback's words (a failed edit's closest region is data).
import { StateEffect, StateField, Text } from '@codemirror/state';
import { Decoration, EditorView, GutterMarker, WidgetType, gutter } from '@codemirror/view';
import { MergeView, acceptChunk, getChunks, getOriginalDoc, rejectChunk, unifiedMergeView } from '@codemirror/merge';
import { COLORS, LEVELS, levelTitle, receiptsOf, reportOfEvents } from './review.js';

export { LEVELS, LEVEL_NOTES } from './review.js';

// ---- matches -------------------------------------------------------------

/**
 * The offset of a receipt's position (`{ line, col }`) in `doc`, clamped to
 * it. A BOM is not part of line 1 in a position, but a document that keeps
 * it holds it as its first character.
 */
export function offsetOf(doc, pos) {
  const line = doc.line(Math.min(Math.max(1, pos.line), doc.lines));
  const bom = line.number === 1 && doc.sliceString(0, 1) === '\uFEFF' ? 1 : 0;
  return Math.min(line.from + bom + Math.max(0, pos.col), line.to);
}

/**
 * Replaces the decorated matches (from `matchesFromReport`). Each: `{index,
 * from, to, level}` for an applied edit (positions: `from` where the first
 * replaced line starts, `to` past the last one's line break, `from == to`
 * an insertion), `{index, from, to, failed: true, code, similarity,
 * difference?}` for a failed edit's closest region (`difference`: the
 * position of the first differing character).
 */
export const setMatches = StateEffect.define();

function lineDecoration(m) {
  const cls = m.failed ? 'pb-match pb-closest' : `pb-match pb-level-${m.level}`;
  const title = m.failed
    ? `edit ${m.index} failed (${m.code}): the closest region`
    : levelTitle(m.index, m.level);
  return Decoration.line({ class: cls, attributes: { title, 'data-edit': String(m.index) } });
}

const SPACE = Decoration.mark({ class: 'pb-ws-space' });
const TAB = Decoration.mark({ class: 'pb-ws-tab' });

/** Spaces and tabs of a closest region made visible: whitespace is what such misses usually differ in. */
function whitespaceMarks(line, out) {
  for (const m of line.text.matchAll(/ +|\t+/g)) {
    out.push((m[0][0] === ' ' ? SPACE : TAB).range(line.from + m.index, line.from + m.index + m[0].length));
  }
}

/** The first differing character outlined (past the end of the line: a marker there). */
function firstDifference(doc, m, out) {
  if (!m.difference || m.difference.line > doc.lines) return;
  const at = offsetOf(doc, m.difference);
  if (at < doc.lineAt(at).to) {
    out.push(Decoration.mark({ class: 'pb-first-diff', attributes: { title: 'first differing character' } }).range(at, at + 1));
  } else {
    out.push(Decoration.widget({ widget: new EndMarker(), side: 1 }).range(at));
  }
}

/** The document's lines a match covers (clamped to the document). */
function* matchLines(doc, m) {
  const from = offsetOf(doc, m.from);
  // `to` sits past the last line's break: the line before it is the last one (an insertion: the line at `from`).
  const end = Math.max(from, offsetOf(doc, m.to) - (m.to.col === 0 && m.to.line > m.from.line ? 1 : 0));
  for (let line = doc.lineAt(from); ; line = doc.line(line.number + 1)) {
    yield line;
    if (line.to >= end || line.number === doc.lines) return;
  }
}

/** The decorations of `matches` in `doc`. */
function buildMatches(doc, matches) {
  const out = [];
  for (const m of matches) {
    for (const line of matchLines(doc, m)) {
      out.push(lineDecoration(m).range(line.from));
      if (m.failed) whitespaceMarks(line, out);
    }
    if (m.failed) firstDifference(doc, m, out);
  }
  return Decoration.set(out, true);
}

/** Marks a first difference at the end of a line (the file's line is shorter). */
class EndMarker extends WidgetType {
  eq() {
    return true;
  }
  toDOM() {
    const span = document.createElement('span');
    span.className = 'pb-first-diff pb-end-marker';
    span.title = 'first difference: the line ends here';
    return span;
  }
}

const matchField = StateField.define({
  create: () => Decoration.none,
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setMatches)) return buildMatches(tr.state.doc, e.value);
    return tr.docChanged ? value.map(tr.changes) : value;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/**
 * The matches of `report` (as the engine returns it) in the file at `path`:
 * applied edits by level, failed ones at their closest region, from the
 * receipts' positions.
 */
export function matchesFromReport(report, path) {
  const out = [];
  for (const r of receiptsOf(report, path)) {
    if (r.status === 'applied' && r.fromPos) {
      out.push({ index: r.index, from: r.fromPos, to: r.toPos, level: r.strategy ?? 'exact' });
    } else if (r.status === 'failed' && r.closest) {
      const c = r.closest;
      const d = c.firstDifference;
      out.push({
        index: r.index, from: c.fromPos, to: c.toPos, failed: true, code: r.code, similarity: c.similarity,
        difference: d ? { line: d.fileLine, col: d.fileCol } : undefined,
      });
    }
  }
  return out;
}

/**
 * The matches of a stream's events so far (`StreamParser.push`, or a worker
 * stream's `push`) in the file at `path`: each edit as soon as it is
 * complete, located alone against the original; decorate them while the
 * reply arrives, then the report's when it is finished.
 */
export function matchesFromEvents(events, path) {
  return matchesFromReport(reportOfEvents(events, path), path);
}

// ---- tags ----------------------------------------------------------------

/** Replaces the gutter's tags: an array, one `N:TAG` string a line (or null to clear). */
export const setTags = StateEffect.define();

const tagField = StateField.define({
  create: () => null,
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setTags)) return e.value;
    // Tags hash the line's text: an edited document's tags are stale until refreshed.
    return tr.docChanged ? null : value;
  },
});

class TagMarker extends GutterMarker {
  constructor(text) {
    super();
    this.text = text;
  }
  eq(other) {
    return other.text === this.text;
  }
  toDOM() {
    return document.createTextNode(this.text);
  }
}

const tagGutterView = gutter({
  class: 'pb-tag-gutter',
  lineMarker(view, line) {
    const tags = view.state.field(tagField);
    const n = view.state.doc.lineAt(line.from).number;
    return tags?.[n - 1] ? new TagMarker(tags[n - 1]) : null;
  },
  lineMarkerChange: (update) => update.transactions.some((t) => t.effects.some((e) => e.is(setTags))),
  initialSpacer: () => new TagMarker('000:AAAA'),
});

/** The tags of a tag view text (`N:TAG content` lines), one a line. */
export function tagsFromView(view) {
  const lines = view.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((l) => /^\d+:[^ ]*/.exec(l)?.[0] ?? '');
}

/** The `N:TAG` gutter. */
export function tagGutter() {
  return [tagField, tagGutterView];
}

// ---- review --------------------------------------------------------------

/** The applied match whose original range a diff chunk touches (or borders: insertions), or undefined. */
function matchOfChunk(chunk, matches) {
  return matches.find((m) => !m.failed && m.fromA <= chunk.toA && m.toA >= chunk.fromA);
}

/** The applied matches with their offsets in the original document of a review (`fromA`, `toA`). */
function inOriginal(original, matches) {
  const doc = Text.of(original.split(/\r\n?|\n/));
  return matches.filter((m) => !m.failed).map((m) => ({ ...m, fromA: offsetOf(doc, m.from), toA: offsetOf(doc, m.to) }));
}

/**
 * The result's changed lines labelled with the edit (and coloured by the level) that made them.
 * They follow the doc: `getChunks` is a function, not a state field a computation can depend on.
 */
function chunkLabels(matches) {
  return EditorView.decorations.compute(['doc'], (state) => {
    const chunks = getChunks(state)?.chunks ?? [];
    const out = [];
    for (const chunk of chunks) {
      const m = matchOfChunk(chunk, matches);
      if (!m || chunk.toB <= chunk.fromB) continue;
      const deco = Decoration.line({
        class: `pb-level-${m.level}`,
        attributes: { 'data-edit': String(m.index), title: levelTitle(m.index, m.level) },
      });
      for (let pos = chunk.fromB; pos < Math.min(chunk.toB, state.doc.length + 1); ) {
        const line = state.doc.lineAt(pos);
        out.push(deco.range(line.from));
        pos = line.to + 1;
      }
    }
    return Decoration.set(out, true);
  });
}

/**
 * An editor showing `result` against `original` as one unified diff, with
 * Accept/Reject buttons on each change, each change labelled with the edit
 * of `matches` (from `matchesFromReport`) that made it; `onChange(doc)`
 * hears every decision (the document is the result as reviewed so far).
 */
export function reviewExtensions(original, onChange, matches = []) {
  const placed = inOriginal(original, matches);
  return [
    unifiedMergeView({ original, mergeControls: true, highlightChanges: true, gutter: true,
      diffConfig: { scanLimit: 20_000, timeout: 200 } }),
    chunkLabels(placed),
    EditorView.updateListener.of((u) => u.docChanged && onChange?.(u.state.sliceDoc())),
  ];
}

/**
 * The review's changes that edit `index` of `matches` made, last first (so
 * that deciding one leaves the positions of those before it as they were).
 * A change that also touches another edit's range (two edits on adjacent
 * lines diff as one change) counts for the first of them, as its label does.
 */
function chunksOfEdit(state, matches, index) {
  const chunks = getChunks(state)?.chunks ?? [];
  const placed = inOriginal(getOriginalDoc(state).toString(), matches);
  return chunks.filter((c) => matchOfChunk(c, placed)?.index === index).reverse();
}

/** Accepts every change edit `index` made in a review (`reviewExtensions`); false when it made none left to decide. */
export function acceptEdit(view, matches, index) {
  const chunks = chunksOfEdit(view.state, matches, index);
  for (const c of chunks) acceptChunk(view, c.fromB);
  return chunks.length > 0;
}

/** Reverts every change edit `index` made in a review; false when it made none left to decide. */
export function rejectEdit(view, matches, index) {
  const chunks = chunksOfEdit(view.state, matches, index);
  for (const c of chunks) rejectChunk(view, c.fromB);
  return chunks.length > 0;
}

/**
 * Replaces the document with the new text of `path` in `report` in one
 * transaction (one undo step with the history extension); false when the
 * report has no new text for it.
 */
export function acceptResult(view, report, path) {
  const content = report?.files?.find((f) => f.path === path)?.content;
  if (typeof content !== 'string') return false;
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: content }, userEvent: 'input.patchbay' });
  return true;
}

/** Side-by-side: `original` left, `result` right, with revert buttons. */
export function sideBySide(parent, original, result, extensions) {
  return new MergeView({
    a: { doc: original, extensions },
    b: { doc: result, extensions },
    parent,
    revertControls: 'a-to-b',
    diffConfig: { scanLimit: 20_000, timeout: 200 },
  });
}

// ---- the whole extension -------------------------------------------------

/** The level and closest-region backgrounds of one theme (`light`, `dark`), as theme rules. */
function themed(mode) {
  const c = COLORS[mode];
  /** @type {Record<string, Record<string, string>>} */
  const rules = Object.fromEntries(LEVELS.map((l) => [`&${mode} .pb-level-${l}`, { backgroundColor: c[l] }]));
  rules[`&${mode} .pb-closest`] = { backgroundColor: c.closest, boxShadow: `inset 3px 0 ${c.mark}` };
  return rules;
}

const theme = EditorView.baseTheme({
  '.pb-tag-gutter .cm-gutterElement': { fontSize: '85%', opacity: 0.75, paddingRight: '6px' },
  '.pb-first-diff': { outline: '2px solid #d33', borderRadius: '2px' },
  '.pb-end-marker::after': { content: '"⏎"', color: '#d33' },
  '.pb-ws-space': {
    backgroundImage: 'radial-gradient(circle at 50% 55%, #a33 15%, transparent 17%)',
    backgroundPosition: 'center', backgroundRepeat: 'repeat-x', backgroundSize: '1ch 100%',
  },
  '.pb-ws-tab': { backgroundImage: 'linear-gradient(to right, transparent 20%, #a33 20%, #a33 80%, transparent 80%)',
    backgroundSize: '100% 1px', backgroundPosition: 'center', backgroundRepeat: 'no-repeat' },
  ...themed('light'),
  ...themed('dark'),
});

/** Match decorations and their theme; add `tagGutter()` where tags are wanted. */
export function patchbayMatches() {
  return [matchField, theme];
}
