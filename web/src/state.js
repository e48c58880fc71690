// The page's state, declared in one place: every field the scheduler and
// the panels' render functions read. main.js writes the page's fields and
// hands each panel its own part (`files`, `budget`, `model`, ...); the
// panel's handlers change only that part, then ask for the panel's one
// render function, which draws the panel from it. The form controls a
// person fills (window, task, provider, ...) are read when an action needs
// them: they are the person's, not the page's.

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
 * @property {number} seq the run's number
 * @property {number} ms how long the run took, in milliseconds
 * @property {number} inFrame how many answers had come through shared memory within an animation frame when the run ended
 */

/** The panels of the section bar, in its order; the first is shown when the address names none. */
export const PANELS = /** @type {const} */ (['receipts', 'model', 'budget', 'compare', 'outline', 'lab']);

/** @typedef {typeof PANELS[number]} Panel */

/**
 * The case's files: one tab each, the active one in the file editor (each
 * keeps its own EditorState, so its own undo history).
 * @typedef {object} FilesState
 * @property {{ path: string, state: import('@codemirror/state').EditorState, typed: boolean }[]} list `typed`: the person wrote the path (then it is never replaced)
 * @property {number} active the index of the shown file
 * @property {string} note what the note beside the path says (CR LF endings, a path taken from the reply)
 */

/**
 * The review of the result: the result against the original, the edits
 * offered Keep/Reject, and the result as reviewed so far.
 * @typedef {object} ReviewState
 * @property {'unified' | 'split' | 'text'} mode the view shown
 * @property {string} original
 * @property {string} result the result before review
 * @property {readonly import('patchbay/codemirror').Match[]} matches the labels of the result's changes
 * @property {string} reviewed the result with the changes rejected in the diff reverted
 * @property {{ index: number }[]} edits the file's applied receipts
 * @property {Set<number>} rejected the edits rejected with their toggles
 * @property {number} asked the number of the newest result asked of the engine; an older answer is dropped
 * @property {number} shown the number of the newest result shown, so a render redraws the diff only for a new one
 */

/**
 * The unified-diff panel: shown for a udiff reply, with its hunks' verdicts
 * and the repaired diff (each null until its answer has come).
 * @typedef {object} UdiffState
 * @property {boolean} shown the reply is a udiff
 * @property {{ hunks: import('patchbay').HunkDiagnosis[], fuzz: import('patchbay').FuzzReport[], note: string } | null} diagnosis
 * @property {{ text: string, error: string | null } | null} repair
 */

/**
 * The tags toggle: its choices and the newest view's text.
 * @typedef {object} TagsState
 * @property {boolean} on
 * @property {string} view the chosen view: "gutter", "hashline" or "crc"
 * @property {string} text the newest text computed
 * @property {string | null} textView the view `text` is in, null until one is computed
 */

/**
 * The token counts: the texts last counted and what the panel says of them
 * (each null until first said, so the page's first words stay).
 * @typedef {object} TokensState
 * @property {import('./tokens.js').Texts | null} texts
 * @property {number} ticket the number of the newest count; an older answer is dropped
 * @property {string | null} line the counts' line
 * @property {string | null} countedBy the tokenizer of the counts shown
 * @property {string | null} reply the reply editor's count
 * @property {boolean | null} loading the vocabularies are downloading
 */

/**
 * The budget meter: the newest plan, or why the newest request does not fit.
 * @typedef {object} BudgetState
 * @property {number} ticket the number of the newest request; an older answer is dropped
 * @property {import('patchbay').Plan | null} plan
 * @property {string | null} error
 */

/**
 * The format comparison: the newest comparison, or why the newest failed
 * (an error leaves the last comparison's cards in place).
 * @typedef {object} CompareState
 * @property {import('patchbay').Comparison | null} comparison
 * @property {string | null} error
 * @property {ReturnType<typeof setTimeout> | null} timer the pending run after typing in the wanted result
 */

/**
 * Outline and slice: the file's symbols, the cut symbol and its splice.
 * @typedef {object} OutlineState
 * @property {'none' | 'loading' | 'ready' | 'error'} status
 * @property {import('patchbay/syntax').Outline | null} outline
 * @property {string} error why there is no outline
 * @property {{ slice: import('patchbay/syntax').Slice, text: string, path: string } | null} cut the symbol cut out, the text and the path it was cut from
 * @property {string | null} cutError why the newest cut failed
 * @property {boolean} open the slice box is shown
 * @property {{ status: string, format: string, text: string } | null} splice the reply applied to the slice, spliced back
 * @property {string | null} spliceError why the newest splice failed
 */

/** @typedef {(typeof import('./lessons.js').LESSONS)[number]} Lesson */

