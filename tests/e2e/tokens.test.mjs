// Token counting, the format advisor and the budget planner in node, through
// the generated JS of packages/patchbay/core (estimator) and web/pkg-tokens (exact counts).
// Needs `scripts/build-web.sh` first.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

const pkg = new URL('../../packages/patchbay/core/', import.meta.url);
const tpkg = new URL('../../web/pkg-tokens/', import.meta.url);
for (const [dir, file] of [[pkg, 'patchbay_wasm_bg.wasm'], [tpkg, 'patchbay_tokens_wasm_bg.wasm']]) {
  if (!existsSync(new URL(file, dir))) throw new Error(`${dir.pathname} is missing: run scripts/build-web.sh`);
}
const wasm = await import(new URL('patchbay_wasm.js', pkg));
const tokens = await import(new URL('patchbay_tokens_wasm.js', tpkg));

before(() => {
  wasm.initSync({ module: readFileSync(new URL('patchbay_wasm_bg.wasm', pkg)) });
  tokens.initSync({ module: readFileSync(new URL('patchbay_tokens_wasm_bg.wasm', tpkg)) });
});

const sample = readFileSync(new URL('../tools/sources/textwrap.py', import.meta.url), 'utf8');

test('exact counts match the known token ids of each vocabulary', () => {
  assert.deepEqual(tokens.encodings(), ['o200k_base', 'cl100k_base', 'llama3', 'qwen2', 'deepseek_v3']);
  assert.equal(tokens.countTokens('hello world', 'o200k_base'), 2);
  // OpenAI's cookbook: [83, 1609, 5963, 374, 2294, 0] in cl100k_base.
  assert.equal(tokens.countTokens('tiktoken is great!', 'cl100k_base'), 6);
  assert.equal(tokens.countTokens('你好世界', 'cl100k_base'), 5);
  // Qwen normalises to NFC first: a decomposed é counts like a composed one.
  assert.equal(tokens.countTokens('cafe\u0301', 'qwen2'), tokens.countTokens('café', 'qwen2'));
  assert.deepEqual(Array.from(tokens.countTokensEach(['hello', ' world'], 'llama3')), [1, 1]);
  assert.throws(() => tokens.countTokens('x', 'gemma'), /estimate:gemma/);
});

test('big and repetitive inputs do not overflow the stack', () => {
  const big = sample.repeat(300); // ~1.8 MB
  const n = tokens.countTokens(big, 'o200k_base');
  assert.ok(n > 300 * 1000, `${n}`);
  for (const s of ['a'.repeat(1 << 20), '9'.repeat(1 << 20), ' '.repeat(1 << 20), '日本'.repeat(1 << 18)]) {
    assert.ok(tokens.countTokens(s, 'o200k_base') > 0);
  }
});

test('the estimator is within 6% of the exact count and knows its families', () => {
  const exact = tokens.countTokens(sample, 'o200k_base');
  const est = wasm.estimateTokens(sample);
  assert.ok(Math.abs(est - exact) / exact < 0.06, `${est} vs ${exact}`);
  assert.equal(wasm.estimateTokens(sample, 'o200k_base'), est);
  assert.ok(wasm.estimateTokens(sample, 'gemma') > est);
  assert.equal(wasm.estimateTokens(''), 0);
  assert.throws(() => wasm.estimateTokens('x', 'gpt2'), /unknown model family/);
});

test('compare lists every format and advises', () => {
  const before = Array.from({ length: 400 }, (_, i) => `let value_${i} = compute(${i});\n`).join('');
  const after = before.replace('compute(200)', 'compute(201)');
  const c = wasm.compare(before, after, { path: 'src/values.rs' });
  assert.equal(c.formats.length, wasm.formats().length - 1); // all but `auto`
  assert.equal(c.changedLines, 1);
  const rec = c.formats.find((f) => f.format === c.recommendation.format);
  assert.ok(rec.unambiguous && rec.format !== 'whole', c.recommendation.reason);
  assert.ok(rec.edit.includes('compute(201)'));
  assert.equal(wasm.compare(before.slice(0, 200), after.slice(0, 200)).recommendation.format, 'none');
  assert.equal(wasm.compare('a\n', 'b\n', { wholeBelowLines: 1 }).recommendation.format, 'whole');
});

test('plan fits an 8k agent and throws clearly when nothing fits', () => {
  const file = Array.from({ length: 200 }, (_, k) =>
    `pub fn handler_${k}(input: &str) -> usize {\n    let key = format!("{}-${k}", input.trim());\n    key.len() + ${k}\n}\n\n`).join('');
  const request = {
    window: 8192,
    system: 'You are a careful coding assistant. '.repeat(140),
    reserve: 2000,
    memory: ['The user prefers small diffs. '.repeat(12), 'Tests live in tests/. '.repeat(15)],
    task: 'Fix handler_40',
    files: [{ path: 'src/h.rs', text: file }],
  };
  const p = wasm.planBudget(request);
  const t = p.totals;
  assert.equal(t.system + t.task + t.reserve + t.memory + t.context + t.code + t.free, 8192);
  assert.equal(p.files[0].mode, 'sections');
  assert.ok(p.files[0].excerpt.includes('pub fn handler_40('));
  assert.ok(p.files[0].index.some((s) => s.name === 'handler_40' && s.selected && s.startLine > 1));
  // An outline passed in replaces the heuristic.
  const lines = file.split('\n').length - 1;
  const outline = [{ name: 'head', kind: 'block', startLine: 1, endLine: 5 }, { name: 'rest', kind: 'block', startLine: 6, endLine: lines }];
  const withOutline = wasm.planBudget({ ...request, window: 32000, files: [{ path: 'src/h.rs', text: file, sections: outline }] });
  assert.deepEqual(withOutline.files[0].index.map((s) => s.name), ['head', 'rest']);
  assert.throws(() => wasm.planBudget({ ...request, window: 1000 }), /more than the window of 1000/);
});
