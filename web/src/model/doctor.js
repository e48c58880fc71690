// The connection doctor: why the page cannot talk to the model server, and
// the exact fix. A browser hides the reason of a refused request (a CORS
// refusal, a server that is not running and a blocked private-network
// request are all the same TypeError), so the doctor asks one more
// question: a `no-cors` fetch of /api/version succeeds when the server runs
// and only refuses this page's origin.

/** Origins Ollama allows without OLLAMA_ORIGINS (any port). */
const ALLOWED_HOSTS = new Set(['localhost', '127.0.0.1', '0.0.0.0', '[::1]']);

/** Whether a host name is on this machine or a private network (what Local Network Access guards). */
function isPrivateHost(host) {
  return ALLOWED_HOSTS.has(host) || /^(10|127)\.|^192\.168\.|^172\.(1[6-9]|2\d|3[01])\.|\.local$/.test(host);
}

/**
 * A page opened from file://. Chromium does not even run the page's module
 * script there (the file has no origin its CORS check accepts), so the
 * build writes this diagnosis into the page itself, shown by an inline
 * script before anything needs the engine (build.mjs); the doctor gives it
 * too, for a browser that does run the page.
 */
export const FILE_PAGE = Object.freeze({
  kind: 'file-page',
  text: 'This page was opened from a file (file://): the browser runs no module script there, so the engine cannot load, and a file:// page has no origin a model server could allow.',
  fix: Object.freeze(['Serve the page over http instead, e.g. node web/serve.mjs, and open http://localhost:PORT/']),
});

/** The OLLAMA_ORIGINS lines for `origin`: systemd, launchctl, Windows, a plain `ollama serve`. */
export function originFix(origin) {
  return [
    `Linux (systemd): sudo systemctl edit ollama, add [Service] and Environment="OLLAMA_ORIGINS=${origin}", then sudo systemctl restart ollama`,
    `macOS (the app): launchctl setenv OLLAMA_ORIGINS "${origin}", then quit and reopen Ollama`,
    `Windows: set the user environment variable OLLAMA_ORIGINS to ${origin}, then quit Ollama from the tray and start it again`,
    `A plain ollama serve: OLLAMA_ORIGINS=${origin} ollama serve`,
  ];
}

/**
 * The diagnosis of `error` (what a call to the server at `base` threw) for a
 * page at `origin` (`location.origin`; `null` for `file://`, as browsers
 * give it): `{kind, text, fix: string[]}`. `probe(url)` is `fetch(url,
 * {mode: 'no-cors'})` (a parameter so that the doctor's rules can be
 * checked alone). `provider` (`ollama` or `openai`) names the server to
 * start in the fix when nothing answers.
 */
export async function diagnose(error, { base, origin, protocol, model, probe, provider = 'ollama' }) {
  const message = String(error?.message ?? error);
  const notFound = /^HTTP 404\b/.test(message);
  if (notFound && model) {
    return { kind: 'model-not-found', text: `The server does not have the model ${model}.`, fix: [`ollama pull ${model}`] };
  }
  if (/^HTTP \d+/.test(message)) return { kind: 'server-error', text: `The server answered: ${message}`, fix: [] };
  if (protocol === 'file:') return { ...FILE_PAGE, fix: [...FILE_PAGE.fix] };
  const target = new URL(base);
  if (!isPrivateHost(new URL(origin).hostname) && isPrivateHost(target.hostname)) {
    return {
      kind: 'local-network-access',
      text: `This page (${origin}) is on the public internet and the server (${target.host}) on this machine or network: the browser asks before letting the page reach it (Local Network Access), and the request was refused.`,
      fix: ['Allow "local network access" for this site (the icon left of the address, or the prompt), then reload', ...originFix(origin)],
    };
  }
  let runs = false;
  try {
    await probe(`${base.replace(/\/+$/, '')}/api/version`);
    runs = true;
  } catch {
    runs = false;
  }
  if (runs) {
    return {
      kind: 'cors',
      text: `The server at ${target.host} runs but refuses this page's origin (${origin}): Ollama answers 403 without CORS headers to origins it does not allow (it allows http://localhost:* and http://127.0.0.1:* by itself). Add the origin to OLLAMA_ORIGINS where the server runs:`,
      fix: originFix(origin),
    };
  }
  const fix = provider === 'openai'
    ? [`Start it: llama-server -m MODEL.gguf --port ${target.port || 80}, or LM Studio's server (Developer tab)`, `Check the port: LM Studio listens on 1234 and llama-server on 8080 unless --port says otherwise; the base URL here is ${base}`]
    : ['Start it: ollama serve (or open the Ollama app)', `Check the port: Ollama listens on 11434 unless OLLAMA_HOST says otherwise; the base URL here is ${base}`];
  return {
    kind: 'not-running',
    text: `Nothing answers at ${target.host}: the server is not running, or listens on another port.`,
    fix,
  };
}
