// patchbay/tokens: exact token counts (tiktoken's vocabularies), a module of
// its own since the vocabularies weigh megabytes.
import glueInit, { initSync as glueInitSync } from './tokens/patchbay_tokens_wasm.js';
import { loader } from './load.js';

export { countTokens, countTokensEach, encodings } from './tokens/patchbay_tokens_wasm.js';

const tokens = loader(new URL('./tokens/patchbay_tokens_wasm_bg.wasm', import.meta.url), glueInit, glueInitSync);

export default function init(input) {
  return tokens.init(input);
}

export function initSync(input) {
  tokens.initSync(input);
}
