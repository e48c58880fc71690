// The syntax module (tree-sitter grammars) in node, through the generated JS:
// outlines of real inputs with exact names, kinds and lines; slice, splice,
// applyToSlice and parseCheck. Needs `scripts/build-web.sh` (web/pkg-syntax).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

const pkg = new URL('../../web/pkg-syntax/', import.meta.url);
if (!existsSync(new URL('patchbay_syntax_wasm_bg.wasm', pkg))) throw new Error('web/pkg-syntax is missing: run scripts/build-web.sh');
const syntax = await import(new URL('patchbay_syntax_wasm.js', pkg));
// applyToSlice composes the syntax module with the core module: the
// package's entry (scripts/build-package.sh builds it with the page's).
const composed = await import(new URL('../../packages/patchbay/syntax.js', import.meta.url));

before(() => {
  syntax.initSync({ module: readFileSync(new URL('patchbay_syntax_wasm_bg.wasm', pkg)) });
  composed.initSync();
});

const RUST = [
  '/// A greeter.',
  '#[derive(Debug)]',
  'pub struct Greeter {',
  '    name: String,',
  '}',
  '',
  'impl Greeter {',
  '    /// Says hello.',
  '    pub fn hello(&self) -> String {',
  '        format!("Hello, {}", self.name)',
  '    }',
  '}',
  '',
  'mod util {',
  '    pub fn shout(s: &str) -> String {',
  '        s.to_uppercase()',
  '    }',
  '}',
  '',
].join('\n');

const PYTHON = [
  'import functools',
  '',
  '',
  'class Outer:',
  '    """Holds an inner class."""',
  '',
  '    class Inner:',
  '        @staticmethod',
  '        def method(x):',
  '            return x * 2',
  '',
  '',
  '@functools.cache',
  'def top(n):',
  '    return Outer.Inner.method(n)',
  '',
].join('\n');

const rows = (o) => o.symbols.map((s) => [s.qualified, s.kind, s.lines, s.depth]);

test('outlines a Rust file: names, kinds, lines (doc comments and attributes included)', () => {
  const o = syntax.outline('src/lib.rs', RUST);
  assert.equal(o.language, 'rust');
  assert.deepEqual(rows(o), [
    ['Greeter', 'struct', [1, 5], 0],
    ['impl Greeter', 'impl', [7, 12], 0],
    ['Greeter::hello', 'method', [8, 11], 1],
    ['util', 'module', [14, 18], 0],
    ['util::shout', 'function', [15, 17], 1],
  ]);
  const hello = o.symbols[2];
  assert.equal(hello.name, 'hello');
  assert.deepEqual(hello.span.lines, [9, 11]);
  assert.deepEqual(hello.leading.lines, [8, 8]);
  assert.equal(hello.parent, 1);
  // Byte ranges index the text.
  assert.ok(RUST.slice(hello.span.bytes[0], hello.span.bytes[1]).startsWith('pub fn hello'));
  assert.equal(Object.getPrototypeOf(o), Object.prototype);
});

test('outlines a Python file: nested classes, decorators', () => {
  const o = syntax.outline('app.py', PYTHON);
  assert.equal(o.language, 'python');
  assert.deepEqual(rows(o), [
    ['Outer', 'class', [4, 10], 0],
    ['Outer.Inner', 'class', [7, 10], 1],
    ['Outer.Inner.method', 'method', [8, 10], 2],
    ['top', 'function', [13, 15], 0],
  ]);
  assert.deepEqual(o.symbols[2].leading.lines, [8, 8], 'the decorator leads the method');
  assert.deepEqual(syntax.sections('app.py', PYTHON)[3], { name: 'top', kind: 'function', startLine: 13, endLine: 15 });
});

test('slice, edit, splice: the file changes only there; a changed file is refused', () => {
  const s = syntax.slice('src/lib.rs', RUST, 'hello');
  assert.equal(s.symbol, 'Greeter::hello');
  assert.deepEqual(s.lines, [8, 11]);
  assert.equal(s.indent, '    ');
  assert.equal(s.text, '/// Says hello.\npub fn hello(&self) -> String {\n    format!("Hello, {}", self.name)\n}\n');
  const edited = s.text.replace('Hello', 'Hi');
  assert.equal(syntax.splice(RUST, s, edited), RUST.replace('"Hello, {}"', '"Hi, {}"'));
  assert.throws(() => syntax.splice(RUST + '\n', s, edited), (e) => e instanceof Error && /^stale_slice: /.test(e.message));
});

test('applyToSlice: a SEARCH/REPLACE reply against the slice lands in the file with mapped lines', () => {
  const s = syntax.slice('src/lib.rs', RUST, 'Greeter::hello');
  const reply = 'src/lib.rs\n<<<<<<< SEARCH\n    format!("Hello, {}", self.name)\n=======\n    format!("Hey, {}!", self.name)\n>>>>>>> REPLACE\n';
  const { report, text } = composed.applyToSlice(RUST, s, reply, { format: 'search-replace' });
  assert.equal(report.status, 'applied');
  assert.equal(text, RUST.replace('"Hello, {}"', '"Hey, {}!"'));
  assert.deepEqual(report.files[0].edits[0].lines, [10, 10], 'line 3 of the slice is line 10 of the file');
});

test('parseCheck reports only the errors an edit introduced', () => {
  const broken = PYTHON.replace('def top(n):', 'def top(n)');
  const issues = syntax.parseCheck('app.py', PYTHON, broken);
  assert.equal(issues.length, 1);
  // The broken definition starts with its decorator, on line 13.
  assert.deepEqual(issues[0].lines, [13, 15]);
  assert.deepEqual(syntax.parseCheck('app.py', broken, broken), []);
});

test('languages, and errors that carry their code', () => {
  assert.deepEqual(syntax.languages(), ['rust', 'python', 'javascript', 'typescript', 'tsx', 'go', 'java', 'c', 'cpp']);
  assert.throws(() => syntax.outline('notes.txt', 'x'), (e) => e instanceof Error && /^unknown_language: /.test(e.message));
  assert.equal(syntax.outline('notes.txt', 'def f():\n    pass\n', 'python').symbols[0].qualified, 'f');
  assert.throws(() => syntax.slice('a.py', PYTHON, 'nope'), (e) => /^symbol_not_found: /.test(e.message));
});
