// A local model driven from the engine's worker: the transport only. The
// core's edit loop (`EditLoop`, through the package) decides every round and
// reads every byte the server sends (NDJSON or SSE); this file moves those
// bytes with a streaming fetch, aborts it on Stop or when the loop says stop,
// and posts what happens as `{loop: event}` messages for the page.
import { EditLoop, arenaResults, arenaVerdict, chooseContext, parseModelInfo, parseModels, serverError, serverPaths, showBody, thinkFor } from 'patchbay';

let controller = null;
const post = (event) => self.postMessage({ loop: event });
const url = (base, path) => base.replace(/\/+$/, '') + path;

/** A JSON answer of the server; a status other than 200 is an Error with the server's message. */
async function fetchText(address, init) {
  const response = await fetch(address, init);
  const text = await response.text();
  if (!response.ok) throw Object.assign(new Error(serverError(response.status, text)), { status: response.status });
  return text;
}

/** The models the server lists. */
export async function listModels(base, provider) {
  const paths = serverPaths();
  return parseModels(provider, await fetchText(url(base, provider === 'ollama' ? paths.tags : paths.models)));
}

/** What Ollama says of a model (its context length, capabilities). */
export async function showModel(base, model) {
  const init = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: showBody(model) };
  return parseModelInfo(await fetchText(url(base, serverPaths().show), init));
}

/**
 * The context the loop plans with, as the core chooses it: the panel's
 * setting against what the server serves (`served`, from its model list),
 * with a warning when the setting asks for more.
 */
function contextOf({ provider, config, served }) {
  return chooseContext(provider, config.contextLength || undefined, served || undefined);
}

/** The loop of a run: Ollama's `think` as the core decides it from the model's capabilities. */
function loopOf(settings) {
  const { files, config, provider, model, think, capabilities, seed } = settings;
  const sent = provider === 'ollama' ? thinkFor(capabilities ?? [], think) : undefined;
  const planned = { ...config, contextLength: contextOf(settings).numCtx };
  return new EditLoop(files, planned, provider, model, sent, seed);
}

/** The first request of a run, before anything is sent: the messages, their estimate, the body, the context's warning. */
export function preview(settings) {
  const loop = loopOf(settings);
  const request = loop.nextRequest();
  return { request, chat: loop.chatRequest(), warning: contextOf(settings).warning };
}

/** Streams one round's body into the loop, telling each chunk; returns when it ended or the loop asked to stop. */
async function streamRound(loop, base, signal, tell) {
  const { path, body } = loop.chatRequest();
  const response = await fetch(url(base, path), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, signal });
  if (!response.ok) throw Object.assign(new Error(serverError(response.status, await response.text())), { status: response.status });
  const reader = response.body.getReader();
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (e) {
      if (signal.aborted) throw e;
      return; // a cut connection: the loop's end() reads it as a cut reply
    }
    if (chunk.done) return;
    const { chat, pushed } = loop.pushBytes(chunk.value);
    tell({ kind: 'chunk', chat, pushed });
    if (pushed.stop) {
      await reader.cancel().catch(() => {});
      return;
    }
  }
}

/**
 * Drives `loop` to its end over `base`; `tell(event)` hears each round as it
 * starts, streams and ends; each round's outcome joins `outcomes`. Throws
 * on a connection error, and on Stop (`signal` aborted).
 */
async function drive(loop, base, signal, tell, outcomes = []) {
  for (let request = loop.nextRequest(); request; request = loop.nextRequest()) {
    const started = performance.now();
    tell({ kind: 'round', request });
    await streamRound(loop, base, signal, tell);
    const { chat, pushed, outcome, tokensPerSecond } = loop.end();
    tell({ kind: 'chunk', chat, pushed });
    tell({ kind: 'end', outcome, tokensPerSecond, ms: performance.now() - started });
    outcomes.push(outcome);
  }
}

/** Runs the loop to its end; each round is posted as it starts, streams and ends. */
export async function run(settings) {
  const loop = loopOf(settings);
  controller = new AbortController();
  const { signal } = controller;
  const outcomes = [];
  try {
    await drive(loop, settings.base, signal, post, outcomes);
    return { stopped: false, outcomes, files: loop.files() };
  } catch (e) {
    if (signal.aborted) return { stopped: true, outcomes, files: loop.files() };
    throw e;
  } finally {
    controller = null;
  }
}

/**
 * One run of the format arena: the same loop as `run`, to its end, scored
 * by the core against the task's `expected` files. `run` names it (task,
 * model, format, trial, seed). A connection error ends the run with that
 * error in its score, as in the CLI; Stop resolves `{stopped: true}`.
 */
export async function arenaRun(settings, run, expected) {
  const started = performance.now();
  controller = new AbortController();
  const { signal } = controller;
  let loop;
  try {
    loop = loopOf(settings);
    await drive(loop, settings.base, signal, () => {});
    return { score: loop.score({ ...run, wallMs: Math.round(performance.now() - started) }, expected) };
  } catch (e) {
    if (signal.aborted) return { stopped: true };
    const error = String(e?.message ?? e);
    const failed = { ...run, wallMs: Math.round(performance.now() - started), error };
    // A loop that could not start (the files do not fit) has no rounds: the
    // core's results read the run with its defaults, as the CLI scores it.
    return { score: loop ? loop.score(failed, expected) : arenaResults([failed]).runs[0] };
  } finally {
    controller = null;
  }
}

/** The arena's sums of `runs` (`{runs, summary}`) and one line on a run: the core's, as the CLI's. */
export { arenaResults, arenaVerdict };

/** Aborts the running fetch (Stop). */
export function stop() {
  controller?.abort();
  return controller !== null;
}
