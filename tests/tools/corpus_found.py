#!/usr/bin/env python3
"""Corpus cases for the faults real replies and a new user found (the
`gen-found-*` cases): paths written above a block with blank lines or prose
between, a block whose path is only mentioned in prose while the previous
block's file also holds its SEARCH text (the silent wrong-file edit), a forced
`whole` format reading another format's reply, a V4A anchor that occurs twice
but whose context follows only one occurrence, and an unknown V4A action.

As in make_corpus.py, the expected outcome is computed here from the change the
generator meant, independently of the engine.

Usage: python3 tests/tools/corpus_found.py   (rewrites tests/corpus/gen-found-*)
"""

import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_corpus import CORPUS, SOURCES, LANG, Case, Src, change, join, pick_block, sr_block, write  # noqa: E402

PER_FAULT = 3


def two_sources(srcs, k):
    a = srcs[k % len(srcs)]
    b = srcs[(k + 2) % len(srcs)]
    return a, b


def sr_separated_path(a, b, rng, fault):
    """Two files; the second block's path line is followed by a blank line,
    or by a blank line and a short line of prose, before its fence."""
    sa, sb = pick_block(a, rng), pick_block(b, rng)
    if sa is None or sb is None or a.path == b.path:
        return None
    oa, ob = a.lines[sa : sa + 3], b.lines[sb : sb + 3]
    na, nb = change(a, oa), change(b, ob)
    gap = "\n" if fault == "path_blank_line" else "\nThe same change in this file:\n\n"
    second = sr_block(b.path, b.lang, ob, nb).replace(f"{b.path}\n", f"{b.path}\n{gap}", 1)
    out = sr_block(a.path, a.lang, oa, na) + "\n" + second
    aa, ab = list(a.lines), list(b.lines)
    aa[sa : sa + 3] = na
    ab[sb : sb + 3] = nb
    return Case(None, "search-replace", {a.path: join(a.lines), b.path: join(b.lines)}, out, "applied",
                after={a.path: join(aa), b.path: join(ab)}, fault=fault, source=f"{a.name}, {b.name}",
                description="the second path line is separated from its fence; the block goes to that file")


def sr_mentioned_path(a, b, rng, fault):
    """The silent wrong-file edit: the second block names no path line, the
    prose above it names the second file, and its SEARCH text (a shared
    line) exists in the first file too. Reusing the first file's path would
    apply cleanly to the wrong file: refused as `path_unclear`."""
    sb = pick_block(b, rng, m=1)
    if sb is None or a.path == b.path:
        return None
    shared = b.lines[sb]
    sa = pick_block(a, rng)
    if sa is None:
        return None
    # The first file holds the shared line too (a common statement).
    a_lines = list(a.lines)
    a_lines.insert(sa + 3, shared)
    oa = a_lines[sa : sa + 3]
    na = change(a, oa)
    nb = [shared, b.note("", "corpus edit: second file")]
    out = (sr_block(a.path, a.lang, oa, na) + f"\nNow update `{b.path}` as well:\n\n"
           + sr_block(b.path, b.lang, [shared], nb).split("\n", 1)[1])
    return Case(None, "search-replace", {a.path: join(a_lines), b.path: join(b.lines)}, out, "failed",
                code="path_unclear", fault=fault, trap=True, source=f"{a.name}, {b.name}",
                description="a block that only mentions its file in prose, whose SEARCH text the previous file also has")


def sr_aider_shapes(a, rng, fault):
    """Shapes of real Aider replies: a `<source>python` tag fence, a new text
    closed by a second `=======` with prose after it, and a doubled divider
    before `>>>>>>> REPLACE`. Each applies as Aider reads it, and no marker
    line reaches the file."""
    s = pick_block(a, rng)
    if s is None:
        return None
    old = a.lines[s : s + 3]
    new = change(a, old)
    if fault == "tag_fence":
        body = "<<<<<<< SEARCH\n" + join(old) + "=======\n" + join(new) + ">>>>>>> REPLACE\n"
        out = f"Here is the change:\n\n{a.path}\n<source>{a.lang}\n{body}</source>\n"
    elif fault == "divider_as_tail":
        body = "<<<<<<< SEARCH\n" + join(old) + "=======\n" + join(new) + "=======\n"
        out = f"{a.path}\n```{a.lang}\n{body}\nThis change adds a note.\n"
    else:
        body = "<<<<<<< SEARCH\n" + join(old) + "=======\n" + join(new) + "=======\n>>>>>>> REPLACE\n"
        out = f"{a.path}\n```{a.lang}\n{body}```\n"
    lines = list(a.lines)
    lines[s : s + 3] = new
    return Case(None, "search-replace", {a.path: join(a.lines)}, out, "applied", after={a.path: join(lines)},
                fault=fault, source=a.name, description="a block in a shape Aider's parser accepts")


def udiff_mentioned_path(a, b, rng, fault):
    """The wrong-file edit in a unified diff: a headerless hunk under a path
    line, then a second headerless hunk whose file only the prose names,
    while its lines exist in the first file too: refused as `path_unclear`."""
    sb = pick_block(b, rng, m=1)
    sa = pick_block(a, rng)
    if sb is None or sa is None or a.path == b.path:
        return None
    shared = b.lines[sb]
    a_lines = list(a.lines)
    a_lines.insert(sa + 3, shared)
    old = a_lines[sa : sa + 3]
    new = change(a, old)
    first = f"@@ -{sa + 1},3 +{sa + 1},{len(new)} @@\n" + join(["-" + l for l in old] + ["+" + l for l in new])
    second = f"@@ -{sb + 1},1 +{sb + 1},2 @@\n" + join([" " + shared, "+" + b.note("", "corpus edit: second file")])
    out = f"{a.path}\n```diff\n{first}```\n\nNow the same in `{b.path}`:\n\n```diff\n{second}```\n"
    return Case(None, "udiff", {a.path: join(a_lines), b.path: join(b.lines)}, out, "failed", code="path_unclear",
                fault=fault, trap=True, source=f"{a.name}, {b.name}",
                description="a headerless hunk whose file only the prose names, with lines the previous file has too")


