// The playground's tool panels in Chromium: tags, token counts (estimate and
// exact), the budget meter, the format comparison, outline and slice, the
// shared URL and the last case kept in localStorage, the narrow layout and
// the labels. Expected values come from the wasm modules loaded in node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  editorText, nodeCore, nodeSyntax, nodeTokens, openPlayground, ready, settle, setPath, showPanel, type,
} from './browser.mjs';

let pg, page, core;

before(async () => {
  pg = await openPlayground();
  page = pg.page;
  core = await nodeCore();
}, { timeout: 120_000 });

after(async () => pg?.close(), { timeout: 30_000 });

const T = { timeout: 60_000 };
const PY = 'class Cart:\n    def add(self, item):\n        self.items.append(item)\n\n\ndef total(cart):\n    return sum(cart.items)\n';
const syntaxRequests = () => pg.requests.filter((u) => u.includes('/pkg-syntax/'));
const tokenRequests = () => pg.requests.filter((u) => u.includes('/pkg-tokens/'));

test('neither optional module is loaded with the page', T, () => {
  assert.deepEqual(syntaxRequests(), []);
  assert.deepEqual(tokenRequests(), []);
});

test('the tags toggle: N:TAG in the gutter, the hashline and CRC views, copied', T, async () => {
  await setPath(page, 'src/shop.py');
  await type(page, 'file', PY);
  await page.check('#tags');
  await page.waitForSelector('.pb-tag-gutter .cm-gutterElement:has-text("1:")');
  const want = core.tagView(PY, { len: 4 }).split('\n').filter(Boolean).map((l) => l.split(' ')[0]);
  // The gutter's first element is CodeMirror's invisible width spacer.
  const shown = await page.$$eval('.pb-tag-gutter .cm-gutterElement', (es) =>
    es.filter((e) => e.style.visibility !== 'hidden').map((e) => e.textContent));
  assert.deepEqual(shown.slice(0, want.length), want);
  await page.selectOption('#tag-length', '6');
  await page.waitForFunction(() => /^1:\S{6}$/.test(document.querySelector('.pb-tag-gutter .cm-gutterElement:nth-child(2)')?.textContent ?? ''));
  await page.selectOption('#tag-view', 'hashline');
  await page.waitForSelector('#tag-text[data-view="hashline"]');
  assert.equal(await page.textContent('#tag-text'), core.tagView(PY, { len: 6 }));
  await page.selectOption('#tag-view', 'crc');
  await page.waitForSelector('#tag-text[data-view="crc"]');
  assert.equal(await page.textContent('#tag-text'), core.crcView('src/shop.py', PY));
  await pg.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: pg.base });
  await page.click('#copy-tags');
  await page.waitForFunction(() => document.getElementById('copy-tags').textContent === 'Copied');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), core.crcView('src/shop.py', PY));
  await page.uncheck('#tags');
  assert.equal(await page.isHidden('#tag-text'), true);
  assert.equal(await page.locator('.pb-tag-gutter').count(), 0);
});

test('token counts: estimated per editor, exact with the vocabularies loaded on demand', T, async () => {
  await type(page, 'file', 'hello world');
  assert.match(await page.textContent('#token-counts'), /^file 2 · reply \d+ · result \d+ tokens$/);
  assert.deepEqual(tokenRequests(), []);
  const text = readFileSync(new URL('../tools/sources/textwrap.py', import.meta.url), 'utf8');
  await type(page, 'file', text);
  await showPanel(page, 'budget');
  await page.selectOption('#tokenizer', 'exact:o200k_base');
  await page.waitForFunction(() => document.getElementById('token-counts').dataset.tokenizer === 'exact:o200k_base', null, { timeout: 45_000 });
  const tokens = await nodeTokens();
  assert.match(await page.textContent('#token-counts'), new RegExp(`^file ${tokens.countTokens(text, 'o200k_base')} · `));
  assert.ok(tokenRequests().some((u) => u.endsWith('pkg-tokens/patchbay_tokens_wasm_bg.wasm')));
  // Typing recounts with the chosen vocabulary; each edit gets its exact count too.
  await type(page, 'file', 'hello world');
  assert.match(await page.textContent('#token-counts'), /^file 2 · /);
  await page.selectOption('#tokenizer', 'estimate:o200k_base');
  await settle(page);
});

