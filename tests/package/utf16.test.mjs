// Receipts and outline symbols carry UTF-16 offsets (`from`, `to`) into the
// original text; the expected values come from JS's own string indexing.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { installPackage } from './install.mjs';

let pb, syntax;
before(async () => {
  const installed = installPackage();
  pb = await import(installed.module('index.js'));
  syntax = await import(installed.module('syntax.js'));
  await syntax.default();
}, { timeout: 120_000 });

const text = '# 漢字のメモ 🎉🎉\r\nx = "😀"\r\ny = 2\r\nz = 3\r\nw = "末尾"\r\n';

test('receipts locate their lines in UTF-16 offsets (emoji, CJK, CRLF)', () => {
  const reply = [
    'a.py', '```', '<<<<<<< SEARCH', 'y = 2', 'z = 3', '=======', 'y = 20', 'z = 30', '>>>>>>> REPLACE', '```',
    'a.py', '```', '<<<<<<< SEARCH', 'w = "末尾"', '=======', 'w = "終"', '>>>>>>> REPLACE', '```', '',
  ].join('\n');
  const report = pb.applyEdits({ 'a.py': text }, reply);
  assert.equal(report.status, 'applied');
  const [first, second] = report.files[0].edits;
  assert.deepEqual(first.lines, [3, 4]);
  assert.equal(first.from, text.indexOf('y = 2'));
  assert.equal(first.to, text.indexOf('w = '));
  assert.equal(text.slice(first.from, first.to), 'y = 2\r\nz = 3\r\n');
  assert.deepEqual([second.from, second.to], [text.indexOf('w = '), text.length]);
});

test('an insertion is an empty range where its line starts', () => {
  const reply = '<<<<<<< SEARCH\n=======\nv = 0\n>>>>>>> REPLACE\n';
  const report = pb.applyEdits({ 'a.py': text }, reply, { defaultPath: 'a.py' });
  const r = report.files[0].edits[0];
  assert.equal(r.status, 'applied');
  assert.equal(r.from, r.to);
  assert.equal(r.from, text.length);
});

test('the stream parser\'s early receipts carry the same offsets', () => {
  const reply = 'a.py\n```\n<<<<<<< SEARCH\nx = "😀"\n=======\nx = "🙂"\n>>>>>>> REPLACE\n```\n';
  const p = new pb.StreamParser({ 'a.py': text });
  const [e] = p.push(reply);
  assert.equal(e.receipt.from, text.indexOf('x = '));
  assert.equal(e.receipt.to, text.indexOf('y = 2'));
  p.free();
});

test('outline symbols carry UTF-16 offsets of their definitions', () => {
  const src = '"""🎉 模块 docs"""\r\n\r\ndef grüß(x):\r\n    return "日本"\r\n\r\nclass 🙂Box:\r\n    pass\r\n';
  const ascii = 'src = "漢字"\n\ndef f():\n    return 1\n';
  const o = syntax.outline('m.py', ascii);
  const f = o.symbols.find((s) => s.name === 'f');
  assert.equal(ascii.slice(f.from, f.to), 'def f():\n    return 1');
  const o2 = syntax.outline('m.py', src);
  const g = o2.symbols.find((s) => s.name === 'grüß');
  assert.equal(src.slice(g.from, g.to), 'def grüß(x):\r\n    return "日本"');
});

test('applyToSlice edits one symbol through the core module', () => {
  const src = 'import os\n\ndef top():\n    return 1\n\ndef other():\n    return 2\n';
  const s = syntax.slice('m.py', src, 'top');
  const reply = '<<<<<<< SEARCH\n    return 1\n=======\n    return 10\n>>>>>>> REPLACE\n';
  const { report, text: out } = syntax.applyToSlice(src, s, reply);
  assert.equal(report.status, 'applied');
  assert.equal(out, src.replace('return 1', 'return 10'));
  assert.deepEqual(report.files[0].edits[0].lines, [4, 4]);
  assert.equal(report.files[0].edits[0].from, src.indexOf('    return 1'));
});

