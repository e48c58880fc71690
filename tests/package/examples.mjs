// The package README's examples (fenced blocks tagged `example=NAME`), so
// the tests run exactly what a reader copies.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repo } from './install.mjs';

export function examples() {
  const readme = readFileSync(join(repo, 'packages', 'patchbay', 'README.md'), 'utf8');
  const out = {};
  for (const m of readme.matchAll(/^```\w+ example=([\w-]+)\n([\s\S]*?)^```$/gm)) out[m[1]] = m[2];
  return out;
}

/** Bare `patchbay/...` specifiers as a bundler resolves them, for a page served from the app folder. */
export function resolved(code) {
  return code.replace(/from 'patchbay(\/(\w+))?'/g, (_, __, sub) => `from './node_modules/patchbay/${sub ?? 'index'}.js'`);
}