def whole_forced(a, rng, fault):
    """`--format whole` on a SEARCH/REPLACE or unified-diff reply in a fence
    must not write the markers into the file."""
    s = pick_block(a, rng)
    if s is None:
        return None
    old = a.lines[s : s + 3]
    new = change(a, old)
    if fault == "forced_whole_on_sr":
        out = sr_block(a.path, a.lang, old, new)
    else:
        hunk = [f"@@ -{s + 1},3 +{s + 1},{len(new)} @@"] + [f"-{l}" for l in old] + [f"+{l}" for l in new]
        body = f"--- a/{a.path}\n+++ b/{a.path}\n" + join(hunk)
        out = f"{a.path}\n```diff\n{body}```\n"
    return Case(None, "whole", {a.path: join(a.lines)}, out, "failed", code="malformed", fault=fault, trap=True,
                source=a.name, description="a forced whole-file format on a reply in another format is refused")


def whole_separated_path(a, b, rng, fault):
    """A whole-file block whose path line stands above a line of prose; the
    default file is another one, which must stay untouched."""
    if a.path == b.path:
        return None
    s = pick_block(a, rng)
    if s is None:
        return None
    lines = list(a.lines)
    lines[s : s + 3] = change(a, lines[s : s + 3])
    out = f"{a.path}\n\nHere is the whole updated file:\n```{a.lang}\n{join(lines)}```\n"
    before = {a.path: join(a.lines), b.path: join(b.lines)}
    return Case(None, "whole", before, out, "applied", after={a.path: join(lines), b.path: join(b.lines)},
                fault=fault, trap=True, source=f"{a.name}, {b.name}", options={"defaultPath": b.path},
                description="the path line is above a line of prose; the default file is not overwritten")


def ap_anchor_twice(a, rng, fault):
    """A V4A anchor line occurring twice; only one occurrence is followed by
    the chunk's context, so the chunk is unique and applies."""
    s = pick_block(a, rng, m=4)
    if s is None:
        return None
    anchor, old = a.lines[s], a.lines[s + 1 : s + 4]
    if len(anchor.strip()) < 4:
        return None
    lines = list(a.lines)
    # A second copy of the anchor line, at the end, followed by other lines.
    lines += ["", anchor, a.note(indent_of(old[0]), "another place with the same first line")]
    new = change(a, old)
    body = "".join(f" {l}\n" for l in old[:1]) + "".join(f"-{l}\n" for l in old[1:]) + \
        "".join(f"+{l}\n" for l in new[1:])
    out = f"*** Begin Patch\n*** Update File: {a.path}\n@@ {anchor.strip()}\n{body}*** End Patch\n"
    after = list(lines)
    after[s + 1 : s + 4] = new
    return Case(None, "apply-patch", {a.path: join(lines)}, out, "applied", after={a.path: join(after)},
                fault=fault, trap=True, source=a.name,
                description="the anchor occurs twice; the context follows only the first: applied there")


def ap_unknown_action(a, rng, fault):
    out = f"*** Begin Patch\n*** Rename File: {a.path}\n*** End Patch\n"
    return Case(None, "apply-patch", {a.path: join(a.lines)}, out, "failed", code="malformed", fault=fault,
                source=a.name, description="an action V4A does not have is malformed, not `no_edits`")


def indent_of(line):
    return line[: len(line) - len(line.lstrip())]


def main():
    names = sorted(n for n in os.listdir(SOURCES) if os.path.splitext(n)[1] in LANG)
    srcs = [Src(n) for n in names]
    code = [s for s in srcs if s.comment]
    for d in os.listdir(CORPUS):
        if d.startswith("gen-found-"):
            shutil.rmtree(os.path.join(CORPUS, d))
    pairs = [
        ("path_blank_line", sr_separated_path),
        ("path_after_prose", sr_separated_path),
        ("path_only_in_prose", sr_mentioned_path),
        ("udiff_path_only_in_prose", udiff_mentioned_path),
        ("whole_path_after_prose", whole_separated_path),
    ]
    singles = [
        ("forced_whole_on_sr", whole_forced),
        ("forced_whole_on_udiff", whole_forced),
        ("anchor_twice_narrows", ap_anchor_twice),
        ("tag_fence", sr_aider_shapes),
        ("divider_as_tail", sr_aider_shapes),
        ("doubled_divider", sr_aider_shapes),
        ("unknown_action", ap_unknown_action),
    ]
    count = 0
    for fault, fn in pairs + singles:
        made = 0
        for k in range(len(code) * 2):
            if made >= PER_FAULT:
                break
            rng = random.Random(f"found/{fault}/{k}")
            if (fault, fn) in pairs:
                a, b = two_sources(code, k)
                case = fn(a, b, rng, fault)
                stem = f"{os.path.splitext(a.name)[0]}-{os.path.splitext(b.name)[0]}"
            else:
                a = code[k % len(code)]
                case = fn(a, rng, fault)
                stem = os.path.splitext(a.name)[0]
            if case is None:
                continue
            case.name = f"gen-found-{fault}-{stem}"
            write(case)
            made += 1
            count += 1
    print(f"wrote {count} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
