// What the real-server tests share: llama.cpp's llama-server (built and cached
// by scripts/llama-server.sh) started on a free loopback port with the small
// instruct model, its log kept, and the patchbay CLI run against it.
// scripts/real-server-test.sh sets LLAMA_SERVER, LLAMA_MODEL and PATCHBAY_BIN.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The environment the script sets; a missing one is an error, not a skip. */
export function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run scripts/real-server-test.sh`);
  return v;
}

/** A port nothing listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts llama-server: 4,096 tokens of context, 2 threads, greedy decoding by
 * default (`--temp 0`, a fixed seed), `/slots` and `/metrics` on. Resolves
 * once `/health` answers 200.
 */
export async function startLlama() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const args = ['-m', env('LLAMA_MODEL'), '--host', '127.0.0.1', '--port', String(port), '-c', '4096', '-t', '2',
    '--temp', '0', '--seed', '1', '--no-webui', '--metrics', '--slots'];
  const child = spawn(env('LLAMA_SERVER'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const server = { child, base, port, log: '', exited: null };
  for (const s of [child.stdout, child.stderr]) s.on('data', (d) => { server.log += d; });
  child.on('exit', (code, signal) => { server.exited = { code, signal }; });
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (server.exited) throw new Error(`llama-server exited (${JSON.stringify(server.exited)}):\n${server.log.slice(-2000)}`);
    try {
      if ((await fetch(`${base}/health`)).status === 200) return server;
    } catch { /* not listening yet */ }
    await sleep(200);
  }
  child.kill('SIGKILL');
  throw new Error(`llama-server did not become healthy in 120 s:\n${server.log.slice(-2000)}`);
}

/** Stops the server and waits for it to exit. */
export async function stopLlama(server) {
  if (!server || server.exited) return;
  const gone = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

/** The chat requests that reached the server: the tasks its log shows a slot taking. */
export function chatsLogged(server) {
  return (server.log.match(/launch_slot_: id +\d+ \| task \d+ \| processing task/g) ?? []).length;
}

/** The server's counters (`GET /metrics`, Prometheus text), by name without the `llamacpp:` prefix. */
export async function metrics(server) {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  const out = {};
  for (const m of text.matchAll(/^llamacpp:(\w+) ([\d.e+-]+)$/gm)) out[m[1]] = Number(m[2]);
  return out;
}

/** The server's slots (`GET /slots`): which are generating. */
export async function slots(server) {
  return (await fetch(`${server.base}/slots`)).json();
}

/** A fresh folder with `files` ({path: text}); `remove()` deletes it. */
export function sandbox(files) {
  const dir = mkdtempSync(join(tmpdir(), 'patchbay-real-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs the CLI; resolves with its exit code or signal and its output.
 * `onStderr(text so far, child)` hears its progress (to stop it mid-run).
 */
export function patchbay(args, { cwd, onStderr, timeoutMs = 300_000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(env('PATCHBAY_BIN'), args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => {
      stderr += d;
      onStderr?.(stderr, child);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, shown: `exit ${code} ${signal ?? ''}\nstdout:\n${stdout}\nstderr:\n${stderr}` });
    });
  });
}
