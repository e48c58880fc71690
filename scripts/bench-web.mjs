// The playground in Chromium, measured (a benchmark, not a test: it asserts
// nothing and prints a Markdown table for docs/benchmarks.md):
//   - what the first load downloads before the page is ready (requested
//     before its `patchbay-ready` mark), as the brotli and gzip twins the
//     server sends (the optional modules excluded: they load on first use),
//     and what it fetches right after (the core module's second part);
//   - time to interactive (the engine loaded and the example run), with a
//     fresh profile (cold) and on reload (warm: unchanged files cost a 304);
//   - keystroke to updated result (status, receipts, decorations) and to the
//     diff and panels, typing in the reply and in the file of a 5,000- and a
//     50,000-line file, median and p95.
// Needs `scripts/build-web.sh` and Debian's Chromium.
//
//   node scripts/bench-web.mjs [keystrokes, default 40]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const { chromium } = await import(new URL('tests/e2e/node_modules/playwright-core/index.mjs', root));
const dist = fileURLToPath(new URL('web/dist/', root));
const KEYS = Number(process.argv[2] ?? 40);

function startServer() {
  const server = spawn(process.execPath, [fileURLToPath(new URL('web/serve.mjs', root))], {
    env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve) => {
    let out = '';
    server.stdout.on('data', (c) => {
      out += c;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) resolve({ server, base: m[0] });
    });
  });
}

