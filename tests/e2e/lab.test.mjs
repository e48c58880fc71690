// The pitfall lab in Chromium: every lesson shows the verdicts it promises
// (what the naive tool does, what patchbay does), and loading it puts its
// case in the editors, where patchbay's live result matches the wasm module
// run in node on the same file and reply.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { editorText, nodeCore, openPlayground, settle, showPanel } from './browser.mjs';

let pg, page, core;

before(async () => {
  pg = await openPlayground();
  page = pg.page;
  core = await nodeCore();
  await showPanel(page, 'lab');
  await page.waitForSelector('#lab[data-state="ready"]', { timeout: 20_000 });
}, { timeout: 120_000 });

after(async () => pg?.close(), { timeout: 30_000 });

const T = { timeout: 30_000 };

// lesson -> [naive outcome, patchbay status, failure code or GNU patch verdict]
const PROMISES = {
  'line-drift': ['wrong', 'applied'],
  'lost-space': ['refused', 'applied', { patch: 'malformed' }],
  'fuzz-wrong-function': ['wrong', 'applied', { patch: 'misplaced' }],
  'search-twice': ['wrong', 'failed', { code: 'ambiguous' }],
  'hunks-one-by-one': ['wrong', 'applied'],
  crlf: ['refused', 'applied'],
  'tabs-as-spaces': ['refused', 'applied', { level: 'tabs' }],
  'cut-off': ['wrong', 'truncated'],
  'rest-unchanged': ['wrong', 'failed', { code: 'elided' }],
  'stale-tag': ['wrong', 'failed', { code: 'stale_tag' }],
  'thirty-percent': ['wrong', 'applied'],
};

test('the lab has every lesson, each with a two-sentence explanation', T, async () => {
  const ids = await page.$$eval('#lab [data-lesson]', (as) => as.map((a) => a.dataset.lesson));
  assert.deepEqual(ids, Object.keys(PROMISES));
  const explanations = await page.$$eval('#lab [data-lesson] > p', (ps) => ps.map((p) => p.textContent));
  for (const e of explanations) assert.equal(e.match(/[.!?](\s|$)/g)?.length, 2, e);
});

for (const [id, [naive, status, extra]] of Object.entries(PROMISES)) {
  test(`lesson ${id}: the naive tool ${naive === 'wrong' ? 'goes wrong' : 'refuses'}, patchbay ${status}`, T, async () => {
    const card = page.locator(`#lab [data-lesson="${id}"]`);
    assert.equal(await card.locator('.verdict[data-side="naive"]').getAttribute('data-outcome'), naive);
    assert.equal(await card.locator('.verdict[data-side="patchbay"]').getAttribute('data-status'), status);
    await card.locator('[data-testid="lesson-load"]').click();
    await settle(page);
    const path = await page.inputValue('#path');
    // CodeMirror shows CR LF lines without the CR; the path note says when the file has them.
    const crlf = (await page.textContent('#path-note')) === 'CR LF line endings';
    assert.equal(crlf, id === 'crlf');
    const shown = await editorText(page, 'file');
    const file = crlf ? shown.replace(/\n/g, '\r\n') : shown;
    const reply = await editorText(page, 'reply');
    const report = core.applyEdits({ [path]: file }, reply, {});
    assert.equal(report.status, status);
    assert.equal(await page.textContent('#status'), status);
    const receipts = report.files.flatMap((f) => f.edits);
    if (extra?.code) assert.ok(receipts.some((r) => r.code === extra.code), JSON.stringify(receipts));
    if (extra?.level) assert.equal(receipts[0].strategy, extra.level);
    if (extra?.patch) {
      assert.equal(core.simulatePatchFuzz({ [path]: file }, reply)[0].verdict, extra.patch);
      assert.match(await card.locator('.verdict[data-side="naive"]').textContent(), /GNU patch \(fuzz 2\)/);
    }
    if (status === 'applied') {
      await page.click('[data-testid="view-text"]');
      assert.equal(await page.textContent('#result'), report.files[0].content);
      await page.click('[data-testid="view-unified"]');
    }
  });
}

test('the CRLF lesson keeps the file\'s line endings', T, async () => {
  await page.locator('#lab [data-lesson="crlf"] [data-testid="lesson-load"]').click();
  await settle(page);
  await page.click('[data-testid="view-text"]');
  const result = await page.textContent('#result');
  await page.click('[data-testid="view-unified"]');
  assert.equal(result, 'def ping() -> str:\r\n    return "pong"\r\n\r\n\r\ndef pong():\r\n    return "ping"\r\n');
});

test('nothing went wrong on the page', T, () => {
  assert.deepEqual(pg.problems, []);
});
