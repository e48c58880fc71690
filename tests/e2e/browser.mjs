// What the playground's Chromium tests share: our static server on a free
// port, Debian's Chromium through playwright-core, and the few steps every
// test takes on the page (typing into a CodeMirror editor, waiting for the
// live run to settle, reading an editor's text).
// Needs `scripts/build-web.sh` (web/dist) and /usr/bin/chromium (`scripts/setup.sh browser`).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const serve = fileURLToPath(new URL('../../web/serve.mjs', import.meta.url));
const web = new URL('../../web/', import.meta.url);
const pkg = new URL('../../packages/patchbay/', import.meta.url);

/** Starts web/serve.mjs on a free port of `host`; resolves with {server, base}. */
export function startServer(host) {
  const server = spawn(process.execPath, [serve], { env: { ...process.env, PORT: '0', HOST: host }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/[\d.]+:\d+\//);
      if (m) resolve({ server, base: m[0] });
    });
    server.on('exit', (code) => reject(new Error(`serve.mjs exited with ${code}: ${out}`)));
  });
}

/**
 * The server, a fresh Chromium profile and a page on the playground, ready.
 * `requests` and `problems` (page errors, console errors) are recorded.
 */
export async function openPlayground({ viewport = { width: 1280, height: 900 }, host = '127.0.0.1' } = {}) {
  if (!existsSync(new URL('dist/index.html', web))) throw new Error('web/dist is missing: run scripts/build-web.sh');
  const { server, base } = await startServer(host);
  const { context, page, profile } = await launch({ viewport });
  const requests = [];
  const problems = [];
  const watch = (p) => {
    p.on('request', (r) => requests.push(r.url()));
    p.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    p.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  };
  watch(page);
  context.on('page', watch);
  await page.goto(base);
  await ready(page);
  const close = async () => {
    await context.close();
    server.kill();
    rmSync(profile, { recursive: true, force: true });
  };
  return { server, base, context, page, requests, problems, close };
}

/**
 * Debian's Chromium with a fresh profile (removed by the caller: `profile`),
 * and its first page; `args` adds command-line switches.
 */
export async function launch({ viewport = { width: 1280, height: 900 }, args = [] } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'patchbay-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic', ...args],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page, profile };
}

/** Waits until the page has loaded the engine and run the case once. */
export async function ready(page) {
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  await settle(page);
}

/** Waits until no engine run is scheduled or under way. */
export async function settle(page) {
  await page.waitForSelector('body[data-settled="true"]', { timeout: 20_000 });
}

/** Shows the panel `name` (`receipts`, `model`, `budget`, `compare`, `outline`, `lab`) with the section bar. */
export async function showPanel(page, name) {
  await page.click(`[data-testid="nav-${name}"]`);
  await page.waitForSelector(`#panel-${name}:not([hidden])`);
}

/** Replaces the text of the editor inside `[data-testid=ID]` as a user's paste would, and waits for the run. */
export async function type(page, id, text) {
  await page.fill(`[data-testid="${id}"] .cm-content`, text);
  await settle(page);
}

/** The text of a (small, fully rendered) editor inside `[data-testid=ID]`. */
export function editorText(page, id) {
  return page.$$eval(`[data-testid="${id}"] .cm-content > .cm-line`, (ls) => ls.map((l) => l.textContent).join('\n'));
}

/** Sets the path box and waits for the run. */
export async function setPath(page, path) {
  await page.fill('#path', path);
  await settle(page);
}

/** The npm package's core module (packages/patchbay) loaded in node, independently of the page. */
export async function nodeCore() {
  const m = await import(new URL('index.js', pkg));
  m.initSync();
  return m;
}

/** The package's syntax module in node. */
export async function nodeSyntax() {
  const m = await import(new URL('syntax.js', pkg));
  m.initSync();
  return m;
}

/** The package's exact-tokens module in node. */
export async function nodeTokens() {
  const m = await import(new URL('tokens.js', pkg));
  m.initSync();
  return m;
}
