// The Outline button: lists the definitions of the file in the File box.
// The syntax module (tree-sitter grammars, about 1 MB gzipped) is its own
// bundle in pkg-syntax/; it is fetched the first time the button is pressed,
// never with the page. Clicking a symbol selects its lines in the File box.
const $ = (id) => document.getElementById(id);

let loading = null;

/** Loads and initialises the syntax module once. */
function syntaxModule() {
  loading ??= import('./pkg-syntax/patchbay_syntax_wasm.js').then(async (m) => {
    await m.default();
    return m;
  });
  return loading;
}

/** UTF-8 byte offset in `text` to a JS string (UTF-16) index. */
function charIndex(text, byte) {
  const bytes = new TextEncoder().encode(text);
  return new TextDecoder().decode(bytes.subarray(0, byte)).length;
}

/** The offset where 1-based `line` starts. */
function lineStart(text, line) {
  let at = 0;
  for (let i = 1; i < line && at !== -1; i++) at = text.indexOf('\n', at) + 1 || -1;
  return at === -1 ? text.length : at;
}

function show(outline, text) {
  const list = $('outline');
  list.replaceChildren();
  for (const s of outline.symbols) {
    const item = document.createElement('li');
    item.dataset.testid = 'outline-symbol';
    item.dataset.kind = s.kind;
    item.dataset.lines = `${s.lines[0]}-${s.lines[1]}`;
    item.style.paddingLeft = `${s.depth * 1.2}em`;
    const kind = document.createElement('span');
    kind.className = 'muted';
    kind.textContent = `${s.kind} `;
    const name = document.createElement('button');
    name.type = 'button';
    name.className = 'link';
    name.textContent = s.qualified;
    name.title = `lines ${s.lines[0]}-${s.lines[1]}`;
    name.addEventListener('click', () => {
      const file = $('file');
      file.focus();
      file.setSelectionRange(lineStart(text, s.lines[0]), charIndex(text, s.span.bytes[1]));
    });
    item.append(kind, name, ` ${s.lines[0]}-${s.lines[1]}`);
    list.append(item);
  }
  $('outline-note').textContent = `${outline.symbols.length} symbols (${outline.language})`;
}

async function outline() {
  const panel = $('outline-panel');
  panel.hidden = false;
  $('outline-note').textContent = 'Loading the syntax module...';
  $('outline').replaceChildren();
  try {
    const syntax = await syntaxModule();
    const text = $('file').value;
    show(syntax.outline($('path').value.trim(), text), text);
    panel.dataset.state = 'ready';
  } catch (e) {
    $('outline-note').textContent = `No outline: ${e?.message ?? e}`;
    panel.dataset.state = 'error';
  }
}

$('outline-button').addEventListener('click', outline);