/**
 * One lesson's card: the lesson as loaded and the two verdicts, or why it could not be computed.
 * @typedef {{ lesson: Lesson, naive: { outcome: string, text: string }, mine: { outcome: string, status: string, text: string } } | { lesson: Lesson, failed: string }} LessonCard
 */

/**
 * The pitfall lab: its cards, null until they are computed.
 * @typedef {object} LabState
 * @property {LessonCard[] | null} cards
 */

/**
 * One round of a model run: what its entry says, and what it has queued
 * for the next draw (reply text, thinking, receipts) with the counts of what
 * was left out.
 * @typedef {object} Round
 * @property {any} request the round's request as the worker shows it
 * @property {boolean} open the round still streams
 * @property {string} status
 * @property {string} tokens
 * @property {string | null} decision the loop's decision, or "stopped"
 * @property {string[]} warnings
 * @property {string[]} text reply text not drawn yet
 * @property {string[]} thinking thinking not drawn yet
 * @property {any[]} events receipts not listed yet
 * @property {number} held reply characters drawn
 * @property {number} hidden reply characters left out
 * @property {number} hiddenThinking
 * @property {number} hiddenReceipts
 * @property {number} receipts receipts listed
 * @property {boolean} capped the reply reached its cap
 */

/**
 * The local-model panel.
 * @typedef {object} ModelState
 * @property {string} connection the connection's status line
 * @property {{ kind: string, text: string, fix: string[] } | null} diagnosis the doctor's, shown while set
 * @property {import('patchbay').ModelEntry[] | null} models the server's models, null until connected
 * @property {string[]} capabilities the picked model's (Ollama's /api/show)
 * @property {{ length: number } | null} context the context length the server gives for the picked model, a new object each time it gives one
 * @property {{ length: number } | null} drawnContext the one last written into the Context box (a person's edit stays until the server gives one again)
 * @property {{ budget: string, request: string }} preview the first request, before it is sent
 * @property {boolean} running a run is under way
 * @property {string} runStatus
 * @property {string | null} outcome how the last run ended (`<body data-model-run>`)
 * @property {Round[]} rounds the run's rounds
 * @property {number} frame the animation frame that draws the rounds' queued text (0: none)
 */

/**
 * The format arena.
 * @typedef {object} ArenaState
 * @property {string[]} formats the formats offered
 * @property {Set<string>} pickedFormats
 * @property {{ from: import('patchbay').ModelEntry[] | null, names: Set<string> }} unticked the models unticked in the model panel's list `from`; a new list has all ticked
 * @property {boolean} running
 * @property {boolean} stopping Stop was asked for
 * @property {string} status
 * @property {import('patchbay').ArenaResults | null} results
 * @property {boolean} hasExpected the results' tasks have expected results
 * @property {string | null} outcome how the last run ended (`<body data-arena-run>`)
 */

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
 * @property {{ text: string, restore: Case | null }} note the note beside Share: what Share or a load did; `restore` is the case a load replaced, one click away
 * @property {FilesState} files
 * @property {ReviewState} review
 * @property {UdiffState} udiff
 * @property {TagsState} tags
 * @property {TokensState} tokens
 * @property {BudgetState} budget
 * @property {CompareState} compare
 * @property {OutlineState} outline
 * @property {LabState} lab
 * @property {ModelState} model
 * @property {ArenaState} arena
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
    note: { text: '', restore: null },
    files: { list: [], active: -1, note: '' },
    review: { mode: 'unified', original: '', result: '', matches: [], reviewed: '', edits: [], rejected: new Set(), asked: 0, shown: 0 },
    udiff: { shown: false, diagnosis: null, repair: null },
    tags: { on: false, view: 'gutter', text: '', textView: null },
    tokens: { texts: null, ticket: 0, line: null, countedBy: null, reply: null, loading: null },
    budget: { ticket: 0, plan: null, error: null },
    compare: { comparison: null, error: null, timer: null },
    outline: { status: 'none', outline: null, error: '', cut: null, cutError: null, open: false, splice: null, spliceError: null },
    lab: { cards: null },
    model: {
      connection: 'not connected', diagnosis: null, models: null, capabilities: [], context: null, drawnContext: null,
      preview: { budget: '', request: '' }, running: false, runStatus: '', outcome: null, rounds: [], frame: 0,
    },
    arena: {
      formats: [], pickedFormats: new Set(['search-replace', 'udiff']), unticked: { from: null, names: new Set() },
      running: false, stopping: false, status: '', results: null, hasExpected: false, outcome: null,
    },
  };
}

/**
 * Whether nothing is scheduled or under way: no run, no panel update.
 * @param {PageState} state
 */
export function settled(state) {
  return !state.busy && !state.queued && state.details === null;
}
