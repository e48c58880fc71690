// Hands the core module's glue the imports of its split first part.
//
// After `wasm-split`, the first part imports one placeholder a function of
// the second part (namespace `placeholder`, named by table slot). The
// glue wasm-bindgen wrote knows nothing of them; this adds them to the
// import object it builds, from packages/patchbay/rest.js, which loads the
// second part at the first call of one and then calls the real function.
// The build fails if the generated import object is not the one this
// expects (a new wasm-bindgen would need this looked at again).
//
//   node scripts/glue-split.mjs packages/patchbay/core/patchbay_wasm.js
import { readFileSync, writeFileSync } from 'node:fs';

const IMPORTS = `        "./patchbay_wasm_bg.js": import0,\n`;
const WITH_PLACEHOLDERS = `${IMPORTS}        placeholder: placeholders(() => wasm), // scripts/glue-split.mjs\n`;
const HEADER = `import { placeholders } from '../rest.js'; // scripts/glue-split.mjs\n`;

const file = process.argv[2];
let glue = readFileSync(file, 'utf8');
if (glue.includes(HEADER)) process.exit(0);
const at = glue.indexOf(IMPORTS);
if (at < 0 || glue.indexOf(IMPORTS, at + 1) >= 0) {
  console.error(`${file}: the glue's import object is not the one glue-split.mjs expects`);
  process.exit(1);
}
glue = HEADER + glue.replace(IMPORTS, WITH_PLACEHOLDERS);
writeFileSync(file, glue);
