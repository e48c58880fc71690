// The page's one door into the engine: a promise wrapper around the engine's
// module Web Worker (worker.js), with the function names and report shapes
// of the patchbay npm package. Swapping this file's inside for the package's
// `./worker` export is meant to be the only change the page needs.

/** An Error from the engine, with the `problems` a refused udiff repair lists. */
export class EngineError extends Error {
  constructor({ message, problems }) {
    super(message);
    this.name = 'EngineError';
    if (problems) this.problems = problems;
  }
}

/**
 * Starts the worker (`workerUrl`: the bundled engine-worker.js, by default
 * next to the page). `onProgress({module, received})` hears the optional
 * modules' downloads.
 */
export function createEngine({ onProgress, workerUrl = new URL('engine-worker.js', document.baseURI) } = {}) {
  const worker = new Worker(workerUrl, { type: 'module' });
  const pending = new Map();
  let next = 0;
  worker.onmessage = ({ data }) => {
    if (data.progress) return onProgress?.(data.progress);
    const waiting = pending.get(data.id);
    pending.delete(data.id);
    if (data.error) waiting?.reject(new EngineError(data.error));
    else waiting?.resolve(data.value);
  };
  worker.onerror = (e) => {
    for (const w of pending.values()) w.reject(new EngineError({ message: e.message ?? 'the engine worker failed' }));
    pending.clear();
  };
  const call =
    (name) =>
    (...args) =>
      new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, name, args });
      });
  const names = (prefix, list) => Object.fromEntries(list.map((n) => [n, call(prefix + n)]));
  return {
    ...names('', [
      'formats', 'applyEdits', 'detectFormat', 'render', 'compare', 'estimateTokens', 'estimateTokensEach',
      'planBudget', 'tagView', 'crcView', 'checkOutput', 'promptKit', 'diagnoseUdiff', 'repairUdiff',
      'simulatePatchFuzz',
    ]),
    syntax: names('syntax.', ['outline', 'slice', 'splice', 'applyToSlice', 'parseCheck', 'languages']),
    tokens: names('tokens.', ['countTokens', 'countTokensEach', 'encodings']),
    terminate: () => worker.terminate(),
  };
}
