// The core module's second part.
//
// The build splits the core module in two (binaryen's wasm-split, guided by
// scripts/core-profile.mjs): the first part holds what a first reply in
// Aider's formats runs, and every export; the second part the other
// functions (other formats, the udiff tools, rendering, the planner, the
// model loop). In the first part each of those is a placeholder, an import
// from here. The first call of one loads the second part, whose
// instantiation writes its functions into the first part's table, and then
// calls the real function; after that the table calls it directly.
//
// Where the second part comes from: what `init`/`initSync` were given as
// `rest`, else the .wasm beside the first.
//
// When, on a page's main thread (a window with a document, not node): it is
// never requested synchronously, since that request would block the page.
// `init` fetches and compiles both parts at once and instantiates them in
// one step (index.js), so that no call ever finds the first part without
// the second; `initSync` takes the second as bytes or a module, or refuses
// before anything is fetched.
//
// Elsewhere (node, workers), where a synchronous load blocks no page:
// `init` fetches and compiles it in the background once the first part is
// ready (or waits for it, or leaves it to the first use: `restWhen`), and a
// call that needs it before it has arrived loads it there and then (node
// reads the file; a worker makes a synchronous request). patchbay/worker
// waits for a load in flight instead (restInFlight), so that the part is
// never fetched twice.
//
// A placeholder that cannot load the part throws through the wasm frames
// that called it, which leaves the module's stack pointer and borrow flags
// as they were mid-call; it only comes to that when the load itself fails
// (a missing file, a failed request). On a page it cannot: the first part
// is instantiated only once the second is compiled, and a failed `init`
// leaves neither in place (a call then throws in the glue, before any wasm
// runs) and may be tried again.

import { compileModule, wasmInputSync } from './load.js';

const DEFAULT_URL = new URL('./core/patchbay_wasm_rest.wasm', import.meta.url);
const WHEN = ['background', 'now', 'first-use'];

let firstExports = null; // () => the first part's exports, set when the glue asks for the placeholders
let source = DEFAULT_URL; // what `rest` was given, else the default file
let compiled = null; // the second part, compiled
let compiling = null; // its compilation, once started (so that it is fetched once), until it fails
let instantiated = false;
let loading = null; // the background load, while it runs

/** ` from URL` when the second part comes from a URL, for error messages. */
function fromWhere() {
  return source instanceof URL || typeof source === 'string' ? ` from ${source}` : '';
}

/** Whether this runs on a page's main thread, where a synchronous request would block the page. */
export function onPage() {
  return typeof document === 'object' && document !== null && !globalThis.process?.versions?.node;
}

/** The first part's `placeholder` imports (scripts/glue-split.mjs hands them to the glue). */
export function placeholders(exports) {
  firstExports = exports;
  return new Proxy(
    {},
    {
      get(_, name) {
        if (typeof name !== 'string' || !/^\d+$/.test(name)) return undefined;
        const slot = Number(name);
        return (...args) => {
          const first = exports();
          loadSync();
          return first.table.get(slot)(...args);
        };
      },
    },
  );
}

/** Checks `init`'s options, takes where the second part comes from, and says when to load it. */
export function restOptions(options, fallback) {
  if (options === undefined || options === null) return fallback;
  if (typeof options !== 'object') throw new TypeError('the options of init() must be an object: { rest, restWhen }');
  const { rest, restWhen = fallback } = options;
  if (!WHEN.includes(restWhen)) {
    throw new RangeError(`restWhen must be one of ${WHEN.map((w) => JSON.stringify(w)).join(', ')}, not ${JSON.stringify(restWhen)}`);
  }
  if (rest !== undefined) source = rest;
  return restWhen;
}

/** Whether the second part is loaded. */
export function restLoaded() {
  return instantiated;
}

/**
 * Fetches and compiles the second part (from `input`, else what `init` was
 * given, else the file beside the first) and instantiates it; resolves once
 * every function of the core module is in place. Needs the first part
 * loaded (`init`/`initSync`) first.
 */
export function loadRest(input) {
  if (input !== undefined) source = input;
  if (instantiated) return Promise.resolve();
  loading ??= compiledRest()
    .then(instantiate)
    .finally(() => {
      loading = null;
    });
  return loading;
}

