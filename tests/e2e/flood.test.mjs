// The model panel in Chromium against a flooding server (the model-server
// double's `flood` modes, tests/src/double/flood.rs): a reply without end, one
// of 50 MB, one line without end. Stop must end a run within 100 ms, the page
// must keep painting (the longest gap between animation frames is measured in
// the page), the reply editor must hold only the reply's head and say what it
// left out, the core's reply cap must cut the reply as the CLI's does, and the
// worker must never fail (a normal run works after the floods). Every expected
// figure is computed here from the script.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { editorText, openPlayground, setPath, type } from './browser.mjs';
import { connectTo, startDouble } from './double.mjs';

const FILE = 'def greet(name):\n    print("hi", name)\n';
const GOOD = 'tool.py\n<<<<<<< SEARCH\n    print("hi", name)\n=======\n    print("hello", name)\n>>>>>>> REPLACE\n';
const FIFTY = 50_000_000;
// The double's flood text a chunk (flood.rs): "flood " 170 times and a line break.
const PIECE = 'flood '.repeat(170).length + 1;
// The page's limits (web/src/model/panel.js, web/src/engine/model.js) and the core's cap per token.
const EDITOR_MAX = 512 << 10;
const BYTES_PER_TOKEN = 64;

const SCRIPT = {
  models: [{ name: 'flood:1b', architecture: 'qwen2', contextLength: 1 << 24, capabilities: ['completion'] }],
  replies: [
    { task: 'endless', text: GOOD, flood: 'stream' },
    { task: 'fifty', text: GOOD, flood: 'stream', floodBytes: FIFTY, end: 'stop' },
    { task: 'one line', flood: 'line' },
    { task: 'hello', text: GOOD, end: 'stop' },
  ],
};

let double, pg, dir;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'patchbay-flood-'));
  writeFileSync(join(dir, 'script.json'), JSON.stringify(SCRIPT));
  let url;
  ({ child: double, url } = await startDouble(['--script', join(dir, 'script.json')]));
  pg = await openPlayground();
  await setPath(pg.page, 'tool.py');
  await type(pg.page, 'file', FILE);
  assert.equal(await connectTo(pg.page, url), 'connected: 1 model');
});