// The glue hands strings to the module with one native encodeInto sized for
// ASCII, and encodes the rest when a character does not fit
// (scripts/glue-strings.mjs). The tag view gives each line back after its
// tag, so what the module received can be read off it.
test('strings reach the module whole: ASCII, non-ASCII at any place, long, lone surrogates', () => {
  const cases = [
    '',
    'plain ascii\n',
    'é first\nthen ascii\n',
    'ascii then é\n',
    `${'x'.repeat(100_000)}🎉\nend 漢字\n`,
    '🎉'.repeat(5000) + '\n',
    `mixed ${'ü'.repeat(300)} and ${'a'.repeat(700)} 末尾\n`,
    'lone \ud800 surrogate\n',
    // Around the glue's short-string loop (up to 64 UTF-16 units): all ASCII, a non-ASCII last unit, a pair cut by the edge.
    `${'a'.repeat(63)}\n`,
    `${'a'.repeat(62)}ö\n`,
    `${'a'.repeat(63)}é\n`,
    `${'a'.repeat(61)}🎉\n`,
    `${'a'.repeat(62)}🎉\n`,
    '🎉\n',
  ];
  for (const text of cases) {
    const lines = pb.tagView(text, { len: 2 }).split('\n').filter((l) => l !== '');
    const got = lines.map((l) => l.replace(/^\d+:[A-Za-z0-9_-]{2} /, '')).join('\n');
    // What TextEncoder makes of the string: a lone surrogate becomes U+FFFD.
    const want = new TextDecoder().decode(new TextEncoder().encode(text)).replace(/\n$/, '');
    assert.equal(got, want, JSON.stringify(text.slice(0, 40)));
  }
});

/** The text as CodeMirror holds it: every `\r\n` one `\n`, here with a BOM dropped as Monaco does. */
const editorText = (t) => t.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
/** A position's offset in that text, the way CodeMirror's `doc.line(n).from + col` finds it. */
function editorOffset(t, { line, col }) {
  const lines = editorText(t).split('\n');
  assert.ok(line >= 1 && line <= lines.length && col <= lines[line - 1].length, `${line}:${col} is off the text`);
  return lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + col;
}
/** A raw offset as the editor counts it: the BOM and the `\r` of each `\r\n` before it taken out. */
const asEditor = (t, offset) => editorText(t.slice(0, offset)).length;

for (const [kind, file] of [
  ['CRLF', text],
  ['mixed, BOM, no final newline', '\uFEFF# 漢字\r\nx = "😀"\ny = 2\r\nz = 3\nw = "e\u0301"'],
]) {
  test(`positions place every receipt in the editor's text (${kind})`, () => {
    const reply = [
      'a.py', '<<<<<<< SEARCH', 'y = 2', '=======', 'y = "🎉"', 'y2 = 0', '>>>>>>> REPLACE',
      'a.py', '<<<<<<< SEARCH', file.includes('末尾') ? 'w = "末尾"' : 'w = "e\u0301"', '=======', 'w = 1', '>>>>>>> REPLACE',
      'a.py', '<<<<<<< SEARCH', 'z = 3', 'w = "zzz"', '=======', 'x = 1', '>>>>>>> REPLACE', '',
    ].join('\n');
    const report = pb.applyEdits({ 'a.py': file }, reply, { partial: true });
    const content = report.files[0].content;
    const [first, second, missed] = report.files[0].edits;
    for (const r of [first, second]) {
      assert.equal(r.status, 'applied');
      assert.equal(editorOffset(file, r.fromPos), asEditor(file, r.from));
      assert.equal(editorOffset(file, r.toPos), asEditor(file, r.to));
      assert.equal(editorOffset(content, r.resultFromPos), asEditor(content, r.resultFrom));
      assert.equal(editorOffset(content, r.resultToPos), asEditor(content, r.resultTo));
    }
    const edited = editorText(content);
    assert.equal(edited.slice(editorOffset(content, first.resultFromPos), editorOffset(content, first.resultToPos)), 'y = "🎉"\ny2 = 0\n');
    assert.equal(first.fromPos.line, editorText(file).split('\n').indexOf('y = 2') + 1);
    // The missed edit's closest region is data: lines 4-5, differing on line 5 after `w = "` (5 units).
    assert.equal(missed.code, 'not_found');
    const c = missed.closest;
    assert.deepEqual(c.lines, [4, 5]);
    assert.deepEqual(c.fromPos, { line: 4, col: 0 });
    assert.equal(editorOffset(file, c.toPos), asEditor(file, c.to));
    assert.equal(file.slice(c.from, c.to).replace(/\r\n/g, '\n').replace(/\n$/, ''), editorText(file).split('\n').slice(3, 5).join('\n'));
    assert.deepEqual(c.firstDifference, { fileLine: 5, fileCol: 5, editLine: 2, editCol: 5 });
  });
}

test('the message for an edit without a file names what a JS caller sets', () => {
  const report = pb.applyEdits({ 'a.py': text }, '<<<<<<< SEARCH\ny = 2\n=======\ny = 3\n>>>>>>> REPLACE\n', { format: 'search-replace' });
  const r = report.files[0]?.edits[0] ?? report;
  assert.match(r.message ?? report.feedback, /defaultPath/);
  assert.doesNotMatch(r.message ?? report.feedback, /pass --file/);
});
