// patchbay run and arena against a real llama-server with a real (tiny)
// instruct model, SmolLM2-135M-Instruct. Such a model never writes a usable
// edit: the assertions are on the loop's behaviour and the wire (every round
// reaches the server, the server's own counts come back, cuts are continued,
// Stop cancels the generation, scores are recorded), never on its skill.
// Also checked: what this server does that the OpenAI documentation does not
// say (docs/local-models.md lists it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chatsLogged, metrics, patchbay, sandbox, slots, startLlama, stopLlama } from './server.mjs';

const APP = 'def greet(name):\n    print("Hello, " + name)\n\n\ndef farewell(name):\n    print("Goodbye, " + name)\n';
const TASK = 'Add an exclamation mark at the end of both printed greetings.';

let server;

before(async () => {
  server = await startLlama();
});

after(async () => {
  await stopLlama(server);
});

/** The SSE `data:` payloads of a streamed body. */
function events(body) {
  return body.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
}

test('the wire as llama-server speaks it (what docs/local-models.md records)', async () => {
  const models = await (await fetch(`${server.base}/v1/models`)).json();
  assert.equal(models.data.length, 1);
  assert.equal(models.data[0].meta.n_ctx, 4096, 'the context of a slot, in the model list');
  const props = await (await fetch(`${server.base}/props`)).json();
  assert.equal(props.default_generation_settings.n_ctx, 4096);

  // Any model name is answered by the loaded model; the request's Origin is echoed.
  const origin = 'http://127.0.0.1:9';
  const r = await fetch(`${server.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: origin },
    body: JSON.stringify({ model: 'no-such-model', stream: true, stream_options: { include_usage: true }, max_tokens: 4, temperature: 0,
      messages: [{ role: 'user', content: 'Count from one to ten.' }] }),
  });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('access-control-allow-origin'), origin);
  const data = events(await r.text());
  assert.equal(data.at(-1), '[DONE]');
  const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
  const usage = chunks.at(-1);
  assert.deepEqual(usage.choices, [], 'the usage chunk has no choices');
  assert.equal(usage.usage.completion_tokens, 4);
  assert.ok(usage.usage.prompt_tokens > 5, JSON.stringify(usage));
  assert.equal(chunks.at(-2).choices[0].finish_reason, 'length');

  // A prompt over the context is a plain JSON 400, even for a streamed request.
  const big = 'word '.repeat(6000);
  const over = await fetch(`${server.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'x', stream: true, max_tokens: 4, messages: [{ role: 'user', content: big }] }),
  });
  assert.equal(over.status, 400);
  assert.match(over.headers.get('content-type'), /application\/json/);
  const err = await over.json();
  assert.equal(err.error.type, 'exceed_context_size_error');
  assert.equal(err.error.n_ctx, 4096);
  assert.ok(err.error.n_prompt_tokens > 4096);
});

