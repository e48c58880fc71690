// patchbay/worker: the core module behind a Web Worker, with a promise API.
// Messages are plain objects (structured-clone friendly, nothing
// transferred): `{ id, method, args }` in, `{ id, ok, value }` or
// `{ id, ok: false, error: { name, message } }` out.
//
// In the worker:  import { serve } from 'patchbay/worker'; serve();
// On the page:    const pb = connect(new Worker(url, { type: 'module' }));
//                 const report = await pb.applyEdits(files, reply);
//
// On a cross-origin isolated page the core methods' answers also come
// through shared memory (mailbox.js), read in animation frames: an answer
// the worker has ready before the next frame resolves in that frame,
// instead of after it, where the browser holds the message back.
import init, * as api from './index.js';
import { Mailbox } from './mailbox.js';
import { restInFlight } from './rest.js';

/** The functions a worker answers (StreamParser holds state: use it in the worker itself). */
export const METHODS = Object.freeze([
  'applyEdits', 'detectFormat', 'render', 'formats', 'estimateTokens', 'compare', 'planBudget',
  'tagView', 'crcView', 'checkOutput', 'promptKit', 'diagnoseUdiff', 'repairUdiff', 'simulatePatchFuzz',
  'loadRest',
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
 * `options` are `init`'s (where and when the core's second part loads).
 */
export function serve(scope = globalThis, input, extra = {}, options) {
  const ready = init(input, options);
  let box = null;
  scope.addEventListener('message', async (event) => {
    const { id, method, args, mailbox } = event.data ?? {};
    if (mailbox) box = new Mailbox(mailbox);
    if (typeof id !== 'number') return;
    try {
      await ready;
      // A failed load is the call's to report (it loads the part again).
      const rest = restInFlight();
      if (rest) await rest.catch(() => {});
      const fn = methodOf(method, extra);
      const list = Array.isArray(args) ? args : [];
      const value = await fn(...list);
      // The core's answers are JSON-compatible by construction; the extras' may not be.
      if (box && METHODS.includes(method) && Mailbox.fits(list) && box.put(id, value)) scope.postMessage({ id, ok: true, boxed: true });
      else scope.postMessage({ id, ok: true, value });
    } catch (err) {
      scope.postMessage({ id, ok: false, error: { name: err?.name ?? 'Error', message: String(err?.message ?? err) } });
    }
  });
  scope.start?.();
}

/**
 * A promise API over a worker (or a MessagePort) that runs `serve()`; `extra`
 * names the worker's own methods. `frame` (default: `requestAnimationFrame`
 * on a cross-origin isolated page, else none) is when to look for answers in
 * shared memory while a core call is pending.
 */
export function connect(worker, extra = [], { frame = isolatedFrame() } = {}) {
  let next = 1;
  const pending = new Map();
  const box = typeof frame === 'function' ? Mailbox.create() : null;
  let polling = false;
  const settle = (id, ok, value, error) => {
    const p = pending.get(id);
    if (!p) return false;
    pending.delete(id);
    if (ok) p.resolve(value);
    else p.reject(new (errors[error?.name] ?? Error)(error?.message));
    return true;
  };
  const drain = () => {
    let settled = 0;
    for (const [id, value] of box.take()) settled += settle(id, true, value);
    return settled;
  };
  const poll = () => {
    polling = false;
    client.answeredInFrame += drain();
    if ([...pending.values()].some((p) => p.framed)) watch();
  };
  const watch = () => {
    if (!polling) (polling = true), frame(poll);
  };
  worker.addEventListener('message', (event) => {
    const { id, ok, value, error, boxed } = event.data ?? {};
    // A boxed answer was written before its message was posted: it is there.
    if (boxed) drain();
    else settle(id, ok, value, error);
  });
  worker.start?.();
  if (box) worker.postMessage({ mailbox: box.buffer });
  const call = (method, ...args) =>
    new Promise((resolve, reject) => {
      const id = next++;
      const framed = box !== null && METHODS.includes(method);
      pending.set(id, { resolve, reject, framed });
      worker.postMessage({ id, method, args });
      if (framed) watch();
    });
  const client = { call, answeredInFrame: 0, terminate: () => (worker.terminate ?? worker.close).call(worker) };
  for (const m of [...METHODS, ...extra]) client[m] = (...args) => call(m, ...args);
  return client;
}

/** `requestAnimationFrame` where shared memory can be posted to a worker (a cross-origin isolated page). */
function isolatedFrame() {
  return globalThis.crossOriginIsolated === true && typeof globalThis.requestAnimationFrame === 'function'
    ? (cb) => globalThis.requestAnimationFrame(cb)
    : undefined;
}
