// The page's edit loop cost per 100-byte chunk: the package's `EditLoop`
// (the core's loop and Ollama decoder, the wasm the page's worker runs) fed
// a streamed /api/chat body cut into 100-byte chunks, on a 5,000-line file
// with 40 SEARCH/REPLACE edits. Peers in the same run: the same chunks
// decoded in plain JS (TextDecoder, split, JSON.parse: what a JS wire
// decoder would cost, without any edit parsing), and `StreamParser` fed the
// reply text alone (the edit parsing without the wire). Median of 9 runs.
//   node scripts/bench-loop-wasm.mjs   (after scripts/build-package.sh)
import { EditLoop, StreamParser, initSync } from '../packages/patchbay/index.js';

initSync();
const LINES = 5000;
const file = Array.from({ length: LINES }, (_, i) => `    value_${i} = compute(${i}, "item ${i}")  # line ${i}`).join('\n') + '\n';
let reply = '';
for (let k = 0; k < 40; k++) {
  const i = 60 + k * 120;
  reply += `app.py\n<<<<<<< SEARCH\n    value_${i} = compute(${i}, "item ${i}")  # line ${i}\n=======\n    value_${i} = compute(${i} + 1, "item ${i}")  # line ${i}\n>>>>>>> REPLACE\n\n`;
}
// Ollama streams a token or so per NDJSON line.
const tokens = reply.match(/.{1,4}/gs);
const line = (content) => JSON.stringify({ model: 'm', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content }, done: false });
const body = new TextEncoder().encode(
  tokens.map(line).join('\n') + '\n' + JSON.stringify({ model: 'm', done: true, done_reason: 'stop', prompt_eval_count: 1, eval_count: tokens.length }) + '\n',
);
const chunks = [];
for (let at = 0; at < body.length; at += 100) chunks.push(body.subarray(at, at + 100));
const config = { task: 'bump the values', format: 'search-replace', contextLength: 262144, replyLimit: 16384, rounds: 1, earlyStop: true };

function loopRun() {
  const loop = new EditLoop({ 'app.py': file }, config, 'ollama', 'm');
  loop.nextRequest();
  const t = performance.now();
  for (const c of chunks) loop.pushBytes(c);
  const streamed = performance.now() - t;
  const { outcome } = loop.end();
  if (outcome.decision.decision !== 'done') throw new Error(`the loop did not apply the edits: ${JSON.stringify(outcome.decision)}`);
  return streamed;
}

function jsDecode() {
  const t = performance.now();
  const dec = new TextDecoder();
  let rest = '';
  let text = '';
  for (const c of chunks) {
    const lines = (rest + dec.decode(c, { stream: true })).split('\n');
    rest = lines.pop();
    for (const l of lines) if (l) text += JSON.parse(l).message?.content ?? '';
  }
  if (text !== reply) throw new Error('the JS decoder lost text');
  return performance.now() - t;
}

function parserOnly() {
  const p = new StreamParser({ 'app.py': file }, { format: 'search-replace' });
  const t = performance.now();
  for (const tok of tokens) p.push(tok);
  const ms = performance.now() - t;
  p.finish();
  return ms;
}

const median = (f) => {
  const xs = Array.from({ length: 9 }, f).sort((a, b) => a - b);
  return xs[4];
};
const [loop, js, parser] = [median(loopRun), median(jsDecode), median(parserOnly)];
const per = (ms) => `${((ms * 1000) / chunks.length).toFixed(2)} us`;
console.log(`${LINES}-line file, ${reply.length}-byte reply, ${tokens.length} NDJSON lines, ${body.length} bytes in ${chunks.length} chunks of 100 bytes`);
console.log(`EditLoop.pushBytes (decode + loop)  ${loop.toFixed(2)} ms, ${per(loop)} a chunk`);
console.log(`plain JS decode (no edit parsing)   ${js.toFixed(2)} ms, ${per(js)} a chunk, loop/js ${(loop / js).toFixed(2)}`);
console.log(`StreamParser on the text alone      ${parser.toFixed(2)} ms, ${per(parser)} a chunk, loop/parser ${(loop / parser).toFixed(2)}`);
