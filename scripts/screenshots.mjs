// Screenshots of the playground's main views into docs/img/, for the README.
// Run after the page changes: `node scripts/screenshots.mjs` (needs
// `scripts/build-web.sh` and Debian's Chromium; the arena's shots build and
// start the model-server double with cargo, whose scripted models answer).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const { chromium } = await import(new URL('tests/e2e/node_modules/playwright-core/index.mjs', root));
const out = fileURLToPath(new URL('docs/img/', root));
mkdirSync(out, { recursive: true });

function startServer() {
  const server = spawn(process.execPath, [fileURLToPath(new URL('web/serve.mjs', root))], {
    env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve) => {
    let text = '';
    server.stdout.on('data', (c) => {
      text += c;
      const m = text.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) resolve({ server, base: m[0] });
    });
  });
}

const settle = (page) => page.waitForSelector('body[data-ready="true"][data-settled="true"]', { timeout: 30_000 });

/** Shows the panel `name` with the section bar. */
const showPanel = async (page, name) => {
  await page.click(`[data-testid="nav-${name}"]`);
  await page.waitForSelector(`#panel-${name}:not([hidden])`);
};

async function shoot(base, name, { width = 1280, height = 900, dark = false, setup, clip }) {
  const profile = mkdtempSync(join(tmpdir(), 'patchbay-shots-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width, height },
    colorScheme: dark ? 'dark' : 'light', args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(base);
  await settle(page);
  await page.waitForSelector('#lab[data-state="ready"]', { state: 'attached' });
  await setup?.(page);
  await settle(page);
  // A clipped shot gets a viewport as tall as the page, so that nothing scrolls and the sticky
  // section bar and editors stay where the page puts them, not over the clipped part.
  if (clip) await page.setViewportSize({ width, height: Math.max(height, await page.evaluate(() => document.documentElement.scrollHeight)) });
  const target = clip ? page.locator(clip) : page;
  await target.screenshot({ path: join(out, `${name}.png`), ...(clip ? {} : { fullPage: false }) });
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  console.log(`screenshots: docs/img/${name}.png`);
}

const pickExample = (label) => async (page) => {
  const labels = await page.$$eval('#example option', (os) => os.map((o) => o.textContent));
  await page.selectOption('#example', { index: labels.indexOf(label) });
};

const repoPath = (rel) => fileURLToPath(new URL(rel, root));

/** The arena panel after a run of the double's scripted models over the task set in `formats`. */
const arenaRun = (url, formats) => async (page) => {
  await showPanel(page, 'model');
  await page.fill('#ollama-url', url);
  await page.click('#ollama-connect');
  await page.waitForSelector('#arena-models input');
  await page.fill('#ollama-ctx', '8192');
  for (const f of await page.$$eval('#arena-formats input', (is) => is.map((i) => i.value))) {
    await page.setChecked(`#arena-formats input[value="${f}"]`, formats.includes(f));
  }
  await page.check('[data-testid="arena-source-set"]');
  await page.click('#arena-run');
  await page.waitForSelector('body[data-arena-run]', { timeout: 300_000 });
  await page.locator('#arena-panel').scrollIntoViewIfNeeded();
};

const { startDouble } = await import(new URL('tests/e2e/double.mjs', root));
const arena = repoPath('tests/arena/');
const double = await startDouble(['--arena', `${arena}tasks`, '--scenarios', `${arena}scenarios.json`]);
const { server, base } = await startServer();
try {
  await shoot(base, 'playground', { setup: async (p) => p.locator('main').scrollIntoViewIfNeeded() });
  await shoot(base, 'playground-failure', { setup: pickExample('Example: SEARCH text not in the file'), clip: 'main' });
  await shoot(base, 'playground-udiff', { setup: pickExample('Example: a unified diff GNU patch would misapply'), clip: 'main' });
  await shoot(base, 'playground-lab', { width: 1600, setup: (p) => showPanel(p, 'lab'), clip: '#lab-panel' });
  await shoot(base, 'playground-tools', {
    width: 1600,
    setup: async (p) => {
      await showPanel(p, 'compare');
      await p.click('#compare-run');
      await p.waitForSelector('#compare-panel[data-state="ready"]');
    },
    clip: '#compare-panel',
  });
  await shoot(base, 'playground-dark', { dark: true });
  await shoot(base, 'playground-narrow', { width: 390, height: 844 });
  const formats = ['search-replace', 'udiff', 'whole', 'hashline', 'apply-patch', 'tool-call', 'lines'];
  await shoot(base, 'playground-arena', { width: 1920, height: 1400, setup: arenaRun(double.url, formats), clip: '#arena-panel' });
  await shoot(base, 'playground-arena-narrow', { width: 390, height: 1600, setup: arenaRun(double.url, ['search-replace', 'udiff']), clip: '#arena-panel' });
} finally {
  server.kill();
  double.child.kill();
}
