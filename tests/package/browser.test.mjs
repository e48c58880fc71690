// The installed package in Chromium: the README's browser example from a
// plain page, its worker example (patchbay/worker) in a module worker, and
// how the core's two parts load on a page (both before init resolves, never
// by a synchronous request) and in a worker (the second at first use).
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
let server, base, context, tab, profile;
const requests = [];
const problems = [];
const warnings = [];
// Chromium's deprecation reports (the Audits domain): a synchronous request on the main thread is one.
const deprecations = [];

const CORE = './node_modules/patchbay/core';
const UDIFF_CALLS = `const file = { 'a.py': 'x = 1\\n' };
const udiff = '--- a/a.py\\n+++ b/a.py\\n@@ -1 +1 @@\\n-x = 1\\n+x = 2\\n';
const second = () => [diagnoseUdiff(file, udiff).map((h) => [h.hunk, h.path]), applyEdits(file, udiff).files[0].content];
`;

/** A page that runs `body` as a module and shows what it sets `result` to (or the error it throws). */
function modulePage(name, body) {
  writeFileSync(join(dir, `${name}.js`), resolved(`${body}\ndocument.body.dataset.result = JSON.stringify(result);\n`));
  writeFileSync(join(dir, `${name}.html`), `<!doctype html><meta charset="utf-8"><title>${name}</title><body><script type="module">
import('./${name}.js').catch((e) => { document.body.dataset.result = JSON.stringify('error: ' + e.message); });
</script></body>`);
}

