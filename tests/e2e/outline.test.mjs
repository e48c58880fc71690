// The playground's Outline button in Chromium: the syntax module is fetched
// only when the button is pressed, and the outline lists the file's symbols.
// Needs `scripts/build-web.sh` (web/pkg, web/pkg-syntax) and /usr/bin/chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { playground } from './support.mjs';

let page;
const { requests, problems } = playground('pkg-syntax/patchbay_syntax_wasm_bg.wasm', (web) => ({ page } = web));

const T = { timeout: 30_000 };
const syntaxRequests = () => requests.filter((u) => u.includes('/pkg-syntax/'));

test('the syntax module is not loaded with the page, and the panel is hidden', T, async () => {
  assert.deepEqual(syntaxRequests(), []);
  assert.equal(await page.locator('#outline-panel').isHidden(), true);
});

test('Outline loads the module once and lists the symbols of the file', T, async () => {
  await page.fill('#path', 'src/shop.py');
  await page.fill('#file', 'class Cart:\n    def add(self, item):\n        self.items.append(item)\n\n\ndef total(cart):\n    return sum(cart.items)\n');
  await page.click('#outline-button');
  await page.waitForSelector('#outline-panel[data-state="ready"]');
  const rows = await page.$$eval('#outline li', (ls) => ls.map((l) => [l.querySelector('button').textContent, l.dataset.kind, l.dataset.lines]));
  assert.deepEqual(rows, [
    ['Cart', 'class', '1-3'],
    ['Cart.add', 'method', '2-3'],
    ['total', 'function', '6-7'],
  ]);
  assert.match(await page.textContent('#outline-note'), /3 symbols \(python\)/);
  assert.ok(syntaxRequests().some((u) => u.endsWith('patchbay_syntax_wasm_bg.wasm')), requests.join('\n'));
  // Clicking a symbol selects it in the File box.
  await page.click('#outline li:nth-child(3) button');
  const selected = await page.$eval('#file', (t) => t.value.slice(t.selectionStart, t.selectionEnd));
  assert.equal(selected, 'def total(cart):\n    return sum(cart.items)');
  // A second outline reuses the module.
  const before = syntaxRequests().length;
  await page.fill('#path', 'src/lib.rs');
  await page.fill('#file', 'pub fn f() {}\n');
  await page.click('#outline-button');
  await page.waitForFunction(() => document.querySelector('#outline-note').textContent.includes('(rust)'));
  assert.equal(await page.locator('#outline li').count(), 1);
  assert.equal(syntaxRequests().length, before);
});

test('a file in no known language gets a message, not an exception', T, async () => {
  await page.fill('#path', 'notes.txt');
  await page.click('#outline-button');
  await page.waitForSelector('#outline-panel[data-state="error"]');
  assert.match(await page.textContent('#outline-note'), /No outline: unknown_language/);
  assert.deepEqual(problems, []);
});
