// The installed package in Chromium: the README's browser example from a
// plain page, and its worker example (patchbay/worker) in a module worker.
// Needs /usr/bin/chromium (`scripts/setup.sh browser`) and playwright-core
// from tests/e2e.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { createRequire } from 'node:module';
import { installPackage, repo } from './install.mjs';
import { examples, resolved } from './examples.mjs';

const { chromium } = createRequire(join(repo, 'tests', 'e2e', 'package.json'))('playwright-core');
// Pages without a charset in the header: each says its own (`<meta charset>`), as the README's does.
const types = { '.html': 'text/html', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' };
let server, base, context, page, profile;
const requests = [];
const problems = [];
const warnings = [];
// Chromium's deprecation reports (the Audits domain): a synchronous request on the main thread is one.
const deprecations = [];

before(async () => {
  const { dir } = installPackage();
  const ex = examples();
  // Verbatim: the example is a whole page.
  writeFileSync(join(dir, 'browser.html'), ex.browser);
  // A review's keep/reject (`skip`) before the second part was asked for: it must not load it.
  writeFileSync(join(dir, 'skip-page.js'), resolved(`import init, { applyEdits, restLoaded } from 'patchbay';
await init(undefined, { restWhen: 'first-use' });
const files = { 'a.py': 'a = 1\\nb = 2\\n' };
const reply = 'a.py\\n<<<<<<< SEARCH\\na = 1\\n=======\\na = 10\\n>>>>>>> REPLACE\\na.py\\n<<<<<<< SEARCH\\nb = 2\\n=======\\nb = 20\\n>>>>>>> REPLACE\\n';
const kept = [[], [1], [2], [1, 2]].map((skip) => applyEdits(files, reply, { skip }).files[0].content ?? null);
document.body.dataset.result = JSON.stringify([kept, restLoaded()]);
`));
  writeFileSync(join(dir, 'skip.html'), '<!doctype html><meta charset="utf-8"><title>skip</title><body><script type="module" src="./skip-page.js"></script></body>');
  writeFileSync(join(dir, 'worker.js'), resolved(ex.worker));
  writeFileSync(join(dir, 'worker-page.js'), resolved(ex['worker-page']));
  writeFileSync(join(dir, 'worker.html'), '<!doctype html><meta charset="utf-8"><title>worker</title><body><script type="module" src="./worker-page.js"></script></body>');
  // The core's second part loaded synchronously when a call needs it: on a page and in a worker.
  const rest = resolved(`import init, { diagnoseUdiff, restLoaded } from 'patchbay';
await init(undefined, { restWhen: 'first-use' });
const before = restLoaded();
const hunks = diagnoseUdiff({ 'a.py': 'x = 1\\n' }, '--- a/a.py\\n+++ b/a.py\\n@@ -1 +1 @@\\n-x = 1\\n+x = 2\\n');
const result = JSON.stringify([before, restLoaded(), hunks.map((h) => [h.hunk, h.path])]);
`);
  writeFileSync(join(dir, 'rest-page.js'), `${rest}document.body.dataset.result = result;\n`);
  writeFileSync(join(dir, 'rest-worker.js'), `${rest}self.postMessage(result);\n`);
  writeFileSync(join(dir, 'rest.html'), '<!doctype html><meta charset="utf-8"><title>rest</title><body><script type="module" src="./rest-page.js"></script></body>');
  writeFileSync(join(dir, 'rest-in-worker.html'), `<!doctype html><meta charset="utf-8"><title>rest</title><body><script type="module">
const w = new Worker('./rest-worker.js', { type: 'module' });
w.onmessage = (e) => { document.body.dataset.result = e.data; };
w.onerror = (e) => { document.body.dataset.result = 'error: ' + e.message; };
</script></body>`);
  server = createServer((req, res) => {
    if (req.url === '/favicon.ico') return res.writeHead(204).end();
    requests.push(req.url);
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    try {
      const body = readFileSync(join(dir, path));
      res.writeHead(200, { 'Content-Type': types[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}/`;
  profile = mkdtempSync(join(tmpdir(), 'patchbay-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Audits.enable');
  cdp.on('Audits.issueAdded', ({ issue }) => deprecations.push(issue.details?.deprecationIssueDetails?.type ?? issue.code));
}, { timeout: 180_000 });

after(async () => {
  await context?.close();
  server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const T = { timeout: 60_000 };

test('a plain page imports the package and gets UTF-16 offsets', T, async () => {
  await page.goto(`${base}browser.html`);
  await page.waitForFunction(() => document.body.dataset.result, null, { timeout: 30_000 });
  const result = JSON.parse(await page.evaluate(() => document.body.dataset.result));
  assert.deepEqual(result, ['applied', 'b = "漢字 🎉"\r\n', { line: 2, col: 0 }]);
  assert.deepEqual(problems, []);
});

test('a module worker runs a reply through patchbay/worker', T, async () => {
  await page.goto(`${base}worker.html`);
  await page.waitForFunction(() => document.body.dataset.result, null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => document.body.dataset.result), 'hello, world\n');
  assert.deepEqual(problems, []);
});

for (const [name, file] of [['a page', 'rest.html'], ['a module worker', 'rest-in-worker.html']]) {
  test(`on ${name}, a call the first part lacks fetches the second there and then, once`, T, async () => {
    requests.length = 0;
    await page.goto(`${base}${file}`);
    await page.waitForFunction(() => document.body.dataset.result, null, { timeout: 30_000 });
    assert.deepEqual(JSON.parse(await page.evaluate(() => document.body.dataset.result)), [false, true, [[1, 'a.py']]]);
    const wasm = requests.filter((r) => r.endsWith('.wasm')).sort();
    assert.deepEqual(wasm, ['/node_modules/patchbay/core/patchbay_wasm_bg.wasm', '/node_modules/patchbay/core/patchbay_wasm_rest.wasm']);
    assert.deepEqual(problems.filter((p) => !/Synchronous XMLHttpRequest/.test(p)), []);
  });
}

test('keep/reject with skip runs in the first part: no second download, no synchronous request', T, async () => {
  requests.length = 0;
  warnings.length = 0;
  deprecations.length = 0;
  await page.goto(`${base}skip.html`);
  await page.waitForFunction(() => document.body.dataset.result, null, { timeout: 30_000 });
  const [kept, restLoaded] = JSON.parse(await page.evaluate(() => document.body.dataset.result));
  // The engine's result for each choice, written out here.
  assert.deepEqual(kept, ['a = 10\nb = 20\n', 'a = 1\nb = 20\n', 'a = 10\nb = 2\n', null]);
  assert.equal(restLoaded, false);
  assert.deepEqual(requests.filter((r) => r.endsWith('.wasm')), ['/node_modules/patchbay/core/patchbay_wasm_bg.wasm']);
  assert.deepEqual(warnings.filter((w) => /XMLHttpRequest/.test(w)), []);
  assert.deepEqual(deprecations.filter((d) => /XMLHttpRequestSynchronous/.test(d)), []);
  assert.deepEqual(problems, []);
});

test('the deprecation report catches a synchronous request on the page (the check above can fail)', T, async () => {
  deprecations.length = 0;
  await page.goto(`${base}rest.html`);
  await page.waitForFunction(() => document.body.dataset.result, null, { timeout: 30_000 });
  await page.waitForTimeout(200);
  assert.ok(deprecations.some((d) => /XMLHttpRequestSynchronous/.test(d)), JSON.stringify(deprecations));
  problems.length = 0;
});
