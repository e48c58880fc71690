#!/usr/bin/env python3
"""Builds the data-driven corpus in tests/corpus/ from real source excerpts.

Each case is a folder: before/ (files as the model saw them), output.txt (the
model's reply), case.json (format, options, the one correct outcome, the fault
label, whether a trap exists), and after/ for cases that must apply.

The expected files are computed here, independently of the engine: the
generator knows the change it meant (a block of lines replaced by new lines),
writes the reply a model would write with one labelled fault injected, and
derives the correct outcome from the fault alone. The engine then has to reach
exactly that outcome; the runner (tests/src/lib.rs) checks it.

Usage: python3 tests/tools/make_corpus.py   (rewrites tests/corpus/gen-*)
Deterministic: the same sources give the same cases.
"""

import difflib
import json
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "sources")
CORPUS = os.path.join(HERE, "..", "corpus")
PER_SCENARIO = 3

LANG = {
    ".py": ("python", "#"),
    ".rs": ("rust", "//"),
    ".js": ("javascript", "//"),
    ".go": ("go", "//"),
    ".c": ("c", "//"),
    ".md": ("markdown", None),
}


class Src:
    def __init__(self, name):
        self.name = name
        with open(os.path.join(SOURCES, name), encoding="utf-8") as f:
            self.text = f.read()
        self.lines = self.text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        ext = os.path.splitext(name)[1]
        self.lang, self.comment = LANG[ext]
        self.path = ("docs/" if ext == ".md" else "src/") + name

    def note(self, indent, words):
        if self.comment is None:
            return indent + words.capitalize() + "."
        return f"{indent}{self.comment} {words}"


def join(lines, eol="\n", final=True):
    s = eol.join(lines)
    return s + eol if final and lines else s


def indent_of(line):
    return line[: len(line) - len(line.lstrip())]


def count_block(lines, block, key=lambda s: s):
    kb = [key(b) for b in block]
    kl = [key(l) for l in lines]
    m = len(block)
    return sum(1 for s in range(len(lines) - m + 1) if kl[s : s + m] == kb)


def pick_block(src, rng, m=3, pred=None, lines=None):
    """A window of m non-blank lines, unique even when whitespace is ignored."""
    lines = lines or src.lines
    starts = list(range(len(lines) - m + 1))
    rng.shuffle(starts)
    for s in starts:
        block = lines[s : s + m]
        if any(not b.strip() or "```" in b or "`" * 3 in b for b in block):
            continue
        if pred and not pred(block):
            continue
        if count_block(lines, block, key=lambda x: x.strip()) != 1:
            continue
        return s
    return None


def change(src, block, tag="patched"):
    """The edit a model means: a note appended to line 2 and a new line."""
    ind = indent_of(block[1]) if len(block) > 1 else indent_of(block[0])
    new = list(block)
    if src.comment:
        new[1 if len(block) > 1 else 0] = new[1 if len(block) > 1 else 0] + f"  {src.comment} {tag}"
    new.insert(2 if len(block) > 1 else 1, src.note(ind, f"corpus edit: {tag}"))
    return new


def kept(old, new, file_old):
    """`new` with each line the edit leaves unchanged (equal to a line of
    `old`) written as the file has it: the engine never copies a tolerance
    granted to the quoted text (trailing spaces, look-alikes) into the file."""
    out = list(new)
    for i, j, n in difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks():
        for k in range(n):
            out[j + k] = file_old[i + k]
    return out


def sr_block(path, lang, old, new, fence=True):
    body = "<<<<<<< SEARCH\n" + join(old) + "=======\n" + join(new) + ">>>>>>> REPLACE\n"
    if fence:
        return f"{path}\n```{lang}\n{body}```\n"
    return f"{path}\n{body}"


PROSE = [
    "Here is the change.\n\n",
    "I'll update the function as requested.\n\n",
    "Sure. The following edit does it:\n\n",
    "",
]


class Case:
    def __init__(self, name, fmt, before, output, status, code=None, after=None, fault="none",
                 trap=False, description="", source="", options=None):
        self.__dict__.update(locals())


