// Runs what a first reply needs through an instrumented core module and
// writes the profile that splits the module in two (scripts/build-package.sh).
//
// `wasm-split --instrument` records which functions ran; `wasm-split
// --profile` then keeps those in the first part, the one a page downloads
// before it is ready, and moves the rest into the second part, loaded when a
// call first needs it (packages/patchbay/rest.js). What runs here is the
// first part's promise: Aider's two formats (SEARCH/REPLACE and whole
// files), auto-detected and named, applied whole and streamed, with edits
// set aside (`skip`, what an editor's review asks), with their failures' feedback (the corpus holds both kinds of case), and the token
// estimate of every file and reply. The other formats, the udiff tools,
// rendering, comparison, the tagged view (which serves the hashline and
// line-range formats), the truncation check, the planner and the model loop
// work the same from the second part, a download later. (The truncation
// check alone would add 6 KB gzipped to the first part, the tagged view 4 KB;
// the playground runs the one on a reply that was cut, the other when its
// tags are shown.)
//
//   node scripts/core-profile.mjs GLUE.js INSTRUMENTED.wasm OUT.profile
import { readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const FIRST_PART_FORMATS = ['search-replace', 'whole'];
// Cases whose reply is a unified diff (the ones that force `whole` on one)
// stay out: the profile also reads every reply under `auto`, which reads
// these as diffs, and the diff reader is the second part's (some 12 KB
// gzipped of the first part otherwise).
const RARE = ['gen-found-forced_whole_on_udiff'];
const [glueFile, wasmFile, out] = process.argv.slice(2);
if (!out) {
  console.error('usage: core-profile.mjs GLUE.js INSTRUMENTED.wasm OUT.profile');
  process.exit(2);
}

const glue = await import(pathToFileURL(resolve(glueFile)).href);
const wasm = glue.initSync({ module: readFileSync(wasmFile) });

/** The files under `dir`, by path relative to it. */
function tree(dir, base = dir, files = {}) {
  if (!existsSync(dir)) return files;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) tree(path, base, files);
    else files[relative(base, path)] = readFileSync(path, 'utf8');
  }
  return files;
}

const corpus = new URL('../tests/corpus/', import.meta.url).pathname;
// What a page asks first: the format names for its menu.
glue.formats();
let runs = 0;
for (const name of readdirSync(corpus).sort()) {
  const spec = JSON.parse(readFileSync(join(corpus, name, 'case.json'), 'utf8'));
  if (!FIRST_PART_FORMATS.includes(spec.format)) continue;
  if (RARE.some((family) => name.startsWith(family))) continue;
  const files = tree(join(corpus, name, 'before'));
  const reply = readFileSync(join(corpus, name, 'output.txt'), 'utf8');
  const options = { ...(spec.options ?? {}), format: spec.format };
  glue.detectFormat(reply);
  glue.applyEdits(files, reply, options);
  glue.applyEdits(files, reply, { format: 'auto' });
  // As an editor asks: auto-detected, the open file's path for a reply that names none, partial or not.
  const defaultPath = Object.keys(files)[0] ?? null;
  for (const partial of [false, true]) glue.applyEdits(files, reply, { format: 'auto', partial, defaultPath });
  // A review keeps or rejects edits by asking again with some set aside
  // (`skip`): on a page's main thread it must not wait for the second part.
  for (const skip of [[], [1], [2, 3]]) glue.applyEdits(files, reply, { format: spec.format, skip });
  // Streamed as the page and a model loop do: the format named and auto,
  // in chunks of a few bytes and of a line or so.
  for (const [given, chunk] of [[options, 17], [{}, 7], [{}, 64]]) {
    const stream = new glue.StreamParser(files, given);
    for (let at = 0; at < reply.length; at += chunk) stream.push(reply.slice(at, at + chunk));
    stream.finish();
    stream.free();
  }
  for (const text of [reply, ...Object.values(files)]) glue.estimateTokens(text, 'o200k_base');
  runs++;
}
if (runs < 100) throw new Error(`only ${runs} corpus cases of ${FIRST_PART_FORMATS.join(', ')}`);

// The profile is one byte a function and a header; a megabyte is ample.
const room = 1 << 20;
const at = wasm.__wbindgen_malloc(room, 1);
const size = wasm.__write_profile(at, room);
writeFileSync(out, new Uint8Array(wasm.memory.buffer, at, size));
console.log(`core-profile: ${runs} cases of ${FIRST_PART_FORMATS.join(', ')}, profile ${size} bytes`);
