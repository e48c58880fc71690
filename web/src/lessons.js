// The pitfall lab's lessons: a file, a reply, two sentences on why it
// breaks naive tools, and `naive(engine, lesson)`, which computes now what a
// naive tool does with the reply ({outcome, text}; outcome `wrong`,
// `refused` or `right`). What patchbay does is always `applyEdits`.
import { byLineIgnoringTags, firstDifferentLine, firstMatchReplace, spliceByStatedLines } from './naive.js';
import { SILENT } from './udiff.js';

const fence = '```';
const join = (lines) => lines.join('\n') + '\n';
const sr = (path, search, replace) =>
  [path, `${fence}python`, '<<<<<<< SEARCH', ...search, '=======', ...replace, '>>>>>>> REPLACE', fence];

const APP = join([
  'import logging', '', 'log = logging.getLogger(__name__)', '', '',
  'def load(path):', '    with open(path) as f:', '        return f.read()', '', '',
  'def save(path, text):', '    with open(path, "w") as f:', '        f.write(text)', '', '',
  'def main():', '    text = load("in.txt")', '    save("out.txt", text.upper())',
]);

const PRICES = join([
  'import math', '', 'def net(amount):', '    value = amount * 1.0', '    return round(value, 2)', '',
  'def gross(amount):', '    value = amount * 1.0', '    return round(value, 2)', '',
  'def tax(amount):', '    return gross(amount) - net(amount)',
]);

/** What a naive tool's text means against what patchbay made of the same reply. */
function judge(naiveText, patchbay, path, what) {
  const right = patchbay.files.find((f) => f.path === path)?.content;
  if (naiveText === null) return { outcome: 'refused', text: `${what}: refuses the reply.` };
  if (right !== undefined && naiveText === right) return { outcome: 'right', text: `${what}: the same result as patchbay.` };
  const line = firstDifferentLine(naiveText, right ?? '');
  return { outcome: 'wrong', text: `${what}: reports success, but the file differs from the intended result at line ${line}.` };
}

/** The naive tool that replaces the first exact occurrence of `old` with `neu` (indexOf). */
function exactSearch(old, neu) {
  return async (engine, l, p) => judge(firstMatchReplace(l.file, old, neu)?.text ?? null, p, l.path, 'Exact search (indexOf)');
}

/** GNU patch (fuzz 2) on the lesson's diff, by the engine's simulation. */
async function gnuPatch(engine, lesson) {
  const fuzz = await engine.simulatePatchFuzz({ [lesson.path]: lesson.file }, lesson.reply);
  const r = fuzz[0];
  if (!r) return { outcome: 'refused', text: 'GNU patch finds no hunk.' };
  const outcome = SILENT.has(r.verdict) ? 'wrong' : r.verdict === 'agrees' ? 'right' : 'refused';
  return { outcome, text: `GNU patch (fuzz 2): ${r.message}` };
}

