// Runs the corpus cases through the tools people use to apply model edits,
// side by side with patchbay, and counts per tool and per fault: applied
// correctly, refused, misapplied (claimed success, wrong files), and
// failed after changing files. See docs/benchmarks.md ("Peers").
//
//   node peers.mjs corpus CORPUS_DIR VERDICTS.jsonl OUT.json   conformance
//   node peers.mjs apply TOOL ROOT REPLY                        one tool, as a CLI (timing)
//
// Peers on unified diffs (the `udiff` cases; the reply's fenced diff, or the
// whole reply when it has no fence): GNU patch (default fuzz, and --fuzz 0),
// git apply (plain, --recount, --ignore-whitespace), jsdiff applyPatch
// (fuzzFactor 0 and 2), diff-match-patch patch_apply (each hunk made into a
// patch from its old and new text, placed at its stated line; default
// Match_Threshold 0.5 and Match_Distance 1000). Peers on SEARCH/REPLACE and
// str_replace cases: an exact-string replacer (the old text must occur
// exactly once, else refuse) and first-match (replace the first
// occurrence, no uniqueness check), applying the edits in order as agents
// do, keeping the ones that succeeded. patchbay's verdicts come from the
// corpus runner (VERDICTS.jsonl, written by the corpus-verdicts binary).

import { parsePatch, applyPatch } from 'diff';
import DiffMatchPatch from 'diff-match-patch';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// ------------------------------------------------------------ trees

function loadTree(dir) {
  const out = {};
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p).split(path.sep).join('/')] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

function writeTree(dir, tree) {
  for (const [p, t] of Object.entries(tree)) {
    const f = path.join(dir, p);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, t);
  }
}

function sameTree(a, b) {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

// ------------------------------------------------------------ reading replies

/** The diff in a reply: the first fenced block that holds one, else the reply. */
export function diffText(reply) {
  const lines = reply.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(lines[i]);
    if (!m) continue;
    let j = i + 1;
    while (j < lines.length && !lines[j].trimEnd().startsWith(m[1])) j++;
    const body = lines.slice(i + 1, j);
    if (body.some((l) => l.startsWith('@@') || l.startsWith('--- '))) return body.join('\n') + '\n';
    i = j;
  }
  return reply;
}

