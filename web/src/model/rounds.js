// The rounds of a model run, one `[data-round]` entry each, fed by the
// worker's events. The events change the rounds in the panel's state
// (`ModelState.rounds`); `renderRounds` draws them, and moves what a round
// has queued (reply text, thinking, receipts) into its entry and the reply
// editor: at most FRAME_BYTES of text a frame while a round streams, all of
// it at a round's end or Stop.
import { make, writeText } from '../dom.js';

/** @typedef {import('../state.js').Round} Round */
/** @typedef {import('../state.js').ModelState} ModelState */
/** @typedef {import('@codemirror/view').EditorView} EditorView */

/** Most reply text the reply editor and a round's entry hold. */
const EDITOR_MAX = 512 << 10;
/** Most text put into the editors in one animation frame. */
export const FRAME_BYTES = 128 << 10;
/** Most receipts listed in a round's entry. */
const RECEIPTS_SHOWN = 500;

/** A count of characters as the note says it. */
function size(/** @type {number} */ n) {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KB`;
  return `${n} characters`;
}

/**
 * A new round, streaming.
 * @param {any} request the round's request as the worker shows it
 * @returns {Round}
 */
function newRound(request) {
  return {
    request, open: true, decision: null, warnings: [],
    status: `round ${request.round} (${request.kind}): streaming`,
    tokens: `~${request.promptEstimate} prompt tokens estimated`,
    text: [], thinking: [], events: [], held: 0, hidden: 0, hiddenThinking: 0, hiddenReceipts: 0, receipts: 0, capped: false,
  };
}

/**
 * The round that still streams, if any.
 * @param {ModelState} state
 */
export function openRound(state) {
  const round = state.rounds.at(-1);
  return round?.open ? round : null;
}

/**
 * A worker event changes the rounds: a new round, a chunk queued, a round's end.
 * `drawAll()` draws everything queued (before a round closes); `drawSoon()` asks for a frame.
 * @param {ModelState} state
 * @param {any} e
 * @param {{ drawAll: () => void, drawSoon: () => void }} draw
 */
export function roundEvent(state, e, { drawAll, drawSoon }) {
  if (e.kind === 'round') {
    drawAll();
    state.rounds.push(newRound(e.request));
    drawAll();
  } else if (e.kind === 'chunk') {
    if (queueChunk(openRound(state), e)) drawSoon();
  } else if (e.kind === 'end') {
    const round = openRound(state);
    if (!round) return;
    drawAll();
    endRound(round, e);
    drawAll();
  }
}

/**
 * Queues a chunk in `round` (none: dropped); whether it was queued.
 * @param {Round | null} round
 * @param {any} chunk
 */
function queueChunk(round, { chat, pushed, hidden = 0, hiddenThinking = 0, hiddenReceipts = 0 }) {
  if (!round) return false;
  for (const c of chat) {
    if (c.kind === 'content') round.text.push(c.text);
    else if (c.kind === 'thinking') round.thinking.push(c.text);
  }
  round.events.push(...pushed.events);
  round.hidden += hidden;
  round.hiddenThinking += hiddenThinking;
  round.hiddenReceipts += hiddenReceipts;
  round.capped ||= pushed.capped;
  return true;
}

/**
 * The round's record: decision, real token counts, duration, tokens per second.
 * @param {Round} round
 * @param {any} end
 */
function endRound(round, { outcome, tokensPerSecond, ms }) {
  const r = outcome.record;
  const d = outcome.decision;
  const word = d.decision === 'give_up' ? `give_up: ${d.reason}` : d.decision;
  const early = r.earlyStop ? ', stopped early' : '';
  const cut = r.cut ? ', cut' : '';
  const e = r.ending;
  const rate = tokensPerSecond === null ? '' : `, ${tokensPerSecond.toFixed(1)} tokens/s`;
  Object.assign(round, {
    open: false,
    decision: d.decision,
    warnings: r.warnings,
    status: `round ${r.round} (${r.kind}): ${word}${early}${cut}`,
    tokens: `prompt ~${r.promptEstimate} estimated, ${e.promptTokens ?? '?'} real; reply ${e.outputTokens ?? '?'} tokens${rate}; ${(ms / 1000).toFixed(2)} s`,
  });
}

/**
 * Stop aborted the open round: nothing of it was judged or applied. Call after drawing all it queued.
 * @param {ModelState} state
 */
export function stopRound(state) {
  const round = openRound(state);
  if (!round) return;
  Object.assign(round, { open: false, decision: 'stopped', status: `round ${round.request.round} (${round.request.kind}): stopped` });
}

/** Each round's entry, made when the round is first drawn. */
const entries = /** @type {WeakMap<Round, HTMLLIElement>} */ (new WeakMap());

/**
 * A round's entry; a new one empties the reply editor, which the round's reply streams into.
 * @param {Round} round
 * @param {EditorView} editor
 * @param {(view: EditorView, text: string) => void} setText
 */
function entryOf(round, editor, setText) {
  let li = entries.get(round);
  if (li) return li;
  li = make('li', { data: { round: String(round.request.round) } });
  li.innerHTML = '<span class="status"></span> <span class="tokens"></span> <span class="note" data-testid="ollama-reply-note"></span><details><summary>request</summary><pre class="request"></pre></details><details><summary>reply</summary><pre class="reply"></pre></details><details class="thinking" hidden><summary>thinking</summary><pre></pre></details><ul class="receipts"></ul>';
  li.querySelector('.request').textContent = round.request.messages.map((m) => `## ${m.role}\n${m.content}`).join('\n\n');
  entries.set(round, li);
  setText(editor, '');
  return li;
}

