// The playground in Chromium: our static server, the real page, real typing
// into its CodeMirror editors. Every expected value is written out here or
// computed by the wasm module in node, never read back from the page's code.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { editorText, nodeCore, openPlayground, settle, setPath, type } from './browser.mjs';

let pg, page, core;

before(async () => {
  pg = await openPlayground();
  page = pg.page;
  core = await nodeCore();
}, { timeout: 120_000 });

after(async () => pg?.close(), { timeout: 30_000 });

const T = { timeout: 30_000 };
const FILE = 'import sys\n\n\ndef main(argv):\n    print("hi", argv)\n    return 0\n\n\nsys.exit(main(sys.argv))\n';

async function run(path, file, reply) {
  await setPath(page, path);
  await type(page, 'file', file);
  await type(page, 'reply', reply);
}

async function resultText() {
  await page.click('[data-testid="view-text"]');
  const text = await page.textContent('#result');
  await page.click('[data-testid="view-unified"]');
  return text;
}

/** The level classes on the file editor's decorated lines, with their line numbers. */
function decorated(cls) {
  return page.$$eval(`[data-testid="file"] .cm-line.${cls}`, (ls) =>
    ls.map((l) => [...l.parentNode.children].indexOf(l) + 1));
}

test('the page loads the engine, lists the formats with auto first, and runs the example live', T, async () => {
  const options = await page.$$eval('#format option', (os) => os.map((o) => o.value));
  assert.equal(options[0], 'auto');
  assert.ok(options.includes('search-replace') && options.includes('whole'), options.join());
  assert.equal(await page.textContent('#status'), 'applied');
  assert.match(await resultText(), /^def greet\(name: str\) -> None:\n {4}name = name.strip\(\)\n {4}print\(f"Hello, \{name\}!"\)$/m);
  assert.equal(await page.locator('#receipts tbody tr[data-status="applied"]').count(), 1);
  assert.match(await page.textContent('#format-why'), /^Detected search-replace \(confidence \d+%\): .*SEARCH/);
  // Served cross-origin isolated, so the worker's answers can come through shared memory in a frame.
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  assert.match(await page.getAttribute('body', 'data-in-frame'), /^\d+$/);
});

test('typing a SEARCH/REPLACE reply: status, receipt, exact-level decorations and the diff', T, async () => {
  const reply = 'Return the status:\n\ntool.py\n```python\n<<<<<<< SEARCH\n    print("hi", argv)\n    return 0\n=======\n    print("hello", argv[1:])\n    return len(argv) - 1\n>>>>>>> REPLACE\n```\n';
  await run('tool.py', FILE, reply);
  assert.equal(await page.textContent('#status'), 'applied');
  const expected = core.applyEdits({ 'tool.py': FILE }, reply, {}).files[0].content;
  assert.equal(expected, 'import sys\n\n\ndef main(argv):\n    print("hello", argv[1:])\n    return len(argv) - 1\n\n\nsys.exit(main(sys.argv))\n');
  assert.equal(await resultText(), expected);
  const row = page.locator('#receipts tbody tr[data-testid="receipt"]');
  assert.equal(await row.count(), 1);
  assert.equal(await row.locator('td.index').textContent(), '1');
  assert.equal(await row.locator('td.status').textContent(), 'applied');
  assert.equal(await row.locator('td.strategy').textContent(), 'exact');
  assert.equal(await row.locator('td.lines').textContent(), '5-6');
  assert.match(await row.locator('td.tokens').textContent(), /^\d+$/);
  assert.deepEqual(await decorated('pb-level-exact'), [5, 6]);
  assert.match(await page.textContent('#format-used'), /search-replace/);
  assert.match(await page.textContent('#feedback'), /applied/);
  // The unified diff shows the two new lines as changed and the old ones as deleted.
  const changed = await page.$$eval('[data-testid="diff"] .cm-changedLine', (ls) => ls.map((l) => l.textContent));
  assert.deepEqual(changed, ['    print("hello", argv[1:])', '    return len(argv) - 1']);
  assert.match(await page.textContent('[data-testid="diff"] .cm-deletedChunk'), /print\("hi", argv\)/);
});

