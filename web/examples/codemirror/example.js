// The CodeMirror extension on its own: what a web IDE would write to show
// a model's reply in its editor. One file, one fixed reply with three edits
// (one exact, one at another indentation, one that fails). The engine is
// the npm package's, run in a worker through `patchbay/worker`.
import { EditorState } from '@codemirror/state';
import { EditorView, lineNumbers } from '@codemirror/view';
import { connect } from 'patchbay/worker';
import {
  acceptEdit, matchesFromReport, patchbayMatches, rejectEdit, reviewExtensions, setMatches, setTags, tagGutter, tagsFromView,
} from 'patchbay/codemirror';

export const FILE = 'def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n\n\ndef describe(w, h):\n    print(area(w, h), perimeter(w, h))\n';

export const REPLY = [
  'shapes.py', '<<<<<<< SEARCH', 'def area(w, h):', '    return w * h', '=======', 'def area(w: float, h: float) -> float:', '    return w * h', '>>>>>>> REPLACE',
  '', 'shapes.py', '<<<<<<< SEARCH', 'return 2 * (w + h)', '=======', 'return 2 * w + 2 * h', '>>>>>>> REPLACE',
  '', 'shapes.py', '<<<<<<< SEARCH', 'def describe(w, h):', '    print(area(w, h))', '=======', 'def describe(w, h):', '    print(area(w, h), "m2")', '>>>>>>> REPLACE', '',
].join('\n');

async function main() {
  const engine = connect(new Worker(new URL('worker.js', import.meta.url), { type: 'module' }));
  document.getElementById('reply').textContent = REPLY;
  const file = new EditorView({
    parent: document.getElementById('file'),
    state: EditorState.create({ doc: FILE, extensions: [lineNumbers(), tagGutter(), patchbayMatches(), EditorView.editable.of(false)] }),
  });
  // Partial: the two edits that locate apply; the third's closest region is shown.
  const [report, view] = await Promise.all([
    engine.applyEdits({ 'shapes.py': FILE }, REPLY, { partial: true }),
    engine.tagView(FILE, { len: 4 }),
  ]);
  file.dispatch({ effects: [setTags.of(tagsFromView(view)), setMatches.of(matchesFromReport(report, 'shapes.py'))] });
  const matches = matchesFromReport(report, 'shapes.py');
  const review = new EditorView({
    parent: document.getElementById('review'),
    state: EditorState.create({ doc: report.files[0].content ?? FILE, extensions: [lineNumbers(), reviewExtensions(FILE, null, matches)] }),
  });
  editButtons(review, matches);
  document.getElementById('status').textContent = report.status;
  document.body.dataset.ready = 'true';
}

/** Accept and Reject for each applied edit, deciding all the changes it made at once. */
function editButtons(review, matches) {
  const bar = document.getElementById('edits');
  for (const m of matches.filter((x) => !x.failed)) {
    for (const [name, decide] of [['accept-edit', acceptEdit], ['reject-edit', rejectEdit]]) {
      const b = document.createElement('button');
      b.type = 'button';
      b.name = name;
      b.dataset.edit = String(m.index);
      b.textContent = `${name === 'accept-edit' ? 'Accept' : 'Reject'} edit ${m.index}`;
      b.addEventListener('click', () => decide(review, matches, m.index));
      bar.append(b);
    }
  }
}

main();
