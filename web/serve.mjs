// A small static server for the playground: serves web/ on 127.0.0.1 only,
// port from PORT (default 8080; 0 picks a free one), and prints its URL.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

const server = createServer(async (req, res) => {
  const send = (code, body, type = 'text/plain; charset=utf-8') => {
    res.writeHead(code, { 'Content-Type': type, 'Cache-Control': 'no-store' });
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
  // Decoded `..` or NUL could still leave web/: refuse anything outside it.
  if (path.includes('\0') || !file.startsWith(root + sep)) return send(403, 'forbidden\n');
  try {
    send(200, await readFile(file), types[extname(file)] ?? 'application/octet-stream');
  } catch {
    send(404, 'not found\n');
  }
});

server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
  console.log(`patchbay playground: http://127.0.0.1:${server.address().port}/`);
});
