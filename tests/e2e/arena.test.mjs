// The format arena in the page (Chromium) against the model-server double
// serving the arena's scripted models (tests/arena/scenarios.json over the
// shipped task set), the same set-up as the CLI's arena test. The expected
// table is derived from the scenarios alone, by the double's binary
// (`model-double --expected`: `double::arena::expected_runs`, the
// derivation the CLI's test uses), and summed here; never by the engine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openPlayground } from './browser.mjs';
import { connectTo, doubleOutput, repo, startDouble } from './double.mjs';

const FORMATS = ['search-replace', 'udiff', 'hashline'];
const MODELS = ['coder:7b', 'tiny:1b'];
const ROUNDS = 3;
const ARENA = ['--arena', `${repo}tests/arena/tasks`, '--scenarios', `${repo}tests/arena/scenarios.json`, '--rounds', String(ROUNDS)];
const FIELDS = ['wellFormed', 'appliedFirstRound', 'applied', 'rounds', 'matchesExpected', 'truncations', 'outputTokens', 'earlyStops'];

let double, doubleUrl, pg;

before(async () => {
  ({ child: double, url: doubleUrl } = await startDouble(ARENA));
  pg = await openPlayground();
});

after(async () => {
  await pg?.close();
  double?.kill();
});

/** The expected runs in `formats`, and their sums per model and format in the arena's order (model, task, format). */
function expected(formats) {
  const runs = JSON.parse(doubleOutput([...ARENA, '--expected', formats.join(',')]));
  const rows = new Map();
  for (const r of runs) {
    const key = `${r.model} ${r.format}`;
    const row = rows.get(key) ?? { model: r.model, format: r.format, runs: 0, ...Object.fromEntries(FIELDS.map((f) => [f, 0])) };
    row.runs += 1;
    for (const f of FIELDS) row[f] += r[f];
    rows.set(key, row);
  }
  return { runs, rows: [...rows.values()] };
}

/** The table's rows: header cells then data cells, as text. */
function tableRows(page) {
  return page.$$eval('[data-testid="arena-table"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
}

test('the arena over the task set, 3 formats and 2 models, reaches the table its scenarios imply', { timeout: 600_000 }, async () => {
  const { page } = pg;
  assert.equal(await connectTo(page, doubleUrl), `connected: ${MODELS.length} models`);
  // The CLI test's window: 8192 tokens, so the large files go in sections there and here.
  await page.fill('[data-testid="ollama-ctx"]', '8192');
  // The page runs the formats in its list's order (the registry's).
  const listed = await page.$$eval('[data-testid="arena-format"]', (is) => is.map((i) => i.value));
  for (const f of listed) await page.setChecked(`[data-testid="arena-format"][value="${f}"]`, FORMATS.includes(f));
  assert.deepEqual(await page.$$eval('[data-testid="arena-model"]:checked', (is) => is.map((i) => i.value)), MODELS);
  await page.check('[data-testid="arena-source-set"]');
  await page.click('[data-testid="arena-run"]');
  await page.waitForSelector('body[data-arena-run]', { timeout: 590_000 });
  assert.equal(await page.getAttribute('body', 'data-arena-run'), 'done');
  const want = expected(listed.filter((f) => FORMATS.includes(f)));
  assert.equal(await page.textContent('[data-testid="arena-status"]'), `done: ${want.runs.length} of ${want.runs.length} runs`);

  const got = await tableRows(page);
  const cells = want.rows.map((r) => [
    r.model, r.format, r.runs, r.wellFormed, r.appliedFirstRound, r.applied, r.matchesExpected,
    (r.rounds / r.runs).toFixed(2), 0, r.outputTokens, r.earlyStops, r.truncations, 0,
  ].map(String));
  assert.deepEqual(got.map((row) => row.slice(0, 13)), cells);
  for (const row of got) assert.match(row[13], /^\d+\.\d\d$/);

  // The chart: two bars a row, each titled with its count.
  const titles = await page.$$eval('[data-testid="arena-chart"] rect title', (ts) => ts.map((t) => t.textContent));
  assert.deepEqual(titles, want.rows.flatMap((r) => [
    `${r.model}, ${r.format}: applied in the first round ${r.appliedFirstRound} of ${r.runs}`,
    `${r.model}, ${r.format}: applied ${r.applied} of ${r.runs}`,
  ]));

  // The download: the CLI's JSON, every run with the scores its scenario implies.
  const [file] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="arena-download"]')]);
  const results = JSON.parse(readFileSync(await file.path(), 'utf8'));
  assert.equal(file.suggestedFilename(), 'arena-results.json');
  assert.equal(results.runs.length, want.runs.length);
  for (const w of want.runs) {
    const run = results.runs.find((r) => r.model === w.model && r.task === w.task && r.format === w.format);
    assert.ok(run, `${w.model} ${w.task} ${w.format}`);
    assert.deepEqual(FIELDS.map((f) => Number(run[f])), FIELDS.map((f) => w[f]), `${w.model} ${w.task} ${w.format}`);
    assert.deepEqual([run.trial, run.seed, run.promptTokens, 'error' in run], [1, 1, 0, false]);
  }
  assert.deepEqual(results.summary.map((s) => [s.model, s.format, s.runs, s.applied]), want.rows.map((r) => [r.model, r.format, r.runs, r.applied]));
});
