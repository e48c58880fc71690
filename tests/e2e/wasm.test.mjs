// The wasm module in node, through the generated JS: real inputs, exact results.
// Needs `scripts/build-package.sh` first (it writes packages/patchbay/core).
// The glue loads the module's second part from beside it at the first call
// that needs it (packages/patchbay/rest.js).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

const pkg = new URL('../../packages/patchbay/core/', import.meta.url);
if (!existsSync(new URL('patchbay_wasm_bg.wasm', pkg))) throw new Error('packages/patchbay/core is missing: run scripts/build-package.sh');
const wasm = await import(new URL('patchbay_wasm.js', pkg));

before(() => {
  wasm.initSync({ module: readFileSync(new URL('patchbay_wasm_bg.wasm', pkg)) });
});

const FILE = 'def greet(name):\n    print("Hello, " + name)\n\n\ndef main():\n    greet("world")\n';
const block = (path, search, replace) =>
  `${path}\n<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n`;

test('a SEARCH/REPLACE edit applies and the new text is exact', () => {
  const reply = 'Use an f-string:\n\n' + block('app.py', '    print("Hello, " + name)\n', '    print(f"Hello, {name}!")\n');
  const report = wasm.applyEdits({ 'app.py': FILE }, reply, {});
  assert.equal(report.status, 'applied');
  assert.equal(report.format, 'search-replace');
  assert.equal(report.files.length, 1);
  assert.equal(report.files[0].path, 'app.py');
  assert.equal(report.files[0].content, FILE.replace('print("Hello, " + name)', 'print(f"Hello, {name}!")'));
  assert.deepEqual(report.files[0].edits.map((r) => [r.index, r.status, r.strategy, r.lines]), [[1, 'applied', 'exact', [2, 2]]]);
  // A plain object (json_compatible), not a Map.
  assert.equal(Object.getPrototypeOf(report), Object.prototype);
});

test('the options object is optional, and undefined fields count as absent', () => {
  const reply = block('app.py', 'def main():\n', 'def main() -> None:\n');
  const expected = FILE.replace('def main():', 'def main() -> None:');
  assert.equal(wasm.applyEdits({ 'app.py': FILE }, reply).files[0].content, expected);
  const opts = { format: undefined, partial: undefined, defaultPath: null, maxLevel: 'exact' };
  assert.equal(wasm.applyEdits({ 'app.py': FILE }, reply, opts).files[0].content, expected);
});

test('an ambiguous SEARCH fails with code ambiguous and changes nothing', () => {
  const files = { 'a.py': 'x = 1\ny = 2\nx = 1\n' };
  const report = wasm.applyEdits(files, block('a.py', 'x = 1\n', 'x = 3\n'), { format: 'search-replace' });
  assert.equal(report.status, 'failed');
  const [receipt] = report.files[0].edits;
  assert.equal(receipt.status, 'failed');
  assert.equal(receipt.code, 'ambiguous');
  assert.equal(report.files[0].content, undefined);
  assert.match(report.feedback, /\[ambiguous\]/);
});

test('a reply cut off inside a block is truncated', () => {
  const reply = 'app.py\n<<<<<<< SEARCH\ndef main():\n=======\ndef main() -> No';
  const report = wasm.applyEdits({ 'app.py': FILE }, reply);
  assert.equal(report.status, 'truncated');
  assert.equal(report.files[0].edits[0].code, 'truncated');
  assert.equal(report.files[0].content, undefined);
});

test('a not-found SEARCH gets a not_found receipt', () => {
  const report = wasm.applyEdits({ 'app.py': FILE }, block('app.py', 'def nope():\n', 'def yes():\n'));
  assert.equal(report.status, 'failed');
  assert.equal(report.files[0].edits[0].code, 'not_found');
});

