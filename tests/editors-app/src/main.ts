// A web IDE's page as its author writes it: CodeMirror and Monaco side by
// side, the engine in a worker (a reply streamed through its stream
// handle), the package's adapters for everything shown. `window.run(kind)`
// decorates one text of texts.js in both editors and reads back what each
// editor shows; `window.bench()` times decorating a large report.
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { history, undo } from '@codemirror/commands';
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import init, { applyEdits, type Report, type StreamEvent } from 'patchbay';
import { connect } from 'patchbay/worker';
import { acceptResult, matchesFromEvents, matchesFromReport, patchbayMatches, setMatches } from 'patchbay/codemirror';
import { acceptReport, decorationsFromEvents, decorationsFromReport, keepOnly, showReport, styleSheet } from 'patchbay/monaco';
import { KINDS, OPTIONS, PATH, replyFor } from './texts.js';
import type { extra } from './engine.ts';

(self as unknown as { MonacoEnvironment: unknown }).MonacoEnvironment = { getWorker: () => new EditorWorker() };
document.head.append(styleSheet());
const engine = connect<typeof extra>(new Worker(new URL('./engine.ts', import.meta.url), { type: 'module' }), ['resources']);
const ready = init();

/** A decorated line as an editor shows it: its number, kind, text and the edit's hover or data. */
type Shown = [number, string, string];

function codemirror(text: string, report: Report) {
  const host = document.getElementById('cm')!;
  host.replaceChildren();
  const view = new EditorView({ parent: host, state: EditorState.create({ doc: text, extensions: [patchbayMatches(), history()] }) });
  view.dispatch({ effects: setMatches.of(matchesFromReport(report, PATH)) });
  const lines: Shown[] = [...host.querySelectorAll<HTMLElement>('.cm-line.pb-match')].map((el) => [
    view.state.doc.lineAt(view.posAtDOM(el)).number,
    el.classList.contains('pb-closest') ? 'closest' : 'applied',
    el.textContent ?? '',
  ]);
  const diff = host.querySelector('.pb-first-diff');
  const firstDiff = diff ? [view.state.doc.lineAt(view.posAtDOM(diff)).number, diff.textContent] : null;
  return { view, lines, firstDiff };
}

function monacoEditor(text: string, report: Report) {
  const host = document.getElementById('monaco')!;
  host.replaceChildren();
  const editor = monaco.editor.create(host, { value: text, automaticLayout: false, minimap: { enabled: false } });
  showReport(editor, report, PATH);
  const model = editor.getModel()!;
  const lines: Shown[] = [];
  let firstDiff: [number, string] | null = null;
  for (const d of model.getAllDecorations()) {
    const cls = d.options.className ?? '';
    if (d.options.inlineClassName === 'pb-first-diff') firstDiff = [d.range.startLineNumber, model.getValueInRange(d.range)];
    if (!cls.includes('pb-match')) continue;
    for (let n = d.range.startLineNumber; n <= d.range.endLineNumber; n++) {
      lines.push([n, cls.includes('pb-closest') ? 'closest' : 'applied', model.getLineContent(n)]);
    }
  }
  lines.sort((a, b) => a[0] - b[0]);
  return { editor, model, lines, firstDiff };
}

