// Calls every export of the package with realistic arguments; `tsc --noEmit
// --strict` on it (types.test.mjs) checks the declarations an IDE author
// sees. Never run, only type-checked.
import init, {
  initSync, loadRest, restLoaded, applyEdits, detectFormat, render, formats, estimateTokens, compare, planBudget, tagView,
  crcView, checkOutput, promptKit, diagnoseUdiff, repairUdiff, simulatePatchFuzz, StreamParser,
  EditLoop, parseModels, parseModelInfo, parseProps, chooseContext, showBody, serverError, serverPaths, thinkFor, arenaResults, arenaVerdict,
  type RunScore, type ArenaResults, type Request, type Outcome, type LoopConfig, type ModelEntry, type ModelInfo, type ContextChoice, type ChatEvent,
  type Report, type Receipt, type AppliedReceipt, type Position, type Closest, type Code, type Level, type FormatName, type ApplyOptions, type StreamEvent,
  type Files, type Plan, type Comparison, type Checked, type Kit, type HunkDiagnosis, type FuzzReport,
} from 'patchbay';
import initSyntax, { languages, outline, sections, slice, splice, parseCheck, applyToSlice, type Outline, type Slice, type SliceResult, type OutlineSymbol } from 'patchbay/syntax';
import initTokens, { countTokens, countTokensEach, encodings } from 'patchbay/tokens';
import { connect, serve, METHODS, type PatchbayWorker } from 'patchbay/worker';

export async function everything(bytes: Uint8Array<ArrayBuffer>, worker: Worker): Promise<number> {
  const whole: boolean = await initialise(bytes);
  const files: Files = { 'src/app.py': 'def f():\n    return 1\n' };
  const options: ApplyOptions = { format: 'search-replace', partial: false, maxLevel: 'unicode', tags: { len: 4 }, stopReason: 'stop' };
  const report: Report = applyEdits(files, '<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n', options);
  const { total, rendered } = engine(files);
  return Number(whole) + receiptsOf(report) + total + await syntax(files) + await tokens() + editLoop(files)
    + await throughWorker(worker, files, options, rendered);
}

/** Every way to load the core, and whether its rest has arrived. */
async function initialise(bytes: Uint8Array<ArrayBuffer>): Promise<boolean> {
  await init(new URL('https://example.com/patchbay.wasm'));
  await init(fetch('/patchbay.wasm'));
  await init(bytes);
  initSync(await WebAssembly.compile(bytes));
  await init(bytes, { rest: new URL('https://example.com/patchbay-rest.wasm'), restWhen: 'background' });
  initSync(bytes, { rest: bytes, restWhen: 'first-use' });
  await loadRest(fetch('/patchbay-rest.wasm'));
  return restLoaded();
}

/** A report's receipts, narrowed by status. */
function receiptsOf(report: Report): number {
  const receipts: Receipt[] = report.files.flatMap((f) => f.edits);
  const codes: (Code | undefined)[] = receipts.map((r) => r.code);
  const levels: (Level | undefined)[] = receipts.map((r) => r.strategy);
  const spans: number[] = receipts.map((r) => (r.to ?? 0) - (r.from ?? 0));
  // Narrowed by status: an applied receipt's range is never optional, a
  // failed one's code and closest region are where the type says.
  const applied: AppliedReceipt[] = receipts.filter((r): r is AppliedReceipt => r.status === 'applied');
  const placed: Position[] = applied.flatMap((r) => [r.fromPos, r.toPos]);
  const widths: number[] = applied.map((r) => r.to - r.from + (r.resultToPos?.col ?? 0));
  const near: number[] = receipts.flatMap((r) => {
    if (r.status !== 'failed') return [];
    const code: Code = r.code;
    const region: Closest | undefined = r.closest;
    const at = region?.firstDifference;
    return [code.length + (region ? region.fromPos.line + region.similarity : 0) + (at ? at.fileCol + at.editLine : 0)];
  });
  return codes.length + levels.length + spans.length + placed.length + widths.length + near.length;
}