test('a block at another indentation is decorated with the indent level', T, async () => {
  await type(page, 'reply', 'tool.py\n<<<<<<< SEARCH\nprint("hi", argv)\nreturn 0\n=======\nreturn 1\n>>>>>>> REPLACE\n');
  assert.equal(await page.textContent('#status'), 'applied');
  assert.equal(await page.getAttribute('#receipts tbody tr[data-testid="receipt"]', 'data-level'), 'indent');
  assert.deepEqual(await decorated('pb-level-indent'), [5, 6]);
  assert.deepEqual(await decorated('pb-level-exact'), []);
  assert.equal(await page.locator('[data-testid="legend"] .pb-level-indent').count(), 1);
});

test('a SEARCH that is not in the file: not_found, the closest region and its first difference', T, async () => {
  const reply = 'tool.py\n<<<<<<< SEARCH\ndef main(argv):\n    print("ho", argv)\n    return 0\n=======\ndef main(args):\n>>>>>>> REPLACE\n';
  await type(page, 'reply', reply);
  assert.equal(await page.textContent('#status'), 'failed');
  assert.equal(await resultText(), FILE);
  const row = page.locator('#receipts tbody tr[data-testid="receipt"]');
  assert.equal(await row.getAttribute('data-code'), 'not_found');
  assert.match(await page.textContent('#feedback'), /\[not_found\]/);
  // The engine names lines 4-6 as the closest region and the first difference on line 5.
  assert.match(core.applyEdits({ 'tool.py': FILE }, reply, {}).feedback, /Closest region: lines 4-6 .*\nFirst difference at line 5/);
  assert.deepEqual(await decorated('pb-closest'), [4, 5, 6]);
  assert.equal(await page.textContent('[data-testid="file"] .pb-first-diff'), 'i');
  // Whitespace in the closest region is made visible: every run of spaces of lines 4-6.
  const runs = FILE.split('\n').slice(3, 6).flatMap((l) => (l.match(/ +/g) ?? []).map((r) => r.length));
  assert.deepEqual(runs, [1, 4, 1, 4, 1]);
  assert.deepEqual(await page.$$eval('[data-testid="file"] .pb-closest .pb-ws-space', (ss) => ss.map((s) => s.textContent.length)), runs);
  assert.match(await page.textContent('#note'), /^Nothing was applied; tool\.py is unchanged\./);
});

test('partial mode shows the edits that applied, not the original', T, async () => {
  const reply = 'tool.py\n<<<<<<< SEARCH\nimport sys\n=======\nimport os, sys\n>>>>>>> REPLACE\n\ntool.py\n<<<<<<< SEARCH\nnot in the file\n=======\nx\n>>>>>>> REPLACE\n';
  await page.check('#partial');
  await type(page, 'reply', reply);
  assert.equal(await page.textContent('#status'), 'failed');
  assert.match(await page.textContent('#note'), /^Partial mode: 1 of 2 edits of tool\.py applied/);
  assert.equal(await resultText(), FILE.replace('import sys', 'import os, sys'));
  assert.deepEqual(await page.$$eval('#receipts tbody tr', (rs) => rs.map((r) => r.dataset.status)), ['applied', 'failed']);
  await page.uncheck('#partial');
  await settle(page);
  assert.match(await page.textContent('#note'), /^Nothing was applied/);
});

test('an empty path says so instead of a blank name', T, async () => {
  await setPath(page, '');
  assert.equal(await page.textContent('#note'), 'The shown file has no path: give it one (replies name the files they edit by path).');
  await setPath(page, 'tool.py');
});

test('a pasted file takes its path from a reply naming one file', T, async () => {
  // A fresh case: an example resets the path to one the user never typed.
  await page.selectOption('#example', { index: 1 });
  await settle(page);
  const reply = 'lib/tool.py\n<<<<<<< SEARCH\n    return 0\n=======\n    return 1\n>>>>>>> REPLACE\n';
  await type(page, 'file', FILE);
  await type(page, 'reply', reply);
  assert.equal(await page.inputValue('#path'), 'lib/tool.py');
  assert.equal(await page.textContent('#status'), 'applied');
  assert.match(await page.textContent('#path-note'), /path taken from the reply \(was src\/app\.py\)/);
});

