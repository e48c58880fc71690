// The playground in Chromium: our static server, the real page, real clicks.
// Needs `scripts/build-web.sh` (web/pkg) and /usr/bin/chromium (`scripts/setup.sh browser`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { playground } from './support.mjs';

let page, base;
const { requests, problems } = playground('pkg/patchbay_wasm_bg.wasm', (web) => ({ page, base } = web));

const FILE = 'import sys\n\n\ndef main(argv):\n    print("hi", argv)\n    return 0\n\n\nsys.exit(main(sys.argv))\n';

// Any single test that hangs fails instead of stalling CI.
const T = { timeout: 30_000 };

async function run(path, file, reply) {
  await page.fill('#path', path);
  await page.fill('#file', file);
  await page.fill('#reply', reply);
  await page.click('#apply');
}

test('the page loads the module and lists the formats, auto first', T, async () => {
  const options = await page.$$eval('#format option', (os) => os.map((o) => o.value));
  assert.equal(options[0], 'auto');
  assert.ok(options.includes('search-replace') && options.includes('whole'), options.join());
  assert.equal(await page.inputValue('#format'), 'auto');
  assert.equal(await page.textContent('#status'), 'ready');
});

test('the prefilled example applies as is', T, async () => {
  await page.click('#apply');
  assert.equal(await page.textContent('#status'), 'applied');
  const result = await page.textContent('#result');
  assert.match(result, /^def greet\(name: str\) -> None:\n {4}name = name.strip\(\)\n {4}print\(f"Hello, \{name\}!"\)$/m);
  assert.equal(await page.locator('#receipts tbody tr[data-status="applied"]').count(), 1);
});

test('a SEARCH/REPLACE reply applies: exact result, status and receipt', T, async () => {
  const reply = 'Return the status:\n\ntool.py\n```python\n<<<<<<< SEARCH\n    print("hi", argv)\n    return 0\n=======\n    print("hello", argv[1:])\n    return len(argv) - 1\n>>>>>>> REPLACE\n```\n';
  await run('tool.py', FILE, reply);
  assert.equal(await page.textContent('#status'), 'applied');
  assert.equal(
    await page.textContent('#result'),
    'import sys\n\n\ndef main(argv):\n    print("hello", argv[1:])\n    return len(argv) - 1\n\n\nsys.exit(main(sys.argv))\n',
  );
  const row = page.locator('#receipts tbody tr[data-testid="receipt"]');
  assert.equal(await row.count(), 1);
  assert.equal(await row.locator('td.index').textContent(), '1');
  assert.equal(await row.locator('td.status').textContent(), 'applied');
  assert.equal(await row.locator('td.strategy').textContent(), 'exact');
  assert.equal(await row.locator('td.lines').textContent(), '5-6');
  assert.match(await page.textContent('#format-used'), /search-replace/);
  assert.match(await page.textContent('#feedback'), /applied/);
});

test('a SEARCH that is not in the file shows a not_found receipt and leaves the file alone', T, async () => {
  const reply = 'tool.py\n<<<<<<< SEARCH\ndef main(args):\n=======\ndef main(args: list[str]) -> int:\n>>>>>>> REPLACE\n';
  await run('tool.py', FILE, reply);
  assert.equal(await page.textContent('#status'), 'failed');
  assert.equal(await page.textContent('#result'), FILE);
  const row = page.locator('#receipts tbody tr[data-testid="receipt"]');
  assert.equal(await row.count(), 1);
  assert.equal(await row.getAttribute('data-code'), 'not_found');
  assert.equal(await row.locator('td.status').textContent(), 'failed');
  assert.equal(await row.locator('td.code').textContent(), 'not_found');
  assert.match(await page.textContent('#feedback'), /\[not_found\]/);
});

test('a cut-off reply is truncated', T, async () => {
  await page.selectOption('#example', { index: 3 });
  await page.click('#apply');
  assert.equal(await page.textContent('#status'), 'truncated');
  assert.equal(await page.locator('#receipts tbody tr[data-code="truncated"]').count(), 1);
});

// Unified diffs: why they break, the repair, and GNU patch's fuzz.
const APP = 'def greet(name):\n    name = name.strip()\n    print("Hello, " + name)\n\n\ndef main():\n    greet("world")\n';
// Wrong line numbers, and the first context line lost its leading space.
const BROKEN = '```diff\n--- a/app.py\n+++ b/app.py\n@@ -14,3 +14,3 @@\ndef greet(name):\n     name = name.strip()\n-    print("Hello, " + name)\n+    print("Hello, " + name.title())\n```\n';

