// The budget meter: what one model call with this file would hold in a
// context window of the chosen size. The engine's planner decides what is
// kept, trimmed or dropped and why; when the file does not fit, it sends
// sections of it (the lines shown under the meter) instead.
const $ = (id) => document.getElementById(id);

const SEGMENTS = ['system', 'task', 'reserve', 'memory', 'context', 'code', 'free'];

/** The request for the planner: system prompt from the format's prompt kit, memory notes, the file. */
async function request(engine, texts) {
  const format = $('format').value && $('format').value !== 'auto' ? $('format').value : 'search-replace';
  const kit = await engine.promptKit(format).catch(() => null);
  const notes = Math.max(0, Math.min(20, Number($('budget-memory').value) || 0));
  const feedback = $('feedback').textContent || 'No feedback yet.';
  return {
    window: Math.max(1, Number($('budget-window').value) || 1),
    system: kit?.instructions ?? '',
    reserve: Math.max(0, Number($('budget-reserve').value) || 0),
    memory: Array.from({ length: notes }, (_, i) => `Earlier turn ${i + 1}: ${feedback}`),
    task: $('budget-task').value,
    files: [{ path: $('path').value.trim() || 'file', text: texts.file }],
    options: { tokenizer: `estimate:${$('tokenizer').value.split(':')[1]}` },
  };
}

function showMeter(plan) {
  const meter = $('budget-meter');
  meter.replaceChildren();
  for (const kind of SEGMENTS) {
    const tokens = plan.totals[kind] ?? 0;
    const span = document.createElement('span');
    span.className = kind;
    span.dataset.kind = kind;
    span.style.width = `${(100 * tokens) / plan.window}%`;
    span.textContent = tokens ? `${kind} ${tokens}` : '';
    span.title = `${kind}: ${tokens} tokens`;
    meter.append(span);
  }
  meter.setAttribute('aria-label', SEGMENTS.map((k) => `${k} ${plan.totals[k] ?? 0}`).join(', '));
}

function showParts(plan) {
  const list = $('budget-parts');
  list.replaceChildren();
  for (const p of plan.parts) {
    const li = document.createElement('li');
    li.dataset.testid = 'budget-part';
    li.dataset.status = p.status;
    li.dataset.kind = p.kind;
    li.textContent = `${p.name}: ${p.tokens} tokens, ${p.status}${p.reason ? ` (${p.reason})` : ''}`;
    list.append(li);
  }
  const file = plan.files[0];
  const excerpt = $('budget-excerpt');
  excerpt.hidden = !file || file.mode === 'whole';
  if (file && file.mode !== 'whole') {
    const ranges = file.ranges.map(([a, b]) => `${a}-${b}`).join(', ');
    $('budget-note').textContent = `The file does not fit whole (${file.fullTokens} tokens): the planner sends lines ${ranges} (${file.tokens} tokens) and a line index.`;
    excerpt.textContent = file.excerpt;
  } else {
    $('budget-note').textContent = `${plan.totals.free} tokens free of ${plan.window}. ${plan.warnings.join(' ')}`;
  }
}

/** Wires the inputs; `update()` replans for the current texts. */
export function setupBudget(engine, texts) {
  let ticket = 0;
  const update = async () => {
    const t = texts();
    if (!t || !engine()) return;
    const mine = ++ticket;
    try {
      // The planner and the prompt kits are in the core's second part, which comes after the first result.
      await engine().whenRest();
      const plan = await engine().planBudget(await request(engine(), t));
      if (mine !== ticket) return;
      $('budget-meter').dataset.state = 'ok';
      showMeter(plan);
      showParts(plan);
    } catch (e) {
      if (mine !== ticket) return;
      $('budget-meter').dataset.state = 'error';
      $('budget-meter').replaceChildren();
      $('budget-parts').replaceChildren();
      $('budget-excerpt').hidden = true;
      $('budget-note').textContent = `Does not fit: ${e.message}`;
    }
  };
  for (const id of ['budget-window', 'budget-reserve', 'budget-memory', 'budget-task']) $(id).addEventListener('input', update);
  return { update };
}
