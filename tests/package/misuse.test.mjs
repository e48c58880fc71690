// Misuse throws a TypeError or RangeError naming the argument; bad model
// output never throws; the module stays usable after a caught error.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { installPackage } from './install.mjs';

let pb, pbUrl;
before(async () => {
  pbUrl = installPackage().module('index.js');
  pb = await import(pbUrl);
  await pb.default();
}, { timeout: 120_000 });

const reply = 'a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n';

test('bad arguments throw the documented error types', () => {
  assert.throws(() => pb.applyEdits({ 'a.py': 42 }, reply), { name: 'TypeError', message: /files\["a\.py"\] must be a string, got number/ });
  assert.throws(() => pb.applyEdits(['x = 1\n'], reply), { name: 'TypeError', message: /files must be an object/ });
  assert.throws(() => pb.applyEdits({ 'a.py': 'x = 1\n' }, 7), { name: 'TypeError', message: /reply must be a string/ });
  assert.throws(() => pb.applyEdits({}, reply, { format: 'nope' }), { name: 'RangeError', message: /unknown format "nope"; expected one of/ });
  assert.throws(() => pb.applyEdits({}, reply, { maxLevel: 'loose' }), { name: 'RangeError', message: /unknown variant/ });
  assert.throws(() => pb.applyEdits({}, reply, { partial: 'yes' }), { name: 'TypeError', message: /options: invalid type/ });
  assert.throws(() => pb.tagView('a\n', { len: -1 }), { name: 'RangeError', message: /options: invalid type: floating point `-1.0`, expected usize/ });
  assert.throws(() => pb.render('nope', 'a.py', 'a\n', 'b\n'), { name: 'RangeError', message: /unknown format/ });
  assert.throws(() => pb.promptKit('nope'), { name: 'RangeError' });
  assert.throws(() => pb.estimateTokens('x', 'gpt-17'), { name: 'RangeError', message: /unknown model family/ });
  assert.throws(() => new pb.StreamParser({ a: 1 }), { name: 'TypeError' });
  assert.throws(() => new pb.StreamParser({}, { format: 'nope' }), { name: 'RangeError' });
  assert.throws(() => pb.planBudget('window'), { name: 'TypeError', message: /request must be an object/ });
  assert.throws(() => pb.diagnoseUdiff(null, ''), { name: 'TypeError' });
});

test('bad replies never throw: they come back as receipts', () => {
  const files = { 'a.py': 'x = 1\n' };
  const soup = ['', '<<<<<<< SEARCH\n', '@@ -1 +1 @@\n-nope\n+x\n', '{"command": "str_replace"', '*** Begin Patch\n*** Update File: b\n', '\u0000\uffff🎉', '=======\n>>>>>>> REPLACE\n'.repeat(50)];
  for (const format of pb.formats()) {
    for (const r of soup) {
      const report = pb.applyEdits(files, r, { format });
      assert.notEqual(report.status, 'applied', `${format}: ${JSON.stringify(r)}`);
      assert.equal(typeof report.feedback, 'string');
    }
  }
});

test('the module stays usable after a caught error', () => {
  assert.throws(() => pb.applyEdits({ 'a.py': null }, reply), TypeError);
  assert.throws(() => pb.tagView('a', { len: -3 }), RangeError);
  const report = pb.applyEdits({ 'a.py': 'x = 1\n' }, reply);
  assert.equal(report.status, 'applied');
  assert.equal(report.files[0].content, 'x = 2\n');
});

test('a finished StreamParser refuses more input; it is disposable', () => {
  const p = new pb.StreamParser({ 'a.py': 'x = 1\n' });
  assert.deepEqual(p.push(reply).map((e) => e.receipt.status), ['applied']);
  assert.equal(p.finish().status, 'applied');
  assert.throws(() => p.push('more'), { name: 'TypeError', message: /finished/ });
  assert.throws(() => p.finish(), TypeError);
  p.free();
  assert.equal(typeof pb.StreamParser.prototype[Symbol.dispose ?? 'free'], 'function');
});

test('each entry exports the API: the glue\'s functions, nothing internal', async () => {
  const glue = await import(new URL('core/patchbay_wasm.js', pbUrl));
  const internal = new Set(['default', 'initSync', 'start']);
  // The loader's own two: the core module's second part (rest.js).
  const api = [...Object.keys(glue).filter((k) => !internal.has(k)), 'loadRest', 'restLoaded'].sort();
  assert.deepEqual(Object.keys(pb).filter((k) => !internal.has(k)).sort(), api);
  assert.equal(pb.start, undefined);
  assert.ok(api.includes('applyEdits') && api.includes('StreamParser'));
});
