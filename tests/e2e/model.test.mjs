// The local-model panel in Chromium against the model-server double
// (tests/src/double, its standalone binary `model-double`, started here with
// a script of its own; double.mjs builds and starts it), so this file runs
// alone. Every expected text is computed here from the script and
// the file, not by the engine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { editorText, openPlayground, setPath, type } from './browser.mjs';
import { connectTo, startDouble } from './double.mjs';

const FILE = 'def greet(name):\n    print("hi", name)\n\n\ndef main():\n    greet("you")\n';
const edit = (search, replace) => `tool.py\n<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n`;
const GOOD = edit('    print("hi", name)', '    print("hello", name)');
const WANT = FILE.replace('"hi"', '"hello"');
const MISSING = edit('    print("bye", name)', '    print("x", name)');
const SECOND = edit('    greet("you")', '    greet("world")');

const SCRIPT = {
  version: '0.12.6',
  models: [
    { name: 'coder:7b', architecture: 'qwen2', contextLength: 32768, capabilities: ['completion'] },
    { name: 'small:1b', architecture: 'llama', contextLength: 4096, capabilities: ['completion'] },
    { name: 'thinker:8b', architecture: 'qwen3', contextLength: 16384, capabilities: ['completion', 'thinking'] },
  ],
  replies: [
    { task: 'think first', round: 1, text: GOOD, end: 'stop', thinking: 'Let me look at greet.' },
    { task: 'say hello', round: 1, text: GOOD, end: 'stop', promptTokens: 321, chunkChars: 7 },
    // A first edit that cannot apply: with early stop the reply is cut after it; the retry sends both.
    { task: 'retry please', round: 1, text: MISSING + '\n' + SECOND, end: 'stop' },
    { task: 'retry please', round: 2, text: GOOD, end: 'stop' },
    // A reply cut by the limit after one complete edit; the continuation brings the other.
    { task: 'cut short', round: 1, text: GOOD + '\ntool.py\n<<<<<<< SEARCH\n    greet("y', end: 'length' },
    { task: 'cut short', round: 2, text: SECOND, end: 'stop' },
    // A slow model (2 characters a line, 100 ms apart: some 9 s), for Stop.
    { task: 'stop me', text: GOOD + '\n' + SECOND, end: 'stop', chunkChars: 2, pauseMs: 100 },
  ],
};

let double, doubleUrl, pg, dir;

/** The chat bodies the double received. */
async function chats() {
  return (await (await fetch(`${doubleUrl}/_double/requests`)).json());
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'patchbay-double-'));
  writeFileSync(join(dir, 'script.json'), JSON.stringify(SCRIPT));
  ({ child: double, url: doubleUrl } = await startDouble(['--script', join(dir, 'script.json')]));
  pg = await openPlayground();
  await setPath(pg.page, 'tool.py');
  await type(pg.page, 'file', FILE);
});

