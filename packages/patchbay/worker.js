// patchbay/worker: the core module behind a Web Worker, with a promise API.
// Messages are plain objects (structured-clone friendly, nothing
// transferred): `{ id, method, args }` in, `{ id, ok, value }` or
// `{ id, ok: false, error: { name, message } }` out.
//
// In the worker:  import { serve } from 'patchbay/worker'; serve();
// On the page:    const pb = connect(new Worker(url, { type: 'module' }));
//                 const report = await pb.applyEdits(files, reply);
import init, * as api from './index.js';

/** The functions a worker answers (StreamParser holds state: use it in the worker itself). */
export const METHODS = Object.freeze([
  'applyEdits', 'detectFormat', 'render', 'formats', 'estimateTokens', 'compare', 'planBudget',
  'tagView', 'crcView', 'checkOutput', 'promptKit', 'diagnoseUdiff', 'repairUdiff', 'simulatePatchFuzz',
]);

const errors = { TypeError, RangeError };

/** The function a request names: a core method, else one of `extra`'s own. */
function methodOf(method, extra) {
  if (METHODS.includes(method)) return api[method];
  if (typeof method === 'string' && Object.hasOwn(extra, method) && typeof extra[method] === 'function') return extra[method];
  throw new TypeError(`unknown method ${JSON.stringify(method)}`);
}

/**
 * Answers requests posted to `scope` (the worker's global scope by default).
 * `extra` adds methods of the worker's own (`{ name: fn }`, `fn` may return
 * a promise), for what the core does not hold (the syntax module, say).
 */
export function serve(scope = globalThis, input, extra = {}) {
  const ready = init(input);
  scope.addEventListener('message', async (event) => {
    const { id, method, args } = event.data ?? {};
    if (typeof id !== 'number') return;
    try {
      await ready;
      const fn = methodOf(method, extra);
      scope.postMessage({ id, ok: true, value: await fn(...(Array.isArray(args) ? args : [])) });
    } catch (err) {
      scope.postMessage({ id, ok: false, error: { name: err?.name ?? 'Error', message: String(err?.message ?? err) } });
    }
  });
  scope.start?.();
}

/** A promise API over a worker (or a MessagePort) that runs `serve()`; `extra` names the worker's own methods. */
export function connect(worker, extra = []) {
  let next = 1;
  const pending = new Map();
  worker.addEventListener('message', (event) => {
    const { id, ok, value, error } = event.data ?? {};
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (ok) p.resolve(value);
    else p.reject(new (errors[error?.name] ?? Error)(error?.message));
  });
  worker.start?.();
  const call = (method, ...args) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, method, args });
    });
  const client = { call, terminate: () => (worker.terminate ?? worker.close).call(worker) };
  for (const m of [...METHODS, ...extra]) client[m] = (...args) => call(m, ...args);
  return client;
}
