// The npm package against the native core, same workloads, same run:
// apply 50 SEARCH/REPLACE blocks to a 100,000-line file, the tagged view of
// 10 MB, the token estimator on 10 MB, the stream parser on a 200 KB reply
// in 20-byte chunks (against one applyEdits of it), module instantiation.
// Prints each time and the wasm/native ratio. Needs scripts/build-package.sh.
//   node scripts/bench-package.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const pb = await import(join(repo, 'packages/patchbay/index.js'));
const wasmFile = join(repo, 'packages/patchbay/core/patchbay_wasm_bg.wasm');
const restFile = join(repo, 'packages/patchbay/core/patchbay_wasm_rest.wasm');

/**
 * Best of `runs`, in milliseconds, after as many untimed runs: V8 runs a
 * wasm function in its baseline tier first and moves it to the optimizing
 * one once it is hot, compiling in the background (the native side is
 * compiled ahead of time).
 */
function best(runs, f) {
  return bestOf(runs, () => {
    const t = performance.now();
    f();
    return performance.now() - t;
  });
}

/** The least of `runs` milliseconds that `f` measures itself, after as many untimed runs. */
function bestOf(runs, f) {
  for (let i = 0; i < runs; i++) f();
  let min = Infinity;
  for (let i = 0; i < runs; i++) min = Math.min(min, f());
  return min;
}

function workloads() {
  const line = (i) => `    let value_${i} = compute(${i}, "item ${i}") * ${i % 97};\n`;
  const big = Array.from({ length: 100_000 }, (_, i) => line(i)).join('');
  const blocks = Array.from({ length: 50 }, (_, k) => {
    const i = 1000 + k * 1900;
    const old = line(i) + line(i + 1) + line(i + 2);
    return `big.rs\n\`\`\`\n<<<<<<< SEARCH\n${old}=======\n${old.replaceAll('compute', 'recompute')}>>>>>>> REPLACE\n\`\`\`\n`;
  });
  let ten = '';
  while (ten.length < 10_000_000) ten += big;
  ten = ten.slice(0, 10_000_000);
  const s = Array.from({ length: 4000 }, (_, i) => line(i)).join('');
  let stream = '';
  for (let i = 0; stream.length < 200_000; i++) {
    const old = line(i);
    stream += `s.rs\n\`\`\`\n<<<<<<< SEARCH\n${old}=======\n${old.replace('compute', 'recompute')}>>>>>>> REPLACE\n\`\`\`\n`;
  }
  return { 'big.rs': big, 'reply.txt': blocks.join(''), 'ten.txt': ten, 's.rs': s, 'stream.txt': stream };
}

const w = workloads();
const dir = mkdtempSync(join(tmpdir(), 'patchbay-bench-'));
for (const [name, text] of Object.entries(w)) writeFileSync(join(dir, name), text);
const native = JSON.parse(execFileSync('cargo', ['run', '-q', '--release', '-p', 'patchbay-tests', '--bin', 'package-bench', dir], { cwd: repo, encoding: 'utf8' }));
rmSync(dir, { recursive: true, force: true });

const bytes = readFileSync(wasmFile);
const stubs = new Proxy({}, { get: () => () => {} });
const instantiate = best(5, () => new WebAssembly.Instance(new WebAssembly.Module(bytes), {
  './patchbay_wasm_bg.js': stubs,
  placeholder: stubs,
}));
// The second part is compiled here; instantiating it needs the first part's
// exports, so its whole load is timed once, when initSync is told to load it now.
const restBytes = readFileSync(restFile);
const compileRest = best(5, () => new WebAssembly.Module(restBytes));
const t = performance.now();
pb.initSync(bytes);
const init = performance.now() - t;
const r = performance.now();
await pb.loadRest(restBytes);
const loadRest = performance.now() - r;

const runs = 5;
const files = { 'big.rs': w['big.rs'] };
const check = pb.applyEdits(files, w['reply.txt']);
if (check.status !== 'applied') throw new Error(`bench reply did not apply: ${check.feedback}`);
const streamFiles = { 's.rs': w['s.rs'] };
/** A stream parser fed the 200 KB reply in 20-byte chunks, not yet finished. */
function pushed() {
  const p = new pb.StreamParser(streamFiles);
  for (let at = 0; at < w['stream.txt'].length; at += 20) p.push(w['stream.txt'].slice(at, at + 20));
  return p;
}
const wasm = {
  apply: best(runs, () => pb.applyEdits(files, w['reply.txt'])),
  tagView: best(runs, () => pb.tagView(w['ten.txt'])),
  estimate: best(runs, () => pb.estimateTokens(w['ten.txt'])),
  streamApply: best(runs, () => pb.applyEdits(streamFiles, w['stream.txt'])),
  stream: best(runs, () => {
    const p = pushed();
    const r = p.finish();
    p.free();
    return r;
  }),
  // The pushes alone: the bound is on them (`finish` is one applyEdits).
  streamPushes: bestOf(runs, () => {
    const t = performance.now();
    const p = pushed();
    const ms = performance.now() - t;
    p.finish();
    p.free();
    return ms;
  }),
};

const gz = (file) => execFileSync('gzip', ['-9', '-c', file]).length;
console.log(`core module: first part ${bytes.length} bytes, gzip -9 ${gz(wasmFile)}; second part ${restBytes.length} bytes, gzip -9 ${gz(restFile)}`);
console.log(`module instantiation: first part compile + instantiate ${instantiate.toFixed(1)} ms (best of 5), initSync ${init.toFixed(1)} ms (first); second part compile ${compileRest.toFixed(1)} ms (best of 5), loadRest ${loadRest.toFixed(1)} ms (first)`);
const rows = [
  ['apply 50 blocks, 100,000-line file', 'apply'],
  ['tag view, 10 MB', 'tagView'],
  ['estimator, 10 MB', 'estimate'],
  ['applyEdits, 200 KB reply', 'streamApply'],
  ['stream parser, 200 KB in 20-byte chunks', 'stream'],
];
console.log('| workload | native ms | package (node) ms | package / native |');
console.log('|---|---:|---:|---:|');
for (const [label, k] of rows) console.log(`| ${label} | ${native[k].toFixed(2)} | ${wasm[k].toFixed(2)} | ${(wasm[k] / native[k]).toFixed(2)}x |`);
const perApply = (k) => `native ${(native[k] / native.streamApply).toFixed(2)}x, package ${(wasm[k] / wasm.streamApply).toFixed(2)}x`;
console.log(`stream parser / one applyEdits: pushes alone ${perApply('streamPushes')}; with finish ${perApply('stream')}`);