/** The `round N: ...` lines of `run`'s stdout: the server's counts and the engine's estimate. */
function roundLines(stdout) {
  const re = /^round (\d+): (.*?) \(prompt (\d+|\?) tokens, estimated (\d+); reply (\d+|\?) tokens/;
  return stdout.split('\n').map((l) => l.match(re)).filter(Boolean)
    .map((m) => ({ round: Number(m[1]), decision: m[2], prompt: Number(m[3]), estimate: Number(m[4]), reply: Number(m[5]) }));
}

test('run: three rounds, each reaching the server, with its real counts, then exit 1', async () => {
  const sb = sandbox({ 'app.py': APP });
  try {
    const before = chatsLogged(server);
    const counters = await metrics(server);
    const o = await patchbay(['run', '--provider', 'openai', '--url', server.base, '--model', 'smollm2', '--format', 'search-replace',
      '--task', TASK, '--rounds', '3', '--reply-limit', '96', '--no-early-stop', 'app.py'], { cwd: sb.dir });
    const rounds = roundLines(o.stdout);
    // The counts run shows are the server's own: its counters grew by as much.
    const after = await metrics(server);
    const grew = (k) => after[k] - counters[k];
    const sum = (k) => rounds.reduce((n, r) => n + r[k], 0);
    console.log(`metrics: prompt +${grew('prompt_tokens_total')} (cached +${grew('prompt_tokens_cached_total')}), predicted +${grew('tokens_predicted_total')}; run: prompt ${sum('prompt')}, reply ${sum('reply')}`);
    assert.equal(grew('tokens_predicted_total'), sum('reply'), o.shown);
    assert.equal(grew('prompt_tokens_total') + grew('prompt_tokens_cached_total'), sum('prompt'), o.shown);
    // The model writes no usable edit, so every round asks again and the run is not done.
    assert.equal(o.code, 1, o.shown);
    assert.deepEqual(rounds.map((r) => r.round), [1, 2, 3], o.shown);
    assert.match(rounds[2].decision, /^gave up: .*all 3 rounds are spent/, o.shown);
    assert.equal(chatsLogged(server) - before, 3, `every round reached the server:\n${o.shown}`);
    for (const r of rounds) assert.ok(r.prompt > 0 && r.reply > 0, `real usage counts: ${JSON.stringify(r)}`);
    // The context came from the server, and round 1's count scaled round 2's estimate.
    assert.match(o.stderr, /round 1 \(first\): ~\d+ prompt tokens, num_ctx 4096/, o.shown);
    const scaled = o.stderr.match(/round 2 \(\w+\): ~(\d+) prompt tokens \(scaled by round 1's count: the server counted (\d+) where the engine estimated (\d+)/);
    assert.ok(scaled, o.shown);
    assert.equal(Number(scaled[2]), rounds[0].prompt);
    assert.equal(Number(scaled[3]), rounds[0].estimate);
    const miss = (r) => Math.abs(r.estimate - r.prompt) / r.prompt;
    console.log(`estimate against the server's count: ${rounds.map((r) => `round ${r.round} ${r.estimate}/${r.prompt}`).join(', ')}`);
    for (const r of rounds.slice(1)) assert.ok(miss(r) < 0.1, `a calibrated estimate within 10%: ${JSON.stringify(r)}`);
    assert.equal(readFileSync(join(sb.dir, 'app.py'), 'utf8'), APP);
  } finally {
    sb.remove();
  }
});

test('run: more context than the server serves is a warning, and the plan uses the server\'s', async () => {
  const sb = sandbox({ 'app.py': APP });
  try {
    const o = await patchbay(['run', '--provider', 'openai', '--url', server.base, '--model', 'smollm2', '--format', 'whole',
      '--task', TASK, '--rounds', '1', '--reply-limit', '8', '--num-ctx', '8192', '--dry-run', 'app.py'], { cwd: sb.dir });
    assert.match(o.stderr, /warning: a context of 8192 tokens was asked for, but the server serves 4096: planning with 4096/, o.shown);
    assert.match(o.stderr, /num_ctx 4096/, o.shown);
  } finally {
    sb.remove();
  }
});

test('run: a reply cut by max_tokens (finish_reason length) is continued', async () => {
  const sb = sandbox({ 'app.py': APP });
  try {
    const before = chatsLogged(server);
    const o = await patchbay(['run', '--provider', 'openai', '--url', server.base, '--model', 'smollm2', '--format', 'search-replace',
      '--task', TASK, '--rounds', '2', '--reply-limit', '8', '--no-early-stop', '--json', 'app.py'], { cwd: sb.dir });
    const records = o.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(records.length, 2, o.shown);
    const [first, second] = records;
    assert.equal(first.ending.reason, 'length', o.shown);
    assert.equal(first.ending.outputTokens, 8, 'the server stopped at max_tokens');
    assert.equal(first.cut, true);
    assert.equal(first.decision.decision, 'continue');
    assert.equal(second.kind, 'continuation');
    assert.ok(second.ending.promptTokens > first.ending.promptTokens, 'the continuation carries the cut reply');
    assert.equal(chatsLogged(server) - before, 2, o.shown);
  } finally {
    sb.remove();
  }
});

test('Stop: SIGINT to run mid-request closes the connection and the server cancels the task', async () => {
  // Some 1,300 tokens of prompt: seconds of prompt processing, time to stop run while the server works.
  const body = Array.from({ length: 40 }, (_, k) => `def f${k}(x):\n    return x * ${k} + ${k * 7} - len(str(x))\n`).join('\n');
  const sb = sandbox({ 'big.py': body });
  try {
    const counters = await metrics(server);
    const cancels = (server.log.match(/cancel task/g) ?? []).length;
    let busy = false;
    let polling = false;
    const o = await patchbay(['run', '--provider', 'openai', '--url', server.base, '--model', 'smollm2', '--format', 'whole',
      '--task', 'Rewrite every function with a docstring.', '--rounds', '1', '--reply-limit', '1500', 'big.py'], {
      cwd: sb.dir,
      onStderr: (text, child) => {
        if (polling || !text.includes('round 1 (first)')) return;
        polling = true;
        (async () => {
          for (let i = 0; i < 400 && !busy; i++) {
            busy = (await slots(server)).some((x) => x.is_processing);
            if (!busy) await new Promise((r) => setTimeout(r, 25));
          }
          child.kill('SIGINT');
        })();
      },
    });
    assert.ok(busy, `a slot was processing the request when run was stopped:\n${o.shown}`);
    assert.equal(o.signal, 'SIGINT', o.shown);
    // The server notices the closed connection once its current batch (here the
    // whole prompt, seconds of it) is done, cancels the task and frees the slot.
    let idle = false;
    for (let i = 0; i < 600 && !idle; i++) {
      idle = (await slots(server)).every((x) => !x.is_processing);
      if (!idle) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(idle, 'the slot is free again within 30 s');
    assert.equal((server.log.match(/cancel task/g) ?? []).length - cancels, 1, 'the server cancelled the task');
    const predicted = (await metrics(server)).tokens_predicted_total - counters.tokens_predicted_total;
    assert.ok(predicted < 1500, `the generation did not run to its limit (${predicted} tokens)`);
    assert.equal(readFileSync(join(sb.dir, 'big.py'), 'utf8'), body, 'nothing written');
  } finally {
    sb.remove();
  }
});

test('arena: two tasks, two formats, every score recorded even when every run fails', async () => {
  const tasks = mkdtempSync(join(tmpdir(), 'patchbay-real-tasks-'));
  const out = join(tasks, 'results.json');
  const shipped = fileURLToPath(new URL('../arena/tasks/', import.meta.url));
  const names = ['js-ms-year', 'py-textwrap-width'];
  try {
    for (const t of names) cpSync(join(shipped, t), join(tasks, 'set', t), { recursive: true });
    const before = chatsLogged(server);
    const o = await patchbay(['arena', '--provider', 'openai', '--url', server.base, '--models', 'smollm2', '--formats', 'search-replace,whole',
      '--tasks', join(tasks, 'set'), '--rounds', '1', '--reply-limit', '64', '--out', out]);
    assert.equal(o.code, 0, o.shown);
    const results = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(results.runs.length, 4, o.shown);
    const seen = results.runs.map((r) => `${r.task}/${r.format}`).sort();
    assert.deepEqual(seen, ['js-ms-year/search-replace', 'js-ms-year/whole', 'py-textwrap-width/search-replace', 'py-textwrap-width/whole']);
    for (const r of results.runs) {
      assert.equal(r.rounds, 1, JSON.stringify(r));
      assert.ok(r.promptTokens > 0 && r.outputTokens > 0, `the server's counts: ${JSON.stringify(r)}`);
      assert.equal(r.error, undefined, JSON.stringify(r));
    }
    assert.deepEqual(results.summary.map((s) => [s.format, s.runs]).sort(), [['search-replace', 2], ['whole', 2]]);
    for (const s of results.summary) {
      const runs = results.runs.filter((r) => r.format === s.format);
      assert.equal(s.matchesExpected, runs.filter((r) => r.matchesExpected).length);
      assert.equal(s.promptTokens, runs.reduce((n, r) => n + r.promptTokens, 0));
    }
    assert.equal(chatsLogged(server) - before, 4, o.shown);
  } finally {
    rmSync(tasks, { recursive: true, force: true });
  }
});

test('the doctor: a stopped server is named with its fix', async () => {
  const sb = sandbox({ 'app.py': APP });
  try {
    await stopLlama(server);
    const o = await patchbay(['run', '--provider', 'openai', '--url', server.base, '--model', 'smollm2', '--format', 'whole',
      '--task', TASK, 'app.py'], { cwd: sb.dir });
    assert.equal(o.code, 2, o.shown);
    assert.match(o.stderr, new RegExp(`no server answers at ${server.base.replace(/[.]/g, '\\.')}: .*llama-server --port`), o.shown);
  } finally {
    sb.remove();
  }
});
