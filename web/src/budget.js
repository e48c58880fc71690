// The budget meter: what one model call with this file would hold in a
// context window of the chosen size. The engine's planner decides what is
// kept, trimmed or dropped and why; when the file does not fit, it sends
// sections of it (the lines shown under the meter) instead.
import { byId, make } from './dom.js';

/**
 * What the budget's request takes from the rest of the page.
 * @typedef {{ format: string, feedback: string, path: string }} Context
 */

/**
 * The texts and page context a plan is made for.
 * @typedef {import('./tokens.js').Texts & Context & { tokenizer: string }} Input
 */

/** @typedef {ReturnType<typeof budgetElements>} BudgetElements */

/**
 * The panel's elements inside `root`.
 * @param {ParentNode} root
 */
function budgetElements(root) {
  return {
    window: byId(root, 'budget-window', HTMLInputElement),
    task: byId(root, 'budget-task', HTMLInputElement),
    reserve: byId(root, 'budget-reserve', HTMLInputElement),
    memory: byId(root, 'budget-memory', HTMLInputElement),
    meter: byId(root, 'budget-meter'),
    parts: byId(root, 'budget-parts'),
    note: byId(root, 'budget-note'),
    excerpt: byId(root, 'budget-excerpt'),
  };
}

const SEGMENTS = ['system', 'task', 'reserve', 'memory', 'context', 'code', 'free'];

/**
 * The request for the planner: system prompt from the format's prompt kit,
 * memory notes, the file; the window, reserve, notes and task as the panel's boxes say.
 * @param {import('./state.js').Engine} engine
 * @param {BudgetElements} ui
 * @param {Input} input
 */
async function request(engine, ui, input) {
  const format = /** @type {import('patchbay').FormatName} */ (input.format && input.format !== 'auto' ? input.format : 'search-replace');
  const kit = await engine.promptKit(format).catch(() => null);
  const notes = Math.max(0, Math.min(20, Number(ui.memory.value) || 0));
  const feedback = input.feedback || 'No feedback yet.';
  return {
    window: Math.max(1, Number(ui.window.value) || 1),
    system: kit?.instructions ?? '',
    reserve: Math.max(0, Number(ui.reserve.value) || 0),
    memory: Array.from({ length: notes }, (_, i) => `Earlier turn ${i + 1}: ${feedback}`),
    task: ui.task.value,
    files: [{ path: input.path.trim() || 'file', text: input.file }],
    options: { tokenizer: `estimate:${input.tokenizer.split(':')[1]}` },
  };
}

/**
 * @param {BudgetElements} ui
 * @param {import('patchbay').Plan} plan
 */
function meterSegments(ui, plan) {
  ui.meter.replaceChildren(...SEGMENTS.map((kind) => {
    const tokens = plan.totals[kind] ?? 0;
    const span = make('span', { className: kind, textContent: tokens ? `${kind} ${tokens}` : '', title: `${kind}: ${tokens} tokens`, data: { kind } });
    span.style.width = `${(100 * tokens) / plan.window}%`;
    return span;
  }));
  ui.meter.setAttribute('aria-label', SEGMENTS.map((k) => `${k} ${plan.totals[k] ?? 0}`).join(', '));
}

/**
 * @param {BudgetElements} ui
 * @param {import('patchbay').Plan} plan
 */
function planParts(ui, plan) {
  ui.parts.replaceChildren(...plan.parts.map((p) => make('li', {
    textContent: `${p.name}: ${p.tokens} tokens, ${p.status}${p.reason ? ` (${p.reason})` : ''}`,
    data: { testid: 'budget-part', status: p.status, kind: p.kind },
  })));
  const file = plan.files[0];
  const excerpt = ui.excerpt;
  excerpt.hidden = !file || file.mode === 'whole';
  if (file && file.mode !== 'whole') {
    const ranges = file.ranges.map(([a, b]) => `${a}-${b}`).join(', ');
    ui.note.textContent = `The file does not fit whole (${file.fullTokens} tokens): the planner sends lines ${ranges} (${file.tokens} tokens) and a line index.`;
    excerpt.textContent = file.excerpt;
  } else {
    ui.note.textContent = `${plan.totals.free} tokens free of ${plan.window}. ${plan.warnings.join(' ')}`;
  }
}

/**
 * Draws the meter from `state`: the plan's segments and parts, or why it does not fit.
 * @param {BudgetElements} ui
 * @param {import('./state.js').BudgetState} state
 */
export function renderBudget(ui, state) {
  if (state.error !== null) {
    ui.meter.dataset.state = 'error';
    ui.meter.replaceChildren();
    ui.parts.replaceChildren();
    ui.excerpt.hidden = true;
    ui.note.textContent = `Does not fit: ${state.error}`;
  } else if (state.plan) {
    ui.meter.dataset.state = 'ok';
    meterSegments(ui, state.plan);
    planParts(ui, state.plan);
  }
}

/**
 * Wires the inputs inside `root`; `update()` replans for `input()`, the
 * current texts and context, into `state`, and draws it.
 * @param {ParentNode} root
 * @param {() => import('./state.js').Engine} engine
 * @param {() => Input | null} input
 * @param {import('./state.js').BudgetState} state
 */
export function setupBudget(root, engine, input, state) {
  const ui = budgetElements(root);
  const update = async () => {
    const t = input();
    if (!t || !engine()) return;
    const mine = ++state.ticket;
    let plan = null;
    let error = null;
    try {
      // The planner and the prompt kits are in the core's second part, which comes after the first result.
      await engine().whenRest();
      plan = await engine().planBudget(await request(engine(), ui, t));
    } catch (e) {
      error = String(e.message);
    }
    if (mine !== state.ticket) return;
    Object.assign(state, { plan, error });
    renderBudget(ui, state);
  };
  for (const box of [ui.window, ui.reserve, ui.memory, ui.task]) box.addEventListener('input', update);
  return { update };
}
