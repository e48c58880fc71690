// The page's CodeMirror editors: the file (one EditorState a file, so each
// keeps its own undo history), the reply, and the review of the result.
import { Compartment, EditorState } from '@codemirror/state';
import {
  EditorView, crosshairCursor, drawSelection, highlightActiveLine, highlightActiveLineGutter,
  highlightSpecialChars, keymap, lineNumbers, rectangularSelection,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import {
  bracketMatching, defaultHighlightStyle, foldEffect, foldGutter, foldKeymap, indentOnInput, syntaxHighlighting,
} from '@codemirror/language';
import { oneDarkHighlightStyle } from './codemirror/dark.js';
import { patchbayMatches, tagGutter } from 'patchbay/codemirror';
import { languageFor, replyLanguage } from './codemirror/languages.js';

const dark = window.matchMedia?.('(prefers-color-scheme: dark)');

/** The theme that follows the system's light or dark setting. */
function themeFor(isDark) {
  return [
    EditorView.theme({}, { dark: isDark }),
    syntaxHighlighting(isDark ? oneDarkHighlightStyle : defaultHighlightStyle, { fallback: true }),
  ];
}

const themes = new Set();

/** The editing basics every editor of the page has: line numbers, search, history. */
function basics(label) {
  const theme = new Compartment();
  themes.add(theme);
  return [
    lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), history(), foldGutter(), drawSelection(),
    EditorState.allowMultipleSelections.of(true), indentOnInput(), bracketMatching(), rectangularSelection(),
    crosshairCursor(), highlightActiveLine(), highlightSelectionMatches(), search({ top: true }),
    keymap.of([...searchKeymap, ...historyKeymap, ...foldKeymap, ...defaultKeymap, indentWithTab]),
    EditorView.contentAttributes.of({ 'aria-label': label }),
    theme.of(themeFor(dark?.matches ?? false)),
  ];
}

/** Every view made here, to restyle them when the system theme changes. */
const views = new Set();

/** Gives `view` the theme the system asks for now. */
function restyle(view) {
  view.dispatch({ effects: [...themes].map((t) => t.reconfigure(themeFor(dark?.matches ?? false))) });
}
dark?.addEventListener('change', () => views.forEach(restyle));

/** A view remembered for theme changes. */
function track(view) {
  views.add(view);
  return view;
}

/**
 * The file editor. `onChange()` hears edits; `fileState(text, path)`
 * makes the state of one file (its language loads on its own).
 */
export function createFileEditor(parent, onChange) {
  const language = new Compartment();
  const tags = new Compartment();
  const extensions = [
    basics('File contents'),
    language.of([]),
    tags.of([]),
    patchbayMatches(),
    EditorView.updateListener.of((u) => u.docChanged && onChange()),
  ];
  const view = track(new EditorView({ parent, state: EditorState.create({ doc: '', extensions }) }));
  return {
    view,
    // CodeMirror joins lines with \n unless told otherwise: a CR LF file keeps its CR LF.
    /** Shows a file's state; one made before a theme change gets the current theme. */
    show(state) {
      view.setState(state);
      restyle(view);
    },
    fileState: (text) =>
      EditorState.create({ doc: text, extensions: [extensions, text.includes('\r\n') ? EditorState.lineSeparator.of('\r\n') : []] }),
    async setLanguage(path) {
      const lang = await languageFor(path);
      view.dispatch({ effects: language.reconfigure(lang) });
    },
    showTags: (on) => view.dispatch({ effects: tags.reconfigure(on ? tagGutter() : []) }),
  };
}

/** The reply editor (Markdown, where fenced code and diffs live). */
export function createReplyEditor(parent, onChange) {
  const language = new Compartment();
  const view = track(
    new EditorView({
      parent,
      state: EditorState.create({
        doc: '',
        extensions: [
          basics('Model reply'),
          language.of([]),
          EditorView.lineWrapping,
          EditorView.updateListener.of((u) => u.docChanged && onChange()),
        ],
      }),
    }),
  );
  replyLanguage().then((lang) => view.dispatch({ effects: language.reconfigure(lang) }));
  return view;
}

/** The section each reply view last folded, so one the user opened stays open. */
const folded = new WeakMap();

/**
 * Folds the reply's reasoning section (`report.reasoning`: its lines, which
 * no format reads), keeping its first line in view; once per section.
 */
export function foldReasoning(view, reasoning) {
  if (!reasoning) return;
  const [first, last] = reasoning.lines;
  const doc = view.state.doc;
  if (last <= first || last > doc.lines) return;
  const from = doc.line(first).to;
  const to = doc.line(last).to;
  const key = `${from}:${to}:${doc.sliceString(from, Math.min(to, from + 64))}`;
  if (folded.get(view) === key) return;
  folded.set(view, key);
  view.dispatch({ effects: foldEffect.of({ from, to }) });
}

/**
 * A read-only or review editor: the basics plus `extra`.
 * @param {HTMLElement} parent
 * @param {string} doc
 * @param {import('@codemirror/state').Extension} [extra]
 * @param {string} [label]
 */
export function createPlainEditor(parent, doc, extra = [], label = 'Text') {
  return track(new EditorView({ parent, state: EditorState.create({ doc, extensions: [basics(label), extra] }) }));
}

/** The extensions of a review editor's state (for `setState`). */
export function reviewBasics(label) {
  return basics(label);
}

/** Replaces a view's whole text (one transaction, undoable). */
export function setText(view, text) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}
