// patchbay's core module: every function of the JS API but the syntax and
// exact-token ones. Call `init()` (or `initSync()`) once before the others.
import glueInit, { initSync as glueInitSync } from './core/patchbay_wasm.js';
import { wasmInput, wasmInputSync } from './load.js';

// Named, not `export *`: the glue also exports the module's start function
// (it installs the panic hook), which is not part of the API.
export {
  applyEdits, StreamParser, detectFormat, render, formats, tagView, crcView, checkOutput, promptKit,
  compare, estimateTokens, planBudget, diagnoseUdiff, repairUdiff, simulatePatchFuzz,
  EditLoop, parseModels, parseModelInfo, showBody, serverError, serverPaths, thinkFor,
} from './core/patchbay_wasm.js';

const url = new URL('./core/patchbay_wasm_bg.wasm', import.meta.url);
let ready;

/** Loads the module (once): from `input`, else the .wasm beside this file. */
export default function init(input) {
  ready ??= wasmInput(input, url).then((m) => glueInit({ module_or_path: m }));
  return ready.then(() => undefined);
}

/** Loads the module synchronously (node, workers): from `input`, else (node) the file. */
export function initSync(input) {
  if (ready) return;
  glueInitSync({ module: wasmInputSync(input, url) });
  ready = Promise.resolve();
}
