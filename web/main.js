// The playground: reads the inputs, calls the wasm module, shows the report.
// Plain DOM code on purpose; nothing is loaded from the network.
import init, { applyEdits, detectFormat, formats } from './pkg/patchbay_wasm.js';
import { hideUdiff, showUdiff } from './udiff.js';

const $ = (id) => document.getElementById(id);

const FILE = [
  '"""Greets people."""',
  '',
  '',
  'def greet(name):',
  '    name = name.strip()',
  '    print("Hello, " + name)',
  '',
  '',
  'def farewell(name):',
  '    name = name.strip()',
  '    print("Goodbye, " + name)',
  '',
  '',
  'if __name__ == "__main__":',
  '    greet("world")',
  '',
].join('\n');

const fence = '```';
const block = (search, replace) =>
  ['src/app.py', `${fence}python`, '<<<<<<< SEARCH', ...search, '=======', ...replace, '>>>>>>> REPLACE', fence];

// Each example is a reply to FILE, or to its own `file` at `path`.
const EXAMPLES = [
  {
    label: 'Example: an edit that applies',
    reply: [
      'Use an f-string and type hints in `greet`:',
      '',
      ...block(
        ['def greet(name):', '    name = name.strip()', '    print("Hello, " + name)'],
        ['def greet(name: str) -> None:', '    name = name.strip()', '    print(f"Hello, {name}!")'],
      ),
    ],
  },
  {
    label: 'Example: SEARCH text not in the file',
    reply: [
      'Rename the parameter:',
      '',
      ...block(['def greet(person):', '    print("Hello, " + person)'], ['def greet(who):', '    print("Hello, " + who)']),
    ],
  },
  {
    label: 'Example: ambiguous SEARCH text',
    reply: [
      'Capitalise names:',
      '',
      ...block(['    name = name.strip()'], ['    name = name.strip().title()']),
    ],
  },
  {
    label: 'Example: a reply that was cut off',
    reply: ['src/app.py', `${fence}python`, '<<<<<<< SEARCH', 'def farewell(name):', '=======', 'def farewell(name: str'],
  },
  {
    label: 'Example: whole-file rewrite',
    reply: [
      'Here is the whole file:',
      '',
      'src/app.py',
      `${fence}python`,
      '"""Greets people."""',
      '',
      '',
      'def greet(name: str) -> None:',
      '    print(f"Hello, {name.strip()}!")',
      '',
      '',
      'if __name__ == "__main__":',
      '    greet("world")',
      fence,
    ],
  },
  {
    label: 'Example: a unified diff with wrong numbers and a lost space',
    reply: [
      'Capitalise the greeting:',
      '',
      `${fence}diff`,
      '--- a/src/app.py',
      '+++ b/src/app.py',
      '@@ -14,3 +14,3 @@',
      ' def greet(name):',
      '    name = name.strip()',
      '-    print("Hello, " + name)',
      '+    print("Hello, " + name.title())',
      fence,
    ],
  },
  {
    label: 'Example: a unified diff GNU patch would misapply',
    // Two look-alike functions and a wrong line number: with fuzz 2, patch
    // drops the two top context lines and edits `net` instead of `gross`.
    path: 'src/prices.py',
    file: [
      'import math',
      '',
      'def net(amount):',
      '    value = amount * 1.0',
      '    return round(value, 2)',
      '',
      'def gross(amount):',
      '    value = amount * 1.0',
      '    return round(value, 2)',
      '',
      'def tax(amount):',
      '    return gross(amount) - net(amount)',
      '',
    ].join('\n'),
    reply: [
      'Add the 20% tax in `gross`:',
      '',
      `${fence}diff`,
      '--- a/src/prices.py',
      '+++ b/src/prices.py',
      '@@ -2,5 +2,5 @@',
      ' ',
      ' def gross(amount):',
      '     value = amount * 1.0',
      '-    return round(value, 2)',
      '+    return round(value * 1.2, 2)',
      ' ',
      fence,
    ],
  },
].map((e) => ({ ...e, reply: e.reply.join('\n') + '\n' }));

