// Token counts: per editor and per edit, estimated for a model family by the
// core (no vocabulary), or exact with tiktoken's vocabularies, loaded by the
// engine's worker the first time an exact tokenizer is picked (about 2.9 MB
// compressed, with a progress bar). The budget meter lives in budget.js.
import { setupBudget } from './budget.js';
import { byId } from './dom.js';

export const CHOICES = [
  ['estimate:o200k_base', 'estimate: GPT-4o / o200k'],
  ['estimate:cl100k_base', 'estimate: GPT-4 / cl100k'],
  ['estimate:llama3', 'estimate: Llama 3'],
  ['estimate:qwen2', 'estimate: Qwen 2.5 / 3'],
  ['estimate:deepseek_v3', 'estimate: DeepSeek V3'],
  ['estimate:gemma', 'estimate: Gemma'],
  ['exact:o200k_base', 'exact: o200k_base (loads 2.9 MB)'],
  ['exact:cl100k_base', 'exact: cl100k_base (loads 2.9 MB)'],
  ['exact:llama3', 'exact: llama3 (loads 2.9 MB)'],
  ['exact:qwen2', 'exact: qwen2 (loads 2.9 MB)'],
  ['exact:deepseek_v3', 'exact: deepseek_v3 (loads 2.9 MB)'],
];

/** @typedef {{ file: string, reply: string, result: string }} Texts */

/** @typedef {import('./state.js').TokensState} TokensState */

/**
 * The panel's elements inside `root`, and the reply editor's count.
 * @param {ParentNode} root
 * @param {HTMLElement} replyTokens
 */
function tokensElements(root, replyTokens) {
  return {
    tokenizer: byId(root, 'tokenizer', HTMLSelectElement),
    counts: byId(root, 'token-counts'),
    progress: byId(root, 'tokens-progress'),
    replyTokens,
  };
}

/**
 * Draws the counts, the reply's count and the vocabularies' download from `state`.
 * @param {ReturnType<typeof tokensElements>} ui
 * @param {TokensState} state
 */
export function renderTokens(ui, state) {
  if (state.line !== null) ui.counts.textContent = state.line;
  if (state.countedBy !== null) ui.counts.dataset.tokenizer = state.countedBy;
  if (state.reply !== null) ui.replyTokens.textContent = state.reply;
  if (state.loading !== null) ui.progress.hidden = !state.loading;
}

/**
 * The token counts in `root` (the tokens and budget panel), their part of
 * the page's state in `state`. `replyTokens` is the reply editor's count;
 * `context()` what the budget's request takes from the rest of the page;
 * `budget` the meter's part of the page's state.
 * @param {ParentNode} root
 * @param {() => import('./state.js').Engine} engine
 * @param {TokensState} state
 * @param {{ replyTokens: HTMLElement, context: () => import('./budget.js').Context, budget: import('./state.js').BudgetState }} page
 */
export function setupTokens(root, engine, state, { replyTokens, context, budget }) {
  const ui = tokensElements(root, replyTokens);
  /** The chosen tokenizer ("estimate:o200k_base", "exact:cl100k_base", ...). */
  const choice = () => ui.tokenizer.value;
  /**
   * Counts `texts` with the chosen tokenizer.
   * @param {string[]} texts
   * @returns {Promise<number[]>}
   */
  const count = (texts) => {
    const [kind, name] = choice().split(':');
    return /** @type {Promise<number[]>} */ (kind === 'exact' ? engine().tokens.countTokensEach(texts, name) : engine().estimateTokensEach(texts, name));
  };
  const meter = setupBudget(root, engine, () => state.texts && { ...state.texts, ...context(), tokenizer: choice() }, budget);
  /**
   * Recounts the editors' texts.
   * @param {Texts} texts
   */
  const update = async (texts) => {
    state.texts = texts;
    const ticket = ++state.ticket;
    const by = choice();
    try {
      const counts = await count(Object.values(texts));
      if (ticket !== state.ticket) return;
      const names = Object.keys(texts);
      Object.assign(state, {
        line: names.map((n, i) => `${n} ${counts[i]}`).join(' · ') + ' tokens',
        countedBy: by,
        reply: `${counts[names.indexOf('reply')]} tokens (${by})`,
        loading: false,
      });
    } catch (e) {
      if (ticket === state.ticket) state.line = `token count failed: ${e.message ?? e}`;
    }
    renderTokens(ui, state);
    await meter.update();
  };
  for (const [value, label] of CHOICES) ui.tokenizer.add(new Option(label, value));
  ui.tokenizer.addEventListener('change', () => state.texts && update(state.texts));
  return {
    choice,
    update,
    /**
     * Download progress of the vocabularies.
     * @param {{ module: string, received: number }} progress
     */
    progress({ module, received }) {
      if (module !== 'tokens') return;
      Object.assign(state, { loading: true, line: `loading the vocabularies: ${(received / 1e6).toFixed(1)} MB...` });
      renderTokens(ui, state);
    },
    /**
     * Each edit's token count (its lines in the reply), by index: estimated
     * for the chosen family, or exact once the vocabularies are loaded.
     * @param {string} reply
     * @param {import('patchbay').Report} report
     * @returns {Promise<Map<number, number>>}
     */
    async editCounts(reply, report) {
      const receipts = report.files.flatMap((f) => f.edits).filter((r) => r.outputLines);
      const lines = reply.split('\n');
      const texts = receipts.map((r) => lines.slice(r.outputLines[0] - 1, r.outputLines[1]).join('\n'));
      const counts = texts.length ? await count(texts) : [];
      return new Map(receipts.map((r, i) => [r.index, counts[i]]));
    },
  };
}
