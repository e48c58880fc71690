// The installed package's EditLoop under node: a model's streamed answer
// (Ollama NDJSON and OpenAI SSE bodies built here) cut at awkward places
// goes through pushBytes; the outcome and files are checked against a
// replacement done here with plain string functions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installPackage } from './install.mjs';

const { module } = installPackage();
const pb = await import(module('index.js'));
pb.initSync();

const FILE = 'def hi():\n    print("héllo wörld")\n';
const REPLY = 'a.py\n<<<<<<< SEARCH\n    print("héllo wörld")\n=======\n    print("grüß dich")\n>>>>>>> REPLACE\n';
const WANT = FILE.replace('héllo wörld', 'grüß dich');
const CONFIG = { task: 'greet in German', format: 'search-replace', contextLength: 8192, replyLimit: 1024, rounds: 3 };

/** Ollama's /api/chat body: one NDJSON line per piece, then the final line. */
function ollamaBody(pieces, doneReason = 'stop') {
  const lines = pieces.map((content) => JSON.stringify({ model: 'm', message: { role: 'assistant', content }, done: false }));
  lines.push(JSON.stringify({ model: 'm', message: { role: 'assistant', content: '' }, done: true, done_reason: doneReason, eval_count: pieces.length, eval_duration: pieces.length * 1e7 }));
  return new TextEncoder().encode(lines.join('\n') + '\n');
}