def write(case):
    d = os.path.join(CORPUS, case.name)
    shutil.rmtree(d, ignore_errors=True)
    for sub, files in (("before", case.before), ("after", case.after)):
        if files is None:
            continue
        for p, t in files.items():
            fp = os.path.join(d, sub, p)
            os.makedirs(os.path.dirname(fp), exist_ok=True)
            with open(fp, "w", encoding="utf-8", newline="") as f:
                f.write(t)
    with open(os.path.join(d, "output.txt"), "w", encoding="utf-8", newline="") as f:
        f.write(case.output)
    meta = {
        "format": case.fmt,
        "expect": {"status": case.status, **({"code": case.code} if case.code else {})},
        "fault": case.fault,
        "trap": case.trap,
        "description": case.description,
        "source": case.source,
    }
    if case.options:
        meta["options"] = case.options
    with open(os.path.join(d, "case.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(meta, indent=2) + "\n")


# ---------------------------------------------------------------- search-replace


def sr_simple(src, rng, fault):
    """One block with a fault the ladder must absorb; applies to the intended file."""
    lines = list(src.lines)
    eol, final, bom = "\n", True, ""
    pred = None
    if fault == "indent_shift":
        pred = lambda b: all(indent_of(x) for x in b) and len({indent_of(x)[:1] for x in b}) == 1
    if fault == "unicode":
        pred = lambda b: any(('"' in x or "'" in x or " - " in x) for x in b)
    if fault == "tabs":
        pred = lambda b: all(indent_of(x).startswith("\t") for x in b)
    s = pick_block(src, rng, pred=pred)
    if s is None:
        return None
    old = lines[s : s + 3]
    new = change(src, old)
    search, replace = list(old), list(new)
    file_lines = list(lines)
    desc = ""
    if fault == "none":
        desc = "a clean block"
    elif fault == "trailing_ws":
        file_lines[s : s + 3] = [x + "  " for x in old]
        desc = "the file has trailing whitespace the model did not copy"
    elif fault == "trailing_ws_added":
        search = [x + " " for x in old]
        desc = "the model added trailing whitespace to the SEARCH lines"
    elif fault == "indent_shift":
        common = min(len(indent_of(x)) for x in old)
        search = [x[common:] for x in old]
        replace = [x[common:] if x.startswith(" " * common) or x.startswith("\t" * common) else x for x in new]
        desc = "the model dropped the block's common indentation"
    elif fault == "blank_lines":
        search = [""] + old + [""]
        replace = [""] + new + [""]
        desc = "the model padded SEARCH and REPLACE with blank lines the file does not have there"
    elif fault == "tabs":
        search = [x.replace("\t", "    ") for x in old]
        replace = [x.replace("\t", "    ") for x in new]
        desc = "the file indents with tabs, the model wrote spaces"
    elif fault == "unicode":
        tr = str.maketrans({'"': "\u201c", "'": "\u2019"})
        search = [x.translate(tr).replace(" - ", " \u2013 ") for x in old]
        desc = "the model typeset quotes and dashes in the SEARCH text"
    elif fault == "crlf":
        eol = "\r\n"
        desc = "the file uses CRLF, the model wrote LF"
    elif fault == "no_final_newline":
        final = False
        s2 = pick_block(src, rng, pred=lambda b: True, lines=lines[-6:])
        s = len(lines) - 3
        old = lines[s:]
        if any(not x.strip() for x in old) or count_block(lines, old, key=lambda x: x.strip()) != 1:
            return None
        new = change(src, old)
        search, replace = list(old), list(new)
        file_lines = list(lines)
        desc = "the file has no final newline and the edit touches its last line"
    elif fault == "bom":
        bom = "\ufeff"
        desc = "the file starts with a byte-order mark"
    else:
        raise ValueError(fault)
    before_text = bom + join(file_lines, eol, final)
    after_lines = list(file_lines)
    after_lines[s : s + 3] = kept(old, new, file_lines[s : s + 3])
    after_text = bom + join(after_lines, eol, final)
    out = rng.choice(PROSE) + sr_block(src.path, src.lang, search, replace)
    return Case(None, "search-replace", {src.path: before_text}, out, "applied",
                after={src.path: after_text}, fault=fault, description=desc, source=src.name)


def sr_two_blocks(src, rng, fault):
    lines = src.lines
    a = pick_block(src, rng)
    b = pick_block(src, rng, pred=None)
    if a is None or b is None or abs(a - b) < 4:
        return None
    a, b = sorted((a, b))
    old_a, old_b = lines[a : a + 3], lines[b : b + 3]
    new_a, new_b = change(src, old_a, "first"), change(src, old_b, "second")
    after = list(lines)
    after[b : b + 3] = new_b
    after[a : a + 3] = new_a
    before = {src.path: join(lines)}
    if fault == "out_of_order":
        out = "Two edits:\n\n" + sr_block(src.path, src.lang, old_b, new_b) + "\n" + sr_block(src.path, src.lang, old_a, new_a)
        return Case(None, "search-replace", before, out, "applied", after={src.path: join(after)}, fault=fault,
                    description="the blocks come in reverse file order", source=src.name)
    if fault == "second_missing":
        wrong = list(old_b)
        wrong[1] = wrong[1].rstrip() + " extra"
        out = sr_block(src.path, src.lang, old_a, new_a) + "\n" + sr_block(src.path, src.lang, wrong, new_b)
        return Case(None, "search-replace", before, out, "failed", code="not_found", fault=fault, trap=True,
                    description="the second block misquotes a line; the first must be held back", source=src.name)
    if fault == "overlap":
        old_c = lines[a + 1 : a + 4]
        if any(not x.strip() for x in old_c) or count_block(lines, old_c, key=lambda x: x.strip()) != 1:
            return None
        out = sr_block(src.path, src.lang, old_a, new_a) + "\n" + sr_block(src.path, src.lang, old_c, change(src, old_c, "again"))
        return Case(None, "search-replace", before, out, "failed", code="overlap", fault=fault,
                    description="two blocks change overlapping lines", source=src.name)
    raise ValueError(fault)


def sr_shifting(src, rng, fault):
    """Block 2 searches text that block 1's replacement also contains: applied
    one after the other, block 2 would be ambiguous or land in block 1's text;
    against the original snapshot it is unique."""
    lines = src.lines
    a = pick_block(src, rng)
    b = pick_block(src, rng)
    if a is None or b is None or abs(a - b) < 4:
        return None
    old_a, old_b = lines[a : a + 3], lines[b : b + 3]
    new_a = old_a + old_b  # block 1 copies block 2's lines after itself
    new_b = change(src, old_b, "moved")
    after = list(lines)
    for s, old, new in sorted([(a, old_a, new_a), (b, old_b, new_b)], reverse=True):
        after[s : s + 3] = new
    out = sr_block(src.path, src.lang, old_a, new_a) + "\n" + sr_block(src.path, src.lang, old_b, new_b)
    return Case(None, "search-replace", {src.path: join(lines)}, out, "applied", after={src.path: join(after)},
                fault=fault, trap=True, source=src.name,
                description="block 1 inserts a copy of block 2's text; located against the original, block 2 is still unique")


def sr_trap(src, rng, fault):
    lines = list(src.lines)
    s = pick_block(src, rng)
    if s is None:
        return None
    old = lines[s : s + 3]
    new = change(src, old)
    if fault == "duplicate":
        # The same block stands twice in the file: refuse, never guess.
        file_lines = lines + [""] + old
        out = sr_block(src.path, src.lang, old, new)
        return Case(None, "search-replace", {src.path: join(file_lines)}, out, "failed", code="ambiguous", fault=fault,
                    trap=True, source=src.name, description="the SEARCH block occurs twice")
    if fault == "duplicate_ws":
        # Twice once whitespace is ignored: ambiguous at the tolerant level.
        file_lines = lines + [""] + [x + " " for x in old]
        search = [x + "\t" for x in old]
        out = sr_block(src.path, src.lang, search, new)
        return Case(None, "search-replace", {src.path: join(file_lines)}, out, "failed", code="ambiguous", fault=fault,
                    trap=True, source=src.name, description="no exact match, and two places once whitespace is ignored")
    if fault == "similar_elsewhere":
        wrong = list(old)
        k = max(range(3), key=lambda i: len(old[i].strip()))
        w = old[k].rstrip()
        wrong[k] = w[:-1] + ("X" if not w.endswith("X") else "Y")
        out = sr_block(src.path, src.lang, wrong, new)
        return Case(None, "search-replace", {src.path: join(lines)}, out, "failed", code="not_found", fault=fault,
                    trap=True, source=src.name, description="the SEARCH text is close to a real block but not equal; never applied to the look-alike")
    if fault == "hallucinated_line":
        wrong = old[:2] + [src.note(indent_of(old[1]), "a line that is not in the file")] + old[2:]
        out = sr_block(src.path, src.lang, wrong, new)
        return Case(None, "search-replace", {src.path: join(lines)}, out, "failed", code="not_found", fault=fault,
                    trap=True, source=src.name, description="the SEARCH text has a line the file does not have")
    if fault == "already_applied":
        after = list(lines)
        after[s : s + 3] = new
        out = sr_block(src.path, src.lang, old, new)
        return Case(None, "search-replace", {src.path: join(after)}, out, "failed", code="already_applied", fault=fault,
                    source=src.name, description="the file already holds the REPLACE text")
    raise ValueError(fault)


def sr_misc(src, rng, fault):
    lines = list(src.lines)
    s = pick_block(src, rng)
    if s is None:
        return None
    old = lines[s : s + 3]
    new = change(src, old)
    before = {src.path: join(lines)}
    full = sr_block(src.path, src.lang, old, new)
    if fault == "truncated":
        cut_from = full.index("=======")
        cut = rng.randrange(cut_from, len(full) - len(">>>>>>> REPLACE\n```\n"))
        out = rng.choice(PROSE) + full[:cut]
        return Case(None, "search-replace", before, out, "truncated", code="truncated", fault=fault, source=src.name,
                    description="the reply was cut inside the REPLACE section")
    if fault == "path_escape":
        out = sr_block("../" + src.path, src.lang, old, new)
        return Case(None, "search-replace", before, out, "failed", code="path_escape", fault=fault, source=src.name,
                    description="the path climbs out of the root")
    if fault == "absolute_path":
        out = sr_block("/etc/" + os.path.basename(src.path), src.lang, old, new)
        return Case(None, "search-replace", before, out, "failed", code="path_escape", fault=fault, source=src.name,
                    description="an absolute path")
    if fault == "missing_file":
        out = sr_block("src/missing_" + os.path.basename(src.path), src.lang, old, new)
        return Case(None, "search-replace", before, out, "failed", code="file_missing", fault=fault, source=src.name,
                    description="a non-empty SEARCH against a file that does not exist")
    if fault == "create":
        p = os.path.dirname(src.path) + "/new_" + os.path.basename(src.path)
        out = "Create a new file:\n\n" + sr_block(p, src.lang, [], lines[:12])
        return Case(None, "search-replace", before, out, "applied", after={**before, p: join(lines[:12])}, fault=fault,
                    source=src.name, description="an empty SEARCH creates a missing file")
    if fault == "append":
        extra = [src.note("", "appended by the corpus")]
        out = sr_block(src.path, src.lang, [], extra)
        return Case(None, "search-replace", before, out, "applied", after={src.path: join(lines + extra)},
                    fault=fault, source=src.name, description="an empty SEARCH appends to an existing file")
    if fault == "elided":
        cm = src.comment or "<!--"
        end = " -->" if cm == "<!--" else ""
        placeholder = f"{indent_of(old[1])}{cm} ... existing code ...{end}"
        out = sr_block(src.path, src.lang, old, [new[0], placeholder, new[-1]])
        return Case(None, "search-replace", before, out, "failed", code="elided", fault=fault, source=src.name,
                    description="the REPLACE text stands a placeholder in for code")
    if fault == "malformed":
        out = f"{src.path}\n```{src.lang}\n<<<<<<< SEARCH\n" + join(old) + ">>>>>>> REPLACE\n```\n"
        return Case(None, "search-replace", before, out, "failed", code="malformed", fault=fault, source=src.name,
                    description="the block has no ======= divider")
    if fault == "prose_fences":
        out = ("Let me explain first. The function below needs a note:\n\n```" + src.lang + "\n" + join(old) + "```\n\n"
               "Run the tests afterwards:\n\n```sh\ncargo test\n```\n\nHere is the edit:\n\n" + full +
               "\nThat's all. Let me know if you want more changes!\n")
        after = list(lines)
        after[s : s + 3] = new
        return Case(None, "search-replace", before, out, "applied", after={src.path: join(after)}, fault=fault,
                    source=src.name, description="prose and unrelated fenced code around the block")
    if fault == "path_reuse":
        t = pick_block(src, rng)
        if t is None or abs(t - s) < 4:
            return None
        old2 = lines[t : t + 3]
        new2 = change(src, old2, "reuse")
        out = full + "\nAnd in the same file:\n\n```" + src.lang + "\n<<<<<<< SEARCH\n" + join(old2) + "=======\n" + join(new2) + ">>>>>>> REPLACE\n```\n"
        after = list(lines)
        for a, o, n in sorted([(s, old, new), (t, old2, new2)], reverse=True):
            after[a : a + 3] = n
        return Case(None, "search-replace", before, out, "applied", after={src.path: join(after)}, fault=fault,
                    source=src.name, description="the second block names no path and reuses the first one's")
    raise ValueError(fault)


def sr_multi(srcs, rng, fault):
    a, b = srcs
    sa, sb = pick_block(a, rng), pick_block(b, rng)
    if sa is None or sb is None:
        return None
    oa, ob = a.lines[sa : sa + 3], b.lines[sb : sb + 3]
    na, nb = change(a, oa), change(b, ob)
    before = {a.path: join(a.lines), b.path: join(b.lines)}
    aa, ab = list(a.lines), list(b.lines)
    aa[sa : sa + 3] = na
    ab[sb : sb + 3] = nb
    out = sr_block(a.path, a.lang, oa, na) + "\n" + sr_block(b.path, b.lang, ob, nb)
    return Case(None, "search-replace", before, out, "applied", after={a.path: join(aa), b.path: join(ab)},
                fault=fault, source=f"{a.name}, {b.name}", description="one block in each of two files")


def sr_markdown_nested(src, rng, fault):
    """Edits a Markdown file whose block contains a fence."""
    lines = src.lines
    for s in range(len(lines) - 3):
        if lines[s].startswith("```") and count_block(lines, lines[s : s + 3], key=lambda x: x.strip()) == 1:
            old = lines[s : s + 3]
            new = old[:1] + ["// fenced edit from the corpus"] + old[1:]
            after = list(lines)
            after[s : s + 3] = new
            out = sr_block(src.path, "markdown", old, new)
            return Case(None, "search-replace", {src.path: join(lines)}, out, "applied", after={src.path: join(after)},
                        fault=fault, source=src.name, description="the block itself contains a Markdown fence")
    return None


# ---------------------------------------------------------------- whole


def whole_case(src, rng, fault):
    lines = list(src.lines)
    s = pick_block(src, rng)
    if s is None:
        return None
    new_lines = list(lines)
    new_lines[s : s + 3] = change(src, lines[s : s + 3], "rewritten")
    eol, final, bom = "\n", True, ""
    path, opts = src.path, None
    # A file that holds fences itself needs a longer one around it.
    ticks = 4 if any(l.lstrip().startswith("```") for l in lines) else 3
    fence = "`" * ticks + src.lang
    body = join(new_lines)
    intro = rng.choice(PROSE)
    if fault == "crlf":
        eol = "\r\n"
    elif fault == "no_final_newline":
        final = False
    elif fault == "bom":
        bom = "\ufeff"
    before = {path: bom + join(lines, eol, final)}
    after = {path: bom + join(new_lines, eol, final)}
    desc = {"none": "the whole file, rewritten", "crlf": "a CRLF file rewritten with LF",
            "no_final_newline": "the file has no final newline", "bom": "the file has a byte-order mark"}.get(fault)
    if fault in ("none", "crlf", "no_final_newline", "bom"):
        out = f"{intro}{path}\n{fence}\n{body}{fence[:ticks]}\n"
    elif fault == "info_path":
        out = f"{intro}{fence} {path}\n{body}{fence[:ticks]}\n"
        desc = "the path is in the fence's info string"
    elif fault == "examples_ignored":
        out = f"Run `make` first:\n\n```sh\nmake\n```\n\n{path}\n{fence}\n{body}{fence[:ticks]}\n"
        desc = "an unnamed shell example before the file block is not an edit"
    elif fault == "default_path":
        out = f"{fence}\n{body}{fence[:ticks]}\n"
        opts = {"defaultPath": path}
        desc = "no path; the caller names the file"
    elif fault == "create":
        p = os.path.dirname(path) + "/copy_" + os.path.basename(path)
        out = f"{p}\n{fence}\n{body}{fence[:ticks]}\n"
        after = {**before, p: join(new_lines)}
        desc = "a new file"
    elif fault == "two_files":
        p = os.path.dirname(path) + "/second_" + os.path.basename(path)
        before[p] = join(lines[:20])
        after[p] = join(lines[:19])
        out = f"{path}\n{fence}\n{body}{fence[:ticks]}\n\n{p}\n{fence}\n{join(lines[:19])}{fence[:ticks]}\n"
        desc = "two files in one reply"
    elif fault == "elided":
        cm = src.comment or "<!--"
        end = " -->" if cm == "<!--" else ""
        cut = new_lines[: s + 3] + [f"{cm} ... rest of the file unchanged ...{end}"]
        out = f"{path}\n{fence}\n{join(cut)}{fence[:ticks]}\n"
        return Case(None, "whole", before, out, "failed", code="elided", fault=fault, source=src.name,
                    description="the rewrite ends in a placeholder for the rest of the file")
    elif fault == "truncated":
        full = f"{path}\n{fence}\n{body}{fence[:ticks]}\n"
        cut = rng.randrange(len(path) + len(fence) + 3, len(full) - 4)
        return Case(None, "whole", before, intro + full[:cut], "truncated", code="truncated", fault=fault,
                    source=src.name, description="the reply was cut inside the file")
    elif fault == "path_escape":
        out = f"../../{path}\n{fence}\n{body}{fence[:ticks]}\n"
        return Case(None, "whole", before, out, "failed", code="path_escape", fault=fault, source=src.name,
                    description="the path leaves the root")
    else:
        raise ValueError(fault)
    return Case(None, "whole", before, out, "applied", after=after, fault=fault, source=src.name,
                description=desc, options=opts)


def whole_markdown(src, rng, fault):
    lines = src.lines
    new_lines = lines + ["", "```rust", "// added by the corpus", "```"]
    out = f"{src.path}\n````markdown\n{join(new_lines)}````\n"
    return Case(None, "whole", {src.path: join(lines)}, out, "applied", after={src.path: join(new_lines)},
                fault=fault, source=src.name, description="a Markdown file with fences inside, fenced with four backticks")


def main():
    names = sorted(n for n in os.listdir(SOURCES) if os.path.splitext(n)[1] in LANG)
    srcs = [Src(n) for n in names]
    code_srcs = [s for s in srcs if s.comment]
    # Only this generator's cases: other generators own other prefixes.
    for d in os.listdir(CORPUS) if os.path.isdir(CORPUS) else []:
        if d.startswith(("gen-sr-", "gen-whole-")):
            shutil.rmtree(os.path.join(CORPUS, d))
    plans = []
    for f in ["none", "trailing_ws", "trailing_ws_added", "indent_shift", "blank_lines", "unicode", "crlf",
              "no_final_newline", "bom"]:
        plans.append(("sr", f, sr_simple, code_srcs))
    plans.append(("sr", "tabs", sr_simple, [s for s in srcs if s.lang == "go"]))
    for f in ["out_of_order", "second_missing", "overlap"]:
        plans.append(("sr", f, sr_two_blocks, code_srcs))
    plans.append(("sr", "shifting", sr_shifting, code_srcs))
    for f in ["duplicate", "duplicate_ws", "similar_elsewhere", "hallucinated_line", "already_applied"]:
        plans.append(("sr", f, sr_trap, code_srcs))
    for f in ["truncated", "path_escape", "absolute_path", "missing_file", "create", "append", "elided",
              "malformed", "prose_fences", "path_reuse"]:
        plans.append(("sr", f, sr_misc, code_srcs))
    plans.append(("sr", "nested_fence", sr_markdown_nested, [s for s in srcs if s.lang == "markdown"]))
    for f in ["none", "crlf", "no_final_newline", "bom", "info_path", "examples_ignored", "default_path", "create",
              "two_files", "elided", "truncated", "path_escape"]:
        plans.append(("whole", f, whole_case, srcs))
    plans.append(("whole", "nested_fence", whole_markdown, [s for s in srcs if s.lang == "markdown"]))

    count = 0
    for i, (fmt, fault, fn, pool) in enumerate(plans):
        made = 0
        for j in range(len(pool)):
            if made >= PER_SCENARIO:
                break
            src = pool[(i + j) % len(pool)]
            rng = random.Random(f"{fmt}/{fault}/{src.name}")
            case = fn(src, rng, fault)
            if case is None:
                continue
            case.name = f"gen-{fmt}-{fault}-{os.path.splitext(src.name)[0]}"
            write(case)
            made += 1
            count += 1
    for j in range(PER_SCENARIO):
        a, b = code_srcs[j % len(code_srcs)], code_srcs[(j + 3) % len(code_srcs)]
        rng = random.Random(f"multi/{a.name}/{b.name}")
        case = sr_multi((a, b), rng, "multi_file")
        if case:
            case.name = f"gen-sr-multi_file-{j}"
            write(case)
            count += 1
    print(f"wrote {count} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
