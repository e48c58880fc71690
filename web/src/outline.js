// Outline and slice: the file's definitions (the syntax module, tree-sitter
// grammars, loads in the engine's worker the first time), a click scrolls
// to one; "slice" cuts a symbol out to send alone, and a reply written
// against the slice (any format) is applied to it and spliced back into
// the whole file.
const $ = (id) => document.getElementById(id);

function symbolItem(s, onGo, onSlice) {
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
  name.title = `lines ${s.lines[0]}-${s.lines[1]}: show in the file`;
  name.addEventListener('click', () => onGo(s));
  const slice = document.createElement('button');
  slice.type = 'button';
  slice.className = 'secondary small';
  slice.dataset.testid = 'slice-button';
  slice.textContent = 'slice';
  slice.title = 'Send only this symbol';
  slice.addEventListener('click', () => onSlice(s));
  item.append(kind, name, ` ${s.lines[0]}-${s.lines[1]} `, slice);
  return item;
}

export function setupOutline({ engine, files, fileEditor, selectLines, setText }) {
  const panel = $('outline-panel');
  let current = null;
  const clear = () => {
    $('outline').replaceChildren();
    $('outline-note').textContent = '';
    $('slice-box').hidden = true;
    delete panel.dataset.state;
  };
  $('path').addEventListener('input', clear);
  $('tabs').addEventListener('click', clear);

  const cut = async (s) => {
    const text = files.snapshot()[files.active].text;
    try {
      current = { slice: await engine.syntax.slice(files.path, text, s.qualified), text };
      $('slice-box').hidden = false;
      $('slice-note').textContent = `${current.slice.kind} ${current.slice.symbol}, lines ${current.slice.lines.join('-')} of ${files.path}: the model sees only this.`;
      $('slice-text').textContent = current.slice.text;
      $('slice-result').textContent = '';
      $('slice-status').textContent = '';
    } catch (e) {
      $('slice-note').textContent = `No slice: ${e.message}`;
    }
  };

  $('slice-apply').addEventListener('click', async () => {
    if (!current) return;
    try {
      const r = await engine.syntax.applyToSlice(current.text, current.slice, $('slice-reply').value, { format: 'auto' });
      $('slice-status').textContent = `${r.report.status} (${r.report.format}); the whole file after the splice:`;
      $('slice-status').dataset.status = r.report.status;
      $('slice-result').textContent = r.text;
      $('slice-keep').disabled = r.report.status !== 'applied';
    } catch (e) {
      $('slice-keep').disabled = true;
      $('slice-status').textContent = `Not spliced: ${e.message}`;
      $('slice-status').dataset.status = 'error';
    }
  });

  $('slice-keep').addEventListener('click', () => {
    setText(fileEditor.view, $('slice-result').textContent);
    $('slice-box').hidden = true;
  });

  $('outline-button').addEventListener('click', async () => {
    panel.open = true;
    $('outline-note').textContent = 'Loading the syntax module...';
    $('outline').replaceChildren();
    try {
      const text = files.snapshot()[files.active].text;
      const outline = await engine.syntax.outline(files.path, text);
      $('outline').replaceChildren(...outline.symbols.map((s) => symbolItem(s, (x) => selectLines(x.lines[0], x.lines[1]), cut)));
      $('outline-note').textContent = `${outline.symbols.length} symbols (${outline.language})`;
      panel.dataset.state = 'ready';
    } catch (e) {
      $('outline-note').textContent = `No outline: ${e.message}`;
      panel.dataset.state = 'error';
    }
  });
}
