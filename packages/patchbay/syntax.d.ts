export { languages, outline, sections, slice, splice, parseCheck, sliceInput, spliceReport } from './syntax/patchbay_syntax_wasm.js';
export type * from './syntax/patchbay_syntax_wasm.js';
import type { Slice, SliceResult } from './syntax/patchbay_syntax_wasm.js';
import type { ApplyOptions } from './core/patchbay_wasm.js';
import type { InitInput, SyncInitInput } from './load.js';
/** Loads the syntax module and the core module (each once). */
export default function init(input?: InitInput | Promise<InitInput>, coreInput?: InitInput | Promise<InitInput>): Promise<void>;
export declare function initSync(input?: SyncInitInput, coreInput?: SyncInitInput): void;
/** Applies a model reply (any format) to a slice and splices the result into `text` (throws `stale_slice: ...` if `text` changed). */
export declare function applyToSlice(text: string, slice: Slice, reply: string, options?: ApplyOptions): SliceResult;
