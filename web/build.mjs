// Bundles the playground: web/src -> web/dist, served by serve.mjs.
// esbuild bundles the page (src/main.js) and the engine's worker
// (src/engine/worker.js) as ES modules with code splitting, so optional
// parts (languages, the syntax and exact-tokens modules) are chunks fetched
// on first use. The engine is the npm package `patchbay` (a dependency on
// packages/patchbay, built by scripts/build-package.sh); its .wasm files
// are copied in beside the page, where the worker fetches them, and every file gets a .br and .gz twin the server sends to
// browsers that accept them. `node build.mjs --watch` rebuilds on change.
// The arena's task set (tests/arena/tasks, the CLI's `--tasks`) is bundled
// as the module `arena-tasks`, a chunk the page imports when the user picks
// it: it is the page's measuring data, not the package's (whose users bring
// their own tasks), and one folder stays its only source.
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { FILE_PAGE } from './src/model/doctor.js';

const web = dirname(fileURLToPath(import.meta.url));
const dist = join(web, 'dist');
const watch = process.argv.includes('--watch');

/** The package's wasm modules (and only them: their JS glue is bundled), by the folder the page fetches them from. */
const WASM = [
  ['pkg', 'core/patchbay_wasm_bg.wasm'],
  ['pkg', 'core/patchbay_wasm_rest.wasm'],
  ['pkg-syntax', 'syntax/patchbay_syntax_wasm_bg.wasm'],
  ['pkg-tokens', 'tokens/patchbay_tokens_wasm_bg.wasm'],
];

function copyStatic() {
  const pkg = join(web, 'node_modules', 'patchbay');
  for (const [dir, path] of WASM) {
    const from = join(pkg, path);
    const file = path.split('/').pop();
    if (!existsSync(from)) throw new Error(`patchbay/${path} is missing: run scripts/build-web.sh`);
    mkdirSync(join(dist, dir), { recursive: true });
    cpSync(from, join(dist, dir, file));
  }
  cpSync(join(web, 'src', 'favicon.svg'), join(dist, 'favicon.svg'));
  writeFileSync(join(dist, 'index.html'), withFileDiagnosis(readFileSync(join(web, 'src', 'index.html'), 'utf8')));
  mkdirSync(join(dist, 'examples', 'codemirror'), { recursive: true });
  cpSync(join(web, 'examples', 'codemirror', 'index.html'), join(dist, 'examples', 'codemirror', 'index.html'));
  // The measurements the page links to.
  const bench = join(web, '..', 'docs', 'benchmarks.md');
  if (existsSync(bench)) {
    mkdirSync(join(dist, 'docs'), { recursive: true });
    cpSync(bench, join(dist, 'docs', 'benchmarks.md'));
  }
}

const escape = (text) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/**
 * The page with the doctor's file:// diagnosis in it, hidden, and an inline
 * (classic) script that shows it on a file:// page: there Chromium runs no
 * module script, so this is all the user would see besides the empty page.
 */
function withFileDiagnosis(html) {
  const fix = FILE_PAGE.fix.map((line) => `<li>${escape(line)}</li>`).join('');
  const block = `<div id="file-page" data-testid="file-page" data-kind="${FILE_PAGE.kind}" class="card warning" role="alert" hidden>`
    + `<p>${escape(FILE_PAGE.text)}</p><ul>${fix}</ul></div>\n`
    + `  <script>if (location.protocol === 'file:') document.getElementById('file-page').hidden = false;</script>`;
  if (!html.includes('<!-- file-page -->')) throw new Error('index.html lacks the <!-- file-page --> mark');
  return html.replace('<!-- file-page -->', block);
}

/** Every file under `dir` by its `/`-separated path relative to it. */
function tree(dir, prefix = '', out = {}) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) tree(path, `${prefix}${name}/`, out);
    else out[`${prefix}${name}`] = readFileSync(path, 'utf8');
  }
  return out;
}

/** The arena's tasks as the CLI reads them: task.json's text, before/ and after/ (before/ when absent), by folder name. */
function arenaTasks(dir) {
  return readdirSync(dir).sort().filter((name) => existsSync(join(dir, name, 'task.json'))).map((name) => {
    const { task } = JSON.parse(readFileSync(join(dir, name, 'task.json'), 'utf8'));
    const before = tree(join(dir, name, 'before'));
    const after = existsSync(join(dir, name, 'after')) ? tree(join(dir, name, 'after')) : before;
    return { name, task, before, after };
  });
}

const TASKS = join(web, '..', 'tests', 'arena', 'tasks');

/** `import('arena-tasks')`: the task set, read at build time. */
const arenaTasksPlugin = {
  name: 'arena-tasks',
  setup(build) {
    build.onResolve({ filter: /^arena-tasks$/ }, () => ({ path: TASKS, namespace: 'arena-tasks' }));
    build.onLoad({ filter: /.*/, namespace: 'arena-tasks' }, () => ({
      contents: `export default ${JSON.stringify(arenaTasks(TASKS))};`,
      loader: 'js',
      watchDirs: [TASKS],
    }));
  },
};

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (!/\.(br|gz)$/.test(name)) yield path;
  }
}

/** Writes FILE.br and FILE.gz; brotli's best level is slow on the 10 MB grammars, so big files get a faster one. */
function compressAll() {
  let first = 0;
  for (const path of files(dist)) {
    const data = readFileSync(path);
    const quality = data.length > 2_000_000 ? 6 : 11;
    writeFileSync(`${path}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } }));
    writeFileSync(`${path}.gz`, gzipSync(data, { level: 9 }));
    first += data.length;
  }
  return first;
}

const options = {
  entryPoints: {
    app: join(web, 'src', 'main.js'),
    'engine-worker': join(web, 'src', 'engine', 'worker.js'),
    'examples/codemirror/example': join(web, 'examples', 'codemirror', 'example.js'),
    'examples/codemirror/worker': join(web, 'examples', 'codemirror', 'worker.js'),
  },
  outdir: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  target: 'es2022',
  minify: !watch,
  sourcemap: watch ? 'inline' : false,
  chunkNames: 'chunks/[name]-[hash]',
  loader: { '.css': 'css' },
  logLevel: 'warning',
  metafile: true,
  plugins: [arenaTasksPlugin],
  // The package is a link to packages/patchbay: its imports of @codemirror/*
  // (patchbay/codemirror's peer dependencies) resolve to the page's copies,
  // one instance of each, as an installed package's would.
  nodePaths: [join(web, 'node_modules')],
};

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
copyStatic();
if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  console.log('build: watching web/src');
} else {
  const result = await esbuild.build(options);
  writeFileSync(join(dist, 'meta.json'), JSON.stringify(result.metafile));
  const bytes = compressAll();
  console.log(`build: web/dist, ${Object.keys(result.metafile.outputs).length} bundles, ${bytes} bytes before compression`);
}
