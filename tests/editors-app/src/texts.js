// The texts of the editors test, one for each way a text can trip an
// editor's positions, and the reply applied to each: edit 1 replaces line 15
// with two lines, edit 2 the last two lines, edit 3 is not found (its
// closest region is lines 9-10). Shared by the page and the test.
export const PATH = 'f.txt';

const lines = (mark) => Array.from({ length: 20 }, (_, i) => `line ${i + 1} ${mark}`);
const join = (ls, eol, final = true) => ls.join(eol) + (final ? eol : '');

export const KINDS = {
  lf: join(lines('plain'), '\n'),
  crlf: join(lines('plain'), '\r\n'),
  mixed: lines('mixed').map((l, i) => l + (i % 3 === 0 ? '\r\n' : '\n')).join(''),
  'no-final-newline': join(lines('plain'), '\r\n', false),
  emoji: join(lines('😀🎉'), '\r\n'),
  cjk: join(lines('漢字かな'), '\n'),
  combining: join(lines('e\u0301n\u0303'), '\r\n'),
  bom: '\uFEFF' + join(lines('grüß'), '\r\n'),
};

/** The mark a kind's lines carry. */
export function markOf(text) {
  return /^\uFEFF?line 1 (.*?)\r?\n/.exec(text)[1];
}

export function replyFor(text) {
  const m = markOf(text);
  return [
    PATH, '<<<<<<< SEARCH', `line 15 ${m}`, '=======', `new 15 ${m}`, `new 15b ${m}`, '>>>>>>> REPLACE', '',
    PATH, '<<<<<<< SEARCH', `line 19 ${m}`, `line 20 ${m}`, '=======', `new 19 ${m}`, '>>>>>>> REPLACE', '',
    PATH, '<<<<<<< SEARCH', `line 9 ${m}`, `line 10 ${m} and more`, '=======', 'x', '>>>>>>> REPLACE', '',
  ].join('\n');
}

export const OPTIONS = { format: 'search-replace', partial: true };