function stripPrefix(name) {
  if (!name) return name;
  name = name.split('\t')[0];
  return name.replace(/^[ab]\//, '');
}

/** Normalised relative path, or null when it leaves the root. */
function relPath(p) {
  if (!p || p.startsWith('/') || p.startsWith('~') || /^[A-Za-z]:/.test(p) || p.includes('\\')) return null;
  const parts = [];
  for (const c of p.split('/')) {
    if (c === '' || c === '.') continue;
    if (c === '..') {
      if (!parts.length) return null;
      parts.pop();
    } else parts.push(c);
  }
  return parts.length ? parts.join('/') : null;
}

// A write that leaves the root lands outside the tree we compare: keep it
// under a key no corpus file has, so the tree differs (a naive tool would
// have written there).
const outside = (p) => `<outside the root>/${p}`;

/** SEARCH/REPLACE blocks as Aider writes them: {path, search, replace}. */
export function srBlocks(reply, defaultPath) {
  const lines = reply.split('\n');
  const blocks = [];
  let lastPath = defaultPath ?? null;
  for (let i = 0; i < lines.length; i++) {
    if (!/^<{5,9} SEARCH\s*$/.test(lines[i])) continue;
    let k = i - 1;
    while (k >= 0 && (!lines[k].trim() || /^\s*(`{3,}|~{3,})/.test(lines[k]))) k--;
    if (k >= 0 && !/^[>=<]{5,9}/.test(lines[k]) && /^[\w./\\~:-][^\s`]*$/.test(lines[k].trim())) {
      lastPath = lines[k].trim().replace(/^[`*]+|[`*:]+$/g, '');
    }
    const search = [];
    const replace = [];
    let j = i + 1;
    while (j < lines.length && !/^={5,9}\s*$/.test(lines[j])) search.push(lines[j++]);
    if (j >= lines.length) throw new Error('unterminated SEARCH block');
    j++;
    while (j < lines.length && !/^>{5,9} REPLACE\s*$/.test(lines[j])) replace.push(lines[j++]);
    if (j >= lines.length) throw new Error('unterminated REPLACE block');
    const text = (ls) => (ls.length ? ls.join('\n') + '\n' : '');
    blocks.push({ path: lastPath, search: text(search), replace: text(replace) });
    i = j;
  }
  return blocks;
}

/** Text-editor tool calls: one object, an array, or one per line; fenced or bare. */
export function toolCalls(reply) {
  const body = reply.replace(/^ {0,3}(`{3,}|~{3,}).*$/gm, '');
  const calls = [];
  const take = (v) => {
    if (Array.isArray(v)) v.forEach(take);
    else if (v && typeof v === 'object') calls.push(v.input && typeof v.input === 'object' ? v.input : v);
  };
  try {
    take(JSON.parse(body));
    return calls;
  } catch {
    /* one per line below */
  }
  for (const l of body.split('\n')) {
    // Prose around the calls is not a call; a JSON line that does not parse is.
    if (!/^\s*[[{]/.test(l)) continue;
    try {
      take(JSON.parse(l));
    } catch {
      calls.push({ command: '<unreadable>' });
    }
  }
  return calls;
}

// ------------------------------------------------------------ string peers

function countOf(hay, needle) {
  let n = 0;
  for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + 1)) n++;
  return n;
}

/** One edit on a tree by a string peer; returns true when it applied. */
function replaceIn(tree, p, oldText, newText, policy) {
  const rel = relPath(p ?? '');
  if (rel === null) {
    if (!p || oldText !== '') return false;
    tree[outside(p)] = newText; // a naive create lands outside the root
    return true;
  }
  if (!(rel in tree)) {
    if (oldText !== '') return false;
    tree[rel] = newText;
    return true;
  }
  if (oldText === '') return false;
  const text = tree[rel];
  const n = countOf(text, oldText);
  if (n === 0 || (policy === 'exact' && n > 1)) return false;
  const at = text.indexOf(oldText);
  tree[rel] = text.slice(0, at) + newText + text.slice(at + oldText.length);
  return true;
}

function runStringPeer(policy, format, reply, before, defaultPath) {
  const tree = { ...before };
  let ok = true;
  if (format === 'search-replace') {
    let blocks;
    try {
      blocks = srBlocks(reply, defaultPath);
    } catch {
      return { ok: false, tree };
    }
    if (!blocks.length) return { ok: false, tree };
    for (const b of blocks) ok = replaceIn(tree, b.path, b.search, b.replace, policy) && ok;
    return { ok, tree };
  }
  const calls = toolCalls(reply);
  if (!calls.length) return { ok: false, tree };
  for (const c of calls) {
    const p = c.path ?? defaultPath;
    const rel = relPath(p ?? '');
    switch (c.command) {
      case 'str_replace':
        ok = typeof c.old_str === 'string' && c.old_str !== '' &&
          replaceIn(tree, p, c.old_str, c.new_str ?? '', policy) && ok;
        break;
      case 'create':
        // As the reference text-editor tool: no overwriting with `create`.
        if (typeof c.file_text !== 'string' || !p || (rel !== null && rel in tree)) ok = false;
        else tree[rel ?? outside(p)] = c.file_text;
        break;
      case 'insert': {
        if (rel === null || !(rel in tree) || typeof c.new_str !== 'string') {
          ok = false;
          break;
        }
        const lines = tree[rel].split('\n');
        const at = c.insert_line;
        if (!Number.isInteger(at) || at < 0 || at > lines.length) {
          ok = false;
          break;
        }
        lines.splice(at, 0, ...c.new_str.split('\n'));
        tree[rel] = lines.join('\n');
        break;
      }
      case 'view':
        ok = rel !== null && rel in tree && ok;
        break;
      default:
        ok = false;
    }
  }
  return { ok, tree };
}

// ------------------------------------------------------------ diff peers

function stripLevel(diff) {
  const heads = diff.split('\n').filter((l) => l.startsWith('+++ ') || l.startsWith('--- '));
  const named = heads.map((l) => l.slice(4).split('\t')[0]).filter((n) => n !== '/dev/null');
  return named.length && named.every((n) => /^[ab]\//.test(n)) ? 1 : 0;
}

function runProcessPeer(tool, diff, before) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peers-'));
  const root = path.join(dir, 'root');
  fs.mkdirSync(root);
  writeTree(root, before);
  const patchFile = path.join(dir, 'change.diff');
  fs.writeFileSync(patchFile, diff);
  const p = `-p${stripLevel(diff)}`;
  const argv = {
    'GNU patch': ['patch', [p, '--batch', '--forward', '--no-backup-if-mismatch', '-r', '/dev/null', '-i', patchFile]],
    'GNU patch --fuzz 0': ['patch', [p, '--batch', '--forward', '--no-backup-if-mismatch', '-r', '/dev/null', '-F', '0', '-i', patchFile]],
    'git apply': ['git', ['apply', p, patchFile]],
    'git apply --recount': ['git', ['apply', '--recount', p, patchFile]],
    'git apply --ignore-whitespace': ['git', ['apply', '--ignore-whitespace', p, patchFile]],
  }[tool];
  const r = spawnSync(argv[0], argv[1], { cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, GIT_CEILING_DIRECTORIES: dir } });
  const tree = loadTree(root);
  fs.rmSync(dir, { recursive: true, force: true });
  return { ok: r.status === 0, tree };
}

function filePatches(diff) {
  return parsePatch(diff).filter((fp) => fp.hunks.length || fp.oldFileName || fp.newFileName);
}

/**
 * Applies each file patch of `diff` to an in-memory tree with `applyOne(source, filePatch)`, which
 * returns the new text or false. All or nothing: any failure leaves `before` as it was.
 */
function applyEachFile(diff, before, applyOne) {
  const tree = { ...before };
  let patches;
  try {
    patches = filePatches(diff);
  } catch {
    return { ok: false, tree: before };
  }
  if (!patches.length) return { ok: false, tree: before };
  for (const fp of patches) {
    const oldName = fp.oldFileName === '/dev/null' ? null : stripPrefix(fp.oldFileName);
    const newName = fp.newFileName === '/dev/null' ? null : stripPrefix(fp.newFileName);
    const source = oldName === null ? '' : tree[relPath(oldName) ?? outside(oldName)];
    if (source === undefined) return { ok: false, tree: before };
    let out;
    try {
      out = applyOne(source, fp);
    } catch {
      out = false;
    }
    if (out === false) return { ok: false, tree: before };
    if (oldName !== null) delete tree[relPath(oldName) ?? outside(oldName)];
    if (newName !== null) tree[relPath(newName) ?? outside(newName)] = out;
  }
  return { ok: true, tree };
}

function runJsdiff(fuzzFactor, diff, before) {
  return applyEachFile(diff, before, (source, fp) => applyPatch(source, fp, { fuzzFactor }));
}

/** diff-match-patch: each hunk's old and new text made into patches, placed at its stated line. */
function runDmp(diff, before) {
  const dmp = new DiffMatchPatch();
  return applyEachFile(diff, before, (source, fp) => {
    const starts = [0];
    for (let i = 0; i < source.length; i++) if (source[i] === '\n') starts.push(i + 1);
    const all = [];
    let delta = 0;
    for (const h of fp.hunks) {
      const pick = (mark) => h.lines.filter((l) => l[0] === ' ' || l[0] === mark).map((l) => l.slice(1) + '\n').join('');
      const oldText = pick('-');
      const newText = pick('+');
      const at = starts[Math.min(Math.max(h.oldStart - 1, 0), starts.length - 1)] ?? 0;
      for (const p of dmp.patch_make(oldText, newText)) {
        p.start1 += at;
        p.start2 += at + delta;
        all.push(p);
      }
      delta += newText.length - oldText.length;
    }
    const [out, results] = dmp.patch_apply(all, source);
    return results.every(Boolean) ? out : false;
  });
}

// ------------------------------------------------------------ the comparison

export const DIFF_TOOLS = ['GNU patch', 'GNU patch --fuzz 0', 'git apply', 'git apply --recount',
  'git apply --ignore-whitespace', 'jsdiff fuzzFactor 0', 'jsdiff fuzzFactor 2', 'diff-match-patch'];
export const STRING_TOOLS = ['exact-unique replacer', 'first-match replacer'];

function runTool(tool, format, reply, before, defaultPath) {
  if (tool === 'exact-unique replacer') return runStringPeer('exact', format, reply, before, defaultPath);
  if (tool === 'first-match replacer') return runStringPeer('first', format, reply, before, defaultPath);
  const diff = diffText(reply);
  if (tool.startsWith('jsdiff')) return runJsdiff(tool.endsWith('2') ? 2 : 0, diff, before);
  if (tool === 'diff-match-patch') return runDmp(diff, before);
  return runProcessPeer(tool, diff, before);
}

/** correct | refused | misapplied | damaged, and whether a refusal was expected. */
function classify(res, before, expectTree, expectApplied) {
  const same = sameTree(res.tree, expectTree);
  if (res.ok && same) return expectApplied ? 'correct' : 'refused_expected';
  if (res.ok) return 'misapplied';
  if (sameTree(res.tree, before)) return expectApplied ? 'refused_should_apply' : 'refused_expected';
  return 'damaged';
}

function corpus(dir, verdictsFile, outFile) {
  const verdicts = {};
  for (const l of fs.readFileSync(verdictsFile, 'utf8').split('\n')) if (l.trim()) {
    const v = JSON.parse(l);
    verdicts[v.case] = v.verdict;
  }
  const rows = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const caseDir = path.join(dir, name);
    if (!fs.existsSync(path.join(caseDir, 'case.json'))) continue;
    const c = JSON.parse(fs.readFileSync(path.join(caseDir, 'case.json'), 'utf8'));
    let tools;
    if (c.format === 'udiff') tools = DIFF_TOOLS;
    else if (c.format === 'search-replace' || c.format === 'tool-call') tools = STRING_TOOLS;
    else continue;
    const before = loadTree(path.join(caseDir, 'before'));
    const expectApplied = c.expect.status === 'applied';
    const expectTree = expectApplied ? loadTree(path.join(caseDir, 'after')) : before;
    const reply = fs.readFileSync(path.join(caseDir, 'output.txt'), 'utf8');
    const defaultPath = c.options?.defaultPath ?? c.options?.default_path;
    const pb = { Correct: 'correct', RefusedRight: 'refused_expected', RefusedWrong: 'refused_wrong', Misapplied: 'misapplied' }[verdicts[name]];
    const row = { case: name, format: c.format, fault: c.fault, trap: c.trap, expect: c.expect, results: { patchbay: pb } };
    for (const t of tools) row.results[t] = classify(runTool(t, c.format, reply, before, defaultPath), before, expectTree, expectApplied);
    rows.push(row);
  }
  fs.writeFileSync(outFile, JSON.stringify(rows, null, 1) + '\n');
  console.log(report(rows));
}

const COLS = ['correct', 'refused_expected', 'refused_should_apply', 'misapplied', 'damaged'];

/** Markdown tables: per tool, and the faults each tool misapplies on. */
export function report(rows) {
  const out = [];
  for (const [title, fmts, tools] of [
    ['Unified diffs (`udiff` cases)', ['udiff'], DIFF_TOOLS],
    ['SEARCH/REPLACE and `str_replace` (`search-replace` and `tool-call` cases)', ['search-replace', 'tool-call'], STRING_TOOLS],
  ]) {
    const set = rows.filter((r) => fmts.includes(r.format));
    if (!set.length) continue;
    const applied = set.filter((r) => r.expect.status === 'applied').length;
    out.push(`**${title}: ${set.length} cases** (${applied} should apply, ${set.length - applied} should be refused; ${set.filter((r) => r.trap).length} traps)\n`);
    out.push('| tool | correct | refused, as expected | refused, should apply | **misapplied** | failed but changed files |');
    out.push('|---|---:|---:|---:|---:|---:|');
    for (const t of ['patchbay', ...tools]) {
      const n = Object.fromEntries(COLS.map((k) => [k, 0]));
      let wrongCode = 0;
      for (const r of set) {
        let v = r.results[t];
        if (v === 'refused_wrong') {
          v = r.expect.status === 'applied' ? 'refused_should_apply' : 'refused_expected';
          if (r.expect.status !== 'applied') wrongCode++;
        }
        n[v]++;
      }
      const pct = (k) => `${n[k]} (${((100 * n[k]) / set.length).toFixed(0)}%)`;
      const refusedNote = t === 'patchbay' && wrongCode ? ` (${wrongCode} with another code)` : '';
      out.push(`| ${t} | ${pct('correct')} | ${pct('refused_expected')}${refusedNote} | ${pct('refused_should_apply')} | **${n.misapplied}** | ${n.damaged} |`);
    }
    out.push('');
    const faults = {};
    for (const t of ['patchbay', ...tools]) {
      const mis = {};
      const dam = {};
      for (const r of set) {
        if (r.results[t] === 'misapplied') mis[r.fault] = (mis[r.fault] ?? 0) + 1;
        if (r.results[t] === 'damaged') dam[r.fault] = (dam[r.fault] ?? 0) + 1;
      }
      if (Object.keys(mis).length || Object.keys(dam).length) faults[t] = [mis, dam];
    }
    const list = (f) => Object.entries(f).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k, v]) => `${k} ${v}`).join(', ');
    out.push('Where they misapply (fault: cases):\n');
    for (const [t, [mis, dam]] of Object.entries(faults)) {
      const parts = [];
      if (Object.keys(mis).length) parts.push(list(mis));
      if (Object.keys(dam).length) parts.push(`failed after changing files: ${list(dam)}`);
      out.push(`- ${t}: ${parts.join('; ')}`);
    }
    if (!Object.keys(faults).length) out.push('- none');
    out.push('');
  }
  return out.join('\n');
}

// ------------------------------------------------------------ one tool as a CLI (timing)

function applyCli(tool, root, replyFile) {
  const reply = fs.readFileSync(replyFile, 'utf8');
  const before = loadTree(root);
  const format = /^<{5,9} SEARCH/m.test(reply) ? 'search-replace' : 'tool-call';
  const res = runTool(tool, format, reply, before);
  if (!res.ok) {
    console.error(`${tool}: refused`);
    process.exit(1);
  }
  for (const [p, t] of Object.entries(res.tree)) if (before[p] !== t) fs.writeFileSync(path.join(root, p), t);
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'corpus') corpus(...args);
else if (cmd === 'apply') applyCli(...args);
else if (cmd) {
  console.error('usage: node peers.mjs corpus DIR VERDICTS OUT | apply TOOL ROOT REPLY');
  process.exit(2);
}
