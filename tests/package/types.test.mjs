// The installed package's declarations: no `any` or `(string & {})` escape
// hatches, and `tsc --noEmit --strict` accepts a file that calls every export.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installPackage } from './install.mjs';

let installed;
before(() => {
  installed = installPackage();
}, { timeout: 120_000 });

/** Every .d.ts of the installed package, with comments removed. */
function declarations() {
  const root = join(installed.dir, 'node_modules', 'patchbay');
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.d.ts')) out.push([p, readFileSync(p, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')]);
    }
  };
  walk(root);
  return out;
}

test('the public declarations have no any and no (string & {})', () => {
  const files = declarations();
  assert.ok(files.length >= 8, `${files.length} declaration files`);
  for (const [path, text] of files) {
    assert.doesNotMatch(text, /\bany\b/, path);
    assert.doesNotMatch(text, /string\s*&\s*\{\s*\}/, path);
  }
});

test('codes, levels and format names are string unions', () => {
  const core = declarations().find(([p]) => p.endsWith('patchbay_wasm.d.ts'))[1];
  assert.match(core, /export type Code = "not_found" \| "ambiguous"[^;]*"not_shown"[^;]*"syntax_error"/);
  assert.match(core, /export type Level = "exact" \| "trailing_ws"/);
  assert.match(core, /export type FormatName = "search-replace" \|/);
});

test('tsc --noEmit --strict accepts a file that calls every export', () => {
  const usage = join(installed.dir, 'usage.ts');
  copyFileSync(fileURLToPath(new URL('usage.ts', import.meta.url)), usage);
  writeFileSync(join(installed.dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
      lib: ['es2022', 'esnext.disposable', 'dom', 'dom.iterable'], types: [], skipLibCheck: false,
    },
    files: ['usage.ts'],
  }));
  const tsc = fileURLToPath(new URL('node_modules/typescript/bin/tsc', import.meta.url));
  try {
    execFileSync(process.execPath, [tsc, '-p', installed.dir], { cwd: installed.dir, encoding: 'utf8' });
  } catch (e) {
    assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
  }
});
