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
// `rest`, else the .wasm beside the first. When: `init` fetches and
// compiles it in the background once the first part is ready (or waits
// for it, or leaves it to the first use: `restWhen`); a call that needs it
// before it has arrived loads it synchronously (node reads the file; a
// browser or a worker makes a synchronous request, which a worker may
// make freely and a page's main thread still can).

import { wasmInput, wasmInputSync } from './load.js';

const DEFAULT_URL = new URL('./core/patchbay_wasm_rest.wasm', import.meta.url);
const WHEN = ['background', 'now', 'first-use'];

let firstExports = null; // () => the first part's exports, set when the glue asks for the placeholders
let source = DEFAULT_URL; // what `rest` was given, else the default file
let compiled = null; // the second part, compiled
let instantiated = false;
let loading = null; // the background load, while it runs

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
  loading ??= compileAsync(source)
    .then((module) => {
      compiled ??= module;
      instantiate();
    })
    .finally(() => {
      loading = null;
    });
  return loading;
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

async function compileAsync(input) {
  const given = await input;
  // A file: URL is read (node's fetch takes none); any other is fetched.
  let m = given instanceof URL ? await wasmInput(undefined, given) : given;
  if (m instanceof WebAssembly.Module) return m;
  if (typeof m === 'string' || m instanceof URL || (typeof Request === 'function' && m instanceof Request)) m = await fetch(m);
  if (typeof Response === 'function' && m instanceof Response) {
    if (!m.ok) throw new Error(`patchbay: the core module's second part: ${m.status} ${m.statusText} fetching ${m.url}`);
    if (typeof WebAssembly.compileStreaming === 'function' && m.headers.get('Content-Type') === 'application/wasm') {
      return WebAssembly.compileStreaming(m);
    }
    m = await m.arrayBuffer();
  }
  return WebAssembly.compile(m);
}

function instantiate() {
  if (instantiated) return;
  const first = firstExports?.();
  if (!first) throw new Error('patchbay: load the core module (init or initSync) before its second part');
  new WebAssembly.Instance(compiled, { primary: first });
  instantiated = true;
}

/** Loads the second part now, synchronously (a call of the first part needs it, or `initSync` was told to). */
export function loadSync() {
  if (instantiated) return;
  try {
    compiled ??= compileSync(source);
  } catch (err) {
    const where = source instanceof URL || typeof source === 'string' ? ` from ${source}` : '';
    throw new Error(`patchbay: the core module's second part could not be loaded${where}: ${err?.message ?? err}. Pass it to init({ rest }) or await loadRest() before calling.`);
  }
  instantiate();
}

function compileSync(input) {
  if (input instanceof WebAssembly.Module) return input;
  if (ArrayBuffer.isView(input) || input instanceof ArrayBuffer) return new WebAssembly.Module(/** @type {BufferSource} */ (input));
  if (typeof input === 'string' || input instanceof URL) return new WebAssembly.Module(/** @type {BufferSource} */ (fetchSync(new URL(input, globalThis.location?.href))));
  throw new TypeError('a Response, a Request or a promise can only be loaded asynchronously: await loadRest() first');
}

/** The bytes at `url`, synchronously. */
function fetchSync(url) {
  if (url.protocol === 'file:') return wasmInputSync(undefined, url);
  if (typeof XMLHttpRequest !== 'function') throw new Error('no synchronous way to fetch it here');
  const request = new XMLHttpRequest();
  request.open('GET', url.href, false);
  // A worker may ask for bytes synchronously; a page's main thread only for
  // text, which this charset keeps one character a byte.
  const bytes = typeof window === 'undefined';
  if (bytes) request.responseType = 'arraybuffer';
  else request.overrideMimeType('text/plain; charset=x-user-defined');
  request.send();
  if (request.status !== 200) throw new Error(`${request.status} ${request.statusText}`);
  if (bytes) return new Uint8Array(request.response);
  const text = request.responseText;
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}
