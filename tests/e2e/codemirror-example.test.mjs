// The CodeMirror extension (patchbay/codemirror) on a page of its
// own, web/examples/codemirror: the N:TAG gutter, the match decorations by
// level and the failed edit's closest region, and accept/reject in the
// unified review. Expected values come from the wasm module in node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { nodeCore, openPlayground } from './browser.mjs';

let pg, page, core;
const FILE = 'def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n\n\ndef describe(w, h):\n    print(area(w, h), perimeter(w, h))\n';

before(async () => {
  pg = await openPlayground();
  page = pg.page;
  core = await nodeCore();
  await page.goto(new URL('examples/codemirror/', pg.base).href);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
}, { timeout: 120_000 });

after(async () => pg?.close(), { timeout: 30_000 });

const T = { timeout: 30_000 };
const lineClasses = () =>
  page.$$eval('[data-testid="file"] .cm-content > .cm-line', (ls) =>
    ls.map((l) => [...l.classList].filter((c) => c.startsWith('pb-')).sort().join(' ')));

test('the gutter shows the tags the engine computes', T, async () => {
  const want = core.tagView(FILE, { len: 4 }).split('\n').filter(Boolean).map((l) => l.split(' ')[0]);
  const shown = await page.$$eval('[data-testid="file"] .pb-tag-gutter .cm-gutterElement', (es) =>
    es.filter((e) => e.style.visibility !== 'hidden').map((e) => e.textContent));
  assert.deepEqual(shown, want);
});

test('matched ranges carry their level class, the failed edit its closest region', T, async () => {
  const reply = await page.textContent('[data-testid="reply"]');
  const report = core.applyEdits({ 'shapes.py': FILE }, reply, { partial: true });
  const edits = report.files[0].edits;
  assert.deepEqual(edits.map((e) => [e.status, e.strategy ?? e.code]), [['applied', 'exact'], ['applied', 'indent'], ['failed', 'not_found']]);
  assert.match(edits[2].message, /Closest region: lines 9-10/);
  assert.deepEqual(await lineClasses(), [
    'pb-level-exact pb-match', 'pb-level-exact pb-match', '', '', '', 'pb-level-indent pb-match', '', '',
    'pb-closest pb-match', 'pb-closest pb-match', '',
  ]);
  assert.equal(await page.textContent('[data-testid="status"]'), 'failed');
});

const reviewDoc = () => page.$$eval('[data-testid="review"] .cm-content > .cm-line', (ls) => ls.map((l) => l.textContent).join('\n'));

test('rejecting one edit reverts all its changes, accepting another keeps them', T, async () => {
  // Edits 1 and 2 each change one line (edit 3 failed). Written out by hand.
  await page.click('[data-testid="edits"] button[name="reject-edit"][data-edit="2"]');
  assert.equal(await reviewDoc(), FILE.replace('def area(w, h):', 'def area(w: float, h: float) -> float:'));
  await page.click('[data-testid="edits"] button[name="accept-edit"][data-edit="1"]');
  assert.equal(await page.locator('[data-testid="review"] button[name="accept"]').count(), 0);
  assert.equal(await reviewDoc(), FILE.replace('def area(w, h):', 'def area(w: float, h: float) -> float:'));
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
});

test('the review accepts one change and rejects another', T, async () => {
  const accept = page.locator('[data-testid="review"] button[name="accept"]');
  const reject = page.locator('[data-testid="review"] button[name="reject"]');
  assert.equal(await accept.count(), 2);
  await reject.last().click();
  await accept.first().click();
  assert.equal(await accept.count(), 0);
  const doc = await page.$$eval('[data-testid="review"] .cm-content > .cm-line', (ls) => ls.map((l) => l.textContent).join('\n'));
  assert.equal(doc, FILE.replace('def area(w, h):', 'def area(w: float, h: float) -> float:'));
  assert.deepEqual(pg.problems, []);
});
