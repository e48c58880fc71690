export {
  applyEdits, StreamParser, detectFormat, render, formats, tagView, crcView, checkOutput, promptKit,
  compare, estimateTokens, planBudget, diagnoseUdiff, repairUdiff, simulatePatchFuzz,
  EditLoop, parseModels, parseModelInfo, parseProps, chooseContext, showBody, serverError, serverPaths, thinkFor, arenaResults, arenaVerdict,
} from './core/patchbay_wasm.js';
export type * from './core/patchbay_wasm.js';
import type { InitInput, SyncInitInput } from './load.js';
export type { InitInput, SyncInitInput } from './load.js';
/**
 * The core module comes in two parts: the first holds every export and what a
 * first reply in Aider's formats (SEARCH/REPLACE, whole files) runs; the
 * second the rest (other formats, the udiff tools, rendering, the planner,
 * the model loop). On a page's main thread `init` resolves once both are in
 * place (whatever `restWhen` says) and `initSync` needs both as bytes or
 * modules, since loading the second later would take a synchronous request
 * that blocks the page. In node and workers a call that needs the second
 * part before it is loaded loads it synchronously, so every function works
 * at any time.
 */
export interface InitOptions {
  /** The second part (`patchbay/patchbay-rest.wasm`): a URL, a `Response`, the bytes or a compiled module. Default: the file beside the first part. */
  rest?: InitInput | Promise<InitInput>;
  /**
   * When to load it in node and workers: `background` (after the first part is ready; `init`'s
   * default), `now` (before `init` resolves), `first-use` (when a call first needs it; `initSync`'s
   * default). On a page's main thread both parts are always in place when `init`/`initSync` returns.
   */
  restWhen?: 'background' | 'now' | 'first-use';
}
/** What `initSync` takes for the second part: only what can be loaded synchronously; on a page's main thread, bytes or a module (else a `TypeError`). */
export interface InitSyncOptions {
  rest?: SyncInitInput | URL | string;
  restWhen?: 'background' | 'now' | 'first-use';
}
/** Loads the module once: its first part from `input`, else the .wasm beside the package's entry; the second as `options` say (on a page's main thread, before it resolves). */
export default function init(input?: InitInput | Promise<InitInput>, options?: InitOptions): Promise<void>;
/** Loads the module synchronously; in browsers and workers pass its bytes or a compiled module, and on a page's main thread the second part's too (`rest`). */
export declare function initSync(input?: SyncInitInput, options?: InitSyncOptions): void;
/** Loads the core module's second part now (from `input`, else as `init` was told); resolves when every function is in place. */
export declare function loadRest(input?: InitInput | Promise<InitInput>): Promise<void>;
/** Whether the core module's second part is loaded. */
export declare function restLoaded(): boolean;

declare global {
  /**
   * `StreamParser` is disposable (`using`); this names `Symbol.dispose` for a
   * program whose `lib` is older than ESNext (ES2022), as the ESNext lib does.
   */
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}
