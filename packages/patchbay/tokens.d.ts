export { countTokens, countTokensEach, encodings } from './tokens/patchbay_tokens_wasm.js';
import type { InitInput, SyncInitInput } from './load.js';
export default function init(input?: InitInput | Promise<InitInput>): Promise<void>;
export declare function initSync(input?: SyncInitInput): void;
