// How each module finds its .wasm: what the caller passed, else the file
// beside the glue. Browsers and workers fetch that URL (bundlers rewrite
// `new URL('./x.wasm', import.meta.url)`); node reads the file, since its
// fetch does not take file: URLs.

const nodeFs = () => globalThis.process?.getBuiltinModule?.('node:fs');

// Held in a variable so that bundlers leave the import alone: a browser
// bundle cannot resolve `node:fs`, and only node (before 20.16, without
// getBuiltinModule) ever takes this branch.
const FS = 'node:fs';

/** The input for wasm-bindgen's async init. */
export async function wasmInput(input, url) {
  if (input !== undefined) return input;
  if (url.protocol === 'file:') {
    const fs = nodeFs() ?? (await import(FS));
    return fs.readFileSync(url);
  }
  return url;
}

/** The input for wasm-bindgen's initSync: bytes or a compiled module. */
export function wasmInputSync(input, url) {
  if (input !== undefined) return input;
  const node = url.protocol === 'file:' && globalThis.process?.versions?.node;
  const fs = node ? nodeFs() : undefined;
  if (!fs) {
    const why = node
      ? `node ${node} cannot read it synchronously (node 20.16 and 22.3 on can): pass readFileSync of the .wasm, or await init()`
      : 'only node can read it itself';
    throw new TypeError(`initSync() needs the module: pass its bytes or a WebAssembly.Module (${why})`);
  }
  return fs.readFileSync(url);
}

/**
 * Compiles what `init` takes (a URL or request, a `Response`, bytes, a
 * module, or a promise of one): a file: URL is read (node's fetch takes
 * none), any other URL fetched, streaming when the server says
 * `application/wasm`.
 */
export async function compileModule(input) {
  const given = await input;
  let m = given instanceof URL ? await wasmInput(undefined, given) : given;
  if (m instanceof WebAssembly.Module) return m;
  if (typeof m === 'string' || m instanceof URL || (typeof Request === 'function' && m instanceof Request)) m = await fetch(m);
  if (typeof Response === 'function' && m instanceof Response) {
    if (!m.ok) throw new Error(`${m.status} ${m.statusText} fetching ${m.url}`);
    if (typeof WebAssembly.compileStreaming === 'function' && m.headers.get('Content-Type') === 'application/wasm') {
      return WebAssembly.compileStreaming(m);
    }
    m = await m.arrayBuffer();
  }
  return WebAssembly.compile(m);
}

/**
 * The `init`/`initSync` pair of one module, written once for all three:
 * loads the glue once, from `input` or else the .wasm at `url`.
 * `initCompiled` is a third way (the core's on a page, index.js): `prepare`
 * resolves to `{ module, after }`, a compiled module and a step to take
 * right after it is instantiated, in the same task, so that no call runs between the two.
 * A failed `initCompiled` may be tried again.
 */
export function loader(url, glueInit, glueInitSync) {
  let ready;
  return {
    init(input) {
      ready ??= wasmInput(input, url).then((m) => glueInit({ module_or_path: m }));
      return ready.then(() => undefined);
    },
    initSync(input) {
      if (ready) return;
      glueInitSync({ module: wasmInputSync(input, url) });
      ready = Promise.resolve();
    },
    initCompiled(prepare) {
      if (!ready) {
        const attempt = prepare().then(({ module, after }) => {
          glueInitSync({ module });
          after();
        });
        attempt.catch(() => {
          if (ready === attempt) ready = undefined;
        });
        ready = attempt;
      }
      return ready.then(() => undefined);
    },
  };
}
