// Fails unless a wasm module imports only wasm-bindgen's glue. A C function
// the compiler could not resolve becomes an import (`env.*`) that only breaks
// when the module loads, so the build checks it here instead.
//   node scripts/check-wasm-imports.mjs packages/patchbay/core/patchbay_wasm_bg.wasm
//   node scripts/check-wasm-imports.mjs web/pkg-syntax/patchbay_syntax_wasm_bg.wasm
// (scripts/build-web.sh checks both; the syntax module's C grammars are the
// likelier source of a stray import.)
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const file = process.argv[2];
if (!file) {
  console.error('usage: check-wasm-imports.mjs MODULE.wasm');
  process.exit(2);
}
const glue = `./${basename(file, '.wasm')}.js`; // patchbay_wasm_bg.wasm -> ./patchbay_wasm_bg.js
const allowed = (m) => m === glue || m.startsWith('__wbindgen');

const imports = WebAssembly.Module.imports(new WebAssembly.Module(readFileSync(file)));
const bad = imports.filter((i) => !allowed(i.module));
if (bad.length > 0) {
  console.error(`${file}: ${bad.length} import(s) outside wasm-bindgen's glue:`);
  for (const i of bad) console.error(`  ${i.module}.${i.name} (${i.kind})`);
  process.exit(1);
}
console.log(`${file}: ${imports.length} imports, all from wasm-bindgen (${glue})`);
