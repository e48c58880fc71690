// The pitfall lab: one card a lesson, each with a Load button and two
// verdicts computed now: what a naive tool does with the reply, and what
// patchbay does (applyEdits on the same file and reply).
import { LESSONS } from './lessons.js';
import { loadButton } from './dom.js';

function verdict(side, outcome, text) {
  const div = document.createElement('div');
  div.className = 'verdict';
  div.dataset.side = side;
  div.dataset.outcome = outcome;
  const label = document.createElement('strong');
  label.textContent = side === 'naive' ? 'naive tool' : 'patchbay';
  div.append(label, text);
  return div;
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

async function lessonCard(engine, lesson, load) {
  const l = lesson.prepare ? await lesson.prepare(engine, lesson) : lesson;
  const article = document.createElement('article');
  article.dataset.lesson = l.id;
  const h = document.createElement('h3');
  h.textContent = l.title;
  const p = document.createElement('p');
  p.textContent = l.explain;
  const button = loadButton('lesson-load', 'Load into the editors', () => load(l));
  const verdicts = document.createElement('div');
  verdicts.className = 'verdicts';
  const report = await engine.applyEdits({ [l.path]: l.file }, l.reply, {});
  const mine = patchbayVerdict(report, l.path);
  const naive = await l.naive(engine, l, report);
  const ours = verdict('patchbay', mine.outcome, mine.text);
  ours.dataset.status = mine.status;
  verdicts.append(verdict('naive', naive.outcome, naive.text), ours);
  article.append(h, p, button, verdicts);
  return article;
}

/**
 * Fills `lab` with the lessons' cards.
 * @param {HTMLElement} lab
 * @param {import('./main.js').PanelApi} api
 */
export async function setupLab(lab, { engine, loadExample, showFile }) {
  const load = (l) => {
    loadExample({ files: [{ path: l.path, text: l.file }], reply: l.reply, format: 'auto' });
    showFile();
  };
  const cards = await Promise.all(
    LESSONS.map((l) =>
      lessonCard(engine, l, load).catch((e) => {
        const failed = document.createElement('article');
        failed.dataset.lesson = l.id;
        failed.textContent = `${l.title}: the lesson could not be computed (${e.message}).`;
        return failed;
      }),
    ),
  );
  lab.replaceChildren(...cards);
  lab.dataset.state = 'ready';
}
