// What the tarball carries beside the code: the licence texts its
// `license` field names, where the project lives, and an `engines` range
// that every node in it can run `initSync()` on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installPackage, repo } from './install.mjs';

const installed = installPackage();
const root = join(installed.dir, 'node_modules', 'patchbay');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

test('the tarball holds both licence texts, as the repository has them', () => {
  assert.equal(manifest.license, 'MIT OR Apache-2.0');
  for (const name of ['LICENSE-MIT', 'LICENSE-APACHE']) {
    assert.equal(readFileSync(join(root, name), 'utf8'), readFileSync(join(repo, name), 'utf8'), name);
  }
  assert.match(readFileSync(join(root, 'LICENSE-APACHE'), 'utf8'), /Apache License\s+Version 2\.0/);
  assert.match(readFileSync(join(root, 'LICENSE-MIT'), 'utf8'), /^MIT License/);
});

test('repository, homepage, bugs and keywords point at the workspace repository', () => {
  const cargo = readFileSync(join(repo, 'Cargo.toml'), 'utf8');
  const url = cargo.match(/^repository = "(.*)"$/m)[1];
  assert.equal(manifest.repository.url, `git+${url}.git`);
  assert.equal(manifest.repository.directory, 'packages/patchbay');
  assert.ok(manifest.homepage.startsWith(url));
  assert.equal(manifest.bugs.url, `${url}/issues`);
  assert.ok(manifest.keywords.includes('codemirror') && manifest.keywords.includes('monaco'));
});

/** Whether `version` is in a range of `^X.Y.Z` and `>=X.Y.Z` parts joined by `||`. */
function satisfies(version, range) {
  const v = version.split('.').map(Number);
  const cmp = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  return range.split('||').some((part) => {
    const m = part.trim().match(/^(\^|>=)(\d+)\.(\d+)\.(\d+)$/);
    assert.ok(m, `a range part this test reads: ${part}`);
    const low = m.slice(2).map(Number);
    return cmp(v, low) >= 0 && (m[1] === '>=' || v[0] === low[0]);
  });
}

test('engines admits only the nodes whose initSync() reads the module itself', () => {
  // process.getBuiltinModule arrived in node 20.16 and 22.3.
  const range = manifest.engines.node;
  for (const v of ['20.0.0', '20.15.1', '21.7.3', '22.2.0']) assert.equal(satisfies(v, range), false, v);
  for (const v of ['20.16.0', '20.19.5', '22.3.0', '24.1.0']) assert.equal(satisfies(v, range), true, v);
});

test('on a node without getBuiltinModule, initSync() says what to do instead', () => {
  const file = join(installed.dir, 'old-node.mjs');
  writeFileSync(file, `delete process.getBuiltinModule;
const { initSync } = await import('patchbay');
try { initSync(); console.log('loaded'); } catch (e) { console.log(e.name + ': ' + e.message); }
`);
  const out = execFileSync(process.execPath, [file], { cwd: installed.dir, encoding: 'utf8' });
  assert.match(out, /^TypeError: initSync\(\) needs the module/);
  assert.match(out, /node 20\.16 and 22\.3 on can\): pass readFileSync of the \.wasm, or await init\(\)/);
});