let dir;
before(async () => {
  ({ dir } = installPackage());
  const ex = examples();
  // Verbatim: the example is a whole page.
  writeFileSync(join(dir, 'browser.html'), ex.browser);
  writeFileSync(join(dir, 'worker.js'), resolved(ex.worker));
  writeFileSync(join(dir, 'worker-page.js'), resolved(ex['worker-page']));
  writeFileSync(join(dir, 'worker.html'), '<!doctype html><meta charset="utf-8"><title>worker</title><body><script type="module" src="./worker-page.js"></script></body>');
  // On a page, init() resolves with both parts in place, whatever restWhen says; then a call of the second part.
  for (const [name, options] of [['init-default', ''], ['init-first-use', ", { restWhen: 'first-use' }"]]) {
    modulePage(name, `import init, { applyEdits, diagnoseUdiff, restLoaded } from 'patchbay';
${UDIFF_CALLS}await init(undefined${options});
const result = [restLoaded(), ...second()];`);
  }
  // On a page, a second part that cannot be fetched: init() rejects, nothing is half in place, and a
  // second init() with the right file works.
  modulePage('init-missing-rest', `import init, { applyEdits, diagnoseUdiff, restLoaded } from 'patchbay';
${UDIFF_CALLS}const result = [];
try { await init(undefined, { rest: './missing.wasm' }); result.push(null); } catch (e) { result.push(e.message); }
try { applyEdits(file, udiff); result.push(null); } catch (e) { result.push(e.name); }
result.push(restLoaded());
await init(undefined, { rest: '${CORE}/patchbay_wasm_rest.wasm' });
result.push(restLoaded(), ...second());`);
  // On a page, a second part of another module: init() rejects before either part is in place.
  modulePage('init-wrong-rest', `import init, { applyEdits, restLoaded } from 'patchbay';
const result = [];
try { await init(undefined, { rest: './node_modules/patchbay/tokens/patchbay_tokens_wasm_bg.wasm' }); result.push(null); } catch (e) { result.push(e.message); }
try { applyEdits({ 'a.py': 'x\\n' }, 'a.py\\n<<<<<<< SEARCH\\nx\\n=======\\ny\\n>>>>>>> REPLACE\\n'); result.push(null); } catch (e) { result.push(e.name); }
result.push(restLoaded());`);
  // initSync on a page without the second part's bytes: a TypeError before anything is fetched.
  modulePage('initsync-missing', `import { initSync, restLoaded } from 'patchbay';
const first = new Uint8Array(await (await fetch('${CORE}/patchbay_wasm_bg.wasm')).arrayBuffer());
const result = [];
for (const call of [() => initSync(), () => initSync(first), () => initSync(first, { rest: '${CORE}/patchbay_wasm_rest.wasm' })]) {
  try { call(); result.push(null); } catch (e) { result.push([e.name, e.message]); }
}
await new Promise((resolve) => setTimeout(resolve, 300));
result.push(restLoaded());`);
  // initSync on a page with both parts' bytes.
  modulePage('initsync-bytes', `import { initSync, applyEdits, diagnoseUdiff, restLoaded } from 'patchbay';
${UDIFF_CALLS}const bytes = (name) => fetch(\`${CORE}/\${name}\`).then((r) => r.arrayBuffer());
const [first, rest] = await Promise.all([bytes('patchbay_wasm_bg.wasm'), bytes('patchbay_wasm_rest.wasm')]);
initSync(first, { rest });
const result = [restLoaded(), ...second()];`);
  // A page that makes a synchronous request itself: the control of the deprecation check.
  writeFileSync(join(dir, 'sync.txt'), 'sync');
  writeFileSync(join(dir, 'sync-xhr.html'), `<!doctype html><meta charset="utf-8"><title>sync</title><body><script>
const request = new XMLHttpRequest();
request.open('GET', './sync.txt', false);
request.send();
document.body.dataset.result = JSON.stringify(request.responseText);
</script></body>`);
  // In a worker, where a synchronous load blocks no page: keep/reject (skip) before the second part was
  // asked for runs in the first part; a call the first part lacks loads the second there and then, once.
  writeFileSync(join(dir, 'skip-worker.js'), resolved(`import init, { applyEdits, restLoaded } from 'patchbay';
await init(undefined, { restWhen: 'first-use' });
const files = { 'a.py': 'a = 1\\nb = 2\\n' };
const reply = 'a.py\\n<<<<<<< SEARCH\\na = 1\\n=======\\na = 10\\n>>>>>>> REPLACE\\na.py\\n<<<<<<< SEARCH\\nb = 2\\n=======\\nb = 20\\n>>>>>>> REPLACE\\n';
const kept = [[], [1], [2], [1, 2]].map((skip) => applyEdits(files, reply, { skip }).files[0].content ?? null);
self.postMessage(JSON.stringify([kept, restLoaded()]));
`));
  writeFileSync(join(dir, 'rest-worker.js'), resolved(`import init, { applyEdits, diagnoseUdiff, restLoaded } from 'patchbay';
${UDIFF_CALLS}await init(undefined, { restWhen: 'first-use' });
const before = restLoaded();
const result = [before, ...second(), restLoaded()];
self.postMessage(JSON.stringify(result));
`));
  for (const name of ['skip', 'rest']) {
    writeFileSync(join(dir, `${name}-in-worker.html`), `<!doctype html><meta charset="utf-8"><title>${name}</title><body><script type="module">
const w = new Worker('./${name}-worker.js', { type: 'module' });
w.onmessage = (e) => { document.body.dataset.result = e.data; };
w.onerror = (e) => { document.body.dataset.result = JSON.stringify('error: ' + e.message); };
</script></body>`);
  }
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
  tab = context.pages()[0] ?? (await context.newPage());
  tab.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  tab.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  tab.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
  const cdp = await context.newCDPSession(tab);
  await cdp.send('Audits.enable');
  cdp.on('Audits.issueAdded', ({ issue }) => deprecations.push(issue.details?.deprecationIssueDetails?.type ?? issue.code));
}, { timeout: 180_000 });