/** An OpenAI-compatible SSE body. */
function sseBody(pieces) {
  const events = pieces.map((content) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`);
  events.push(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
  return new TextEncoder().encode(events.join(''));
}

/** One round over `bytes` cut every `step` bytes (inside UTF-8 characters too). */
function round(loop, bytes, step) {
  const request = loop.nextRequest();
  const text = [];
  for (let at = 0; at < bytes.length; at += step) {
    for (const e of loop.pushBytes(bytes.subarray(at, at + step)).chat) if (e.kind === 'content') text.push(e.text);
  }
  const end = loop.end();
  return { request, text: text.join(''), end };
}

const pieces = REPLY.match(/.{1,5}/gs);

for (const step of [1, 3, 100]) {
  test(`an Ollama stream cut every ${step} bytes applies the reply`, () => {
    const loop = new pb.EditLoop({ 'a.py': FILE }, CONFIG, 'ollama', 'm');
    const { request, text, end } = round(loop, ollamaBody(pieces), step);
    assert.equal(request.round, 1);
    assert.ok(request.messages.at(-1).content.includes('héllo wörld'));
    assert.equal(text, REPLY);
    assert.equal(end.outcome.decision.decision, 'done');
    assert.deepEqual(end.outcome.changes, [{ path: 'a.py', content: WANT }]);
    assert.deepEqual(loop.files(), { 'a.py': WANT });
    assert.equal(end.tokensPerSecond, 100);
    assert.equal(loop.nextRequest(), undefined);
    assert.equal(loop.isFinished(), true);
  });
}

test('an OpenAI-compatible SSE stream and its request body', () => {
  const loop = new pb.EditLoop({ 'a.py': FILE }, CONFIG, 'openai', 'local-model');
  loop.nextRequest();
  const { path, body } = loop.chatRequest();
  assert.equal(path, '/v1/chat/completions');
  const sent = JSON.parse(body);
  assert.equal(sent.model, 'local-model');
  assert.equal(sent.stream, true);
  for (let at = 0, bytes = sseBody(pieces); at < bytes.length; at += 7) loop.pushBytes(bytes.subarray(at, at + 7));
  assert.equal(loop.end().outcome.decision.decision, 'done');
  assert.deepEqual(loop.files(), { 'a.py': WANT });
});

test('a reply cut by the limit keeps its complete edit; the continuation sends the cut one whole', () => {
  const loop = new pb.EditLoop({ 'a.py': FILE }, CONFIG, 'ollama', 'm');
  const rename = 'a.py\n<<<<<<< SEARCH\ndef hi():\n=======\ndef hey():\n>>>>>>> REPLACE\n';
  const first = round(loop, ollamaBody([REPLY, '\n', rename.slice(0, 25)], 'length'), 100);
  assert.equal(first.end.outcome.decision.decision, 'continue');
  const second = round(loop, ollamaBody([rename]), 100);
  assert.equal(second.request.kind, 'continuation');
  assert.equal(second.end.outcome.decision.decision, 'done');
  assert.deepEqual(loop.files(), { 'a.py': WANT.replace('def hi():', 'def hey():') });
});

test('misuse throws typed errors and the servers\' answers are read by the core', () => {
  assert.throws(() => new pb.EditLoop({ 'a.py': FILE }, CONFIG, 'llamafile', 'm'), RangeError);
  assert.throws(() => new pb.EditLoop({ 'a.py': FILE }, { ...CONFIG, rounds: 0 }, 'ollama', 'm'), RangeError);
  assert.throws(() => new pb.EditLoop({ 'a.py': 1 }, CONFIG, 'ollama', 'm'), TypeError);
  const loop = new pb.EditLoop({ 'a.py': FILE }, CONFIG, 'ollama', 'm');
  assert.throws(() => loop.pushBytes(new Uint8Array([1])), TypeError);
  assert.throws(() => loop.end(), TypeError);
  const tags = JSON.stringify({ models: [{ name: 'coder:7b', size: 5, details: { family: 'qwen2', parameter_size: '7.6B' } }] });
  assert.deepEqual(pb.parseModels('ollama', tags), [{ name: 'coder:7b', size: 5, family: 'qwen2', parameterSize: '7.6B', contextLength: null }]);
  assert.deepEqual(pb.parseModels('openai', JSON.stringify({ data: [{ id: 'x' }] })).map((m) => m.name), ['x']);
  // The context each OpenAI-compatible server serves, in its own field: llama-server's meta.n_ctx, vLLM's max_model_len.
  const served = JSON.stringify({ data: [{ id: 'a.gguf', meta: { n_ctx: 4096, n_ctx_train: 8192 } }, { id: 'b', max_model_len: 32768 }] });
  assert.deepEqual(pb.parseModels('openai', served).map((m) => m.contextLength), [4096, 32768]);
  assert.equal(pb.parseProps(JSON.stringify({ default_generation_settings: { n_ctx: 4096 } })), 4096);
  assert.equal(pb.parseProps('{}'), undefined);
  const chosen = pb.chooseContext('openai', 8192, 4096);
  assert.equal(chosen.numCtx, 4096);
  assert.match(chosen.warning, /asked for, but the server serves 4096/);
  assert.deepEqual(pb.chooseContext('ollama', undefined, 32768), { numCtx: 8192, warning: null });
  const show = JSON.stringify({ details: { family: 'qwen2' }, model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32768 }, capabilities: ['completion'] });
  assert.equal(pb.parseModelInfo(show).contextLength, 32768);
  assert.equal(JSON.parse(pb.showBody('coder:7b')).model, 'coder:7b');
  assert.equal(pb.serverError(404, '{"error":"model \'x\' not found"}'), "HTTP 404: model 'x' not found");
  assert.throws(() => pb.parseModels('ollama', 'not json'), Error);
  // Ollama refuses think for a model without the capability: it is left out, else sent as wanted.
  assert.deepEqual([pb.thinkFor(['completion'], true), pb.thinkFor(['thinking'], true), pb.thinkFor(['thinking'], false)], [undefined, true, false]);
});

test('the arena scores a run from the loop and sums runs per model and format as the CLI does', () => {
  const loop = new pb.EditLoop({ 'a.py': FILE }, CONFIG, 'ollama', 'm');
  round(loop, ollamaBody(pieces), 7);
  const run = { task: 'greet', model: 'm', format: 'search-replace', trial: 1, wallMs: 5 };
  const score = loop.score(run, { 'a.py': WANT });
  // One round, done, with the file the reply implies; the body's eval_count is its piece count.
  assert.deepEqual(score, {
    ...run, seed: 0, wellFormed: true, appliedFirstRound: true, applied: true, rounds: 1, matchesExpected: true,
    promptTokens: 0, outputTokens: pieces.length, earlyStops: 0, truncations: 0,
  });
  assert.equal(loop.score(run, { 'a.py': FILE }).matchesExpected, false);
  assert.equal(loop.score(run).matchesExpected, false); // a task without an expected result
  assert.equal(pb.arenaVerdict(score), 'expected result in 1 round(s)');
  const other = { ...score, format: 'udiff', applied: false, appliedFirstRound: false, matchesExpected: false, rounds: 3 };
  const { runs, summary } = pb.arenaResults([score, other, score]);
  assert.equal(runs.length, 3);
  assert.deepEqual(summary.map((s) => [s.format, s.runs, s.applied, s.rounds, s.wallMs]), [['search-replace', 2, 2, 2, 10], ['udiff', 1, 0, 3, 5]]);
  assert.throws(() => pb.arenaResults({}), TypeError);
  assert.throws(() => loop.score([], {}), TypeError);
});
