// The pitfall lab: one card a lesson, each with a Load button and two
// verdicts computed now: what a naive tool does with the reply, and what
// patchbay does (applyEdits on the same file and reply).
import { LESSONS } from './lessons.js';
import { fill, loadButton, make } from './dom.js';

/**
 * @param {'naive' | 'patchbay'} side
 * @param {{ outcome: string, text: string, status?: string }} v
 */
function verdict(side, v) {
  const data = { side, outcome: v.outcome, ...(v.status ? { status: v.status } : {}) };
  return make('div', { className: 'verdict', data }, make('strong', { textContent: side === 'naive' ? 'naive tool' : 'patchbay' }), v.text);
}

/** What patchbay makes of the lesson's reply, in one line. */
function patchbayVerdict(report, path) {
  const receipts = report.files.flatMap((f) => f.edits);
  if (report.status === 'applied') {
    const where = receipts.filter((r) => r.lines).map((r) => `${r.lines[0]}-${r.lines[1]} (${r.strategy ?? 'whole file'})`).join(', ');
    const mine = report.files.find((f) => f.path === path);
    return { outcome: 'applied', status: 'applied', text: `applied at lines ${where || 'whole file'}; ${mine?.status ?? ''}.` };
  }
  const codes = [...new Set(receipts.map((r) => r.code).filter(Boolean))].join(', ') || report.code || report.status;
  return { outcome: 'refused', status: report.status, text: `${report.status} (${codes}): ${report.feedback.split('\n')[0]}` };
}

/**
 * The lesson's card as data: the lesson as loaded, what a naive tool and patchbay make of its reply.
 * @param {import('./state.js').Engine} engine
 * @param {import('./state.js').Lesson} lesson
 * @returns {Promise<import('./state.js').LessonCard>}
 */
async function lessonCard(engine, lesson) {
  try {
    const l = lesson.prepare ? await lesson.prepare(engine, lesson) : lesson;
    const report = await engine.applyEdits({ [l.path]: l.file }, l.reply, {});
    return { lesson: l, mine: patchbayVerdict(report, l.path), naive: await l.naive(engine, l, report) };
  } catch (e) {
    return { lesson, failed: String(e.message) };
  }
}

/**
 * One lesson's card; its button loads the lesson.
 * @param {import('./state.js').LessonCard} c
 * @param {(l: import('./state.js').Lesson) => void} load
 */
function cardNode(c, load) {
  const l = c.lesson;
  if ('failed' in c) return make('article', { textContent: `${l.title}: the lesson could not be computed (${c.failed}).`, data: { lesson: l.id } });
  return make('article', { data: { lesson: l.id } },
    make('h3', { textContent: l.title }),
    make('p', { textContent: l.explain }),
    loadButton('lesson-load', 'Load into the editors', () => load(l)),
    make('div', { className: 'verdicts' }, verdict('naive', c.naive), verdict('patchbay', c.mine)));
}

/**
 * Draws the lab's cards from `state`, once they are computed.
 * @param {HTMLElement} lab
 * @param {import('./state.js').LabState} state
 * @param {(l: import('./state.js').Lesson) => void} load
 */
export function renderLab(lab, state, load) {
  if (!state.cards) return;
  fill(lab, state.cards, () => state.cards.map((c) => cardNode(c, load)));
  lab.dataset.state = 'ready';
}

/**
 * Computes the lessons' cards into `state` and draws them in `lab`.
 * @param {HTMLElement} lab
 * @param {import('./main.js').PanelApi} api
 * @param {import('./state.js').LabState} state
 */
export async function setupLab(lab, { engine, loadExample, showFile }, state) {
  const load = (/** @type {import('./state.js').Lesson} */ l) => {
    loadExample({ files: [{ path: l.path, text: l.file }], reply: l.reply, format: 'auto' });
    showFile();
  };
  state.cards = await Promise.all(LESSONS.map((l) => lessonCard(engine, l)));
  renderLab(lab, state, load);
}
