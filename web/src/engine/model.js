// A local model driven from the engine's worker: the transport only. The
// core's edit loop (`EditLoop`, through the package) decides every round and
// reads every byte the server sends (NDJSON or SSE); this file moves those
// bytes with a streaming fetch, aborts it on Stop or when the loop says stop,
// and posts what happens as `{loop: event}` messages for the page.
import { EditLoop, parseModelInfo, parseModels, serverError, serverPaths, showBody, thinkFor } from 'patchbay';

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

/** The loop of a run: Ollama's `think` as the core decides it from the model's capabilities. */
function loopOf({ files, config, provider, model, think, capabilities }) {
  const sent = provider === 'ollama' ? thinkFor(capabilities ?? [], think) : undefined;
  return new EditLoop(files, config, provider, model, sent);
}

/** The first request of a run, before anything is sent: the messages, their estimate, the body. */
export function preview(settings) {
  const loop = loopOf(settings);
  const request = loop.nextRequest();
  return { request, chat: loop.chatRequest() };
}

/** Streams one round's body into the loop; returns how it ended (`stopped`, the loop asked to stop). */
async function streamRound(loop, base, signal) {
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
    post({ kind: 'chunk', chat, pushed });
    if (pushed.stop) {
      await reader.cancel().catch(() => {});
      return;
    }
  }
}

/** Runs the loop to its end; each round is posted as it starts, streams and ends. */
export async function run(settings) {
  const { base } = settings;
  const loop = loopOf(settings);
  controller = new AbortController();
  const { signal } = controller;
  const outcomes = [];
  try {
    for (let request = loop.nextRequest(); request; request = loop.nextRequest()) {
      const started = performance.now();
      post({ kind: 'round', request });
      await streamRound(loop, base, signal);
      const { chat, pushed, outcome, tokensPerSecond } = loop.end();
      post({ kind: 'chunk', chat, pushed });
      post({ kind: 'end', outcome, tokensPerSecond, ms: performance.now() - started });
      outcomes.push(outcome);
    }
  } catch (e) {
    if (signal.aborted) return { stopped: true, outcomes, files: loop.files() };
    throw e;
  } finally {
    controller = null;
  }
  return { stopped: false, outcomes, files: loop.files() };
}

/** Aborts the running fetch (Stop). */
export function stop() {
  controller?.abort();
  return controller !== null;
}
