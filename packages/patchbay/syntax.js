// patchbay/syntax: tree-sitter outlines, slices, splices and parse checks,
// a module of its own (the grammars). It holds no copy of the core:
// `applyToSlice` cuts with this module, applies with the core module and
// splices back with this one.
import glueInit, { initSync as glueInitSync, sliceInput, spliceReport } from './syntax/patchbay_syntax_wasm.js';
import coreInit, { initSync as coreInitSync, applyEdits } from './index.js';
import { loader } from './load.js';

export { languages, outline, sections, slice, splice, parseCheck, sliceInput, spliceReport } from './syntax/patchbay_syntax_wasm.js';

const syntax = loader(new URL('./syntax/patchbay_syntax_wasm_bg.wasm', import.meta.url), glueInit, glueInitSync);

/** Loads this module and the core module (each once). */
export default function init(input, coreInput) {
  return Promise.all([syntax.init(input), coreInit(coreInput)]).then(() => undefined);
}

/** Loads both modules synchronously (node, workers). */
export function initSync(input, coreInput) {
  coreInitSync(coreInput);
  syntax.initSync(input);
}

/** Applies a model reply (any format) to a slice as a file of its own and splices the result into `text`. */
export function applyToSlice(text, slice, reply, options) {
  const input = sliceInput(text, slice);
  const report = applyEdits(input.files, reply, { ...options, defaultPath: options?.defaultPath ?? input.path });
  return spliceReport(text, slice, report);
}
