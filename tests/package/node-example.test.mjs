// The README's node example, run against the installed package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installPackage } from './install.mjs';
import { examples } from './examples.mjs';

test('the README\'s node example runs and applies its edit', { timeout: 120_000 }, () => {
  const { dir } = installPackage();
  const file = join(dir, 'example.mjs');
  writeFileSync(file, examples().node);
  const out = execFileSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' });
  const lines = out.trim().split('\n');
  assert.equal(lines[0], 'def total(xs):');
  assert.equal(lines[1], '    return sum(xs) if xs else 0');
  assert.match(out, /^src\/app\.py applied \[ 2, 2 \]$/m);
  assert.equal(lines.at(-1), 'applied');
});

test('the README\'s EditLoop example runs as written against a local Ollama', { timeout: 120_000 }, async () => {
  const { createServer } = await import('node:http');
  const { execFile } = await import('node:child_process');
  const { dir } = installPackage();
  const file = join(dir, 'loop.mjs');
  writeFileSync(file, examples().loop);
  // A stand-in for Ollama's /api/chat: the reply streamed as NDJSON, in small pieces.
  const reply = 'app.py\n<<<<<<< SEARCH\n    print("hello")\n=======\n    print("hello, world")\n>>>>>>> REPLACE\n';
  const asked = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      asked.push([req.method, req.url, JSON.parse(body).model]);
      res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
      for (const content of reply.match(/[\s\S]{1,9}/g)) res.write(JSON.stringify({ message: { role: 'assistant', content }, done: false }) + '\n');
      res.end(JSON.stringify({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', eval_count: 12, eval_duration: 1e8 }) + '\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const env = { ...process.env, OLLAMA_HOST: `http://127.0.0.1:${server.address().port}` };
    const out = await new Promise((resolve, reject) =>
      execFile(process.execPath, [file], { cwd: dir, env, encoding: 'utf8' }, (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))));
    assert.deepEqual(asked, [['POST', '/api/chat', 'qwen2.5-coder:7b']]);
    assert.equal(out, 'done [ \'app.py\' ]\ndef greet():\n    print("hello, world")\n\n');
  } finally {
    server.close();
  }
});
