// The connection doctor's rules under node, for the cases a test browser
// cannot produce: a page opened from file:// and a page on a public origin
// (Chrome's Local Network Access). The browser cases (not running, the 403
// origin, a missing model) run against the model-server double in
// model.test.mjs. `probe` stands in for the no-cors fetch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diagnose, originFix } from '../../web/src/model/doctor.js';

const network = new TypeError('Failed to fetch');
const base = 'http://localhost:11434';
const answers = async () => ({ type: 'opaque' });
const refuses = async () => {
  throw new TypeError('Failed to fetch');
};

test('a page opened from file:// is told to be served over http', async () => {
  const d = await diagnose(network, { base, origin: 'null', protocol: 'file:', model: 'm', probe: answers });
  assert.equal(d.kind, 'file-page');
  assert.match(d.fix[0], /over http/);
});

test('a public page that cannot reach a local server is Local Network Access', async () => {
  const d = await diagnose(network, { base, origin: 'https://example.org', protocol: 'https:', model: 'm', probe: answers });
  assert.equal(d.kind, 'local-network-access');
  assert.ok(d.fix.some((l) => l.includes('OLLAMA_ORIGINS=https://example.org ollama serve')));
});

test('a probe that gets through means the origin is refused; one that fails means nothing runs', async () => {
  const opts = { base, origin: 'http://127.0.0.2:8080', protocol: 'http:', model: 'm' };
  assert.equal((await diagnose(network, { ...opts, probe: answers })).kind, 'cors');
  const down = await diagnose(network, { ...opts, probe: refuses });
  assert.equal(down.kind, 'not-running');
  assert.match(down.fix[0], /ollama serve/);
  // An OpenAI-compatible server to start is named as such, with the base URL's port.
  const openai = await diagnose(network, { ...opts, base: 'http://127.0.0.1:8181', provider: 'openai', probe: refuses });
  assert.equal(openai.kind, 'not-running');
  assert.match(openai.fix[0], /llama-server -m MODEL\.gguf --port 8181, or LM Studio/);
});

test('a 404 names the ollama pull line; another status is the server\'s own message', async () => {
  const opts = { base, origin: 'http://localhost:8080', protocol: 'http:', model: 'qwen2.5-coder:7b', probe: answers };
  const d = await diagnose(new Error("HTTP 404: model 'qwen2.5-coder:7b' not found"), opts);
  assert.deepEqual([d.kind, d.fix], ['model-not-found', ['ollama pull qwen2.5-coder:7b']]);
  assert.equal((await diagnose(new Error('HTTP 500: out of memory'), opts)).kind, 'server-error');
});

test('the OLLAMA_ORIGINS lines cover systemd, launchctl, Windows and a plain ollama serve', () => {
  const lines = originFix('http://127.0.0.2:8080');
  assert.equal(lines.length, 4);
  assert.match(lines[0], /systemctl edit ollama.*Environment="OLLAMA_ORIGINS=http:\/\/127\.0\.0\.2:8080"/);
  assert.match(lines[1], /launchctl setenv OLLAMA_ORIGINS "http:\/\/127\.0\.0\.2:8080"/);
  assert.match(lines[2], /^Windows: .*OLLAMA_ORIGINS to http:\/\/127\.0\.0\.2:8080/);
  assert.equal(lines[3], 'A plain ollama serve: OLLAMA_ORIGINS=http://127.0.0.2:8080 ollama serve');
});
