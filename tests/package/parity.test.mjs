// The installed package gives the native core's answers: on every corpus
// case, the same report (status, codes, levels, line ranges, contents,
// feedback), the case's expected files for applied cases, and a stream
// parser fed the reply in random chunks finishes with that same report.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installPackage, nativeReports, repo } from './install.mjs';

let pb, cases;
before(async () => {
  const installed = installPackage();
  pb = await import(installed.module('index.js'));
  pb.initSync();
  cases = nativeReports();
}, { timeout: 600_000 });

/** The files after a report: `before` with its new contents and deletions. */
function result(files, report) {
  const out = { ...files };
  for (const f of report.files) {
    if (f.status === 'deleted') delete out[f.path];
    else if (f.content !== undefined) out[f.path] = f.content;
  }
  return out;
}

test('the sample covers every format and at least 300 cases', () => {
  assert.ok(cases.length >= 300, `${cases.length} cases`);
  const formats = new Set(cases.map((c) => c.format));
  for (const f of pb.formats().filter((f) => f !== 'auto')) assert.ok(formats.has(f), `no case of ${f}`);
});

test('applyEdits gives the native report on every case', () => {
  let applied = 0;
  for (const c of cases) {
    const report = pb.applyEdits(c.files, c.reply, c.options);
    assert.deepEqual(report, c.report, c.case);
    if (c.after) {
      assert.deepEqual(result(c.files, report), c.after, `${c.case}: expected files`);
      applied++;
    }
  }
  assert.ok(applied > 100, `${applied} applied cases`);
});

/** A deterministic generator (mulberry32), so a failing chunking reproduces. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('the stream parser in random chunks finishes with applyEdits\' report', () => {
  let events = 0;
  cases.forEach((c, k) => {
    const next = random(k + 1);
    const parser = new pb.StreamParser(c.files, c.options);
    for (let at = 0; at < c.reply.length; ) {
      let n = 1 + Math.floor(next() * 64);
      // A decoder never splits a surrogate pair; neither do these chunks.
      if (/[\uD800-\uDBFF]/.test(c.reply[at + n - 1] ?? '')) n++;
      for (const e of parser.push(c.reply.slice(at, at + n))) {
        assert.equal(typeof e.receipt.index, 'number', c.case);
        events++;
      }
      at += n;
    }
    assert.deepEqual(parser.finish(), c.report, c.case);
    parser.free();
  });
  assert.ok(events > 0, 'no edit was judged early');
});

/**
 * A text whose line split and tags the package works out in its own code
 * (wasm's vector line ends): lines of every length around the 64-byte
 * blocks, `\n`, `\r\n` and lone `\r`, blank lines, non-ASCII and emoji.
 */
function splitText(seed, { bom, lastNewline }) {
  const next = random(seed);
  const pieces = ['a', ' ', '\t', 'é', '漢', '🦀', '{', ')', 'x', '\u00a0'];
  const ends = ['\n', '\n', '\n', '\r\n', '\r'];
  let text = bom ? '\ufeff' : '';
  for (let i = 0; i < 3000; i++) {
    const len = Math.floor(next() * next() * 200);
    for (let k = 0; k < len; k++) text += pieces[Math.floor(next() * pieces.length)];
    text += ends[Math.floor(next() * ends.length)];
  }
  return lastNewline ? text : `${text}tail`;
}

test('tagView gives the native view on texts that cross every block boundary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'patchbay-tags-'));
  try {
    [{ bom: false, lastNewline: true }, { bom: true, lastNewline: false }].forEach((shape, k) => {
      const text = splitText(k + 7, shape);
      const file = join(dir, `t${k}.txt`);
      writeFileSync(file, text);
      for (const len of [4, 8]) {
        const native = execFileSync('cargo', ['run', '-q', '-p', 'patchbay-cli', '--', 'tag', '--tag-len', String(len), file], {
          cwd: repo, maxBuffer: 1 << 28, encoding: 'utf8',
        });
        const view = pb.tagView(text, { len });
        assert.ok(view.split('\n').length > 2000, 'the view has the text\'s lines');
        assert.equal(view, native, `shape ${k}, tags of ${len}`);
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
