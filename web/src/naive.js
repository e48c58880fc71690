// The naive peers of the pitfall lab, in a few lines each: what a tool
// that trusts the reply literally does. They are deliberately simple; the
// GNU patch fuzz simulation comes from the engine instead.

/** The first occurrence of `search` replaced (String.prototype.replace), or null when absent. */
export function firstMatchReplace(text, search, replace) {
  const at = text.indexOf(search);
  if (at < 0) return null;
  const line = text.slice(0, at).split('\n').length;
  const count = text.split(search).length - 1;
  return { text: text.slice(0, at) + replace + text.slice(at + search.length), line, count };
}

/** The hunks of a unified diff: stated old start, old lines and new lines. */
export function parseHunks(diff) {
  const hunks = [];
  let hunk = null;
  for (const line of diff.split('\n')) {
    const head = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (head) {
      hunk = { start: Number(head[1]), old: [], new: [] };
      hunks.push(hunk);
    } else if (hunk && /^[ +-]/.test(line) && !/^(---|\+\+\+) /.test(line)) {
      if (line[0] !== '+') hunk.old.push(line.slice(1));
      if (line[0] !== '-') hunk.new.push(line.slice(1));
    } else if (hunk && line.startsWith('```')) {
      hunk = null;
    }
  }
  return hunks;
}

/**
 * Each hunk's old lines overwritten at the line its header states, one
 * hunk after the other in the text as it is by then: a tool that trusts
 * the numbers and never looks at the context.
 */
export function spliceByStatedLines(text, diff) {
  const lines = text.split('\n');
  const placed = [];
  for (const h of parseHunks(diff)) {
    const at = Math.max(0, h.start - 1);
    placed.push(at + 1);
    lines.splice(at, h.old.length, ...h.new);
  }
  return { text: lines.join('\n'), placed };
}

/** Hashline edits applied by their line numbers, their tags ignored. */
export function byLineIgnoringTags(text, edits) {
  const lines = text.split('\n');
  for (const e of edits) if (e.op === 'replace' && e.line >= 1 && e.line <= lines.length) lines[e.line - 1] = e.new;
  return lines.join('\n');
}

/** The lines where `a` and `b` first differ (1-based), or 0 when equal. */
export function firstDifferentLine(a, b) {
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) return i + 1;
  return 0;
}