test('formats, detectFormat and render', () => {
  const names = wasm.formats();
  assert.ok(names.includes('search-replace'), names.join());
  assert.ok(names.includes('whole'), names.join());
  assert.ok(names.includes('auto'), names.join());
  const d = wasm.detectFormat(block('app.py', 'a\n', 'b\n'));
  assert.equal(d.format, 'search-replace');
  assert.ok(d.confidence > 0.5 && d.confidence <= 1);
  const edit = wasm.render('search-replace', 'app.py', FILE, FILE.replace('world', 'there'));
  // The canonical edit applies back to the same result.
  const report = wasm.applyEdits({ 'app.py': FILE }, edit);
  assert.equal(report.status, 'applied');
  assert.equal(report.files[0].content, FILE.replace('world', 'there'));
});

test('bad arguments throw a JS Error with a message', () => {
  assert.throws(() => wasm.applyEdits({ 'a.py': 'x\n' }, 'x', { format: 'nope' }), (e) => e instanceof Error && /unknown format "nope"/.test(e.message));
  assert.throws(() => wasm.applyEdits({ 'a.py': 'x\n' }, 'x', { maxLevel: 'psychic' }), (e) => e instanceof Error && /unknown variant `psychic`/.test(e.message));
  assert.throws(() => wasm.applyEdits({ 'a.py': 42 }, 'x'), (e) => e instanceof TypeError && /must be a string/.test(e.message));
  assert.throws(() => wasm.render('nope', 'a', '', ''), (e) => e instanceof Error && /unknown format/.test(e.message));
});

