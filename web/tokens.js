// Token counts of each pane (file, reply, result). The built-in estimator
// (in pkg/, no vocabulary) counts by default; picking an exact vocabulary
// fetches pkg-tokens/ (tiktoken's vocabularies, about 2.9 MB gzipped) the
// first time, never with the page.
import init, { estimateTokens } from './pkg/patchbay_wasm.js';

const $ = (id) => document.getElementById(id);

const CHOICES = [
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

let exactModule = null;

/** Loads and initialises the exact-counts module once. */
function exact() {
  exactModule ??= import('./pkg-tokens/patchbay_tokens_wasm.js').then(async (m) => {
    await m.default();
    return m;
  });
  return exactModule;
}

/** A function text -> tokens for a choice. */
async function counter(choice) {
  const [kind, name] = choice.split(':');
  if (kind === 'estimate') return (t) => estimateTokens(t, name);
  const m = await exact();
  return (t) => m.countTokens(t, name);
}

let pending = 0;

async function update() {
  const out = $('token-counts');
  const choice = $('tokenizer').value;
  const ticket = ++pending;
  if (choice.startsWith('exact:') && !exactModule) out.textContent = 'loading the vocabularies...';
  try {
    const count = await counter(choice);
    if (ticket !== pending) return;
    const panes = [['file', $('file').value], ['reply', $('reply').value], ['result', $('result').textContent]];
    out.textContent = panes.map(([n, t]) => `${n} ${count(t)}`).join(' · ') + ' tokens';
    out.dataset.tokenizer = choice;
  } catch (e) {
    if (ticket === pending) out.textContent = `token count failed: ${e.message ?? e}`;
  }
}

async function start() {
  const select = $('tokenizer');
  if (!select) return;
  for (const [value, label] of CHOICES) select.add(new Option(label, value));
  await init();
  let timer = null;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(update, 150);
  };
  select.addEventListener('change', update);
  $('file').addEventListener('input', soon);
  $('reply').addEventListener('input', soon);
  // The result pane changes when edits are applied.
  new MutationObserver(soon).observe($('result'), { childList: true, characterData: true, subtree: true });
  update();
}

start();