after(async () => {
  await context?.close();
  server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const T = { timeout: 60_000 };
const FIRST = '/node_modules/patchbay/core/patchbay_wasm_bg.wasm';
const REST = '/node_modules/patchbay/core/patchbay_wasm_rest.wasm';
// The udiff calls' answers, written out here: its one hunk, and the file it makes.
const UDIFF_ANSWERS = [[[1, 'a.py']], 'x = 2\n'];

/** Opens `file` with every record cleared, and returns what the page shows as its result (parsed, unless `text`). */
async function open(file, text = false) {
  requests.length = 0;
  warnings.length = 0;
  deprecations.length = 0;
  problems.length = 0;
  await tab.goto(`${base}${file}`);
  await tab.waitForFunction(() => document.body.dataset.result, null, { timeout: 30_000 });
  // Chromium reports an issue a moment after its cause.
  await tab.waitForTimeout(200);
  const result = await tab.evaluate(() => document.body.dataset.result);
  return text ? result : JSON.parse(result);
}

const synchronous = () => [...deprecations.filter((d) => /XMLHttpRequestSynchronous/.test(d)), ...warnings.filter((w) => /XMLHttpRequest/.test(w))];
const wasm = () => requests.filter((r) => r.endsWith('.wasm')).sort();

test('a plain page imports the package and gets UTF-16 offsets', T, async () => {
  assert.deepEqual(await open('browser.html'), ['applied', 'b = "漢字 🎉"\r\n', { line: 2, col: 0 }]);
  assert.deepEqual(synchronous(), []);
  assert.deepEqual(problems, []);
});

test('a module worker runs a reply through patchbay/worker', T, async () => {
  assert.equal(await open('worker.html', true), 'hello, world\n');
  assert.deepEqual(problems, []);
});

for (const name of ['init-default', 'init-first-use']) {
  test(`on a page, init() (${name}) resolves with both parts in place: each fetched once, no synchronous request`, T, async () => {
    assert.deepEqual(await open(`${name}.html`), [true, ...UDIFF_ANSWERS]);
    assert.deepEqual(wasm(), [FIRST, REST]);
    assert.deepEqual(synchronous(), []);
    assert.deepEqual(problems, []);
  });
}

test('on a page, a second part that cannot be fetched fails init() clearly, and init() may be tried again', T, async () => {
  const [message, call, ...retried] = await open('init-missing-rest.html');
  assert.match(message, /second part could not be loaded from \.\/missing\.wasm: 404 Not Found fetching http:.*\/missing\.wasm/);
  // The glue refuses the call before any wasm runs: the first part is not in place either.
  assert.equal(call, 'TypeError');
  assert.deepEqual(retried, [false, true, ...UDIFF_ANSWERS]);
  assert.deepEqual(requests.filter((r) => r.endsWith('missing.wasm')), ['/missing.wasm']);
  assert.deepEqual(wasm().filter((r) => r === REST), [REST]);
  assert.deepEqual(synchronous(), []);
  assert.deepEqual(problems.filter((p) => !/404/.test(p)), []);
});

test('on a page, a second part of another module fails init() before either part is in place', T, async () => {
  const [message, call, loaded] = await open('init-wrong-rest.html');
  assert.match(message, /the second part given is not this first part's \(\d+ of its imports are not the first part's exports\)/);
  assert.equal(call, 'TypeError');
  assert.equal(loaded, false);
  assert.deepEqual(problems, []);
});

test('on a page, initSync without the second part\'s bytes throws a TypeError and requests nothing', T, async () => {
  const result = await open('initsync-missing.html');
  const errors = result.slice(0, 3);
  assert.deepEqual(errors.map((e) => e?.[0]), ['TypeError', 'TypeError', 'TypeError']);
  for (const [, message] of errors) assert.match(message, /needs the core module's second part as well, as bytes or a WebAssembly\.Module .*\{ rest: restBytes \}/);
  assert.equal(result[3], false);
  // The page's own fetch of the first part, and nothing of patchbay's.
  assert.deepEqual(wasm(), [FIRST]);
  assert.deepEqual(synchronous(), []);
  assert.deepEqual(problems, []);
});

test('on a page, initSync with both parts\' bytes puts them in place at once', T, async () => {
  assert.deepEqual(await open('initsync-bytes.html'), [true, ...UDIFF_ANSWERS]);
  // The page's own two fetches.
  assert.deepEqual(wasm(), [FIRST, REST]);
  assert.deepEqual(synchronous(), []);
  assert.deepEqual(problems, []);
});

test('in a worker, keep/reject with skip runs in the first part: no second download', T, async () => {
  const [kept, restLoaded] = await open('skip-in-worker.html');
  // The engine's result for each choice, written out here.
  assert.deepEqual(kept, ['a = 10\nb = 20\n', 'a = 1\nb = 20\n', 'a = 10\nb = 2\n', null]);
  assert.equal(restLoaded, false);
  assert.deepEqual(wasm(), [FIRST]);
  assert.deepEqual(problems, []);
});

test('in a module worker, a call the first part lacks loads the second there and then, once', T, async () => {
  assert.deepEqual(await open('rest-in-worker.html'), [false, ...UDIFF_ANSWERS, true]);
  assert.deepEqual(wasm(), [FIRST, REST]);
  assert.deepEqual(problems, []);
});

test('the deprecation report catches a synchronous request on the page (the checks above can fail)', T, async () => {
  assert.equal(await open('sync-xhr.html'), 'sync');
  assert.ok(deprecations.some((d) => /XMLHttpRequestSynchronous/.test(d)), JSON.stringify(deprecations));
});