test('tag view, declared-count check and prompt kit from the core', () => {
  // CRC-32("123456789") = 0xCBF43926 -> base64url "y_Q5Jg"; default tag: 4 characters.
  assert.equal(wasm.tagView('123456789\n'), '1:y_Q5 123456789\n');
  assert.match(wasm.crcView('a.txt', 'x\n'), /^# file: a\.txt crc32=[0-9a-f]{8}/);
  const item = (n) => `## Item ${n}/3\n- Location: a.rs:${n}\n- Severity: low\n- Claim: c\n- Quote: q\n`;
  const cut = `Total: 3\nOrder: file\n${item(1)}${item(2)}## Item 3/3\n- Loc`;
  const r = wasm.checkOutput(cut, { stopReason: 'length' });
  assert.equal(r.check.verdict, 'truncated');
  assert.equal(r.check.missing, 1);
  assert.equal(r.check.items.length, 2);
  assert.match(r.continuation, /from 3\/3/);
  const kit = wasm.promptKit('search-replace');
  assert.ok(kit.instructionTokens > 20, String(kit.instructionTokens));
  assert.match(kit.exampleReply, /<<<<<<< SEARCH/);
  assert.throws(() => wasm.promptKit('nope'), /no prompt kit/);
});

// Unified diffs: diagnosis, repair and the GNU patch simulation.
const APP = 'def greet(name):\n    name = name.strip()\n    print("Hello, " + name)\n\n\ndef main():\n    greet("world")\n';
// Wrong line numbers, and the first context line lost its leading space.
const BROKEN = '```diff\n--- a/app.py\n+++ b/app.py\n@@ -14,3 +14,3 @@\ndef greet(name):\n     name = name.strip()\n-    print("Hello, " + name)\n+    print("Hello, " + name.title())\n```\n';
// Two look-alike functions; the hunk edits `gross` but states line 2.
const PRICES = 'import math\n\ndef net(amount):\n    value = amount * 1.0\n    return round(value, 2)\n\ndef gross(amount):\n    value = amount * 1.0\n    return round(value, 2)\n\ndef tax(amount):\n    return gross(amount) - net(amount)\n';
const TRAP = '--- a/prices.py\n+++ b/prices.py\n@@ -2,5 +2,5 @@\n \n def gross(amount):\n     value = amount * 1.0\n-    return round(value, 2)\n+    return round(value * 1.2, 2)\n \n';

test('diagnoseUdiff explains each hunk as plain objects', () => {
  const [d, ...rest] = wasm.diagnoseUdiff({ 'app.py': APP }, BROKEN);
  assert.equal(rest.length, 0);
  assert.equal(Object.getPrototypeOf(d), Object.prototype);
  assert.deepEqual(
    [d.hunk, d.path, d.outputLine, d.header, d.strictOk, d.lenientLines],
    [1, 'app.py', 4, '@@ -14,3 +14,3 @@', false, [1, 3]],
  );
  assert.deepEqual(d.findings.map((f) => [f.kind, f.fatal]), [['missing_prefix', true], ['offset', false], ['git_anchor', false]]);
  assert.match(d.findings[0].message, /line 1 of the hunk lacks its prefix \(output line 5: `def greet\(name\):`\)/);
  assert.equal(d.findings[1].message, 'context found at line 1, header says 14');
  // A missing file and a reply without a diff are data too.
  assert.equal(wasm.diagnoseUdiff({}, BROKEN)[0].findings.at(-1).kind, 'file_missing');
  assert.deepEqual(wasm.diagnoseUdiff({}, 'no diff here'), []);
});

test('repairUdiff returns a diff that git-style strict mode applies, to the same result', () => {
  const files = { 'app.py': APP };
  const fixed = wasm.repairUdiff(files, BROKEN);
  assert.equal(
    fixed,
    'diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,6 +1,6 @@\n def greet(name):\n     name = name.strip()\n-    print("Hello, " + name)\n+    print("Hello, " + name.title())\n \n \n def main():\n',
  );
  const strict = wasm.applyEdits(files, fixed, { format: 'udiff', strict: true });
  assert.equal(strict.status, 'applied');
  assert.equal(strict.files[0].content, wasm.applyEdits(files, BROKEN).files[0].content);
  assert.equal(wasm.diagnoseUdiff(files, fixed).every((h) => h.strictOk), true);
});

test('repairUdiff throws an Error with the problems when the default mode would refuse', () => {
  const gone = BROKEN.replace('def greet(name):', 'def hello(name):');
  assert.throws(
    () => wasm.repairUdiff({ 'app.py': APP }, gone),
    (e) => e instanceof Error && /^cannot repair: app\.py, hunk 1 \(output line 4\): the context was not found/.test(e.message)
      && Array.isArray(e.problems) && e.problems.length === 1,
  );
  assert.throws(() => wasm.repairUdiff({}, 'no diff here'), (e) => e instanceof Error && /holds no unified diff/.test(e.message));
});

test('simulatePatchFuzz flags where GNU patch with fuzz 2 would silently misapply', () => {
  const [r] = wasm.simulatePatchFuzz({ 'prices.py': PRICES }, TRAP);
  assert.deepEqual(
    [r.hunk, r.path, r.verdict, r.statedLine, r.patchLine, r.fuzz, r.safeLine],
    [1, 'prices.py', 'misplaced', 2, 2, 2, 6],
  );
  assert.match(r.message, /patch applies it at line 2 with fuzz 2, but the whole hunk matches only at line 6: a silent misapply/);
  // patchbay itself puts the hunk at the one safe place.
  const report = wasm.applyEdits({ 'prices.py': PRICES }, TRAP);
  assert.deepEqual(report.files[0].edits[0].lines, [6, 10]);
  // With the right line, patch agrees.
  const ok = wasm.simulatePatchFuzz({ 'prices.py': PRICES }, TRAP.replace('@@ -2,5 +2,5 @@', '@@ -6,5 +6,5 @@'));
  assert.deepEqual([ok[0].verdict, ok[0].patchLine], ['agrees', 6]);
  assert.equal(wasm.simulatePatchFuzz({}, TRAP)[0].verdict, 'no_file');
});

test('the udiff tools throw a TypeError for bad files arguments', () => {
  for (const f of [wasm.diagnoseUdiff, wasm.repairUdiff, wasm.simulatePatchFuzz]) {
    assert.throws(() => f({ 'prices.py': 42 }, TRAP), (e) => e instanceof TypeError && /must be a string/.test(e.message), f.name);
  }
});