test('the budget meter drops memory when the window shrinks', T, async () => {
  await type(page, 'file', PY);
  await showPanel(page, 'budget');
  await page.fill('#budget-window', '8192');
  await page.waitForFunction(() => document.querySelectorAll('#budget-parts li').length > 0 && !document.querySelector('#budget-parts li[data-status="dropped"]'));
  const parts = () => page.$$eval('#budget-parts li', (ls) =>
    ls.map((l) => ({ kind: l.dataset.kind, status: l.dataset.status, tokens: Number(/: (\d+) tokens/.exec(l.textContent)[1]) })));
  const all = await parts();
  assert.deepEqual(all.map((p) => p.status), all.map(() => 'kept'));
  const memory = all.filter((p) => p.kind === 'memory');
  assert.equal(memory.length, 3);
  // A window for everything but the largest two memory notes: the planner must drop two of them.
  const sorted = memory.map((p) => p.tokens).sort((a, b) => a - b);
  const window = all.reduce((n, p) => n + p.tokens, 0) - sorted[1] - sorted[2];
  await page.fill('#budget-window', String(window));
  await page.waitForSelector('#budget-parts li[data-status="dropped"]');
  const shrunk = await parts();
  const dropped = shrunk.filter((p) => p.status === 'dropped');
  assert.ok(dropped.length >= 2 && dropped.every((p) => p.kind === 'memory'), JSON.stringify(shrunk));
  const kept = shrunk.filter((p) => p.status !== 'dropped').reduce((n, p) => n + p.tokens, 0);
  assert.ok(kept <= window, `${kept} tokens kept in a window of ${window}`);
  assert.equal(await page.locator('#budget-meter span[data-kind="memory"]').count(), 1);
  // Too small for even the minimum: the planner's own numbers, no meter.
  await page.fill('#budget-window', '300');
  await page.waitForSelector('#budget-meter[data-state="error"]');
  assert.match(await page.textContent('#budget-note'), /^Does not fit: the system prompt \(\d+\), task \(\d+\) and reply reserve \(1024\) need \d+ tokens, more than the window of 300$/);
  await page.fill('#budget-window', '8192');
});

test('the format comparison lists every format and loads one into the reply', T, async () => {
  await page.selectOption('#example', { index: 1 });
  await settle(page);
  await showPanel(page, 'compare');
  await page.click('#compare-run');
  await page.waitForSelector('#compare-panel[data-state="ready"]');
  const before = await editorText(page, 'file');
  const after = core.applyEdits({ 'src/app.py': before }, await editorText(page, 'reply'), {}).files[0].content;
  const want = core.compare(before, after, { path: 'src/app.py', tokenizer: 'estimate:o200k_base' });
  const cards = await page.$$eval('[data-testid="compare-format"]', (as) => as.map((a) => a.dataset.format));
  assert.deepEqual(cards, want.formats.map((f) => f.format));
  assert.equal(await page.getAttribute('#advice', 'data-format'), want.recommendation.format);
  await page.click('[data-testid="compare-format"][data-format="udiff"] [data-testid="compare-load"]');
  await settle(page);
  assert.equal(await page.inputValue('#format'), 'udiff');
  assert.equal(await editorText(page, 'reply'), want.formats.find((f) => f.format === 'udiff').edit.replace(/\n$/, '\n'));
  assert.equal(await page.textContent('#status'), 'applied');
  await page.click('[data-testid="view-text"]');
  assert.equal(await page.textContent('#result'), after);
  await page.click('[data-testid="view-unified"]');
  await page.selectOption('#format', 'auto');
  await settle(page);
});