test('a broken unified diff: the diagnosis per hunk and the repaired diff', T, async () => {
  await run('app.py', APP, BROKEN);
  // patchbay's default mode still applies it, by content.
  assert.equal(await page.textContent('#status'), 'applied');
  assert.equal(await page.isVisible('#udiff-panel'), true);
  assert.equal(await page.textContent('#udiff-note'), '1 hunk; git apply fails on 1.');
  const hunk = page.locator('#diagnosis li[data-testid="hunk"]');
  assert.equal(await hunk.count(), 1);
  assert.equal(await hunk.getAttribute('data-strict'), 'fails');
  assert.match(await hunk.locator('.hunk-head').textContent(),
    /^Hunk 1 \(app\.py, reply line 4\) @@ -14,3 \+14,3 @@: git apply fails; patchbay applies it at lines 1-3\.$/);
  const kinds = await hunk.locator('li[data-testid="finding"]').evaluateAll((ls) => ls.map((l) => l.dataset.kind));
  assert.deepEqual(kinds, ['missing_prefix', 'offset', 'git_anchor']);
  assert.match(await hunk.locator('li[data-kind="missing_prefix"]').textContent(),
    /line 1 of the hunk lacks its prefix \(output line 5: `def greet\(name\):`\)/);
  assert.equal(await hunk.locator('li[data-kind="offset"]').textContent(), 'context found at line 1, header says 14');
  assert.equal(await hunk.locator('[data-testid="patch-verdict"]').getAttribute('data-verdict'), 'malformed');
  // A damaged line stops GNU patch outright: no silent misapply to warn about.
  assert.equal(await page.isVisible('#fuzz-warning'), false);
  assert.equal(
    await page.inputValue('#repaired'),
    'diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,6 +1,6 @@\n def greet(name):\n     name = name.strip()\n-    print("Hello, " + name)\n+    print("Hello, " + name.title())\n \n \n def main():\n',
  );
  assert.match(await page.textContent('#repair-note'), /git apply accepts/);
  assert.equal(await page.isEnabled('#copy-repaired'), true);
});

test('the repaired diff is copied, and applies as a clean diff', T, async () => {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await page.click('#copy-repaired');
  // The clipboard write is asynchronous; the label changes when it is done.
  await page.waitForFunction(() => document.getElementById('copy-repaired').textContent !== 'Copy');
  assert.equal(await page.textContent('#copy-repaired'), 'Copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, await page.inputValue('#repaired'));
  await run('app.py', APP, copied);
  assert.equal(await page.textContent('#status'), 'applied');
  assert.equal(await page.textContent('#udiff-note'), '1 hunk; git apply accepts every one.');
  assert.equal(await page.locator('#diagnosis li[data-strict="ok"]').count(), 1);
  assert.equal(await page.textContent('#copy-repaired'), 'Copy');
});

test('a fuzz trap: the warning that GNU patch would silently misapply', T, async () => {
  const label = await page.$$eval('#example option', (os) => os.map((o) => o.textContent));
  await page.selectOption('#example', { index: label.indexOf('Example: a unified diff GNU patch would misapply') });
  assert.equal(await page.inputValue('#path'), 'src/prices.py');
  await page.click('#apply');
  // patchbay edits `gross`, the only place where the whole hunk matches...
  assert.equal(await page.textContent('#status'), 'applied');
  assert.equal(await page.locator('#receipts tbody tr[data-testid="receipt"] td.lines').textContent(), '6-10');
  assert.match(await page.textContent('#result'), /def net\(amount\):\n {4}value = amount \* 1\.0\n {4}return round\(value, 2\)\n/);
  assert.match(await page.textContent('#result'), /def gross\(amount\):\n {4}value = amount \* 1\.0\n {4}return round\(value \* 1\.2, 2\)\n/);
  // ...git apply too (at an offset), but GNU patch with fuzz 2 edits `net`.
  assert.equal(await page.textContent('#udiff-note'), '1 hunk; git apply accepts every one.');
  assert.equal(await page.isVisible('#fuzz-warning'), true);
  assert.match(await page.textContent('#fuzz-warning'),
    /^GNU patch \(default fuzz 2\) would report success and silently misapply this diff: hunk 1: patch applies it at line 2 with fuzz 2, but the whole hunk matches only at line 6: a silent misapply\.$/);
  assert.equal(await page.locator('[data-testid="patch-verdict"]').getAttribute('data-verdict'), 'misplaced');
  assert.match(await page.inputValue('#repaired'), /^@@ -6,5 \+6,5 @@$/m);
  // The lab links to the peers' table, served with the page.
  const href = await page.getAttribute('#peers-link', 'href');
  const doc = await page.evaluate(async (u) => (await fetch(u)).text(), href);
  assert.match(doc, /^## Peers: the same cases through patch, git apply, jsdiff and diff-match-patch$/m);
  assert.match(doc, /^\| GNU patch \| \d+/m);
});

test('the unified-diff panel stays hidden for other formats', T, async () => {
  await page.selectOption('#example', { index: 0 });
  await page.click('#apply');
  assert.equal(await page.textContent('#status'), 'applied');
  assert.equal(await page.isVisible('#udiff-panel'), false);
});

test('nothing was loaded from anywhere but our server, and nothing went wrong', T, () => {
  assert.ok(requests.length >= 4, requests.join('\n'));
  const foreign = requests.filter((u) => !u.startsWith(base));
  assert.deepEqual(foreign, []);
  assert.ok(requests.some((u) => u.endsWith('/pkg/patchbay_wasm_bg.wasm')), requests.join('\n'));
  assert.deepEqual(problems, []);
});
