import type * as api from './index.js';
import type { ApplyOptions, Files, Report, StreamEvent } from './index.js';
import type { InitInput } from './load.js';
import type { InitOptions } from './index.js';

/** The functions a worker answers. */
export type Method =
  | 'applyEdits' | 'detectFormat' | 'render' | 'formats' | 'estimateTokens' | 'compare' | 'planBudget'
  | 'tagView' | 'crcView' | 'checkOutput' | 'promptKit' | 'diagnoseUdiff' | 'repairUdiff' | 'simulatePatchFuzz'
  | 'loadRest';
export declare const METHODS: readonly Method[];

type Fn<K extends Method> = (typeof api)[K];
/** Each method as a promise of what the core function returns; errors keep their type (TypeError, RangeError, Error). */
export type PatchbayWorker = { [K in Method]: (...args: Parameters<Fn<K>>) => Promise<ReturnType<Fn<K>>> } & {
  call<K extends Method>(method: K, ...args: Parameters<Fn<K>>): Promise<ReturnType<Fn<K>>>;
  /** A `StreamParser` in the worker: push the reply as it arrives, then finish (which frees it) or free it. */
  stream(files: Files, options?: ApplyOptions): WorkerStream;
  terminate(): void;
  /** How many answers were taken from shared memory in an animation frame (see `ConnectOptions.frame`). */
  readonly answeredInFrame: number;
};

/** A stream parser that lives in the worker (see `StreamParser`); its requests run in the order made. */
export interface WorkerStream {
  /** Feeds a chunk of the reply; resolves with the edits it completed. */
  push(chunk: string): Promise<StreamEvent[]>;
  /** Ends the reply: resolves with the report, as `applyEdits` on the whole reply; frees the parser. */
  finish(): Promise<Report>;
  /** Frees the parser without a report. */
  free(): Promise<void>;
}

/** Parsers one worker keeps open at once; opening one more rejects with a RangeError. */
export declare const MAX_STREAMS: number;

/** A worker's own methods as the page calls them: the same arguments, a promise of what they return. */
export type Remote<X extends Extra> = { [K in keyof X & string]: (...args: Parameters<X[K]>) => Promise<Awaited<ReturnType<X[K]>>> };

export interface ConnectOptions {
  /**
   * When to look for answers in shared memory while a core call is pending
   * (answers the worker has ready then resolve at once, not after the
   * browser's next frame); `null` turns it off. Default:
   * `requestAnimationFrame` on a cross-origin isolated page, else off.
   */
  frame?: ((callback: () => void) => unknown) | null;
}

/** The end of a channel: a `Worker`, the worker's own scope, or a `MessagePort`. */
export interface Endpoint {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  start?(): void;
  terminate?(): void;
  close?(): void;
}

/** Methods of a worker's own, beside the core's: each may return a promise. */
export type Extra = Record<string, (...args: never[]) => unknown>;

/** Answers requests posted to `scope` (the worker's global scope by default); `extra` adds methods of the worker's own; `options` are `init`'s. */
export declare function serve<X extends Extra>(scope?: Endpoint, input?: InitInput | Promise<InitInput>, extra?: X, options?: InitOptions): void;
/**
 * A promise API over a worker that runs `serve()`; `extra` names the worker's own methods (each becomes
 * `client[name](...)`). Typed from the worker's own object: `connect<typeof extra>(worker, ['outline'])`.
 */
export declare function connect<E extends string = never>(
  worker: Endpoint,
  extra?: readonly E[],
  options?: ConnectOptions,
): PatchbayWorker & { [K in E]: (...args: unknown[]) => Promise<unknown> };
export declare function connect<X extends Extra>(
  worker: Endpoint,
  extra: readonly (keyof X & string)[],
  options?: ConnectOptions,
): PatchbayWorker & Remote<X>;