/** The second part compiled: fetched and compiled once, whoever asks first; a failure lets a later call try again. */
export function compiledRest() {
  if (compiled) return Promise.resolve(compiled);
  compiling ??= compileModule(source).then(
    (module) => (compiled = module),
    (err) => {
      compiling = null;
      throw new Error(`patchbay: the core module's second part could not be loaded${fromWhere()}: ${err?.message ?? err}`);
    },
  );
  return compiling;
}

/**
 * Checks that `rest` is the second part of `first` (both compiled) before
 * either is instantiated: everything it imports is an export of the first
 * part, of the same kind.
 */
export function checkParts(first, rest) {
  const exported = new Map(WebAssembly.Module.exports(first).map((e) => [e.name, e.kind]));
  const missing = WebAssembly.Module.imports(rest).filter((i) => i.module !== 'primary' || exported.get(i.name) !== i.kind);
  if (missing.length > 0) {
    throw new Error(`patchbay: the second part given is not this first part's (${missing.length} of its imports are not the first part's exports): pass both .wasm files of one build`);
  }
}

/** The second part instantiated (the first part's exports must be in place). */
export function instantiate() {
  if (instantiated) return;
  const first = firstExports?.();
  if (!first) throw new Error('patchbay: load the core module (init or initSync) before its second part');
  new WebAssembly.Instance(compiled, { primary: first });
  instantiated = true;
}

/**
 * Throws, before anything is fetched, unless the second part can be put in
 * place synchronously without a request: on a page, `initSync` needs it as
 * bytes or a module.
 */
export function restGivenSync() {
  if (instantiated || compiled || source instanceof WebAssembly.Module || ArrayBuffer.isView(source) || source instanceof ArrayBuffer) return;
  throw new TypeError(
    "initSync() on a page's main thread needs the core module's second part as well, as bytes or a WebAssembly.Module " +
      "(the .wasm at 'patchbay/patchbay-rest.wasm'): initSync(firstBytes, { rest: restBytes }); a synchronous request for it " +
      'would block the page. Or await init(), which on a page loads both parts.',
  );
}

/**
 * The load `loadRest` started, while it runs, else null. A worker waits for
 * it before a call (worker.js), so that a call needing the second part
 * while it is on its way does not fetch it a second time, synchronously.
 */
export function restInFlight() {
  return loading;
}

/** Starts `loadRest` without waiting; a failure is not lost: the call that needs the part loads it again, and throws what failed. */
export function loadInBackground() {
  loadRest().catch(() => {});
}

/** Loads the second part now, synchronously (a call of the first part needs it, or `initSync` was told to). */
export function loadSync() {
  if (instantiated) return;
  try {
    compiled ??= compileSync(source);
  } catch (err) {
    const how = onPage()
      ? 'On a page, await init() (which loads both parts) before calling, or pass the bytes: initSync(firstBytes, { rest: restBytes })'
      : 'Pass it to init({ rest }) or await loadRest() before calling';
    throw new Error(`patchbay: the core module's second part could not be loaded${fromWhere()}: ${err?.message ?? err}. ${how}.`);
  }
  instantiate();
}

function compileSync(input) {
  if (input instanceof WebAssembly.Module) return input;
  if (ArrayBuffer.isView(input) || input instanceof ArrayBuffer) return new WebAssembly.Module(/** @type {BufferSource} */ (input));
  if (typeof input === 'string' || input instanceof URL) {
    if (onPage()) throw new Error("it is not loaded yet, and a page's main thread does not request it synchronously");
    return new WebAssembly.Module(/** @type {BufferSource} */ (fetchSync(new URL(input, globalThis.location?.href))));
  }
  throw new TypeError('a Response, a Request or a promise can only be loaded asynchronously: await loadRest() first');
}

/** The bytes at `url`, synchronously: node reads the file; a worker (never a page) makes a synchronous request. */
function fetchSync(url) {
  if (url.protocol === 'file:') return wasmInputSync(undefined, url);
  if (typeof XMLHttpRequest !== 'function') throw new Error('no synchronous way to fetch it here');
  const request = new XMLHttpRequest();
  request.open('GET', url.href, false);
  request.responseType = 'arraybuffer';
  request.send();
  if (request.status !== 200) throw new Error(`${request.status} ${request.statusText}`);
  return new Uint8Array(request.response);
}