function setStatus(text, kind) {
  const s = $('status');
  s.textContent = text;
  s.className = `badge ${kind ?? text}`;
}

function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text ?? '';
  if (cls) td.className = cls;
  return td;
}

function showReceipts(report) {
  const body = $('receipts').tBodies[0];
  body.replaceChildren();
  const receipts = report.files.flatMap((f) => f.edits);
  receipts.sort((a, b) => a.index - b.index);
  for (const r of receipts) {
    const row = body.insertRow();
    row.dataset.testid = 'receipt';
    row.dataset.status = r.status;
    if (r.code) row.dataset.code = r.code;
    cell(row, String(r.index), 'index');
    cell(row, r.status, `status ${r.status}`);
    cell(row, r.code, 'code');
    cell(row, r.strategy, 'strategy');
    cell(row, r.lines ? `${r.lines[0]}-${r.lines[1]}` : '', 'lines');
    cell(row, r.message, 'message');
  }
  if (receipts.length === 0) {
    const row = body.insertRow();
    const td = cell(row, report.code ? `no edit receipts (${report.code})` : 'no edits', 'empty');
    td.colSpan = 6;
  }
}

function apply() {
  const path = $('path').value.trim();
  const before = $('file').value;
  const format = $('format').value;
  const options = { format, partial: $('partial').checked, defaultPath: path || null };
  const files = path ? { [path]: before } : {};
  let report;
  try {
    report = applyEdits(files, $('reply').value, options);
  } catch (e) {
    setStatus('error');
    $('format-used').textContent = '';
    $('note').textContent = 'The request itself was rejected.';
    $('result').textContent = '';
    $('receipts').tBodies[0].replaceChildren();
    $('feedback').textContent = String(e?.message ?? e);
    hideUdiff();
    return;
  }
  setStatus(report.status);
  const detected = format === 'auto' ? detectFormat($('reply').value) : null;
  $('format-used').textContent = `format: ${report.format}${detected ? ' (detected)' : ''}`;
  $('format-used').title = detected ? detected.reason : '';

  const mine = report.files.find((f) => f.path === path);
  if (report.status === 'applied' && mine?.content !== undefined) {
    $('result').textContent = mine.content;
    $('note').textContent = `${path}, ${mine.status}:`;
  } else {
    $('result').textContent = before;
    $('note').textContent =
      report.status === 'applied' ? `${path} was not touched by this reply.` : `Nothing was applied; ${path} is unchanged:`;
  }
  const others = report.files.filter((f) => f.path !== path).map((f) => `${f.path} (${f.status})`);
  if (others.length > 0) $('note').textContent += ` Other files in the reply: ${others.join(', ')}.`;
  showReceipts(report);
  $('feedback').textContent = report.feedback;
  showUdiff(files, $('reply').value, report.format);
}

function setup() {
  $('file').value = FILE;
  for (const [i, e] of EXAMPLES.entries()) $('example').add(new Option(e.label, String(i)));
  $('reply').value = EXAMPLES[0].reply;
  $('example').addEventListener('change', () => {
    const e = EXAMPLES[Number($('example').value)];
    $('file').value = e.file ?? FILE;
    $('path').value = e.path ?? 'src/app.py';
    $('reply').value = e.reply;
  });
}

async function main() {
  setup();
  try {
    await init();
  } catch (e) {
    setStatus('error');
    $('note').textContent = `Could not load the WebAssembly module (build it with scripts/build-web.sh): ${e}`;
    return;
  }
  const names = formats();
  // `auto` first: it is the default.
  for (const name of ['auto', ...names.filter((n) => n !== 'auto')]) $('format').add(new Option(name, name));
  $('format-list').textContent = names.filter((n) => n !== 'auto').join(', ');
  $('apply').addEventListener('click', apply);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) apply();
  });
  $('apply').disabled = false;
  setStatus('ready', 'idle');
  $('note').textContent = 'Press Apply to run the reply against the file.';
  document.body.dataset.ready = 'true';
}

main();
