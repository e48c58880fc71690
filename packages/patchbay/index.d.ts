export {
  applyEdits, StreamParser, detectFormat, render, formats, tagView, crcView, checkOutput, promptKit,
  compare, estimateTokens, planBudget, diagnoseUdiff, repairUdiff, simulatePatchFuzz,
  EditLoop, parseModels, parseModelInfo, showBody, serverError, serverPaths, thinkFor, arenaResults, arenaVerdict,
} from './core/patchbay_wasm.js';
export type * from './core/patchbay_wasm.js';
import type { InitInput, SyncInitInput } from './load.js';
export type { InitInput, SyncInitInput } from './load.js';
/** Loads the module once: from `input`, else the .wasm beside the package's entry. */
export default function init(input?: InitInput | Promise<InitInput>): Promise<void>;
/** Loads the module synchronously; in browsers and workers pass its bytes or a compiled module. */
export declare function initSync(input?: SyncInitInput): void;
