// The model-server double (tests/src/double, its binary `model-double`) for
// the Chromium tests: built with cargo (a no-op when an earlier run built
// it), started on a free port, and the model panel connected to it.
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = fileURLToPath(new URL('../../', import.meta.url));

/** The double's binary, built first. */
function binary() {
  execFileSync('cargo', ['build', '-q', '-p', 'patchbay-tests', '--bin', 'model-double'], { cwd: repo, stdio: 'inherit' });
  return join(process.env.CARGO_TARGET_DIR ?? join(repo, 'target'), 'debug', 'model-double');
}

/** Starts the double with `args` (`--script FILE`, `--arena ...`) on a free port; resolves with `{child, url}`. */
export function startDouble(args) {
  const child = spawn(binary(), ['--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`model-double exited with ${code}: ${out}`)));
  });
}

/** What the double's binary prints for `args` (and exits), e.g. the arena's expected scores. */
export function doubleOutput(args) {
  return execFileSync(binary(), args, { cwd: repo, encoding: 'utf8', maxBuffer: 64 << 20 });
}

/** Connects the model panel to `url`; resolves with the status it ends in. */
export async function connectTo(page, url) {
  await page.click('[data-testid="nav-model"]');
  await page.fill('[data-testid="ollama-url"]', url);
  // Cleared first, so that the previous connection's status is not taken for this one's.
  await page.evaluate(() => { document.querySelector('[data-testid="ollama-status"]').textContent = ''; });
  await page.click('[data-testid="ollama-connect"]');
  await page.waitForFunction(() => {
    const status = document.querySelector('[data-testid="ollama-status"]').textContent;
    return status !== '' && !/connecting/.test(status);
  });
  return page.textContent('[data-testid="ollama-status"]');
}