export const LESSONS = [
  {
    id: 'line-drift',
    title: 'Line-number drift in a hunk header',
    explain: 'Models count lines badly, so the @@ numbers of a diff are often off. A tool that trusts them edits whatever sits at the stated line; patchbay locates the hunk by its content and treats the number as a hint.',
    path: 'src/io.py',
    file: APP,
    reply: join([`${fence}diff`, '--- a/src/io.py', '+++ b/src/io.py', '@@ -2,3 +2,3 @@', ' def save(path, text):',
      '-    with open(path, "w") as f:', '+    with open(path, "w", encoding="utf-8") as f:', '         f.write(text)', fence]),
    naive: async (engine, l, p) => judge(spliceByStatedLines(l.file, l.reply).text, p, l.path, 'Overwriting the stated lines 2-4'),
  },
  {
    id: 'lost-space',
    title: 'A context line that lost its leading space',
    explain: 'Chat interfaces and models often drop the single space that marks an unchanged line, or strip it from a blank one. GNU patch then stops at a malformed hunk; patchbay reads the bare line as context and applies the hunk.',
    path: 'src/io.py',
    file: APP,
    reply: join([`${fence}diff`, '--- a/src/io.py', '+++ b/src/io.py', '@@ -6,3 +6,3 @@', 'def load(path):',
      '-    with open(path) as f:', '+    with open(path, encoding="utf-8") as f:', '         return f.read()', fence]),
    naive: gnuPatch,
  },
  {
    id: 'fuzz-wrong-function',
    title: 'Fuzz that lands on the wrong function',
    explain: 'With its default fuzz of 2, GNU patch may ignore the first and last context lines and take the first place where the rest matches. With two look-alike functions it edits the wrong one and still reports success; patchbay applies only where the whole hunk matches.',
    path: 'src/prices.py',
    file: PRICES,
    reply: join([`${fence}diff`, '--- a/src/prices.py', '+++ b/src/prices.py', '@@ -2,5 +2,5 @@', ' ', ' def gross(amount):',
      '     value = amount * 1.0', '-    return round(value, 2)', '+    return round(value * 1.2, 2)', ' ', fence]),
    naive: gnuPatch,
  },
  {
    id: 'search-twice',
    title: 'A SEARCH block that matches twice',
    explain: 'A short SEARCH text can occur in several places. A first-match replace silently edits the first one, which may not be the one the model meant; patchbay refuses with `ambiguous`, lists the places and asks for more context.',
    path: 'src/prices.py',
    file: PRICES,
    reply: join(['Add the 20% tax in `gross`:', ''].concat(sr('src/prices.py', ['    value = amount * 1.0', '    return round(value, 2)'], ['    value = amount * 1.0', '    return round(value * 1.2, 2)']))),
    naive: async (engine, l) => {
      const r = firstMatchReplace(l.file, '    value = amount * 1.0\n    return round(value, 2)', '    value = amount * 1.0\n    return round(value * 1.2, 2)');
      return r
        ? { outcome: 'wrong', text: `First-match replace: edits the first of ${r.count} places (line ${r.line}, in net) and reports success.` }
        : { outcome: 'refused', text: 'First-match replace: not found.' };
    },
  },
  {
    id: 'hunks-one-by-one',
    title: 'Hunks whose positions shift when applied one by one',
    explain: 'Every hunk of a diff is numbered against the original file, so once an earlier hunk adds lines the later ones sit further down. A tool that applies hunks one by one at their stated lines puts the later ones too early; patchbay locates every edit against the original and applies them as one transaction.',
    path: 'src/io.py',
    file: APP,
    reply: join([`${fence}diff`, '--- a/src/io.py', '+++ b/src/io.py', '@@ -1,3 +1,5 @@', ' import logging', '+import os',
      '+import sys', ' ', ' log = logging.getLogger(__name__)', '@@ -16,3 +18,3 @@', ' def main():', '-    text = load("in.txt")',
      '+    text = load(sys.argv[1])', '     save("out.txt", text.upper())', fence]),
    naive: async (engine, l, p) => judge(spliceByStatedLines(l.file, l.reply).text, p, l.path, 'Hunks one by one at their stated lines'),
  },
  {
    id: 'crlf',
    title: 'A CRLF file edited with LF text',
    explain: 'A file saved on Windows ends its lines with CR LF, but the model writes plain LF. A byte-exact search finds nothing; patchbay matches line by line and writes the new lines with the file\'s own line endings.',
    path: 'src/win.py',
    file: 'def ping():\r\n    return "pong"\r\n\r\n\r\ndef pong():\r\n    return "ping"\r\n',
    reply: join(sr('src/win.py', ['def ping():', '    return "pong"'], ['def ping() -> str:', '    return "pong"'])),
    naive: exactSearch('def ping():\n    return "pong"', 'def ping() -> str:\n    return "pong"'),
  },
  {
    id: 'tabs-as-spaces',
    title: 'Tabs written as spaces',
    explain: 'Go and Makefiles indent with tabs, and models often write spaces instead. An exact search fails; patchbay finds the block with tabs and spaces treated alike and keeps the file\'s tabs.',
    path: 'main.go',
    file: 'package main\n\nimport "fmt"\n\nfunc main() {\n\tname := "world"\n\tfmt.Println("hello", name)\n}\n',
    reply: join(['main.go', `${fence}go`, '<<<<<<< SEARCH', '    name := "world"', '    fmt.Println("hello", name)', '=======',
      '    name := "gopher"', '    fmt.Println("hello,", name)', '>>>>>>> REPLACE', fence]),
    naive: exactSearch('    name := "world"\n    fmt.Println("hello", name)', '    name := "gopher"\n    fmt.Println("hello,", name)'),
  },
  {
    id: 'cut-off',
    title: 'A cut-off reply: the count at the head, not at the tail',
    explain: 'A reply cut off by a token limit can end cleanly between two edits. A count declared at the tail never arrives, so a tool applies the first edits as if the reply were complete; declared at the head (EDITS: 3), it tells patchbay that one is missing, and nothing half-done is applied.',
    path: 'src/io.py',
    file: APP,
    reply: join(['EDITS: 3', ''].concat(sr('src/io.py', ['def load(path):'], ['def load(path: str) -> str:']), [''], sr('src/io.py', ['def save(path, text):'], ['def save(path: str, text: str) -> None:']))),
    naive: async (engine, l) => {
      // The same reply with its count promised at the end, where the cut removed it.
      const tail = l.reply.replace(/^EDITS: 3\n\n/, '');
      const r = await engine.applyEdits({ [l.path]: l.file }, tail, {});
      const n = r.files[0]?.edits.filter((e) => e.status === 'applied').length ?? 0;
      return r.status === 'applied'
        ? { outcome: 'wrong', text: `Count at the tail (never arrived): ${n} of the 3 edits applied, reported as complete.` }
        : { outcome: 'refused', text: `Count at the tail: ${r.status}.` };
    },
  },
  {
    id: 'rest-unchanged',
    title: 'A whole-file reply with "... rest unchanged"',
    explain: 'Asked for the whole file, models abbreviate what they did not change with a comment. Writing that reply as the file deletes the code the comment stands for; patchbay refuses it as `elided` and asks for every line.',
    path: 'src/io.py',
    file: APP,
    reply: join(['src/io.py', `${fence}python`, 'import logging', '', 'log = logging.getLogger(__name__)', '', '',
      'def load(path):', '    with open(path, encoding="utf-8") as f:', '        return f.read()', '', '', '# ... rest of the file unchanged', fence]),
    naive: async (engine, l) => {
      const body = l.reply.split('\n').slice(2, -2).join('\n') + '\n';
      const lost = l.file.split('\n').length - body.split('\n').length + 1;
      return { outcome: 'wrong', text: `Writing the reply as the file: ${lost} lines of code replaced by a comment.` };
    },
  },
  {
    id: 'stale-tag',
    title: 'A stale hashline tag',
    explain: 'A hashline edit names a line by its number and a short hash of its text, from the view the model read. When the file changed since (here a line was added at the top), the number points elsewhere: a tool that trusts it edits the wrong line, while patchbay checks the tag, refuses with `stale_tag` and says where the line is now.',
    path: 'src/io.py',
    file: 'import os\n' + APP,
    reply: join([`${fence}json`, '[{"op": "replace", "path": "src/io.py", "line": 7, "tag": "@TAG7@", "new": "    with open(path, encoding=\\"utf-8\\") as f:"}]', fence]),
    prepare: async (engine, l) => {
      // The tag of line 7 in the file the model read: the one without `import os`.
      const tag = /^7:(\S+)/m.exec(await engine.tagView(APP, { len: 4 }))[1];
      return { ...l, reply: l.reply.replace('@TAG7@', tag) };
    },
    naive: async (engine, l) => {
      const edits = JSON.parse(l.reply.split('\n').slice(1, -2).join('\n'));
      const out = byLineIgnoringTags(l.file, edits);
      const line = firstDifferentLine(out, l.file);
      return { outcome: 'wrong', text: `By line number, tag ignored: overwrites line ${line} (\`${l.file.split('\n')[line - 1]}\`), not the open() line.` };
    },
  },
  {
    id: 'thirty-percent',
    title: 'The 30% rule: when rewriting the whole file is cheaper and safer',
    explain: 'Once a large share of a small file changes, many edit blocks cost more tokens than the file itself and each one is another chance to mismatch. The advisor compares every format\'s edit and picks the whole file past about 30% of the lines (or under 300 lines).',
    path: 'src/io.py',
    file: APP,
    reply: null,
    prepare: async (engine, l) => {
      const after = l.file.replace(/open\(path\)/g, 'open(path, encoding="utf-8")').replace(/"w"\)/g, '"w", encoding="utf-8")')
        .replace('def load(path):', 'def load(path: str) -> str:').replace('def save(path, text):', 'def save(path: str, text: str) -> None:')
        .replace('def main():', 'def main() -> None:');
      const c = await engine.compare(l.file, after, { path: l.path });
      const whole = c.formats.find((f) => f.format === 'whole');
      return { ...l, reply: whole.edit, comparison: c };
    },
    naive: async (engine, l) => {
      const c = l.comparison;
      const sr = c.formats.find((f) => f.format === 'search-replace');
      const whole = c.formats.find((f) => f.format === 'whole');
      return {
        outcome: sr.tokens > whole.tokens ? 'wrong' : 'right',
        text: `Always edit blocks: ${sr.tokens} tokens of SEARCH/REPLACE for ${Math.round(c.changeRatio * 100)}% of the lines changed, against ${whole.tokens} for the whole file. Advisor: ${c.recommendation.format} (${c.recommendation.reason}).`,
      };
    },
  },
];
