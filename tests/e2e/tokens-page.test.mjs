// The playground's token counter in Chromium: estimates by default, and the
// exact vocabularies (web/pkg-tokens) fetched only when one is picked.
// Needs `scripts/build-web.sh` and /usr/bin/chromium (`scripts/setup.sh browser`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const serve = fileURLToPath(new URL('../../web/serve.mjs', import.meta.url));
const tpkg = new URL('../../web/pkg-tokens/', import.meta.url);
let server, context, page, profile;
const requests = [];
const problems = [];

function startServer() {
  server = spawn(process.execPath, [serve], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) resolve(m[0]);
    });
    server.on('exit', (code) => reject(new Error(`serve.mjs exited with ${code}: ${out}`)));
  });
}

before(async () => {
  if (!existsSync(new URL('patchbay_tokens_wasm_bg.wasm', tpkg))) throw new Error('web/pkg-tokens is missing: run scripts/build-web.sh');
  const base = await startServer();
  profile = mkdtempSync(join(tmpdir(), 'patchbay-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  await page.goto(base);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
}, { timeout: 120_000 });

after(async () => {
  await context?.close();
  server?.kill();
  if (profile) rmSync(profile, { recursive: true, force: true });
}, { timeout: 30_000 });

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
