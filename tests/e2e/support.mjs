// What the browser tests share: our static server (web/serve.mjs) on a free
// port, Debian's Chromium driven by playwright-core in a throw-away profile,
// the page loaded until it says it is ready, and a record of every request
// and every page error. `playground()` registers the before/after hooks of
// the calling test file and returns the state they fill in.
import { before, after } from 'node:test';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const serve = fileURLToPath(new URL('../../web/serve.mjs', import.meta.url));

/** Starts web/serve.mjs on a free port; resolves with the process and its URL. */
function startServer() {
  const server = spawn(process.execPath, [serve], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) resolve({ server, base: m[0] });
    });
    server.on('exit', (code) => reject(new Error(`serve.mjs exited with ${code}: ${out}`)));
  });
}

/**
 * The playground in Chromium for one test file. `needs` is the built file
 * (relative to web/) without which the page cannot work, so that a missing
 * build says what to run instead of timing out; `ready(state)` is called
 * once the page is ready (the test file keeps `page` from it).
 * @returns {{ page: import('playwright-core').Page | null, base: string | null, requests: string[], problems: string[] }}
 */
export function playground(needs, ready = () => {}) {
  const state = { page: null, base: null, requests: [], problems: [] };
  let server, context, profile;
  before(async () => {
    if (!existsSync(new URL(`../../web/${needs}`, import.meta.url))) {
      throw new Error(`web/${needs} is missing: run scripts/build-web.sh`);
    }
    ({ server, base: state.base } = await startServer());
    profile = mkdtempSync(join(tmpdir(), 'patchbay-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
        '--disable-sync', '--no-first-run', '--disable-quic'],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('request', (r) => state.requests.push(r.url()));
    page.on('pageerror', (e) => state.problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && state.problems.push(`console: ${m.text()}`));
    await page.goto(state.base);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
    state.page = page;
    ready(state);
  }, { timeout: 120_000 });
  after(async () => {
    await context?.close();
    server?.kill();
    if (profile) rmSync(profile, { recursive: true, force: true });
  }, { timeout: 30_000 });
  return state;
}
