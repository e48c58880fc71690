// The connection doctor's diagnoses that depend on where the page comes
// from, in a real Chromium: the built page opened from a file:// URL (where
// Chromium runs no module script, so the diagnosis is written into the page
// at build time and shown by an inline script), and the same page served
// over http, where it stays hidden. The other diagnoses run against the
// model-server double in model.test.mjs; the rules alone in doctor.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch, openPlayground } from './browser.mjs';

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
