// The playground's first load is the core module's first part: with the
// second part held back at the network, the page still gets ready and
// applies its SEARCH/REPLACE example; the page asks for the second part
// once, after it is ready; and a unified diff (a format of the second part)
// asked for while the second part is still on its way waits for it rather
// than fetching it again, and applies once it arrives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { launch, settle, startServer } from './browser.mjs';

test('the page gets ready on the first part alone; the second comes after, once', { timeout: 90_000 }, async () => {
  const { server, base } = await startServer('127.0.0.1');
  const { context, page, profile } = await launch();
  try {
    let release;
    const held = new Promise((resolve) => (release = resolve));
    const asked = [];
    await context.route('**/pkg/patchbay_wasm_rest.wasm', async (route) => {
      asked.push(route.request().url());
      await held;
      await route.continue();
    });
    await page.goto(base);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
    assert.equal(await page.textContent('#status'), 'applied');
    // The page asks for it after the ready mark, and the route holds it.
    await page.waitForFunction(() => performance.getEntriesByName('patchbay-ready').length === 1);
    for (let i = 0; i < 100 && asked.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(asked.length, 1, 'the second part was not asked for');
    // Option 6: "a unified diff with wrong numbers and a lost space" (web/src/examples.js).
    await page.selectOption('#example', { index: 6 });
    await page.waitForSelector('body[data-settled="false"]', { timeout: 5_000 });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(asked.length, 1, 'a call during the load fetched the second part again');
    release();
    await settle(page);
    assert.equal(await page.textContent('#status'), 'applied');
    assert.equal(asked.length, 1);
  } finally {
    await context.close();
    server.kill();
    rmSync(profile, { recursive: true, force: true });
  }
});
