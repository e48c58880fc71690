// patchbay/tokens: exact token counts (tiktoken's vocabularies), a module of
// its own since the vocabularies weigh megabytes.
import glueInit, { initSync as glueInitSync } from './tokens/patchbay_tokens_wasm.js';
import { wasmInput, wasmInputSync } from './load.js';

export { countTokens, countTokensEach, encodings } from './tokens/patchbay_tokens_wasm.js';

const url = new URL('./tokens/patchbay_tokens_wasm_bg.wasm', import.meta.url);
let ready;

export default function init(input) {
  ready ??= wasmInput(input, url).then((m) => glueInit({ module_or_path: m }));
  return ready.then(() => undefined);
}

export function initSync(input) {
  if (ready) return;
  glueInitSync({ module: wasmInputSync(input, url) });
  ready = Promise.resolve();
}
