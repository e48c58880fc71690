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

/** The functions a worker answers; a `StreamParser` lives in the worker behind `connect().stream()`. */
export const METHODS = Object.freeze([
  'applyEdits', 'detectFormat', 'render', 'formats', 'estimateTokens', 'compare', 'planBudget',
  'tagView', 'crcView', 'checkOutput', 'promptKit', 'diagnoseUdiff', 'repairUdiff', 'simulatePatchFuzz',
  'loadRest',
]);

const errors = { TypeError, RangeError };

/** Parsers a worker keeps open at once: a page that never finishes or frees one cannot make it grow without bound. */
export const MAX_STREAMS = 64;

/** The stream requests (`stream.open`, `.push`, `.finish`, `.free`), on the parsers of one `serve`. */
function streams() {
  const open = new Map();
  const take = (id) => {
    const parser = open.get(id);
    if (!parser) throw new TypeError(`no open stream ${JSON.stringify(id)}: it was finished or freed`);
    return parser;
  };
  const close = (id) => {
    open.get(id)?.free();
    open.delete(id);
  };
  return {
    'stream.open'(id, files, options) {
      if (open.has(id)) throw new TypeError(`stream ${id} is open already`);
      if (open.size >= MAX_STREAMS) throw new RangeError(`${MAX_STREAMS} streams are open in this worker: finish or free one first`);
      open.set(id, new api.StreamParser(files, options));
    },
    'stream.push': (id, chunk) => take(id).push(chunk),
    'stream.finish'(id) {
      try {
        return take(id).finish();
      } finally {
        close(id);
      }
    },
    'stream.free': (id) => close(id),
  };
}

/** The function a request names: a core method, a stream's, else one of `extra`'s own. */
function methodOf(method, extra, stream) {
  if (METHODS.includes(method)) return api[method];
  if (typeof method === 'string' && Object.hasOwn(stream, method)) return stream[method];
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
  const stream = streams();
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
      const fn = methodOf(method, extra, stream);
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
    for (const [id, value] of box.take()) settled += Number(settle(id, true, value));
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
  let streamIds = 1;
  // A parser in the worker: requests of one stream arrive in the order they
  // are posted, so a push needs no wait for the open; a failed open fails
  // each later request of the stream with its error.
  const stream = (files, options) => {
    const id = streamIds++;
    const opened = call('stream.open', id, files, options);
    opened.catch(() => {});
    const after = (method, ...args) => opened.then(() => call(method, id, ...args));
    return {
      push: (chunk) => after('stream.push', chunk),
      finish: () => after('stream.finish'),
      free: () => after('stream.free').then(() => undefined),
    };
  };
  const client = { call, stream, answeredInFrame: 0, terminate: () => (worker.terminate ?? worker.close).call(worker) };
  for (const m of [...METHODS, ...extra]) client[m] = (...args) => call(m, ...args);
  return client;
}

/** `requestAnimationFrame` where shared memory can be posted to a worker (a cross-origin isolated page). */
function isolatedFrame() {
  return globalThis.crossOriginIsolated === true && typeof globalThis.requestAnimationFrame === 'function'
    ? (cb) => globalThis.requestAnimationFrame(cb)
    : undefined;
}
