// patchbay's core module: every function of the JS API but the syntax and
// exact-token ones. Call `init()` (or `initSync()`) once before the others.
import glueInit, { initSync as glueInitSync } from './core/patchbay_wasm.js';
import { loader } from './load.js';

// Named, not `export *`: the glue also exports the module's start function
// (it installs the panic hook), which is not part of the API.
export {
  applyEdits, StreamParser, detectFormat, render, formats, tagView, crcView, checkOutput, promptKit,
  compare, estimateTokens, planBudget, diagnoseUdiff, repairUdiff, simulatePatchFuzz,
  EditLoop, parseModels, parseModelInfo, showBody, serverError, serverPaths, thinkFor, arenaResults, arenaVerdict,
} from './core/patchbay_wasm.js';

const core = loader(new URL('./core/patchbay_wasm_bg.wasm', import.meta.url), glueInit, glueInitSync);

/** Loads the module (once): from `input`, else the .wasm beside this file. */
export default function init(input) {
  return core.init(input);
}

/** Loads the module synchronously (node, workers): from `input`, else (node) the file. */
export function initSync(input) {
  core.initSync(input);
}
