// The playground's token counter in Chromium: estimates by default, and the
// exact vocabularies (web/pkg-tokens) fetched only when one is picked.
// Needs `scripts/build-web.sh` and /usr/bin/chromium (`scripts/setup.sh browser`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { playground } from './support.mjs';

const tpkg = new URL('../../web/pkg-tokens/', import.meta.url);
let page;
const { requests, problems } = playground('pkg-tokens/patchbay_tokens_wasm_bg.wasm', (web) => ({ page } = web));

const T = { timeout: 60_000 };
const counts = () => page.getByTestId('token-counts').textContent();

test('the estimator counts each pane and the vocabularies load only on demand', T, async () => {
  await page.waitForFunction(() => /^file \d+ · reply \d+ · result \d+ tokens$/.test(document.getElementById('token-counts').textContent));
  await page.getByTestId('file').fill('hello world');
  await page.waitForFunction(() => document.getElementById('token-counts').textContent.startsWith('file 2 · '));
  assert.match(await counts(), /^file 2 · reply \d+ · result \d+ tokens$/);
  assert.ok(!requests.some((u) => u.includes('pkg-tokens')), 'pkg-tokens fetched before it was asked for');

  // An exact vocabulary: fetched now, and the count is tiktoken's.
  const text = readFileSync(new URL('../tools/sources/textwrap.py', import.meta.url), 'utf8');
  await page.getByTestId('file').fill(text);
  await page.getByTestId('tokenizer').selectOption('exact:o200k_base');
  await page.waitForFunction(() => document.getElementById('token-counts').dataset.tokenizer === 'exact:o200k_base', null, { timeout: 45_000 });
  const tokens = await import(new URL('patchbay_tokens_wasm.js', tpkg));
  tokens.initSync({ module: readFileSync(new URL('patchbay_tokens_wasm_bg.wasm', tpkg)) });
  assert.match(await counts(), new RegExp(`^file ${tokens.countTokens(text, 'o200k_base')} · `));
  assert.ok(requests.some((u) => u.includes('pkg-tokens/patchbay_tokens_wasm_bg.wasm')));
  // Typing recounts with the chosen vocabulary.
  await page.getByTestId('file').fill('hello world');
  await page.waitForFunction(() => document.getElementById('token-counts').textContent.startsWith('file 2 · '));
  assert.deepEqual(problems, []);
  // Nothing was fetched from anywhere but our server.
  const origin = new URL(page.url()).origin;
  assert.ok(requests.every((u) => u.startsWith(origin) || u.startsWith('data:')), requests.join('\n'));
});
