// The page's state, declared in one place: every field the scheduler and
// the panels' render functions read. Only main.js writes it; the panels are
// drawn from it and from the report it holds, never the other way round.

/** @typedef {import('patchbay').Report} Report */
/** @typedef {import('patchbay').Detection} Detection */
/** @typedef {ReturnType<typeof import('./engine/index.js').createEngine>} Engine */

/**
 * The case as plain data (what the hash and localStorage keep).
 * @typedef {object} Case
 * @property {{ path: string, text: string }[]} files
 * @property {number} active the index of the shown file
 * @property {string} reply
 * @property {import('patchbay').FormatName} format a format's name, or "auto"
 * @property {boolean} partial
 */

/**
 * The case as one run took it, with what the run needs beside it.
 * @typedef {Case & { path: string, original: string, doc: import('@codemirror/state').Text, started: number }} RunInput
 */

/**
 * One engine answer as the panels show it.
 * @typedef {object} Shown
 * @property {Report} report
 * @property {Detection | null} detection null when the format was chosen, not detected
 * @property {RunInput} input
 * @property {Record<string, string>} map the files by path, as sent to the engine
 */

/** The panels of the section bar, in its order; the first is shown when the address names none. */
export const PANELS = /** @type {const} */ (['receipts', 'model', 'budget', 'compare', 'outline', 'lab']);

/** @typedef {typeof PANELS[number]} Panel */

/**
 * @typedef {object} PageState
 * @property {Engine | null} engine null until the worker answers
 * @property {boolean} ready the engine is loaded and the first case has run
 * @property {Shown | null} shown the newest answer the panels show
 * @property {number} seq the number of the newest run started
 * @property {boolean} busy a run is under way
 * @property {boolean} again a change came during the run: one more run follows it
 * @property {boolean} queued a run is scheduled for the end of the current task
 * @property {{ timer: ReturnType<typeof setTimeout> } | null} details the pending update of the diff, tags, udiff and token panels
 * @property {ReturnType<typeof setTimeout> | null} remembering the timer that keeps the case in localStorage
 * @property {boolean} drawnSettled whether the page last said it was settled (`data-settled`)
 * @property {Panel} panel the panel the section bar shows
 */

/**
 * The state of a page that has not loaded the engine yet.
 * @param {Panel} panel
 * @returns {PageState}
 */
export function createState(panel) {
  return {
    engine: null,
    ready: false,
    shown: null,
    seq: 0,
    busy: false,
    again: false,
    queued: false,
    details: null,
    remembering: null,
    drawnSettled: false,
    panel,
  };
}

/**
 * Whether nothing is scheduled or under way: no run, no panel update.
 * @param {PageState} state
 */
export function settled(state) {
  return !state.busy && !state.queued && state.details === null;
}