/** The core's other exports and the stream parser; `rendered` is a udiff. */
function engine(files: Files): { total: number; rendered: string } {
  const name: FormatName = detectFormat('@@ -1 +1 @@\n-a\n+b\n').format;
  const rendered: string = render(name, 'a.txt', 'a\n', 'b\n');
  const all: FormatName[] = formats();
  const n: number = estimateTokens(rendered, 'llama3') + estimateTokens(rendered);
  const cmp: Comparison = compare('a\n', 'b\n', { path: 'a.txt', wholeBelowLines: 10 });
  const plan: Plan = planBudget({ window: 8000, task: 'fix it', files: [{ path: 'a.py', text: 'x = 1\n' }], options: { lineNumbers: 'sections' } });
  const view: string = tagView('a\nb\n', { len: 3, withLine: true }) + tagView('a\n') + crcView('a.txt', 'a\n');
  const checked: Checked = checkOutput('Total: 3\n## Item 1/3\n', { stopReason: 'length' });
  const kit: Kit = promptKit('udiff');
  const hunks: HunkDiagnosis[] = diagnoseUdiff(files, '--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-x\n+y\n');
  const repaired: string = repairUdiff(files, '');
  const fuzz: FuzzReport[] = simulatePatchFuzz(files, '');
  const parser = new StreamParser(files, { format: 'auto' });
  const events: StreamEvent[] = parser.push('src/app.py\n```\n');
  const final: Report = parser.finish();
  parser.free();
  {
    using disposable = new StreamParser(files);
    disposable.push('');
  }
  const total = all.length + n + cmp.formats.length + plan.window + view.length + checked.continuation.length + kit.format.length
    + hunks.length + repaired.length + fuzz.length + events.length + final.files.length;
  return { total, rendered };
}

/** `patchbay/syntax` on the one file. */
async function syntax(files: Files): Promise<number> {
  await initSyntax();
  const langs: string[] = languages();
  const o: Outline = outline('a.py', files['src/app.py']!, 'python');
  const symbols: OutlineSymbol[] = o.symbols;
  const secs = sections('a.py', files['src/app.py']!);
  const s: Slice = slice('src/app.py', files['src/app.py']!, 'f');
  const spliced: string = splice(files['src/app.py']!, s, 'def f():\n    return 3\n');
  const r: SliceResult = applyToSlice(files['src/app.py']!, s, '<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n', { partial: true });
  const issues = parseCheck('a.py', 'x = 1\n', 'x = (\n');
  return langs.length + symbols.length + secs.length + spliced.length + r.text.length + issues.length;
}

/** `patchbay/tokens`: exact counts. */
async function tokens(): Promise<number> {
  await initTokens();
  return countTokens('hello', 'o200k_base') + countTokensEach(['a', 'b'], 'cl100k_base').length + encodings().length;
}

/** The edit loop, the server helpers and the arena's scores. */
function editLoop(files: Files): number {
  const config: LoopConfig = { task: 'rename f', format: 'search-replace', contextLength: 8192, earlyStop: true };
  const info: ModelInfo = parseModelInfo('{}');
  const loop = new EditLoop(files, config, 'ollama', 'coder:7b', thinkFor(info.capabilities, true));
  const request: Request | undefined = loop.nextRequest();
  const chat: { path: string; body: string } = loop.chatRequest();
  const step = loop.pushBytes(new Uint8Array(0));
  const said: ChatEvent[] = step.chat;
  const ended = loop.end();
  const outcome: Outcome = ended.outcome;
  const rate: number | null = ended.tokensPerSecond;
  const models: ModelEntry[] = parseModels('openai', '{"data":[]}');
  const served: number | null = models[0]?.contextLength ?? parseProps('{}') ?? null;
  const chosen: ContextChoice = chooseContext('openai', 8192, served ?? undefined);
  const paths = serverPaths();
  const looped = (request?.numCtx ?? 0) + chat.body.length + said.length + step.pushed.events.length + outcome.changes.length
    + (rate ?? 0) + models.length + chosen.numCtx + (chosen.warning?.length ?? 0) + paths.tags.length + showBody('m').length + serverError(500, '').length
    + Object.keys(loop.files()).length + Number(loop.isFinished());
  const scored: RunScore = loop.score({ task: 'rename', model: 'coder:7b', format: 'search-replace', trial: 1, wallMs: 12 }, files);
  const results: ArenaResults = arenaResults([scored]);
  return looped + results.summary[0]!.appliedFirstRound + arenaVerdict(scored).length;
}

/** `patchbay/worker`: the core through a worker, with extra methods. */
async function throughWorker(worker: Worker, files: Files, options: ApplyOptions, rendered: string): Promise<number> {
  serve(self, undefined, { outline: async (path: string) => path.length });
  const pb = connect(worker, ['outline']);
  const own: unknown = await pb.outline('a.py');
  const remote: Report = await pb.applyEdits(files, rendered, options);
  const viaCall: string = await pb.call('tagView', 'a\n', { len: 2 });
  const extras = { outline: async (path: string) => path.length, kinds: (n: number) => ['fn', 'class'].slice(0, n) };
  serve(self, undefined, extras);
  const typed = connect<typeof extras>(worker, ['outline', 'kinds']);
  const own2: number = await typed.outline('a.py');
  const kinds: string[] = await typed.kinds(1);
  const streamed = pb.stream(files, { format: 'auto' });
  const got: StreamEvent[] = await streamed.push('src/app.py\n```\n');
  const done: Report = await streamed.finish();
  await pb.stream(files).free();
  pb.terminate();
  return own2 + kinds.length + got.length + done.files.length + remote.files.length + viaCall.length + METHODS.length + Number(own !== undefined);
}
