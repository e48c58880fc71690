// The engine's Web Worker: every call of the page into the wasm modules runs
// here, off the main thread, so typing never waits for the engine. Messages
// are {id, name, args}; answers {id, value} or {id, error}. Reports come
// back with camelCase keys, the shape of the patchbay npm package.
//
// The core module loads at start; the syntax module (tree-sitter grammars)
// and the exact-tokens module (tiktoken's vocabularies) load on first use,
// each posting {progress} messages while its wasm downloads.
import initCore, * as core from '../../pkg/patchbay_wasm.js';

const here = self.location.href;
let syntaxModule = null;
let tokensModule = null;

/** `output_lines` -> `outputLines`, deeply; arrays and values are kept. */
function camel(value) {
  if (Array.isArray(value)) return value.map(camel);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) out[k.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase())] = camel(v);
  return out;
}

/** Fetches a wasm file, posting how many bytes arrived, and returns its bytes. */
async function download(path, module) {
  const response = await fetch(new URL(path, here));
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  const reader = response.body.getReader();
  const parts = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    received += value.length;
    self.postMessage({ progress: { module, received } });
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return bytes;
}

function syntax() {
  syntaxModule ??= (async () => {
    const m = await import('../../pkg-syntax/patchbay_syntax_wasm.js');
    await m.default({ module_or_path: await download('pkg-syntax/patchbay_syntax_wasm_bg.wasm', 'syntax') });
    return m;
  })();
  return syntaxModule;
}

function tokens() {
  tokensModule ??= (async () => {
    const m = await import('../../pkg-tokens/patchbay_tokens_wasm.js');
    await m.default({ module_or_path: await download('pkg-tokens/patchbay_tokens_wasm_bg.wasm', 'tokens') });
    return m;
  })();
  return tokensModule;
}

/** The calls the page may make, named as in the npm package. */
const CALLS = {
  formats: () => core.formats(),
  applyEdits: (files, reply, options) => camel(core.applyEdits(files, reply, options)),
  detectFormat: (reply) => core.detectFormat(reply),
  render: (format, path, before, after) => core.render(format, path, before, after),
  compare: (before, after, options) => camel(core.compare(before, after, options)),
  estimateTokens: (text, family) => core.estimateTokens(text, family),
  estimateTokensEach: (texts, family) => texts.map((t) => core.estimateTokens(t, family)),
  planBudget: (request) => camel(core.plan(request)),
  tagView: (text, options = {}) => core.tagView(text, options.tagLength, options.withLine),
  crcView: (path, text) => core.crcView(path, text),
  checkOutput: (text, options = {}) => camel(core.checkOutput(text, options.stopReason ?? null)),
  promptKit: (format) => camel(core.promptKit(format)),
  diagnoseUdiff: (files, reply) => camel(core.udiffDiagnose(reply, files)),
  repairUdiff: (files, reply) => core.udiffRepair(reply, files),
  simulatePatchFuzz: (files, reply) => camel(core.udiffPatchFuzz(reply, files)),
  'syntax.outline': async (path, text) => camel((await syntax()).outline(path, text)),
  'syntax.slice': async (path, text, symbol) => camel((await syntax()).slice(path, text, symbol)),
  'syntax.splice': async (text, slice, edited) => (await syntax()).splice(text, snake(slice), edited),
  'syntax.applyToSlice': async (text, slice, reply, options) =>
    camel((await syntax()).applyToSlice(text, snake(slice), reply, options)),
  'syntax.parseCheck': async (path, before, after) => camel((await syntax()).parseCheck(path, before, after)),
  'syntax.languages': async () => (await syntax()).languages(),
  'tokens.countTokens': async (text, encoding) => (await tokens()).countTokens(text, encoding),
  'tokens.countTokensEach': async (texts, encoding) => Array.from((await tokens()).countTokensEach(texts, encoding)),
  'tokens.encodings': async () => (await tokens()).encodings(),
};

/** A slice goes back to the syntax module in its own (snake_case) keys. */
function snake(slice) {
  const out = {};
  for (const [k, v] of Object.entries(slice)) out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v;
  return out;
}

const ready = initCore({ module_or_path: new URL('pkg/patchbay_wasm_bg.wasm', here) });

self.onmessage = async ({ data: { id, name, args } }) => {
  try {
    await ready;
    const call = CALLS[name];
    if (!call) throw new Error(`no engine call named ${name}`);
    self.postMessage({ id, value: await call(...args) });
  } catch (e) {
    self.postMessage({ id, error: { message: String(e?.message ?? e), problems: e?.problems } });
  }
};