after(async () => {
  await pg?.close();
  double?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const T = { timeout: 60_000 };

/** The diff view's result as text. */
async function resultText(page) {
  await page.click('[data-testid="view-text"]');
  const text = await page.textContent('#result');
  await page.click('[data-testid="view-unified"]');
  return text;
}

/** Runs the panel with `task`; resolves with each round's status text once the run ended. */
async function runTask(page, task) {
  await page.evaluate(() => delete document.body.dataset.modelRun);
  await page.fill('[data-testid="task"]', task);
  await page.click('[data-testid="run"]');
  await page.waitForSelector('body[data-model-run]', { timeout: 30_000 });
  return page.$$eval('[data-round] .status', (s) => s.map((e) => e.textContent));
}

test('connect lists the models of the server and reads the context length from /api/show', T, async () => {
  const { page } = pg;
  assert.equal(await connectTo(page, doubleUrl), 'connected: 3 models');
  const names = await page.$$eval('[data-testid="ollama-model"] option', (os) => os.map((o) => o.value));
  assert.deepEqual(names, SCRIPT.models.map((m) => m.name));
  assert.equal(await page.inputValue('[data-testid="ollama-ctx"]'), String(SCRIPT.models[0].contextLength));
  // The first request, shown before anything is sent: its budget and the file in it.
  await page.waitForFunction(() => /num_ctx/.test(document.querySelector('[data-testid="ollama-budget"]').textContent));
  assert.match(await page.textContent('[data-testid="ollama-budget"]'), /^\(~\d+ prompt tokens \+ 2048 reply, num_ctx 32768\)$/);
  assert.ok((await page.textContent('[data-testid="ollama-request"]')).includes('def greet(name):'));
});

test('a run streams the reply into the reply editor and lands the result in the diff view', T, async () => {
  const { page } = pg;
  const statuses = await runTask(page, 'say hello');
  assert.deepEqual(statuses, ['round 1 (first): done']);
  assert.equal(await editorText(page, 'reply'), GOOD);
  const tokens = await page.textContent('[data-round="1"] .tokens');
  assert.match(tokens, /321 real/);
  // The double streams GOOD in 7-character chunks, each a token, 20 ms of eval each: 50 tokens/s.
  assert.match(tokens, new RegExp(`reply ${Math.ceil(GOOD.length / 7)} tokens, 50\\.0 tokens/s`));
  assert.match(await page.textContent('[data-round="1"] .receipts'), /edit 1 tool\.py: applied/);
  assert.equal(await resultText(page), WANT);
  const [body] = (await chats()).slice(-1);
  assert.equal(body.model, 'coder:7b');
  assert.equal(body.options.num_ctx, SCRIPT.models[0].contextLength);
});

test('a failing first edit stops the reply early; the retry round carries the feedback', T, async () => {
  const { page } = pg;
  const before = (await chats()).length;
  const statuses = await runTask(page, 'retry please');
  assert.equal(statuses.length, 2);
  assert.match(statuses[0], /^round 1 \(first\): retry, stopped early/);
  assert.equal(statuses[1], 'round 2 (retry): done');
  const sent = (await chats()).slice(before);
  assert.equal(sent.length, 2);
  const lastUser = sent[1].messages.filter((m) => m.role === 'user').at(-1).content;
  // The feedback names the edit that failed and why.
  assert.match(lastUser, /edit 1 \(tool\.py\): not_found/);
  assert.equal(await resultText(page), WANT);
  // Stopped early: the second edit of the scripted reply never reached the loop.
  assert.doesNotMatch(await page.textContent('[data-round="1"] .reply'), /greet\("world"\)/);
});

test('a cut reply keeps its complete edit and the continuation brings the rest', T, async () => {
  const { page } = pg;
  const statuses = await runTask(page, 'cut short');
  assert.deepEqual(statuses, ['round 1 (first): continue, cut', 'round 2 (continuation): done']);
  assert.equal(await resultText(page), WANT.replace('greet("you")', 'greet("world")'));
});

test('think: a thinking model gets think true and its reasoning is shown apart from the reply', T, async () => {
  const { page } = pg;
  await page.selectOption('[data-testid="ollama-model"]', 'thinker:8b');
  await page.waitForFunction(() => document.querySelector('[data-testid="ollama-ctx"]').value === '16384');
  await page.check('[data-testid="ollama-think"]');
  const statuses = await runTask(page, 'think first');
  assert.deepEqual(statuses, ['round 1 (first): done']);
  assert.equal(await page.textContent('[data-round="1"] .thinking pre'), 'Let me look at greet.');
  assert.equal(await editorText(page, 'reply'), GOOD);
  const [body] = (await chats()).slice(-1);
  assert.deepEqual([body.model, body.think, body.options.num_ctx], ['thinker:8b', true, 16384]);
  // Back to the model that cannot think: think is left out of its requests.
  await page.selectOption('[data-testid="ollama-model"]', 'coder:7b');
  await page.waitForFunction(() => document.querySelector('[data-testid="ollama-ctx"]').value === '32768');
  await runTask(page, 'say hello');
  const [plain] = (await chats()).slice(-1);
  assert.deepEqual([plain.model, 'think' in plain], ['coder:7b', false]);
  await page.uncheck('[data-testid="ollama-think"]');
});

test('Stop aborts the request while the reply streams; what arrived stays in the reply editor', T, async () => {
  const { page } = pg;
  await page.evaluate(() => delete document.body.dataset.modelRun);
  await page.fill('[data-testid="task"]', 'stop me');
  await page.click('[data-testid="run"]');
  await page.waitForFunction(() => (document.querySelector('[data-round] .reply')?.textContent.length ?? 0) > 10);
  await page.click('[data-testid="stop"]');
  await page.waitForSelector('body[data-model-run]', { timeout: 30_000 });
  assert.equal(await page.getAttribute('body', 'data-model-run'), 'stopped');
  assert.deepEqual(await page.$$eval('[data-round] .status', (s) => s.map((e) => e.textContent)), ['round 1 (first): stopped']);
  const full = GOOD + '\n' + SECOND;
  const got = await editorText(page, 'reply');
  assert.ok(got.length > 10 && got.length < full.length && full.startsWith(got), got);
});

test('OpenAI-compatible: the provider switch lists /v1/models and a run streams SSE and applies', T, async () => {
  const { page } = pg;
  await page.selectOption('[data-testid="ollama-provider"]', 'openai');
  assert.equal(await connectTo(page, doubleUrl), 'connected: 3 models');
  const names = await page.$$eval('[data-testid="ollama-model"] option', (os) => os.map((o) => o.value));
  assert.deepEqual(names, SCRIPT.models.map((m) => m.name));
  const statuses = await runTask(page, 'say hello');
  assert.deepEqual(statuses, ['round 1 (first): done']);
  assert.equal(await editorText(page, 'reply'), GOOD);
  // The usage chunk: the script's prompt count, one completion token a 7-character chunk.
  assert.match(await page.textContent('[data-round="1"] .tokens'), new RegExp(`321 real; reply ${Math.ceil(GOOD.length / 7)} tokens`));
  assert.equal(await resultText(page), WANT);
  const [body] = (await chats()).slice(-1);
  // The chat completions body, not Ollama's: max_tokens and usage asked for, no options.num_ctx.
  assert.deepEqual([body.model, body.stream, body.stream_options, body.max_tokens, 'options' in body],
    ['coder:7b', true, { include_usage: true }, 2048, false]);
});

test('OpenAI-compatible: finish_reason "length" is a cut, and the continuation brings the rest', T, async () => {
  const { page } = pg;
  const statuses = await runTask(page, 'cut short');
  assert.deepEqual(statuses, ['round 1 (first): continue, cut', 'round 2 (continuation): done']);
  assert.equal(await resultText(page), WANT.replace('greet("you")', 'greet("world")'));
  const [body] = (await chats()).slice(-1);
  assert.equal(body.messages.at(-2).role, 'assistant');
  // Back to Ollama for the tests after these.
  await page.selectOption('[data-testid="ollama-provider"]', 'ollama');
  assert.equal(await connectTo(page, doubleUrl), 'connected: 3 models');
});

/** Picks exactly `formats` and `models` in the arena panel and the current file and task. */
async function pickArena(page, formats, models) {
  await page.check('[data-testid="arena-source-current"]');
  for (const f of await page.$$eval('[data-testid="arena-format"]', (is) => is.map((i) => i.value))) {
    await page.setChecked(`[data-testid="arena-format"][value="${f}"]`, formats.includes(f));
  }
  for (const m of await page.$$eval('[data-testid="arena-model"]', (is) => is.map((i) => i.value))) {
    await page.setChecked(`[data-testid="arena-model"][value="${m}"]`, models.includes(m));
  }
}

test('the arena on the current file and task: a row per model, scored from the script, no expected result', T, async () => {
  const { page } = pg;
  await page.fill('[data-testid="task"]', 'say hello');
  await pickArena(page, ['search-replace'], ['coder:7b', 'thinker:8b']);
  await page.check('[data-testid="ollama-think"]');
  const before = (await chats()).length;
  await page.evaluate(() => delete document.body.dataset.arenaRun);
  await page.click('[data-testid="arena-run"]');
  await page.waitForSelector('body[data-arena-run]', { timeout: 30_000 });
  await page.uncheck('[data-testid="ollama-think"]');
  assert.equal(await page.getAttribute('body', 'data-arena-run'), 'done');
  const rows = await page.$$eval('[data-testid="arena-table"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  // The script answers 'say hello' with GOOD for any model: one round, applied, 321 prompt tokens, a token a 7-character chunk.
  const tokens = String(Math.ceil(GOOD.length / 7));
  assert.deepEqual(rows.map((r) => r.slice(0, 13)), ['coder:7b', 'thinker:8b'].map((m) => [m, 'search-replace', '1', '1', '1', '1', '–', '1.00', '321', tokens, '0', '0', '0']));
  // Think as each model's /api/show allows: left out for the model that cannot think, sent to the one that can.
  const sent = (await chats()).slice(before).map((b) => [b.model, b.think, b.options.seed]);
  assert.deepEqual(sent, [['coder:7b', undefined, 1], ['thinker:8b', true, 1]]);
  // The file in the editor is left as it was: the arena's runs are in memory.
  assert.equal(await editorText(page, 'file'), FILE);
});

test('the arena\'s Stop aborts the open run and scores none of it', T, async () => {
  const { page } = pg;
  await page.fill('[data-testid="task"]', 'stop me');
  await pickArena(page, ['search-replace'], ['coder:7b', 'small:1b']);
  const before = (await chats()).length;
  await page.evaluate(() => delete document.body.dataset.arenaRun);
  await page.click('[data-testid="arena-run"]');
  // The slow reply is streaming once the double has the request.
  await page.waitForFunction(async ([url, n]) => (await (await fetch(`${url}/_double/requests`)).json()).length > n, [doubleUrl, before]);
  await page.click('[data-testid="arena-stop"]');
  await page.waitForSelector('body[data-arena-run]', { timeout: 30_000 });
  assert.equal(await page.getAttribute('body', 'data-arena-run'), 'stopped');
  assert.equal(await page.textContent('[data-testid="arena-status"]'), 'stopped: 0 of 2 runs');
  // One request went out: the second model's run never started.
  assert.equal((await chats()).length, before + 1);
});

test('the doctor: a model the server does not have is a 404 with the ollama pull line', T, async () => {
  const { page } = pg;
  await page.evaluate(() => document.querySelector('[data-testid="ollama-model"]').add(new Option('missing:3b', 'missing:3b', true, true)));
  await runTask(page, 'say hello');
  assert.equal(await page.getAttribute('[data-testid="ollama-doctor"]', 'data-kind'), 'model-not-found');
  assert.match(await page.textContent('[data-testid="ollama-doctor"] ul'), /ollama pull missing:3b/);
});

test('the doctor: nothing listening on the port is "not running"', T, async () => {
  const { page } = pg;
  // Port 9 (discard) is closed on a test machine; the probe fails too.
  assert.equal(await connectTo(page, 'http://127.0.0.1:9'), 'failed: not-running');
  assert.match(await page.textContent('[data-testid="ollama-doctor"]'), /ollama serve/);
});

test('the doctor: a page on a refused origin (127.0.0.2) is told the OLLAMA_ORIGINS lines', T, async () => {
  // The double applies Ollama's rule: loopback names are allowed as localhost, 127.0.0.1 and 0.0.0.0
  // only, so the same page served from 127.0.0.2 gets 403 without CORS headers.
  const other = await openPlayground({ host: '127.0.0.2' });
  try {
    const origin = new URL(other.base).origin;
    assert.match(origin, /^http:\/\/127\.0\.0\.2:\d+$/);
    assert.equal(await connectTo(other.page, doubleUrl), 'failed: cors');
    const fix = await other.page.textContent('[data-testid="ollama-doctor"] ul');
    for (const line of [`OLLAMA_ORIGINS=${origin}"`, `launchctl setenv OLLAMA_ORIGINS "${origin}"`, `OLLAMA_ORIGINS=${origin} ollama serve`]) {
      assert.ok(fix.includes(line), `${line} in ${fix}`);
    }
  } finally {
    await other.close();
  }
});
