// init() takes a URL, a Response, bytes or a compiled WebAssembly.Module,
// initSync() bytes or a module; each in a fresh node process (a module
// loads once per process), against the installed package.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { installPackage } from './install.mjs';

let installed;
before(() => {
  installed = installPackage();
}, { timeout: 120_000 });

/** Runs `load` (an expression that loads the module) and one applyEdits in a fresh process. */
function loadsWith(load) {
  const entry = installed.module('index.js');
  const wasm = installed.module('core/patchbay_wasm_bg.wasm');
  const script = `
    import * as pb from ${JSON.stringify(entry)};
    import { readFileSync } from 'node:fs';
    const url = new URL(${JSON.stringify(wasm)});
    const bytes = readFileSync(url);
    ${load};
    const r = pb.applyEdits({ 'a.txt': 'x\\n' }, 'a.txt\\n<<<<<<< SEARCH\\nx\\n=======\\ny\\n>>>>>>> REPLACE\\n');
    console.log(r.files[0].content);`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
}

test('init and initSync take every kind of input', { timeout: 60_000 }, () => {
  for (const load of [
    'await pb.default()',
    'await pb.default(bytes)',
    'await pb.default(new Response(bytes, { headers: { "Content-Type": "application/wasm" } }))',
    'await pb.default(await WebAssembly.compile(bytes))',
    'await pb.default(Promise.resolve(bytes))',
    'pb.initSync(bytes)',
    'pb.initSync(new WebAssembly.Module(bytes))',
    'pb.initSync()',
  ]) {
    assert.equal(loadsWith(load), 'y\n\n', load); // the content and console.log's newline
  }
});