test('picking an example keeps the replaced case one click away', T, async () => {
  await type(page, 'file', 'my own file\n');
  await page.selectOption('#example', { index: 3 });
  await settle(page);
  assert.equal(await page.textContent('#status'), 'failed');
  assert.notEqual(await editorText(page, 'file'), 'my own file\n');
  await page.click('[data-testid="restore-case"]');
  await settle(page);
  assert.equal(await editorText(page, 'file'), 'my own file\n');
  // The menu is back on its first line: the same example can be picked again.
  assert.equal(await page.inputValue('#example'), '');
  await page.selectOption('#example', { index: 3 });
  await settle(page);
  assert.equal(await page.textContent('#status'), 'failed');
});

test('a cut-off reply is truncated', T, async () => {
  await page.selectOption('#example', { index: 4 });
  await settle(page);
  assert.equal(await page.textContent('#status'), 'truncated');
  assert.equal(await page.locator('#receipts tbody tr[data-code="truncated"]').count(), 1);
  // The count check and its continuation prompt, as the engine gives them for this reply.
  const reply = await editorText(page, 'reply');
  const { check, continuation } = core.checkOutput(reply, null);
  assert.equal(await page.isVisible('#continuation-box'), true);
  assert.equal(await page.textContent('#continuation'), continuation);
  assert.match(await page.textContent('#continuation-note'), new RegExp(`^Count check: ${check.verdict} `));
});

test('rejecting a change in the unified diff reverts it, and the reviewed result becomes the file', T, async () => {
  const reply = 'tool.py\n<<<<<<< SEARCH\nimport sys\n=======\nimport os, sys\n>>>>>>> REPLACE\n\ntool.py\n<<<<<<< SEARCH\n    return 0\n=======\n    return 7\n>>>>>>> REPLACE\n';
  await run('tool.py', FILE, reply);
  assert.equal(await page.textContent('#status'), 'applied');
  const buttons = page.locator('[data-testid="diff"] button[name="reject"]');
  assert.equal(await buttons.count(), 2);
  // Each change is labelled with the edit that made it, coloured by its level.
  const labels = await page.$$eval('[data-testid="diff"] .cm-changedLine', (ls) => ls.map((l) => [l.textContent, l.dataset.edit, l.classList.contains('pb-level-exact')]));
  assert.deepEqual(labels, [['import os, sys', '1', true], ['    return 7', '2', true]]);
  await buttons.first().click();
  assert.equal(await page.locator('[data-testid="diff"] button[name="reject"]').count(), 1);
  await page.click('[data-testid="use-result"]');
  await settle(page);
  assert.equal(await editorText(page, 'file'), FILE.replace('return 0', 'return 7'));
});

test('rejecting one edit of three gives the result of the reply without it', T, async () => {
  const block = (old, now) => `tool.py\n<<<<<<< SEARCH\n${old}\n=======\n${now}\n>>>>>>> REPLACE\n`;
  const reply = block('import sys', 'import os, sys') + block('def main(argv):', 'def main(argv, env):') + block('    return 0', '    return 7');
  await run('tool.py', FILE, reply);
  assert.equal(await page.textContent('#status'), 'applied');
  const toggles = page.locator('[data-testid="edit-review"] button[name="edit-toggle"]');
  assert.equal(await toggles.count(), 3);
  await toggles.nth(1).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="edit-review"] [data-edit="2"]')?.getAttribute('aria-pressed') === 'true');
  // Written out by hand: edits 1 and 3 only.
  const without2 = FILE.replace('import sys', 'import os, sys').replace('return 0', 'return 7');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="diff"] .cm-changedLine').length === 2);
  assert.equal(await resultText(), without2);
  assert.equal(await toggles.nth(1).textContent(), 'edit 2: rejected');
  await toggles.nth(1).click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="diff"] .cm-changedLine').length === 3);
  assert.equal(await resultText(), FILE.replace('import sys', 'import os, sys').replace('def main(argv):', 'def main(argv, env):').replace('return 0', 'return 7'));
  await toggles.nth(0).click();
  await toggles.nth(2).click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="diff"] .cm-changedLine').length === 1);
  await page.click('[data-testid="use-result"]');
  await settle(page);
  assert.equal(await editorText(page, 'file'), FILE.replace('def main(argv):', 'def main(argv, env):'));
});

