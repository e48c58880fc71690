// The package as a web IDE's author installs it: the packed tarball is
// installed offline into this Vite app (its other dependencies pinned in
// this folder's lock file), the app is built with `vite build`, served, and
// driven in Debian's Chromium. On each text of src/texts.js, every
// decoration CodeMirror and Monaco show sits on the lines the receipt names
// (their text read back from each editor, compared with the file's own
// lines); keep/reject is the engine's own result with `skip` (computed here,
// in node); accept makes each editor hold the new text, one undo the
// original; no console error and no synchronous request. `tsc --strict`
// (skipLibCheck off) checks a usage file of both adapters on lib ES2022 and
// ESNext; the README's editor examples run as written. Needs
// `scripts/setup.sh editors e2e browser` (npm ci here, playwright-core from
// tests/e2e, Debian's Chromium) and `scripts/build-package.sh`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { KINDS, OPTIONS, PATH, replyFor } from './src/texts.js';

const app = fileURLToPath(new URL('./', import.meta.url));
const repo = join(app, '..', '..');
const { chromium } = createRequire(join(repo, 'tests', 'e2e', 'package.json'))('playwright-core');
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.ttf': 'font/ttf' };
let server, base, context, page, profile, core;
const problems = [];
const warnings = [];

/** npm with its cache in a temporary folder, no network: the tarball has no dependencies to fetch. */
const npm = (args) => execFileSync('npm', args, {
  cwd: app, stdio: 'pipe', encoding: 'utf8',
  env: { ...process.env, npm_config_cache: join(tmpdir(), 'patchbay-npm-cache'), npm_config_update_notifier: 'false' },
});

