// The language of an editor, chosen from the file's name. Each language
// package is a chunk of its own, fetched the first time a file needs it.
import { StreamLanguage } from '@codemirror/language';

const BY_EXTENSION = {
  py: () => import('@codemirror/lang-python').then((m) => m.python()),
  pyi: () => import('@codemirror/lang-python').then((m) => m.python()),
  js: () => import('@codemirror/lang-javascript').then((m) => m.javascript()),
  mjs: () => import('@codemirror/lang-javascript').then((m) => m.javascript()),
  cjs: () => import('@codemirror/lang-javascript').then((m) => m.javascript()),
  jsx: () => import('@codemirror/lang-javascript').then((m) => m.javascript({ jsx: true })),
  ts: () => import('@codemirror/lang-javascript').then((m) => m.javascript({ typescript: true })),
  tsx: () => import('@codemirror/lang-javascript').then((m) => m.javascript({ typescript: true, jsx: true })),
  rs: () => import('@codemirror/lang-rust').then((m) => m.rust()),
  go: () => import('@codemirror/lang-go').then((m) => m.go()),
  java: () => import('@codemirror/lang-java').then((m) => m.java()),
  c: () => import('@codemirror/lang-cpp').then((m) => m.cpp()),
  h: () => import('@codemirror/lang-cpp').then((m) => m.cpp()),
  cc: () => import('@codemirror/lang-cpp').then((m) => m.cpp()),
  cpp: () => import('@codemirror/lang-cpp').then((m) => m.cpp()),
  hpp: () => import('@codemirror/lang-cpp').then((m) => m.cpp()),
  md: () => import('@codemirror/lang-markdown').then((m) => m.markdown()),
  markdown: () => import('@codemirror/lang-markdown').then((m) => m.markdown()),
  diff: () => import('@codemirror/legacy-modes/mode/diff').then((m) => StreamLanguage.define(m.diff)),
  patch: () => import('@codemirror/legacy-modes/mode/diff').then((m) => StreamLanguage.define(m.diff)),
};

/** The language name the page shows for `path` ("" when none). */
export function languageName(path) {
  return /\.([A-Za-z0-9]+)$/.exec(path ?? '')?.[1]?.toLowerCase() ?? '';
}

/** The language extension for `path`, or [] for plain text. */
export async function languageFor(path) {
  const load = BY_EXTENSION[languageName(path)];
  return load ? load() : [];
}

/**
 * A model's reply: prose around edits. This small stream mode marks what
 * matters for edits (fences, SEARCH/REPLACE markers, diff and patch headers,
 * added and removed lines) instead of full Markdown, whose package brings the
 * HTML, CSS and JavaScript grammars along (three times the first load's JS).
 */
/** @type {[RegExp, string][]} */
const REPLY_RULES = [
  [/^(<{5,9} SEARCH|={5,9}|>{5,9} REPLACE)\s*$/, 'keyword'],
  [/^```/, 'meta'],
  [/^(\*\*\* (Begin|End) Patch|\*\*\* (Update|Add|Delete) File:|\*\*\* Move to:)/, 'heading'],
  [/^(---|\+\+\+) /, 'heading'],
  [/^@@.*@@/, 'meta'],
  [/^\+/, 'inserted'],
  [/^-/, 'deleted'],
  [/^#+ /, 'heading'],
];

/** @type {import('@codemirror/language').StreamParser<unknown>} */
const replyMode = {
  name: 'reply',
  token(stream) {
    if (stream.sol()) {
      const line = stream.string;
      for (const [re, style] of REPLY_RULES) {
        if (re.test(line)) {
          stream.skipToEnd();
          return style;
        }
      }
    }
    stream.skipToEnd();
    return null;
  },
};

export function replyLanguage() {
  return Promise.resolve(StreamLanguage.define(replyMode));
}