async function browser() {
  const profile = mkdtempSync(join(tmpdir(), 'patchbay-bench-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1280, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page, close: async () => (await context.close(), rmSync(profile, { recursive: true, force: true })) };
}

const ready = (page) => page.waitForSelector('body[data-ready="true"][data-settled="true"]', { timeout: 60_000 });
const mark = (page, name) => page.evaluate((n) => performance.getEntriesByName(n).at(-1)?.startTime ?? null, name);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const ms = (x) => `${x.toFixed(1)} ms`;

/** Bytes of the files `urls` names, as their .br and .gz twins and raw. */
function loadBytes(urls) {
  const sizes = { br: 0, gz: 0, raw: 0, files: 0 };
  for (const u of new Set(urls)) {
    let path = new URL(u).pathname;
    if (path.endsWith('/')) path += 'index.html';
    const file = join(dist, decodeURIComponent(path));
    sizes.raw += statSync(file).size;
    sizes.br += statSync(`${file}.br`).size;
    sizes.gz += statSync(`${file}.gz`).size;
    sizes.files += 1;
  }
  return sizes;
}

async function loadTimes(base) {
  const cold = [];
  const warm = [];
  let bytes = null;
  for (let i = 0; i < 5; i++) {
    const b = await browser();
    const requests = [];
    b.page.on('request', (r) => r.url().startsWith(base) && requests.push({ url: r.url(), at: Date.now() }));
    await b.page.goto(base);
    await ready(b.page);
    cold.push(await mark(b.page, 'patchbay-ready'));
    // Requests the page (or its worker) made before the ready mark, and those after it.
    const readyAt = await b.page.evaluate(() => performance.timeOrigin + performance.getEntriesByName('patchbay-ready')[0].startTime);
    const urls = (before) => requests.filter((r) => r.at <= readyAt === before).map((r) => r.url);
    bytes ??= { first: loadBytes(urls(true)), after: loadBytes(urls(false)), afterFiles: [...new Set(urls(false))].map((u) => new URL(u).pathname) };
    await b.page.reload();
    await ready(b.page);
    warm.push(await mark(b.page, 'patchbay-ready'));
    await b.close();
  }
  return { cold, warm, bytes };
}

/** A Python file of about `lines` lines: small functions, each different. */
function bigFile(lines) {
  const out = [];
  for (let i = 0; out.length < lines; i++) out.push(`def f${i}(x):`, `    y = x * ${i}`, `    return y + ${i % 7}`, '');
  return out.join('\n') + '\n';
}

/** Presses a key at the end of the line holding `marker` in editor `id`, KEYS times; the latencies. */
async function keystrokes(page, id, marker) {
  const result = [];
  const details = [];
  const framed = async () => Number(await page.getAttribute('body', 'data-in-frame'));
  const before = await framed();
  await page.focus(`[data-testid="${id}"] .cm-content`);
  await page.keyboard.press('Control+Home');
  await page.click(`[data-testid="${id}"] .cm-line:has-text("${marker}")`);
  await page.keyboard.press('End');
  for (let i = 0; i < KEYS; i++) {
    await page.evaluate(() => {
      window.__key = null;
      addEventListener('keydown', (e) => (window.__key = e.timeStamp), { once: true, capture: true });
    });
    const seq = Number(await page.getAttribute('body', 'data-seq'));
    await page.keyboard.type(i % 2 ? '0' : '1');
    await page.waitForFunction((s) => Number(document.body.dataset.seq) > s && document.body.dataset.settled === 'true', seq);
    const key = await page.evaluate(() => window.__key);
    result.push((await mark(page, 'patchbay-result')) - key);
    details.push((await mark(page, 'patchbay-details')) - key);
  }
  return { result, details, inFrame: (await framed()) - before };
}

/** Pastes `text` over the whole editor `id` (a real paste event: what a user does with a big file). */
async function paste(page, id, text) {
  await page.evaluate(
    ([id, text]) => {
      const el = document.querySelector(`[data-testid="${id}"] .cm-content`);
      el.focus();
      document.execCommand('selectAll');
      const data = new DataTransfer();
      data.setData('text/plain', text);
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    },
    [id, text],
  );
}

async function typing(base, lines) {
  const b = await browser();
  await b.page.goto(base);
  await ready(b.page);
  const text = bigFile(lines);
  const target = Math.floor(lines / 4) * 4 - 40;
  const name = `f${target / 4}`;
  await b.page.fill('#path', 'big.py');
  await paste(b.page, 'file', text);
  const reply = `big.py\n<<<<<<< SEARCH\ndef ${name}(x):\n    y = x * ${target / 4}\n=======\ndef ${name}(x):\n    y = x * 1000\n>>>>>>> REPLACE\n`;
  await paste(b.page, 'reply', reply);
  await ready(b.page);
  const status = await b.page.textContent('#status');
  const inReply = await keystrokes(b.page, 'reply', 'y = x * 1000');
  const inFile = await keystrokes(b.page, 'file', 'def f0(x):');
  await b.close();
  return { lines: text.split('\n').length - 1, status, inReply, inFile };
}

const { server, base } = await startServer();
try {
  const load = await loadTimes(base);
  const big = [];
  for (const lines of [5_000, 50_000]) big.push(await typing(base, lines));
  const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
  const { first, after, afterFiles } = load.bytes;
  console.log(`First load before ready: ${first.files} files, ${kb(first.br)} brotli (as served), ${kb(first.gz)} gzip, ${kb(first.raw)} raw`);
  console.log(`Fetched after ready (${afterFiles.join(', ') || 'nothing'}): ${kb(after.br)} brotli, ${kb(after.gz)} gzip, ${kb(after.raw)} raw`);
  console.log(`Time to interactive: cold median ${ms(median(load.cold))} (of ${load.cold.map((x) => x.toFixed(0)).join(', ')}), warm median ${ms(median(load.warm))} (of ${load.warm.map((x) => x.toFixed(0)).join(', ')})`);
  console.log('\n| file | typing in | keystroke to result, median | p95 | keystroke to diff and panels, median | p95 | answers in the frame |');
  console.log('|---|---|---|---|---|---|---|');
  for (const b of big) {
    for (const [where, r] of [['reply', b.inReply], ['file', b.inFile]]) {
      console.log(`| ${b.lines} lines (${b.status}) | ${where} | ${ms(median(r.result))} | ${ms(p95(r.result))} | ${ms(median(r.details))} | ${ms(p95(r.details))} | ${r.inFrame} |`);
    }
  }
  console.log(`\n${KEYS} keystrokes each, one at a time (the next after the page settled). "Answers in the frame": the engine's answers`);
  console.log('the page took from shared memory in the animation frame after the key (the rest came by message, after that frame).');
} finally {
  server.kill();
}
