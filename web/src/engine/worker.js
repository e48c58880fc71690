// The engine's Web Worker: every call of the page into the wasm modules runs
// here, off the main thread, so typing never waits for the engine. It is the
// npm package's worker (`patchbay/worker`'s `serve`), used as any page would
// use it; the page adds only its extras: the syntax and exact-tokens
// modules, and `estimateTokensEach` (one message for a whole table of
// counts instead of one per cell), and the local model's transport
// (model.js: the core's edit loop over a streaming fetch).
//
// The core module's first part loads at start; the syntax module (tree-sitter grammars)
// and the exact-tokens module (tiktoken's vocabularies) load on first use,
// each posting {progress} messages while its wasm downloads. The .wasm
// files are fetched from next to the page (build.mjs copies them there),
// since a bundle's chunks do not sit beside the package's files.
import { estimateTokens } from 'patchbay';
import { serve } from 'patchbay/worker';
import { download } from './download.js';
import * as model from './model.js';

const here = self.location.href;
let syntaxModule = null;
let tokensModule = null;

function syntax() {
  syntaxModule ??= (async () => {
    const m = await import('patchbay/syntax');
    await m.default(await download(new URL('pkg-syntax/patchbay_syntax_wasm_bg.wasm', here), 'syntax'));
    return m;
  })();
  return syntaxModule;
}

function tokens() {
  tokensModule ??= (async () => {
    const m = await import('patchbay/tokens');
    await m.default(await download(new URL('pkg-tokens/patchbay_tokens_wasm_bg.wasm', here), 'tokens'));
    return m;
  })();
  return tokensModule;
}

/** The page's calls beyond the package's core methods, named as the page calls them. */
export const EXTRAS = {
  estimateTokensEach: (texts, family) => texts.map((t) => estimateTokens(t, family)),
  'syntax.outline': async (...args) => (await syntax()).outline(...args),
  'syntax.slice': async (...args) => (await syntax()).slice(...args),
  'syntax.splice': async (...args) => (await syntax()).splice(...args),
  'syntax.applyToSlice': async (...args) => (await syntax()).applyToSlice(...args),
  'syntax.parseCheck': async (...args) => (await syntax()).parseCheck(...args),
  'syntax.languages': async () => (await syntax()).languages(),
  'tokens.countTokens': async (...args) => (await tokens()).countTokens(...args),
  'tokens.countTokensEach': async (...args) => Array.from((await tokens()).countTokensEach(...args)),
  'tokens.encodings': async () => (await tokens()).encodings(),
  'model.list': model.listModels,
  'model.show': model.showModel,
  'model.preview': model.preview,
  'model.run': model.run,
  'model.stop': model.stop,
  'model.arenaRun': model.arenaRun,
  'model.arenaResults': model.arenaResults,
  'model.arenaVerdict': model.arenaVerdict,
};

// The core's second part (what a first reply in Aider's formats does not
// run) is left to the page, which asks for it once it is ready
// (`loadRest`), so that the first load is the first part alone; a call that
// needs it sooner loads it then.
serve(self, new URL('pkg/patchbay_wasm_bg.wasm', here), EXTRAS, {
  rest: new URL('pkg/patchbay_wasm_rest.wasm', here),
  restWhen: 'first-use',
});
