// The page's OpenAI-compatible provider in Chromium against a real
// llama-server (SmolLM2-135M-Instruct): connect (the model list and the
// context the server serves), two rounds, Stop, and the doctor once the
// server is down. The page is served from a real 127.0.0.1 server
// (Chromium's Local Network Access check refuses a page that is not itself
// on loopback). The model writes no usable edit: the assertions are on the
// loop and the wire, never on its skill.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, setPath, showPanel, type } from '../e2e/browser.mjs';
import { connectTo } from '../e2e/double.mjs';
import { chatsLogged, slots, startLlama, stopLlama } from './server.mjs';

const FILE = 'def greet(name):\n    print("hi", name)\n\n\ndef main():\n    greet("you")\n';
// Some 1,300 tokens of prompt: seconds of prompt processing, time to press Stop while the server works.
const BIG = Array.from({ length: 40 }, (_, k) => `def f${k}(x):\n    return x * ${k} + ${k * 7} - len(str(x))\n`).join('\n');

let server, pg;
const T = { timeout: 180_000 };

before(async () => {
  server = await startLlama();
  pg = await openPlayground();
  await setPath(pg.page, 'tool.py');
  await type(pg.page, 'file', FILE);
});

after(async () => {
  await pg?.close();
  await stopLlama(server);
});

/** The budget line under "The request", once it says num_ctx. */
async function budget(page) {
  await page.waitForFunction(() => /num_ctx/.test(document.querySelector('[data-testid="ollama-budget"]').textContent));
  return page.textContent('[data-testid="ollama-budget"]');
}

test('connect lists the server\'s model and takes the context it serves', T, async () => {
  const { page } = pg;
  await showPanel(page, 'model');
  await page.selectOption('[data-testid="ollama-provider"]', 'openai');
  assert.equal(await connectTo(page, server.base), 'connected: 1 model');
  const listed = (await (await fetch(`${server.base}/v1/models`)).json()).data.map((m) => m.id);
  assert.deepEqual(await page.$$eval('[data-testid="ollama-model"] option', (os) => os.map((o) => o.value)), listed);
  assert.equal(await page.inputValue('[data-testid="ollama-ctx"]'), '4096');
  assert.match(await budget(page), /num_ctx 4096\)$/);
  // More than the server serves: planned with the server's, and said.
  await page.fill('[data-testid="ollama-ctx"]', '8192');
  await page.dispatchEvent('[data-testid="ollama-ctx"]', 'change');
  await page.waitForFunction(() => /warning/.test(document.querySelector('[data-testid="ollama-budget"]').textContent));
  assert.match(await budget(page), /num_ctx 4096; warning: a context of 8192 tokens was asked for, but the server serves 4096/);
  await page.fill('[data-testid="ollama-ctx"]', '4096');
  await page.dispatchEvent('[data-testid="ollama-ctx"]', 'change');
});

test('two rounds, each reaching the server, with its real counts', T, async () => {
  const { page } = pg;
  await page.fill('[data-testid="ollama-rounds"]', '2');
  await page.fill('[data-testid="ollama-reply-limit"]', '64');
  await page.uncheck('[data-testid="ollama-early-stop"]');
  await page.fill('[data-testid="task"]', 'Make greet print "hello" instead of "hi".');
  const before = chatsLogged(server);
  await page.evaluate(() => delete document.body.dataset.modelRun);
  await page.click('[data-testid="run"]');
  await page.waitForSelector('body[data-model-run]', { timeout: 150_000 });
  const statuses = await page.$$eval('[data-round] .status', (s) => s.map((e) => e.textContent));
  assert.equal(statuses.length, 2, statuses.join('\n'));
  assert.match(statuses[0], /^round 1 \(first\): (retry|continue)/);
  assert.match(statuses[1], /^round 2 \((retry|continuation)\): give_up: .*all 2 rounds are spent/);
  assert.equal(chatsLogged(server) - before, 2, 'both rounds reached the server');
  for (const k of [1, 2]) {
    const tokens = await page.textContent(`[data-round="${k}"] .tokens`);
    const m = tokens.match(/prompt ~(\d+) estimated, (\d+) real; reply (\d+) tokens/);
    assert.ok(m && Number(m[2]) > 0 && Number(m[3]) > 0, `the server's usage counts: ${tokens}`);
  }
});

test('Stop aborts the request and the server frees its slot', T, async () => {
  const { page } = pg;
  await type(page, 'file', BIG);
  await page.fill('[data-testid="ollama-rounds"]', '1');
  await page.fill('[data-testid="ollama-reply-limit"]', '1500');
  await page.fill('[data-testid="task"]', 'Add a docstring to every function.');
  await page.evaluate(() => delete document.body.dataset.modelRun);
  await page.click('[data-testid="run"]');
  let busy = false;
  for (let i = 0; i < 600 && !busy; i++) {
    busy = (await slots(server)).some((s) => s.is_processing);
    if (!busy) await new Promise((r) => setTimeout(r, 25));
  }
  assert.ok(busy, 'the server was working on the request');
  await page.click('[data-testid="stop"]');
  await page.waitForSelector('body[data-model-run]', { timeout: 30_000 });
  assert.equal(await page.getAttribute('body', 'data-model-run'), 'stopped');
  assert.deepEqual(await page.$$eval('[data-round] .status', (s) => s.map((e) => e.textContent)), ['round 1 (first): stopped']);
  // The server cancels the task once its current batch (the prompt) is done.
  let idle = false;
  for (let i = 0; i < 600 && !idle; i++) {
    idle = (await slots(server)).every((s) => !s.is_processing);
    if (!idle) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(idle, 'the slot is free again within 30 s');
  assert.match(server.log, /cancel task/, 'the aborted fetch cancelled the task');
});

test('the doctor: a stopped server is "not running", with the fix', T, async () => {
  const { page } = pg;
  await stopLlama(server);
  const status = await connectTo(page, server.base);
  assert.equal(status, 'failed: not-running');
  assert.equal(await page.getAttribute('[data-testid="ollama-doctor"]', 'data-kind'), 'not-running');
  assert.equal(await page.isVisible('[data-testid="ollama-doctor"]'), true);
  const fix = await page.textContent('[data-testid="ollama-doctor"] ul');
  assert.match(fix, new RegExp(`llama-server -m MODEL\\.gguf --port ${server.port}`));
});
