// The page's one door into the engine: the npm package's worker client
// (`patchbay/worker`'s `connect`) over the page's worker (worker.js), with
// the syntax and exact-tokens calls grouped as `syntax.*` and `tokens.*`.
import { connect } from 'patchbay/worker';

const SYNTAX = ['outline', 'slice', 'splice', 'applyToSlice', 'parseCheck', 'languages'];
const TOKENS = ['countTokens', 'countTokensEach', 'encodings'];
const MODEL = ['list', 'show', 'preview', 'run', 'stop', 'arenaRun', 'arenaResults', 'arenaVerdict'];

/** The calls `names` under `prefix.` of `client`, without the prefix. */
function group(client, prefix, names) {
  return Object.fromEntries(names.map((n) => [n, (...args) => client.call(`${prefix}.${n}`, ...args)]));
}

/**
 * Starts the worker (`workerUrl`: the bundled engine-worker.js, by default
 * next to the page). `onProgress({module, received})` hears the optional
 * modules' downloads, `onLoop(event)` (also settable later as `engine.onLoop`)
 * a model run's rounds and chunks.
 * Errors keep their type (TypeError, RangeError, Error).
 * @param {{ onProgress?: (p: { module: string, received: number }) => void, onLoop?: (event: any) => void, workerUrl?: URL }} [options]
 */
export function createEngine({ onProgress, onLoop, workerUrl = new URL('engine-worker.js', document.baseURI) } = {}) {
  const worker = new Worker(workerUrl, { type: 'module' });
  worker.addEventListener('message', ({ data }) => {
    if (data?.progress) onProgress?.(data.progress);
    if (data?.loop) engine.onLoop?.(data.loop);
  });
  const client = connect(worker, ['estimateTokensEach']);
  let rest = null;
  const engine = {
    onLoop,
    ...client,
    /**
     * Resolves once the core module's second part is in the worker (asked for once; a failure is
     * logged, and each call that needs the part then tries again and throws what failed).
     */
    whenRest: () => (rest ??= client.loadRest().catch((e) => console.warn(e.message))),
    /** How many answers came through shared memory in an animation frame (cross-origin isolated pages). */
    answeredInFrame: () => client.answeredInFrame,
    syntax: group(client, 'syntax', SYNTAX),
    tokens: group(client, 'tokens', TOKENS),
    model: group(client, 'model', MODEL),
  };
  return engine;
}
