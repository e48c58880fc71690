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
 * The `init`/`initSync` pair of one module, written once for all three:
 * loads the glue once, from `input` or else the .wasm at `url`.
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
  };
}