test('outline: the syntax module loads once, a click scrolls to the symbol, an old error goes', T, async () => {
  const long = PY + Array.from({ length: 120 }, (_, i) => `\n\ndef f${i}(x):\n    return x + ${i}\n`).join('');
  await setPath(page, 'src/shop.py');
  await type(page, 'file', long);
  await showPanel(page, 'outline');
  await page.click('#outline-button');
  await page.waitForSelector('#outline-panel[data-state="ready"]');
  const rows = await page.$$eval('#outline li', (ls) => ls.slice(0, 3).map((l) => [l.querySelector('button').textContent, l.dataset.kind, l.dataset.lines]));
  assert.deepEqual(rows, [['Cart', 'class', '1-3'], ['Cart.add', 'method', '2-3'], ['total', 'function', '6-7']]);
  assert.match(await page.textContent('#outline-note'), /^123 symbols \(python\)$/);
  assert.ok(syntaxRequests().some((u) => u.endsWith('patchbay_syntax_wasm_bg.wasm')), pg.requests.join('\n'));
  // The last symbol is far below the editor's first screen: clicking it scrolls there and selects it.
  await page.click('#outline li:last-child button.link');
  assert.equal(await page.evaluate(() => getSelection().toString()), 'def f119(x):\n    return x + 119');
  // CodeMirror scrolls in its measure cycle (an animation frame), and
  // measures again once the lines it reached have their real heights: the
  // line is in view once that settles, so wait for it, then assert.
  await page
    .waitForFunction(() => {
      const line = [...document.querySelectorAll('[data-testid="file"] .cm-line')].find((l) => l.textContent === 'def f119(x):');
      const [b, e] = [line?.getBoundingClientRect(), document.querySelector('[data-testid="file"] .cm-scroller').getBoundingClientRect()];
      return b && b.top >= e.top && b.bottom <= e.bottom;
    }, null, { timeout: 5000 })
    .catch(() => {});
  const line = page.locator('[data-testid="file"] .cm-line', { hasText: 'def f119(x):' });
  const [box, editor] = [await line.boundingBox(), await page.locator('[data-testid="file"] .cm-scroller').boundingBox()];
  assert.ok(box && box.y >= editor.y && box.y + box.height <= editor.y + editor.height, JSON.stringify({ box, editor }));
  // An unknown language: a message, and it goes away when the path changes.
  const count = syntaxRequests().length;
  await setPath(page, 'notes.txt');
  await page.click('#outline-button');
  await page.waitForSelector('#outline-panel[data-state="error"]');
  assert.match(await page.textContent('#outline-note'), /^No outline: unknown_language/);
  await setPath(page, 'src/shop.py');
  assert.equal(await page.textContent('#outline-note'), '');
  assert.equal(syntaxRequests().length, count);
});

test('slice: a reply against one symbol is spliced back into the whole file', T, async () => {
  await type(page, 'file', PY);
  await page.click('#outline-button');
  await page.waitForSelector('#outline-panel[data-state="ready"]');
  await page.click('#outline li:nth-child(3) [data-testid="slice-button"]');
  const syntax = await nodeSyntax();
  const slice = syntax.slice('src/shop.py', PY, 'total');
  await page.waitForSelector('#slice-box:not([hidden])');
  assert.equal(await page.textContent('#slice-text'), slice.text);
  const reply = 'src/shop.py\n<<<<<<< SEARCH\n    return sum(cart.items)\n=======\n    return sum(i.price for i in cart.items)\n>>>>>>> REPLACE\n';
  await page.fill('#slice-reply', reply);
  await page.click('#slice-apply');
  await page.waitForSelector('#slice-status[data-status]');
  assert.equal(await page.getAttribute('#slice-status', 'data-status'), 'applied');
  const want = syntax.applyToSlice(PY, slice, reply, { format: 'auto' }).text;
  assert.equal(want, PY.replace('return sum(cart.items)', 'return sum(i.price for i in cart.items)'));
  assert.equal(await page.textContent('#slice-result'), want);
  await page.click('#slice-keep');
  await settle(page);
  assert.equal(await editorText(page, 'file'), want);
});

test('a shared URL restores the same case in a fresh browser; the last case survives a reload', T, async () => {
  const reply = 'src/shop.py\n<<<<<<< SEARCH\nclass Cart:\n=======\nclass Basket:\n>>>>>>> REPLACE\n';
  await type(page, 'file', PY);
  await type(page, 'reply', reply);
  await page.check('#partial');
  await settle(page);
  await page.keyboard.press('Control+s');
  await page.waitForFunction(() => location.hash.startsWith('#case='));
  const url = page.url();
  const fresh = await openPlayground();
  try {
    await fresh.page.goto(url);
    await fresh.page.reload();
    await ready(fresh.page);
    assert.equal(await fresh.page.inputValue('#path'), 'src/shop.py');
    assert.equal(await editorText(fresh.page, 'file'), PY);
    assert.equal(await editorText(fresh.page, 'reply'), reply);
    assert.equal(await fresh.page.isChecked('#partial'), true);
    assert.equal(await fresh.page.textContent('#status'), 'applied');
    assert.deepEqual(fresh.problems, []);
  } finally {
    await fresh.close();
  }
  // No hash: the last case comes back from localStorage.
  await page.goto(pg.base);
  await ready(page);
  assert.equal(await editorText(page, 'reply'), reply);
  // A damaged hash is ignored: the last case again, and no error.
  await page.goto(`${pg.base}#case=not-a-case`);
  await page.reload();
  await ready(page);
  assert.equal(await editorText(page, 'reply'), reply);
  await page.uncheck('#partial');
  await settle(page);
});