after(async () => {
  await pg?.close();
  double?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const T = { timeout: 120_000 };

/** The panel's knobs for the next run. */
async function knobs(page, { task, replyLimit, rounds }) {
  await page.fill('[data-testid="task"]', task);
  await page.fill('[data-testid="ollama-reply-limit"]', String(replyLimit));
  await page.fill('[data-testid="ollama-rounds"]', String(rounds));
  await page.evaluate(() => delete document.body.dataset.modelRun);
}

/** Starts measuring the longest gap between animation frames (read by `gaps`). */
function measureFrames(page) {
  return page.evaluate(() => {
    const g = { max: 0, frames: 0, last: performance.now(), on: true };
    window.frameGaps = g;
    const tick = () => {
      if (!g.on) return;
      const now = performance.now();
      g.max = Math.max(g.max, now - g.last);
      g.last = now;
      g.frames += 1;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/** Stops measuring; the longest gap in ms and the frames painted. */
function gaps(page) {
  return page.evaluate(() => {
    window.frameGaps.on = false;
    return { max: window.frameGaps.max, frames: window.frameGaps.frames };
  });
}

/** The statuses of the run's rounds. */
const statuses = (page) => page.$$eval('[data-round] .status', (s) => s.map((e) => e.textContent));

/** Runs to the end; the wall time in ms. */
async function runToEnd(page) {
  const started = Date.now();
  await page.click('[data-testid="run"]');
  await page.waitForSelector('body[data-model-run]', { timeout: 100_000 });
  return Date.now() - started;
}

test('an endless stream: Stop ends the run within 100 ms and the page keeps painting', T, async () => {
  const { page } = pg;
  // A cap of 512 MB: the flood never reaches it while the test watches.
  await knobs(page, { task: 'endless', replyLimit: 8_000_000, rounds: 1 });
  await measureFrames(page);
  const started = Date.now();
  await page.click('[data-testid="run"]');
  // More has arrived than the editor holds.
  await page.waitForFunction(() => /of the reply not shown/.test(document.querySelector('[data-round] .note')?.textContent ?? ''), null, { timeout: 30_000 });
  // Two seconds of flood at loopback speed (some 100 MB) before Stop.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 2000 - (Date.now() - started))));
  const before = await page.textContent('[data-round] .note');
  const stopMs = await page.evaluate(() => new Promise((resolve) => {
    const status = document.querySelector('[data-testid="ollama-run-status"]');
    const clicked = performance.now();
    new MutationObserver(() => status.textContent === 'stopped' && resolve(performance.now() - clicked))
      .observe(status, { childList: true, characterData: true, subtree: true });
    document.querySelector('[data-testid="stop"]').click();
  }));
  const g = await gaps(page);
  console.log(`endless stream: Stop took ${stopMs.toFixed(1)} ms; longest frame gap ${g.max.toFixed(1)} ms over ${g.frames} frames in ${Date.now() - started} ms`);
  assert.ok(stopMs < 100, `Stop took ${stopMs} ms`);
  assert.ok(g.max < 250, `a frame gap of ${g.max} ms`);
  assert.deepEqual(await statuses(page), ['round 1 (first): stopped']);
  const mb = (note) => Number(note.match(/([\d.]+) MB of the reply not shown/)?.[1] ?? 0);
  const after = await page.textContent('[data-round] .note');
  console.log(`endless stream: ${after}`);
  assert.ok(mb(after) >= mb(before), `${before} / ${after}`);
  const held = await page.$eval('[data-round] .reply', (p) => p.textContent.length);
  assert.equal(held, EDITOR_MAX, 'the entry holds the reply\'s head, up to the page\'s limit');
  assert.ok((await editorText(page, 'reply')).startsWith(GOOD));
  assert.deepEqual(pg.problems, []);
});

test('one 50 MB stream under a cap that lets it through: read to its end, the editor holds its head', T, async () => {
  const { page } = pg;
  await knobs(page, { task: 'fifty', replyLimit: 1_000_000, rounds: 1 });
  await measureFrames(page);
  const ms = await runToEnd(page);
  const g = await gaps(page);
  console.log(`50 MB stream: ${ms} ms to the end; longest frame gap ${g.max.toFixed(1)} ms over ${g.frames} frames`);
  assert.ok(g.max < 250, `a frame gap of ${g.max} ms`);
  const [status] = await statuses(page);
  assert.match(status, /^round 1 \(first\): (give_up|retry|done)/);
  const total = GOOD.length + Math.ceil(FIFTY / PIECE) * PIECE;
  const hidden = ((total - EDITOR_MAX) / (1 << 20)).toFixed(1);
  assert.match(await page.textContent('[data-round] .note'), new RegExp(`^\\.\\.\\. ${hidden.replace('.', '\\.')} MB of the reply not shown`));
  assert.equal(await page.$eval('[data-round] .reply', (p) => p.textContent.length), EDITOR_MAX);
  assert.deepEqual(pg.problems, []);
});

test('the core\'s cap as in the CLI: a 50 MB stream and an endless line are cut at the cap, nothing applies', T, async () => {
  const { page } = pg;
  const cap = 2048 * BYTES_PER_TOKEN;
  for (const [task, said] of [['fifty', `the reply passed ${cap} bytes`], ['one line', `a line of more than ${2 * cap + (64 << 10)} bytes`]]) {
    await knobs(page, { task, replyLimit: 2048, rounds: 2 });
    await measureFrames(page);
    const ms = await runToEnd(page);
    const g = await gaps(page);
    console.log(`${task} at the default cap: ${ms} ms; longest frame gap ${g.max.toFixed(1)} ms`);
    assert.deepEqual(await statuses(page), [
      'round 1 (first): continue, cut',
      'round 2 (continuation): give_up: the reply was cut and all 2 rounds are spent, cut',
    ]);
    assert.match(await page.textContent('[data-round="1"] .note'), new RegExp(said));
    assert.equal(await editorText(page, 'file'), FILE, 'nothing of a cut reply applies');
  }
  assert.deepEqual(pg.problems, []);
});

test('the worker still runs a model after the floods', T, async () => {
  const { page } = pg;
  await knobs(page, { task: 'hello', replyLimit: 2048, rounds: 1 });
  await runToEnd(page);
  assert.deepEqual(await statuses(page), ['round 1 (first): done']);
  assert.equal(await editorText(page, 'reply'), GOOD);
  assert.deepEqual(pg.problems, []);
});
