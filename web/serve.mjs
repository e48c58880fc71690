// A small static server for the playground: serves the build folder web/dist
// (made by build.mjs) on 127.0.0.1 only (HOST may name another loopback
// address: the tests serve a second origin from 127.0.0.2), port from PORT
// (default 8080; 0 picks a free one), and prints its URL. Each file's precompressed twin
// (FILE.br, FILE.gz, written by the build) is sent to browsers that accept it.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), 'dist');
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.md': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** The encodings the request accepts, best first, that the build wrote. */
function encodings(req) {
  const accept = String(req.headers['accept-encoding'] ?? '');
  return [
    ['br', '.br'],
    ['gzip', '.gz'],
  ].filter(([name]) => new RegExp(`\\b${name}\\b(?!;q=0(\\.0*)?\\b)`).test(accept));
}

/** The file's bytes and encoding: a compressed twin when one is accepted and present. */
async function load(file, req) {
  for (const [name, suffix] of encodings(req)) {
    try {
      return { body: await readFile(file + suffix), encoding: name };
    } catch {
      // No twin for this encoding: try the next, then the file itself.
    }
  }
  return { body: await readFile(file), encoding: null };
}

// Cross-origin isolation: the page may then share memory with its worker,
// which hands the engine's answers over in the next animation frame
// (packages/patchbay/mailbox.js). `credentialless`, not `require-corp`:
// the model doctor's `no-cors` probe of a local model server (which sends
// no Cross-Origin-Resource-Policy) must still reach it. A browser without
// it is not isolated, and the answers come by message.
const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'credentialless' };

const server = createServer(async (req, res) => {
  const send = (code, body, type = 'text/plain; charset=utf-8', encoding = null, modified = null) => {
    // no-cache: the browser keeps the files but asks each time; unchanged ones cost a 304.
    const headers = { 'Content-Type': type, 'Cache-Control': 'no-cache', Vary: 'Accept-Encoding', ...ISOLATED };
    if (encoding) headers['Content-Encoding'] = encoding;
    if (modified) headers['Last-Modified'] = modified.toUTCString();
    res.writeHead(code, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
  let path;
  try {
    path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  } catch {
    return send(400, 'bad request\n');
  }
  if (path.endsWith('/')) path += 'index.html';
  const file = resolve(join(root, path));
  // Decoded `..` or NUL could still leave the build folder: refuse anything outside it.
  if (path.includes('\0') || !file.startsWith(root + sep)) return send(403, 'forbidden\n');
  try {
    const modified = new Date(Math.floor((await stat(file)).mtimeMs / 1000) * 1000);
    const since = Date.parse(req.headers['if-modified-since'] ?? '');
    if (since >= modified.getTime()) {
      res.writeHead(304, { 'Cache-Control': 'no-cache', Vary: 'Accept-Encoding', 'Last-Modified': modified.toUTCString(), ...ISOLATED });
      return res.end();
    }
    const { body, encoding } = await load(file, req);
    send(200, body, types[extname(file)] ?? 'application/octet-stream', encoding, modified);
  } catch {
    send(404, 'not found\n');
  }
});

const host = process.env.HOST ?? '127.0.0.1';
server.listen(Number(process.env.PORT ?? 8080), host, () => {
  console.log(`patchbay playground: http://${host}:${server.address().port}/`);
});
