// Token counting speed in WebAssembly under node: the estimator (packages/patchbay/core,
// `estimateTokens`) against the exact tokenizers (web/pkg-tokens,
// `countTokens`) on the same texts in the same process, as MB/s and as a
// ratio (no timed assertions anywhere). The texts are the committed samples
// (tests/tokens/samples, tests/tools/sources) repeated to about 4 MB, counted
// file by file as a caller would. Needs `scripts/build-web.sh` first.
//
//   node scripts/bench-tokens-wasm.mjs
import { readFileSync, readdirSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const wasm = await import(new URL('packages/patchbay/core/patchbay_wasm.js', root));
const tokens = await import(new URL('web/pkg-tokens/patchbay_tokens_wasm.js', root));
wasm.initSync({ module: readFileSync(new URL('packages/patchbay/core/patchbay_wasm_bg.wasm', root)) });
tokens.initSync({ module: readFileSync(new URL('web/pkg-tokens/patchbay_tokens_wasm_bg.wasm', root)) });

const files = [];
for (const dir of ['tests/tokens/samples/', 'tests/tools/sources/']) {
  for (const name of readdirSync(new URL(dir, root)).sort()) {
    files.push(readFileSync(new URL(dir + name, root), 'utf8'));
  }
}
const enc = new TextEncoder();
const size = files.reduce((n, f) => n + enc.encode(f).length, 0);
const times = Math.ceil((4 << 20) / size);
const texts = Array.from({ length: times }, () => files).flat();
const mb = (size * times) / 1e6;
const ROUNDS = 7;

function time(f) {
  const n = f(); // warm-up (decompresses a vocabulary)
  const secs = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = process.hrtime.bigint();
    f();
    secs.push(Number(process.hrtime.bigint() - t) / 1e9);
  }
  secs.sort((a, b) => a - b);
  return [secs[ROUNDS >> 1], n];
}

console.log(`token counting in wasm (node ${process.version}): ${texts.length} texts, ${mb.toFixed(1)} MB, median of ${ROUNDS} passes\n`);
console.log('| counter | MB/s | tokens | vs estimate | estimate\'s count error |');
console.log('|---|---:|---:|---:|---:|');
const [est] = time(() => texts.reduce((n, t) => n + wasm.estimateTokens(t), 0));
console.log(`| estimate:o200k_base | ${(mb / est).toFixed(0)} | | 1.00x | |`);
for (const name of tokens.encodings()) {
  const [s, n] = time(() => texts.reduce((acc, t) => acc + tokens.countTokens(t, name), 0));
  const e = texts.reduce((acc, t) => acc + wasm.estimateTokens(t, name), 0);
  console.log(`| ${name} | ${(mb / s).toFixed(0)} | ${n} | ${(s / est).toFixed(1)}x | ${((100 * (e - n)) / n).toFixed(2)}% |`);
}
console.log('\n`vs estimate`: how many times longer the exact counter takes than the estimator.');
