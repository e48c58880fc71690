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

/** Runs tsc --noEmit --strict (skipLibCheck false) on `file` with `lib`; fails with its output. */
function typeCheck(file, lib) {
  const name = `tsconfig.${lib[0]}.json`;
  writeFileSync(join(installed.dir, name), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
      lib, types: [], skipLibCheck: false,
    },
    files: [file],
  }));
  const tsc = fileURLToPath(new URL('node_modules/typescript/bin/tsc', import.meta.url));
  try {
    execFileSync(process.execPath, [tsc, '-p', join(installed.dir, name)], { cwd: installed.dir, encoding: 'utf8' });
  } catch (e) {
    assert.fail(`tsc (lib ${lib.join(', ')}) failed:\n${e.stdout}${e.stderr}`);
  }
}

test('tsc --noEmit --strict accepts a file that calls every export', () => {
  copyFileSync(fileURLToPath(new URL('usage.ts', import.meta.url)), join(installed.dir, 'usage.ts'));
  typeCheck('usage.ts', ['es2022', 'esnext.disposable', 'dom', 'dom.iterable']);
  typeCheck('usage.ts', ['esnext', 'dom', 'dom.iterable']);
});

test('the declarations compile with lib ES2022, which has no Symbol.dispose', () => {
  // The same calls but the `using` block, which needs the disposable lib
  // in the caller's own code.
  const usage = readFileSync(fileURLToPath(new URL('usage.ts', import.meta.url)), 'utf8');
  const without = usage.replace(/\n  \{\n    using [\s\S]*?\n  \}\n/, '\n');
  assert.notEqual(without, usage, 'the using block was found');
  writeFileSync(join(installed.dir, 'usage-es2022.ts'), without);
  typeCheck('usage-es2022.ts', ['es2022', 'dom', 'dom.iterable']);
});