test('side by side shows the original and the result in two editors', T, async () => {
  await run('tool.py', FILE, 'tool.py\n<<<<<<< SEARCH\n    return 0\n=======\n    return 7\n>>>>>>> REPLACE\n');
  await page.click('[data-testid="view-split"]');
  assert.equal(await page.locator('[data-testid="diff"] .cm-mergeView .cm-editor').count(), 2);
  const sides = await page.$$eval('[data-testid="diff"] .cm-mergeView .cm-editor', (es) => es.map((e) => e.querySelector('.cm-changedLine')?.textContent));
  assert.deepEqual(sides, ['    return 0', '    return 7']);
  await page.click('[data-testid="view-unified"]');
});

test('several files: add one, name it, and a reply edits both', T, async () => {
  await run('a.py', 'A = 1\n', 'a.py\n<<<<<<< SEARCH\nA = 1\n=======\nA = 2\n>>>>>>> REPLACE\n\nb.py\n<<<<<<< SEARCH\nB = 1\n=======\nB = 2\n>>>>>>> REPLACE\n');
  assert.equal(await page.textContent('#status'), 'failed');
  assert.equal(await page.getAttribute('#receipts tbody tr:nth-child(2)', 'data-code'), 'file_missing');
  await page.click('#add-file');
  await setPath(page, 'b.py');
  await type(page, 'file', 'B = 1\n');
  assert.deepEqual(await page.$$eval('#tabs button', (bs) => bs.map((b) => b.textContent)), ['a.py', 'b.py']);
  assert.equal(await page.textContent('#status'), 'applied');
  assert.deepEqual(await page.$$eval('#receipts tbody td.path', (ts) => ts.map((t) => t.textContent)), ['a.py', 'b.py']);
  assert.equal(await resultText(), 'B = 2\n');
  await page.click('#tabs button:first-child');
  await settle(page);
  assert.equal(await editorText(page, 'file'), 'A = 1\n');
  await page.click('#remove-file');
  await settle(page);
  assert.deepEqual(await page.$$eval('#tabs button', (bs) => bs.map((b) => b.textContent)), ['b.py']);
  assert.equal(await page.isDisabled('#remove-file'), true);
});

// Unified diffs: why they break, the repair, and GNU patch's fuzz.
const APP = 'def greet(name):\n    name = name.strip()\n    print("Hello, " + name)\n\n\ndef main():\n    greet("world")\n';
// Wrong line numbers, and the first context line lost its leading space.
const BROKEN = '```diff\n--- a/app.py\n+++ b/app.py\n@@ -14,3 +14,3 @@\ndef greet(name):\n     name = name.strip()\n-    print("Hello, " + name)\n+    print("Hello, " + name.title())\n```\n';

test('a broken unified diff: the diagnosis per hunk and the repaired diff', T, async () => {
  await run('app.py', APP, BROKEN);
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
  assert.equal(await hunk.locator('[data-testid="patch-verdict"]').getAttribute('data-verdict'), 'malformed');
  assert.equal(await page.isVisible('#fuzz-warning'), false);
  assert.equal(await page.inputValue('#repaired'), core.repairUdiff({ 'app.py': APP }, BROKEN));
  assert.match(await page.inputValue('#repaired'), /^@@ -1,6 \+1,6 @@$/m);
  assert.match(await page.textContent('#repair-note'), /git apply accepts/);
});

test('the repaired diff is copied, and applies as a clean diff', T, async () => {
  await pg.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: pg.base });
  await page.click('#copy-repaired');
  await page.waitForFunction(() => document.getElementById('copy-repaired').textContent === 'Copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, await page.inputValue('#repaired'));
  await type(page, 'reply', copied);
  assert.equal(await page.textContent('#status'), 'applied');
  assert.equal(await page.textContent('#udiff-note'), '1 hunk; git apply accepts every one.');
});

