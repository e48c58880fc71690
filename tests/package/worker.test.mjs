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

test('a stream parser in the worker gives the events and report the page-side parser gives', async () => {
  const { default: init, StreamParser } = await import(module('index.js'));
  await init();
  const files = { 'a.txt': 'one\ntwo\n', 'b.txt': 'x\n' };
  const reply = 'a.txt\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n\nb.txt\n<<<<<<< SEARCH\nmissing\n=======\ny\n>>>>>>> REPLACE\n';
  const local = new StreamParser(files, { format: 'search-replace' });
  const remote = pb.stream(files, { format: 'search-replace' });
  const chunks = reply.match(/[\s\S]{1,11}/g);
  for (const chunk of chunks) assert.deepEqual(await remote.push(chunk), local.push(chunk));
  const report = await remote.finish();
  assert.deepEqual(report, local.finish());
  assert.equal(report.files.find((f) => f.path === 'b.txt').edits[0].code, 'not_found');
  // Finished, the stream is gone from the worker: a push is a TypeError.
  await assert.rejects(remote.push('more'), TypeError);
});

test('a stream that cannot open fails each of its requests; freed streams do not pile up', async () => {
  const bad = pb.stream({ 'a.txt': 'x\n' }, { format: 'no-such-format' });
  await assert.rejects(bad.push('a'), RangeError);
  await assert.rejects(bad.finish(), RangeError);
  const { MAX_STREAMS } = await import(module('worker.js'));
  for (let i = 0; i < MAX_STREAMS * 2; i++) {
    const s = pb.stream({ 'a.txt': 'x\n' });
    await s.push('a.txt\n');
    await s.free();
  }
  const open = Array.from({ length: MAX_STREAMS }, () => pb.stream({ 'a.txt': 'x\n' }));
  await Promise.all(open.map((s) => s.push('')));
  await assert.rejects(pb.stream({ 'a.txt': 'x\n' }).push(''), RangeError);
  await Promise.all(open.map((s) => s.free()));
});

// Shared memory (mailbox.js): on a cross-origin isolated page the answers
// are also written where the page can take them in an animation frame,
// before the browser delivers their message. Here the worker is a thread
// and the "frame" comes while this thread still holds the message unread,
// so the answer can only have come through the mailbox.
const { Mailbox, LIMIT } = await import(module('mailbox.js'));

test('a mailbox gives back every answer once, in order, and refuses big ones', () => {
  const page = Mailbox.create(64);
  const worker = new Mailbox(page.buffer);
  const values = [{ path: 'é.txt', n: [1, 2.5, null] }, 'x'.repeat(1000), null, [], 'ünïcödé 🎉'];
  values.forEach((v, i) => assert.ok(worker.put(i + 1, v)));
  assert.deepEqual(page.take(), values.map((v, i) => [i + 1, v]));
  assert.deepEqual(page.take(), []);
  // Emptied, it is written from the start again; the buffer grew for the 1,000 characters.
  assert.ok(worker.put(9, 'again'));
  assert.deepEqual(page.take(), [[9, 'again']]);
  assert.ok(page.buffer.byteLength > 1000);
  assert.equal(worker.put(10, 'y'.repeat(LIMIT + 1)), false);
  assert.equal(Mailbox.fits([{ 'a.txt': 'y'.repeat(LIMIT) }, 'z']), false);
  assert.equal(Mailbox.fits([{ 'a.txt': 'y' }, 'z', { partial: true }]), true);
});

test('an answer the worker has written resolves in the next frame, before its message, and equals it', async () => {
  const { Worker } = await import('node:worker_threads');
  const thread = new Worker(
    `import(${JSON.stringify(module('worker.js'))}).then((m) => m.serve(require('node:worker_threads').parentPort));`,
    { eval: true },
  );
  after(() => thread.terminate());
  let buffer = null;
  let frame = null;
  const endpoint = {
    postMessage: (m) => {
      if (m?.mailbox) buffer = m.mailbox;
      thread.postMessage(m);
    },
    addEventListener: (_type, listener) => thread.on('message', (data) => listener({ data })),
  };
  const framed = connect(endpoint, [], { frame: (cb) => (frame = cb) });
  const files = { 'a.py': 'def f():\n    return 1\n' };
  const reply = 'a.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n';
  const answer = framed.applyEdits(files, reply);
  assert.ok(buffer instanceof SharedArrayBuffer, 'the client sent its mailbox');
  // This thread does not yield until the worker thread has written the answer.
  const end = new Int32Array(buffer, 0, 1);
  const started = Date.now();
  while (Atomics.load(end, 0) === 0) assert.ok(Date.now() - started < 30_000, 'the worker answered');
  frame();
  assert.equal(framed.answeredInFrame, 1);
  assert.deepEqual(await answer, await pb.applyEdits(files, reply));
  // A call that is not the core's goes by message only.
  await assert.rejects(framed.call('nothing'), TypeError);
  assert.equal(framed.answeredInFrame, 1);
});
