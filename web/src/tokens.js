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

export class Tokens {
  /**
   * `root` is the tokens and budget panel; `replyTokens` the reply editor's
   * count; `context()` what the budget's request takes from the rest of the
   * page; `budget` the meter's part of the page's state.
   * @param {ParentNode} root
   * @param {() => import('./state.js').Engine} engine
   * @param {{ replyTokens: HTMLElement, context: () => import('./budget.js').Context, budget: import('./state.js').BudgetState }} page
   */
  constructor(root, engine, { replyTokens, context, budget }) {
    this.engine = engine;
    /** @type {Texts | null} */
    this.texts = null;
    this.ticket = 0;
    this.ui = {
      tokenizer: byId(root, 'tokenizer', HTMLSelectElement),
      counts: byId(root, 'token-counts'),
      progress: byId(root, 'tokens-progress'),
      replyTokens,
    };
    for (const [value, label] of CHOICES) this.ui.tokenizer.add(new Option(label, value));
    this.ui.tokenizer.addEventListener('change', () => this.texts && this.update(this.texts));
    this.budget = setupBudget(root, engine, () => this.texts && { ...this.texts, ...context(), tokenizer: this.choice() }, budget);
  }

  /** The chosen tokenizer ("estimate:o200k_base", "exact:cl100k_base", ...). */
  choice() {
    return this.ui.tokenizer.value;
  }

  /**
   * Counts `texts` with the chosen tokenizer.
   * @param {string[]} texts
   * @returns {Promise<number[]>}
   */
  async count(texts) {
    const [kind, name] = this.choice().split(':');
    const engine = this.engine();
    return /** @type {Promise<number[]>} */ (kind === 'exact' ? engine.tokens.countTokensEach(texts, name) : engine.estimateTokensEach(texts, name));
  }

  /**
   * Recounts the editors' texts.
   * @param {Texts} texts
   */
  async update(texts) {
    this.texts = texts;
    const ticket = ++this.ticket;
    const choice = this.choice();
    const out = this.ui.counts;
    try {
      const counts = await this.count(Object.values(texts));
      if (ticket !== this.ticket) return;
      const names = Object.keys(texts);
      out.textContent = names.map((n, i) => `${n} ${counts[i]}`).join(' · ') + ' tokens';
      out.dataset.tokenizer = choice;
      this.ui.replyTokens.textContent = `${counts[names.indexOf('reply')]} tokens (${choice})`;
      this.ui.progress.hidden = true;
    } catch (e) {
      if (ticket === this.ticket) out.textContent = `token count failed: ${e.message ?? e}`;
    }
    await this.budget.update();
  }

  /**
   * Download progress of the vocabularies.
   * @param {{ module: string, received: number }} progress
   */
  progress({ module, received }) {
    if (module !== 'tokens') return;
    this.ui.progress.hidden = false;
    this.ui.counts.textContent = `loading the vocabularies: ${(received / 1e6).toFixed(1)} MB...`;
  }

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
    const counts = texts.length ? await this.count(texts) : [];
    return new Map(receipts.map((r, i) => [r.index, counts[i]]));
  }
}
