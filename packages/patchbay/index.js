// patchbay's core module: every function of the JS API but the syntax and
// exact-token ones. Call `init()` (or `initSync()`) once before the others.
// The module comes in two parts (rest.js). On a page's main thread `init`
// resolves once both are in place (fetched and compiled at once), since a
// call that finds the second part missing could only load it with a
// request that blocks the page; `initSync` there takes both as bytes or
// modules. Elsewhere (node, workers) `init` makes the first ready, which is
// all a first reply in Aider's formats needs, and then fetches the second
// in the background; a call that needs the second before it arrived loads
// it there and then.
import glueInit, { initSync as glueInitSync } from './core/patchbay_wasm.js';
import { compileModule, loader, wasmInput } from './load.js';
import {
  checkParts, compiledRest, instantiate, loadInBackground, loadRest, loadSync, onPage, restGivenSync, restLoaded, restOptions,
} from './rest.js';

// Named, not `export *`: the glue also exports the module's start function
// (it installs the panic hook), which is not part of the API.
export {
  applyEdits, StreamParser, detectFormat, render, formats, tagView, crcView, checkOutput, promptKit,
  compare, estimateTokens, planBudget, diagnoseUdiff, repairUdiff, simulatePatchFuzz,
  EditLoop, parseModels, parseModelInfo, parseProps, chooseContext, showBody, serverError, serverPaths, thinkFor, arenaResults, arenaVerdict,
} from './core/patchbay_wasm.js';
export { loadRest, restLoaded } from './rest.js';

const FIRST = new URL('./core/patchbay_wasm_bg.wasm', import.meta.url);
const core = loader(FIRST, glueInit, glueInitSync);

/**
 * Loads the module (once): its first part from `input`, else the .wasm
 * beside this file; its second part as `options` say, except on a page's
 * main thread, where it resolves once both parts are in place.
 */
export default function init(input, options) {
  let when;
  try {
    when = restOptions(options, 'background');
  } catch (err) {
    return Promise.reject(err);
  }
  if (onPage()) return core.initCompiled(() => bothParts(input));
  return core.init(input).then(() => {
    if (when === 'now') return loadRest();
    if (when === 'background') loadInBackground();
    return undefined;
  });
}

/** Both parts fetched and compiled side by side; instantiated together once both are. */
async function bothParts(input) {
  const [module, rest] = await Promise.all([compileModule(wasmInput(input, FIRST)), compiledRest()]);
  checkParts(module, rest);
  return { module, after: instantiate };
}

/**
 * Loads the module synchronously: from `input`, else (node) the file; the
 * second part at first use, except on a page's main thread, where it must
 * be given (`rest`: bytes or a module) and is put in place at once.
 */
export function initSync(input, options) {
  const when = restOptions(options, 'first-use');
  if (restLoaded()) return;
  if (onPage()) {
    restGivenSync();
    core.initSync(input);
    loadSync();
    return;
  }
  core.initSync(input);
  if (when === 'now') loadSync();
  else if (when === 'background') loadInBackground();
}
