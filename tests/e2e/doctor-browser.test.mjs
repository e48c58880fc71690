// The connection doctor's diagnoses that depend on where the page comes
// from, in a real Chromium: the built page opened from a file:// URL (where
// Chromium runs no module script, so the diagnosis is written into the page
// at build time and shown by an inline script), the same page served over
// http, where it stays hidden, and a page Chromium takes for a public one
// reaching the model server on loopback (Local Network Access). The other
// diagnoses run against the model-server double in model.test.mjs; the
// rules alone in doctor.test.mjs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch, openPlayground, ready, startServer } from './browser.mjs';
import { connectTo, startDouble } from './double.mjs';

const page = fileURLToPath(new URL('../../web/dist/index.html', import.meta.url));
const T = { timeout: 60_000 };

test('the page opened from file:// says so first, with the fix, though the engine never loads', T, async () => {
  const b = await launch();
  try {
    // Chromium refuses the page's module script: nothing else of the page runs.
    const refused = b.page.waitForEvent('console', { predicate: (m) => /app\.js.*blocked by CORS policy/.test(m.text()) });
    await b.page.goto(pathToFileURL(page).href);
    await refused;
    const box = b.page.locator('[data-testid="file-page"]');
    await box.waitFor({ state: 'visible' });
    assert.equal(await box.getAttribute('data-kind'), 'file-page');
    assert.equal(await box.getAttribute('role'), 'alert');
    assert.match(await box.locator('p').textContent(), /^This page was opened from a file \(file:\/\/\): the browser runs no module script there/);
    assert.deepEqual(await box.locator('li').allTextContents(), ['Serve the page over http instead, e.g. node web/serve.mjs, and open http://localhost:PORT/']);
    assert.equal(await b.page.getAttribute('body', 'data-ready'), null);
  } finally {
    await b.context.close();
    rmSync(b.profile, { recursive: true, force: true });
  }
});

test('served over http the page boots and the file:// diagnosis stays hidden', T, async () => {
  const pg = await openPlayground();
  try {
    assert.equal(await pg.page.getAttribute('body', 'data-ready'), 'true');
    assert.equal(await pg.page.isHidden('[data-testid="file-page"]'), true);
  } finally {
    await pg.close();
  }
});

/** A public-looking name for the page: Chromium resolves it to 127.0.0.2, where the page is served. */
const NAME = 'patchbay.example';
const cleanup = [];
after(() => {
  for (const f of cleanup.reverse()) f();
});

/**
 * The page served on 127.0.0.2 and opened as http://patchbay.example:PORT/
 * in a Chromium started with `args(port)`; the double allows that origin
 * (its OLLAMA_ORIGINS), so only the browser can refuse the request.
 */
async function publicPage(args) {
  const { server, base } = await startServer('127.0.0.2');
  const port = new URL(base).port;
  const b = await launch({ args: [`--host-resolver-rules=MAP ${NAME} 127.0.0.2`, ...args(port)] });
  cleanup.push(() => server.kill(), () => rmSync(b.profile, { recursive: true, force: true }));
  await b.page.goto(`http://${NAME}:${port}/`);
  await ready(b.page);
  return { ...b, origin: `http://${NAME}:${port}` };
}

test('Local Network Access: a page Chromium takes for public cannot reach the loopback server; the doctor says so', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'patchbay-lna-'));
  writeFileSync(join(dir, 'script.json'), JSON.stringify({ origins: [`http://${NAME}:*`] }));
  const { child, url } = await startDouble(['--script', join(dir, 'script.json')]);
  cleanup.push(() => child.kill(), () => rmSync(dir, { recursive: true, force: true }));

  // The control: the same page and server, the page's address left as it is (loopback): it connects.
  const plain = await publicPage(() => []);
  try {
    assert.equal(await connectTo(plain.page, url), 'connected: 1 model');
  } finally {
    await plain.context.close();
  }

  // The page's address treated as public: Chromium's Local Network Access check refuses the worker's
  // fetch to loopback (headless, the permission prompt is denied), and the doctor names it.
  const pub = await publicPage((port) => [`--ip-address-space-overrides=127.0.0.2:${port}=public`, '--enable-features=LocalNetworkAccessChecks']);
  try {
    assert.equal(await connectTo(pub.page, url), 'failed: local-network-access');
    const box = pub.page.locator('[data-testid="ollama-doctor"]');
    assert.equal(await box.getAttribute('data-kind'), 'local-network-access');
    assert.match(await box.locator('p').textContent(), new RegExp(`^This page \\(${pub.origin.replace(/\./g, '\\.')}\\) is on the public internet`));
    const fix = await box.locator('li').allTextContents();
    assert.match(fix[0], /^Allow "local network access" for this site/);
    assert.ok(fix.includes(`A plain ollama serve: OLLAMA_ORIGINS=${pub.origin} ollama serve`), fix.join('\n'));
  } finally {
    await pub.context.close();
  }
});
