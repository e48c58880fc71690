// Both adapters as a web IDE's TypeScript uses them; `tsc --noEmit --strict`
// with skipLibCheck off checks it (editors.test.mjs). Never run.
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import * as monaco from 'monaco-editor';
import init, { applyEdits, type Position, type Report } from 'patchbay';
import { connect, type WorkerStream } from 'patchbay/worker';
import {
  LEVELS, acceptEdit, acceptResult, matchesFromReport, offsetOf, patchbayMatches, rejectEdit, reviewExtensions,
  matchesFromEvents, setMatches, setTags, sideBySide, tagGutter, tagsFromView, type Match,
} from 'patchbay/codemirror';
import {
  acceptReport, coveredLines, decorationsFromEvents, decorationsFromReport, diffView, keepOnly, showReport, styleSheet, tagLineNumbers, toMonaco,
} from 'patchbay/monaco';

export async function ide(parent: HTMLElement, worker: Worker): Promise<number> {
  await init();
  const files = { 'a.py': 'a = 1\r\nb = 2\r\n' };
  const reply = 'a.py\n<<<<<<< SEARCH\nb = 2\n=======\nb = 3\n>>>>>>> REPLACE\n';
  const stream: WorkerStream = connect(worker).stream(files, { format: 'search-replace' });
  const events = await stream.push(reply);
  const early: number = matchesFromEvents(events, 'a.py').length + decorationsFromEvents(events, 'a.py').length;
  const report: Report = await stream.finish();

  const view = new EditorView({ parent, state: EditorState.create({ doc: files['a.py'], extensions: [patchbayMatches(), tagGutter()] }) });
  const matches: Match[] = matchesFromReport(report, 'a.py');
  view.dispatch({ effects: [setMatches.of(matches), setTags.of(tagsFromView('1:ab a = 1\n'))] });
  const at: number = matches[0] ? offsetOf(view.state.doc, matches[0].from) : 0;
  const failed = matches.flatMap((m) => (m.failed ? [m.similarity + (m.difference?.col ?? 0)] : []));
  const review = new EditorView({ parent, state: EditorState.create({ doc: '', extensions: reviewExtensions(files['a.py'], (doc: string) => doc.length, matches) }) });
  const decided = acceptEdit(review, matches, 1) || rejectEdit(review, matches, 1);
  const side = sideBySide(parent, files['a.py'], report.files[0]?.content ?? '');
  const accepted: boolean = acceptResult(view, report, 'a.py');

  const editor = monaco.editor.create(parent, { value: files['a.py'], lineNumbers: tagLineNumbers(['1:ab']) });
  const collection = showReport(editor, report, 'a.py');
  const decorations: monaco.editor.IModelDeltaDecoration[] = decorationsFromReport(report, 'a.py');
  const rejected: Report = keepOnly(files, reply, { format: 'search-replace' }, [1]);
  const diff = diffView(monaco, parent, files['a.py'], rejected.files[0]?.content ?? '');
  const pos: Position = { line: 2, col: 0 };
  const [first, last]: [number, number] = coveredLines(pos, { line: 3, col: 0 });
  const column: number = toMonaco(pos).column;
  const ok: boolean = acceptReport(editor, rejected, 'a.py');
  document.head.append(styleSheet());
  collection.clear();
  diff.dispose();
  side.destroy();
  const direct: Report = applyEdits(files, reply);
  return early + at + failed.length + Number(decided) + Number(accepted) + decorations.length + first + last + column + Number(ok)
    + LEVELS.length + direct.files.length;
}