test('a fuzz trap: the warning that GNU patch would silently misapply', T, async () => {
  const labels = await page.$$eval('#example option', (os) => os.map((o) => o.textContent));
  await page.selectOption('#example', { index: labels.indexOf('Example: a unified diff GNU patch would misapply') });
  await settle(page);
  assert.equal(await page.inputValue('#path'), 'src/prices.py');
  assert.equal(await page.textContent('#status'), 'applied');
  assert.equal(await page.locator('#receipts tbody tr[data-testid="receipt"] td.lines').textContent(), '6-10');
  assert.match(await resultText(), /def gross\(amount\):\n {4}value = amount \* 1\.0\n {4}return round\(value \* 1\.2, 2\)\n/);
  assert.equal(await page.isVisible('#fuzz-warning'), true);
  assert.match(await page.textContent('#fuzz-warning'), /hunk 1: patch applies it at line 2 with fuzz 2, but the whole hunk matches only at line 6: a silent misapply\.$/);
  // The panel links to the peers' table, served with the page.
  const href = await page.getAttribute('#peers-link', 'href');
  const doc = await page.evaluate(async (u) => (await fetch(u)).text(), href);
  assert.match(doc, /^## Peers: the same cases through patch, git apply, jsdiff and diff-match-patch$/m);
});

test('the unified-diff panel stays hidden for other formats', T, async () => {
  await page.selectOption('#example', { index: 1 });
  await settle(page);
  assert.equal(await page.textContent('#status'), 'applied');
  assert.equal(await page.isVisible('#udiff-panel'), false);
});

test('the server sends the files compressed, and the wasm module as brotli', T, async () => {
  const res = await fetch(new URL('pkg/patchbay_wasm_bg.wasm', pg.base), { headers: { 'Accept-Encoding': 'br, gzip' } });
  assert.equal(res.headers.get('content-encoding'), 'br');
  const gz = await fetch(new URL('app.js', pg.base), { headers: { 'Accept-Encoding': 'gzip' } });
  assert.equal(gz.headers.get('content-encoding'), 'gzip');
  const plain = await fetch(new URL('app.js', pg.base), { headers: { 'Accept-Encoding': 'identity' } });
  assert.equal(plain.headers.get('content-encoding'), null);
  assert.equal(await gz.text(), await plain.text());
});

test('nothing was loaded from anywhere but our server, and nothing went wrong', T, () => {
  const foreign = pg.requests.filter((u) => !u.startsWith(pg.base));
  assert.deepEqual(foreign, []);
  assert.ok(pg.requests.some((u) => u.endsWith('/pkg/patchbay_wasm_bg.wasm')), pg.requests.join('\n'));
  assert.deepEqual(pg.problems, []);
});

test('a reasoning section is skipped, said so, and folded in the reply editor', T, async () => {
  const draft = 'tool.py\n```python\n<<<<<<< SEARCH\nimport sys\n=======\nimport os\n>>>>>>> REPLACE\n```\n';
  const answer = 'tool.py\n```python\n<<<<<<< SEARCH\n    return 0\n=======\n    return 1\n>>>>>>> REPLACE\n```\n';
  const reply = `<think>\nMaybe the import:\n${draft}No, the return value.\n</think>\n\n${answer}`;
  await run('tool.py', FILE, reply);
  assert.equal(await page.textContent('#status'), 'applied');
  // Only the answer's edit: the draft's import stays as the file has it.
  assert.equal(await resultText(), FILE.replace('    return 0\n', '    return 1\n'));
  assert.match(await page.textContent('#note'), /reasoning section <think> \(reply lines 1-12\) was skipped/);
  await page.waitForSelector('[data-testid="reply"] .cm-foldPlaceholder', { timeout: 5_000 });
  const shown = await page.$$eval('[data-testid="reply"] .cm-line', (ls) => ls.map((l) => l.textContent));
  assert.equal(shown[0].startsWith('<think>'), true);
  assert.equal(shown.some((l) => l.includes('Maybe the import')), false, shown.join('\n'));
});