async function run(kind: keyof typeof KINDS) {
  await ready;
  const text = KINDS[kind];
  const files = { [PATH]: text };
  const reply = replyFor(text);
  // The reply as a model streams it, through the worker.
  const stream = engine.stream(files, OPTIONS);
  const events: StreamEvent[] = [];
  // In pieces of 13 characters (whole code points, as a decoder hands them on).
  const chars = Array.from(reply);
  for (let at = 0; at < chars.length; at += 13) events.push(...(await stream.push(chars.slice(at, at + 13).join(''))));
  const streamed = events.length;
  // While the reply arrives each editor shows the edits complete so far: here all three.
  const whileStreaming = [
    JSON.stringify(matchesFromEvents(events, PATH)),
    JSON.stringify(decorationsFromEvents(events, PATH)),
  ];
  const report = await stream.finish();
  const finished = [JSON.stringify(matchesFromReport(report, PATH)), JSON.stringify(decorationsFromReport(report, PATH))];
  const cm = codemirror(text, report);
  const mo = monacoEditor(text, report);
  // Keep/reject per edit: the engine run again with the rejected ones set aside.
  const withoutFirst = keepOnly(files, reply, OPTIONS, [1]);
  const kept = keepOnly(files, reply, OPTIONS, []);
  // Accept as one step, then one undo.
  acceptResult(cm.view, withoutFirst, PATH);
  const cmAccepted = cm.view.state.doc.toString();
  undo(cm.view);
  const cmUndone = cm.view.state.doc.toString();
  acceptReport(mo.editor, withoutFirst, PATH);
  const monacoAccepted = mo.model.getLinesContent();
  mo.model.undo();
  const monacoUndone = mo.model.getLinesContent();
  const out = {
    report, streamed, whileStreaming, finished, codemirror: cm.lines, monaco: mo.lines, cmFirstDiff: cm.firstDiff, monacoFirstDiff: mo.firstDiff,
    withoutFirst: withoutFirst.files[0]!.content ?? null, kept: kept.files[0]!.content ?? null,
    cmAccepted, cmUndone, monacoAccepted, monacoUndone,
  };
  cm.view.destroy();
  mo.editor.dispose();
  mo.model.dispose();
  return out;
}

/** Median of `n` timings of `f` in ms. */
function median(n: number, f: () => number) {
  const t = Array.from({ length: n }, f).sort((a, b) => a - b);
  return t[Math.floor(n / 2)]!;
}

/** Decorating a 50,000-line file's report of 200 edits in each editor (ms), beside the engine's own time. */
async function bench() {
  await ready;
  const lines = Array.from({ length: 50_000 }, (_, i) => `const v${i} = ${i}; // 漢字 ${i}`);
  const text = lines.join('\n') + '\n';
  const reply = Array.from({ length: 200 }, (_, k) => {
    const i = k * 250 + 7;
    return `${PATH}\n<<<<<<< SEARCH\n${lines[i]}\n=======\nconst v${i} = ${i + 1};\n>>>>>>> REPLACE\n`;
  }).join('\n');
  const files = { [PATH]: text };
  const t0 = performance.now();
  const report = applyEdits(files, reply, OPTIONS);
  const engineMs = performance.now() - t0;
  const cmHost = document.getElementById('cm')!;
  cmHost.replaceChildren();
  const view = new EditorView({ parent: cmHost, state: EditorState.create({ doc: text, extensions: [patchbayMatches()] }) });
  const codemirrorMs = median(7, () => {
    view.dispatch({ effects: setMatches.of([]) });
    const s = performance.now();
    view.dispatch({ effects: setMatches.of(matchesFromReport(report, PATH)) });
    view.dom.getBoundingClientRect();
    return performance.now() - s;
  });
  view.destroy();
  const moHost = document.getElementById('monaco')!;
  moHost.replaceChildren();
  const editor = monaco.editor.create(moHost, { value: text, minimap: { enabled: false } });
  const monacoMs = median(7, () => {
    const s = performance.now();
    const c = showReport(editor, report, PATH);
    editor.render(true);
    const ms = performance.now() - s;
    c.clear();
    return ms;
  });
  editor.dispose();
  const applied = report.files[0]!.edits.filter((r) => r.status === 'applied').length;
  return { engineMs, codemirrorMs, monacoMs, applied };
}

/** What the page and the engine's worker fetched: [url, initiator]. */
async function resources() {
  const page = performance.getEntriesByType('resource').map((e) => [e.name, (e as PerformanceResourceTiming).initiatorType]);
  return { page, worker: await engine.resources() };
}

/** The package README's editor examples, written here by the test before the build (`readme-NAME.js`). */
const readmeExamples = import.meta.glob('./readme-*.js');
async function readme(name: string) {
  await readmeExamples[`./readme-${name}.js`]!();
}

Object.assign(window, { run, bench, resources, readme, kinds: Object.keys(KINDS) });
document.body.dataset.ready = 'true';