test('every control has a label, and at 390 px nothing spills out of the page', T, async () => {
  const unlabelled = await page.$$eval('input, select, textarea, .cm-content', (es) =>
    es.filter((e) => !(e.labels?.length || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby'))).map((e) => e.id || e.className));
  assert.deepEqual(unlabelled, []);
  await page.setViewportSize({ width: 390, height: 844 });
  // Each panel in turn, so that every card is laid out once.
  for (const panel of ['lab', 'model', 'budget', 'compare', 'outline', 'receipts']) {
    await showPanel(page, panel);
    await page.locator(`#panel-${panel}`).scrollIntoViewIfNeeded();
    const wide = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      cards: [...document.querySelectorAll('.card, .toolbar')].filter((c) => c.getBoundingClientRect().right > innerWidth + 1).map((c) => c.id || c.className),
    }));
    assert.equal(wide.page, 390);
    assert.deepEqual(wide.cards, []);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('the theme follows the system: dark page and dark editors', T, async () => {
  const colours = () => page.evaluate(() => [getComputedStyle(document.body).backgroundColor]);
  await page.emulateMedia({ colorScheme: 'light' });
  const [lightPage] = await colours();
  await page.emulateMedia({ colorScheme: 'dark' });
  const [darkPage] = await colours();
  assert.equal(lightPage, 'rgb(246, 247, 249)');
  assert.equal(darkPage, 'rgb(20, 23, 28)');
  // The editors' base theme switches too (on the media query's change event): CodeMirror's dark gutters.
  const gutters = (colour) => page.waitForFunction((c) =>
    getComputedStyle(document.querySelector('[data-testid="file"] .cm-gutters')).backgroundColor === c, colour, { timeout: 5000 });
  await gutters('rgb(51, 51, 56)');
  await page.emulateMedia({ colorScheme: 'light' });
  await gutters('rgb(245, 245, 245)');
});

test('the section bar: a panel a tab, named in the address; Back and a fresh load follow it; a switch keeps state', T, async () => {
  const panelOf = () => new URL(page.url()).searchParams.get('panel');
  const shown = () => page.$$eval('[role=tabpanel]', (ps) => ps.filter((p) => !p.hidden).map((p) => p.id));
  await showPanel(page, 'budget');
  assert.equal(panelOf(), 'budget');
  assert.deepEqual(await shown(), ['panel-budget']);
  await page.fill('#budget-window', '4096');
  for (const name of ['receipts', 'model', 'compare', 'outline', 'lab']) {
    await showPanel(page, name);
    assert.equal(panelOf(), name);
    assert.deepEqual(await shown(), [`panel-${name}`]);
    assert.equal(await page.getAttribute(`[data-testid="nav-${name}"]`, 'aria-selected'), 'true');
    // The editors and the result are beside every panel; the bar repeats the status.
    for (const always of ['[data-testid="file"]', '[data-testid="reply"]', '#result-card', '#nav-status']) assert.equal(await page.isVisible(always), true, always);
    assert.equal(await page.textContent('#nav-status'), await page.textContent('#status'));
  }
  // Back goes through the panels shown, and the budget's window is as it was left.
  for (const name of ['outline', 'compare', 'model', 'receipts', 'budget']) {
    await page.goBack();
    await page.waitForSelector(`#panel-${name}:not([hidden])`);
    assert.equal(panelOf(), name);
  }
  assert.equal(await page.inputValue('#budget-window'), '4096');
  // An address that names a panel opens the page on it; sharing keeps the panel beside the case's hash.
  await page.goto(`${pg.base}?panel=model`);
  await ready(page);
  assert.deepEqual(await shown(), ['panel-model']);
  await page.keyboard.press('Control+s');
  await page.waitForFunction(() => location.hash.startsWith('#case='));
  assert.equal(panelOf(), 'model');
  await page.goto(`${pg.base}?panel=nonsense`);
  await ready(page);
  assert.deepEqual(await shown(), ['panel-receipts']);
});

test('nothing went wrong on the page', T, () => {
  assert.deepEqual(pg.problems, []);
  assert.deepEqual(pg.requests.filter((u) => !u.startsWith(pg.base)), []);
});