/**
 * Draws the rounds into `list`, moving at most `budget` characters of queued reply text.
 * @param {HTMLOListElement} list
 * @param {Round[]} rounds
 * @param {{ editor: EditorView, setText: (view: EditorView, text: string) => void }} reply the reply editor
 * @param {number} budget
 */
export function renderRounds(list, rounds, reply, budget) {
  const items = rounds.map((r) => entryOf(r, reply.editor, reply.setText));
  if (items.length !== list.children.length || items.some((li, i) => list.children[i] !== li)) list.replaceChildren(...items);
  for (const [i, round] of rounds.entries()) {
    const li = items[i];
    writeText(li.querySelector('.status'), round.status);
    writeText(li.querySelector('.tokens'), round.tokens);
    if (round.decision) li.dataset.decision = round.decision;
    budget -= drawText(li, round, reply.editor, budget);
    drawThinking(li, round);
    drawReceipts(li, round);
    writeText(li.querySelector('.note'), noteOf(round));
  }
}

/**
 * Moves up to `budget` characters of the round's queued text into the editor
 * and the entry, at most EDITOR_MAX in all (the rest is counted); how many it took.
 * @param {HTMLLIElement} li
 * @param {Round} round
 * @param {EditorView} editor
 * @param {number} budget
 */
function drawText(li, round, editor, budget) {
  let text = '';
  while (round.text.length && text.length < budget) {
    const piece = round.text.shift();
    const room = budget - text.length;
    if (piece.length > room) round.text.unshift(piece.slice(room));
    text += piece.slice(0, room);
  }
  const room = Math.max(0, EDITOR_MAX - round.held);
  const part = text.length <= room ? text : text.slice(0, room);
  round.hidden += text.length - part.length;
  if (part) {
    round.held += part.length;
    editor.dispatch({ changes: { from: editor.state.doc.length, insert: part } });
    li.querySelector('.reply').append(part);
  }
  return text.length;
}

/**
 * @param {HTMLLIElement} li
 * @param {Round} round
 */
function drawThinking(li, round) {
  const thinking = round.thinking.splice(0).join('');
  if (!thinking) return;
  const box = /** @type {HTMLElement} */ (li.querySelector('.thinking'));
  box.hidden = false;
  box.querySelector('pre').append(thinking);
}

/**
 * @param {HTMLLIElement} li
 * @param {Round} round
 */
function drawReceipts(li, round) {
  const list = li.querySelector('.receipts');
  for (const ev of round.events.splice(0)) {
    if (round.receipts >= RECEIPTS_SHOWN) {
      round.hiddenReceipts += 1;
      continue;
    }
    round.receipts += 1;
    const r = ev.receipt;
    list.append(make('li', { textContent: `edit ${r.index} ${ev.path}: ${r.status}${r.code ? ` (${r.code})` : ''}` }));
  }
}

/**
 * What the round left out, whether the reply reached its cap, and the round's warnings.
 * @param {Round} round
 */
function noteOf(round) {
  const parts = [];
  if (round.hidden) parts.push(`... ${size(round.hidden)} of the reply not shown`);
  if (round.hiddenThinking) parts.push(`${size(round.hiddenThinking)} of thinking not shown`);
  if (round.hiddenReceipts) parts.push(`${round.hiddenReceipts} more receipts not listed`);
  if (round.capped) parts.push('the reply reached its cap: reading stopped there');
  return [...parts, ...round.warnings].filter(Boolean).join('; ');
}
