// patchbay's core module: every function of the JS API but the syntax and
// exact-token ones. Call `init()` (or `initSync()`) once before the others.
// The module comes in two parts (rest.js): `init` makes the first ready,
// which is all a first reply in Aider's formats needs, and then fetches the
// second in the background; a call that needs the second before it arrived
// loads it there and then.
import glueInit, { initSync as glueInitSync } from './core/patchbay_wasm.js';
import { loader } from './load.js';
import { loadInBackground, loadRest, loadSync, restOptions } from './rest.js';

// Named, not `export *`: the glue also exports the module's start function
// (it installs the panic hook), which is not part of the API.
export {
  applyEdits, StreamParser, detectFormat, render, formats, tagView, crcView, checkOutput, promptKit,
  compare, estimateTokens, planBudget, diagnoseUdiff, repairUdiff, simulatePatchFuzz,
  EditLoop, parseModels, parseModelInfo, parseProps, chooseContext, showBody, serverError, serverPaths, thinkFor, arenaResults, arenaVerdict,
} from './core/patchbay_wasm.js';
export { loadRest, restLoaded } from './rest.js';

const core = loader(new URL('./core/patchbay_wasm_bg.wasm', import.meta.url), glueInit, glueInitSync);

/**
 * Loads the module (once): its first part from `input`, else the .wasm
 * beside this file; its second part as `options` say.
 */
export default function init(input, options) {
  let when;
  try {
    when = restOptions(options, 'background');
  } catch (err) {
    return Promise.reject(err);
  }
  return core.init(input).then(() => {
    if (when === 'now') return loadRest();
    if (when === 'background') loadInBackground();
    return undefined;
  });
}

/** Loads the module synchronously (node, workers): from `input`, else (node) the file; the second part at first use. */
export function initSync(input, options) {
  const when = restOptions(options, 'first-use');
  core.initSync(input);
  if (when === 'now') loadSync();
  else if (when === 'background') loadInBackground();
}