before(async () => {
  const packs = mkdtempSync(join(tmpdir(), 'patchbay-pack-'));
  execFileSync('npm', ['pack', '--pack-destination', packs, '--silent'], { cwd: join(repo, 'packages', 'patchbay'), stdio: 'pipe' });
  const tarball = join(packs, readdirSync(packs).find((f) => f.endsWith('.tgz')));
  npm(['install', '--offline', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', tarball]);
  rmSync(packs, { recursive: true, force: true });
  // The README's editor examples, verbatim, as modules of the app.
  const readme = readFileSync(join(repo, 'packages', 'patchbay', 'README.md'), 'utf8');
  for (const name of ['codemirror', 'monaco']) {
    const code = new RegExp(`^\`\`\`js example=${name}\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(readme)?.[1];
    assert.ok(code, `the README has an example=${name} block`);
    writeFileSync(join(app, 'src', `readme-${name}.js`), code);
  }
  execFileSync(process.execPath, [join(app, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], { cwd: app, stdio: 'pipe' });
  core = await import(pathToFileURL(join(app, 'node_modules', 'patchbay', 'index.js')).href);
  core.initSync();
  const dist = join(app, 'dist');
  server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    try {
      const body = readFileSync(join(dist, path.endsWith('/') ? `${path}index.html` : path));
      res.writeHead(200, { 'Content-Type': types[extname(path) || '.html'] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}/`;
  profile = mkdtempSync(join(tmpdir(), 'patchbay-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1280, height: 1200 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    if (m.type() === 'warning') warnings.push(m.text());
  });
  // Chromium's deprecation report of a synchronous request on the main thread.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Audits.enable');
  cdp.on('Audits.issueAdded', ({ issue }) => {
    const type = issue.details?.deprecationIssueDetails?.type ?? '';
    if (/XMLHttpRequestSynchronous/.test(type)) problems.push(`deprecation: ${type}`);
  });
  await page.goto(base);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
}, { timeout: 600_000 });

after(async () => {
  await context?.close();
  server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const T = { timeout: 120_000 };

/** The editor's lines of `text` (no BOM, no line breaks), 1-based by index + 1. */
const linesOf = (text) => text.replace(/^\uFEFF/, '').split(/\r?\n/);

/** What each editor must show for `report`: [line, kind, text] of every line a receipt names. */
function expected(text, report) {
  const lines = linesOf(text);
  const out = [];
  for (const r of report.files[0].edits) {
    const range = r.status === 'applied' ? r.lines : r.closest?.lines;
    if (!range) continue;
    const last = Math.max(range[0], range[1]);
    for (let n = range[0]; n <= last; n++) out.push([n, r.status === 'applied' ? 'applied' : 'closest', lines[n - 1]]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

for (const kind of Object.keys(KINDS)) {
  test(`${kind}: decorations on the receipt's lines, keep/reject, accept and undo in both editors`, T, async () => {
    const text = KINDS[kind];
    const got = await page.evaluate((k) => window.run(k), kind);
    const reply = replyFor(text);
    // The worker's stream gives the report applyEdits gives in node.
    const report = core.applyEdits({ [PATH]: text }, reply, OPTIONS);
    assert.deepEqual(got.report, report);
    assert.equal(got.streamed, 3);
    // The streamed edits' decorations (each located alone) are the report's: no overlap here.
    assert.deepEqual(got.whileStreaming, got.finished);
    assert.deepEqual(report.files[0].edits.map((r) => r.lines ?? r.closest.lines), [[15, 15], [19, 20], [9, 10]]);
    const want = expected(text, report);
    assert.equal(want.length, 5);
    assert.deepEqual(got.codemirror, want, 'CodeMirror');
    assert.deepEqual(got.monaco, want, 'Monaco');
    // The first difference: line 10, where `line 10 MARK` ends and the edit goes on.
    const line10 = linesOf(text)[9];
    assert.deepEqual(got.monacoFirstDiff, [10, '']);
    assert.deepEqual(got.cmFirstDiff, [10, '']);
    assert.equal(report.files[0].edits[2].closest.firstDifference.fileCol, line10.length);
    // Keep/reject: the engine's own results with `skip`.
    const skip = (s) => core.applyEdits({ [PATH]: text }, reply, { ...OPTIONS, skip: s }).files[0].content ?? null;
    assert.equal(got.withoutFirst, skip([1]));
    assert.equal(got.kept, skip([]));
    assert.ok(!got.withoutFirst.includes('new 15') && got.withoutFirst.includes('new 19'));
    // Accept: each editor holds the new text (as its lines); one undo: the original.
    assert.equal(got.cmAccepted, got.withoutFirst.replace(/\r\n/g, '\n'));
    assert.equal(got.cmUndone, text.replace(/\r\n/g, '\n'));
    assert.deepEqual(got.monacoAccepted, linesOf(got.withoutFirst));
    assert.deepEqual(got.monacoUndone, linesOf(text));
    assert.deepEqual(problems, []);
  });
}

/** The text of the last editor of a kind on the page, line by line. */
const lastEditorLines = (selector) => page.$$eval(selector, (es) => [...es.at(-1).children].map((l) => l.textContent.replace(/\u00a0/g, ' ')));

test('the README\'s CodeMirror example runs as written', T, async () => {
  await page.evaluate(() => window.readme('codemirror'));
  assert.deepEqual(await lastEditorLines('body > div > .cm-editor .cm-content'), ['def f():', '    return 2', '']);
  assert.deepEqual(problems, []);
});

test('the README\'s Monaco example runs as written: edit 2 rejected, the rest accepted', T, async () => {
  await page.evaluate(() => window.readme('monaco'));
  await page.waitForFunction(() => document.querySelectorAll('body > div .monaco-editor .view-lines').length > 0);
  const lines = await page.$$eval('body > div .monaco-editor .view-lines', (es) =>
    [...es.at(-1).querySelectorAll('.view-line')].map((l) => [Number.parseFloat(l.style.top), l.textContent.replace(/\u00a0/g, ' ')]));
  assert.deepEqual(lines.sort((a, b) => a[0] - b[0]).map(([, t]) => t), ['a = 10', 'b = 2', '']);
  assert.deepEqual(problems, []);
});

test('no synchronous request, and no module fetched twice by the page or by the worker', T, async () => {
  assert.deepEqual(warnings.filter((w) => /XMLHttpRequest/.test(w)), []);
  const fetched = await page.evaluate(() => window.resources());
  for (const [who, list] of Object.entries(fetched)) {
    const wasm = list.filter(([url]) => url.endsWith('.wasm'));
    assert.ok(wasm.length >= 1, `${who} fetched a module`);
    assert.equal(wasm.length, new Set(wasm.map(([url]) => url)).size, `${who}: ${JSON.stringify(wasm)}`);
    assert.deepEqual(wasm.filter(([, by]) => by === 'xmlhttprequest'), [], who);
  }
  assert.deepEqual(problems, []);
});

test('tsc --strict (skipLibCheck off) accepts a usage of both adapters on lib ES2022 and ESNext', T, () => {
  const tsc = join(app, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const lib of [['es2022', 'dom', 'dom.iterable'], ['esnext', 'dom', 'dom.iterable']]) {
    const config = join(app, `tsconfig.${lib[0]}.json`);
    writeFileSync(config, JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib, types: [], skipLibCheck: false,
      },
      files: ['usage.ts'],
    }));
    try {
      execFileSync(process.execPath, [tsc, '-p', config], { cwd: app, encoding: 'utf8' });
    } catch (e) {
      assert.fail(`tsc (lib ${lib.join(', ')}) failed:\n${e.stdout}${e.stderr}`);
    } finally {
      rmSync(config, { force: true });
    }
  }
});

if (process.env.PATCHBAY_EDITORS_BENCH === '1') {
  test('benchmark: decorating a 50,000-line file\'s report of 200 edits', { timeout: 300_000 }, async () => {
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await page.evaluate(() => window.bench()));
    console.log(JSON.stringify(runs));
    for (const r of runs) assert.equal(r.applied, 200);
  });
}
