// The installed package's patchbay/worker under node: `serve` on one end of
// a MessageChannel and `connect` on the other, as a page and its worker
// talk, with the worker's own methods (`extra`) beside the core's.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { installPackage } from './install.mjs';

const { module } = installPackage();
const { serve, connect, METHODS } = await import(module('worker.js'));
const { port1, port2 } = new MessageChannel();
after(() => {
  port1.close();
  port2.close();
});

// A method of the worker's own, answering a promise as the page's syntax calls do.
const reversed = async (text) => [...text].reverse().join('');
serve(port1, undefined, { reversed });
const pb = connect(port2, ['reversed']);

test('core methods answer through the channel', async () => {
  const report = await pb.applyEdits({ 'a.txt': 'hello\n' }, 'a.txt\n<<<<<<< SEARCH\nhello\n=======\nhello, world\n>>>>>>> REPLACE\n');
  assert.equal(report.status, 'applied');
  assert.equal(report.files[0].content, 'hello, world\n');
  assert.ok(METHODS.includes('applyEdits'));
});

test("a worker's own method answers, its promise awaited", async () => {
  assert.equal(await pb.reversed('abc'), 'cba');
  assert.equal(await pb.call('reversed', 'xyz'), 'zyx');
});

test('a name that is neither a core method nor an own extra is a TypeError', async () => {
  await assert.rejects(pb.call('nothing'), TypeError);
  // Inherited properties of the extras object are not methods.
  await assert.rejects(pb.call('toString'), TypeError);
});

test('an error thrown by the core keeps its type across the channel', async () => {
  await assert.rejects(pb.applyEdits({ 'a.txt': 5 }, ''), TypeError);
});
