#!/usr/bin/env python3
"""Corpus cases for hostile replies (`gen-hostile-*`): a NUL byte in an
edit's new text (a text file cannot hold one: `malformed`, nothing
written) and a declared edit count too large to be one (`EDITS:` past 64
bits: `malformed`, never read as "not declared").

As in make_corpus.py, the expected outcome follows from the fault alone.

Usage: python3 tests/tools/corpus_hostile.py   (rewrites tests/corpus/gen-hostile-*)
"""

import json
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_corpus import CORPUS, SOURCES, LANG, Case, Src, change, join, pick_block, sr_block, write  # noqa: E402
from corpus_reasoning import edit_text  # noqa: E402

COUNTS = {"u64_max_plus_one": "18446744073709551616", "thirty_digits": "1" + "0" * 29}


def nul_case(src, fmt, rng):
    s = pick_block(src, rng)
    if s is None:
        return None
    old = src.lines[s : s + 3]
    new = change(src, old, "nul")
    new[1] = new[1] + " \0 "
    out = "Here is the change.\n\n" + edit_text(fmt, src, src.lines, s, old, new)
    return Case(None, fmt, {src.path: src.text}, out, "failed", code="malformed", fault="nul_in_new_text",
                trap=True, source=src.name, description="a NUL byte in the new text is refused; nothing is written")


def count_case(src, label, rng):
    s = pick_block(src, rng)
    if s is None:
        return None
    old = src.lines[s : s + 3]
    out = f"EDITS: {COUNTS[label]}\n" + sr_block(src.path, src.lang, old, change(src, old, "count"))
    return Case(None, "search-replace", {src.path: src.text}, out, "failed", code="malformed", fault=label,
                trap=True, source=src.name, description="a declared count too large to be one is malformed, not ignored")


BARE = ["configure", "Jenkinsfile", "CODEOWNERS", "gradlew"]


def bare_path(src, label, rng):
    """Two blocks: one for a source file, then one under a bare word that
    names a file of the tree (it applies there, the first file keeps only
    its own edit), is no file (refused: `path_unclear`), or is a path with a
    component no file system holds."""
    s = pick_block(src, rng)
    if s is None:
        return None
    old = src.lines[s : s + 3]
    new = change(src, old, "first")
    word = BARE[rng.randrange(len(BARE))]
    script = ["#!/bin/sh", "echo building", "exit 0"]
    if label == "long_component":
        word = "src/" + "a" * 300 + ".sh"
    second = f"{word}\n```\n<<<<<<< SEARCH\n{script[1]}\n=======\n{script[1]}\necho done\n>>>>>>> REPLACE\n```\n"
    out = sr_block(src.path, src.lang, old, new) + "\n" + second
    before = {src.path: src.text}
    if label == "names_a_file":
        before[word] = join(script)
        after = {src.path: join(src.lines[:s] + new + src.lines[s + 3 :]),
                 word: join([script[0], script[1], "echo done", script[2]])}
        return Case(None, "search-replace", before, out, "applied", after=after, fault="bare_word_path", trap=True,
                    source=src.name, description="a bare word above a block that names a file of the tree is its path")
    return Case(None, "search-replace", before, out, "failed", code="path_unclear", fault=f"bare_word_{label}",
                trap=True, source=src.name,
                description="a bare word above a block that names no file is refused, not sent to the previous file")


def sentence_above(src, rng):
    """A one-word sentence (`Sure.`) above the path line: prose, not a
    second path that would make the path line one of a list."""
    s = pick_block(src, rng)
    if s is None:
        return None
    old = src.lines[s : s + 3]
    new = change(src, old, "sure")
    out = "Sure.\n\n" + sr_block(src.path, src.lang, old, new)
    after = {src.path: join(src.lines[:s] + new + src.lines[s + 3 :])}
    return Case(None, "search-replace", {src.path: src.text}, out, "applied", after=after, fault="sentence_above_path",
                source=src.name, description="a one-word sentence above the path line is prose")


def main():
    names = sorted(n for n in os.listdir(SOURCES) if os.path.splitext(n)[1] in LANG)
    code = [Src(n) for n in names if Src(n).comment]
    for d in os.listdir(CORPUS):
        if d.startswith("gen-hostile-"):
            shutil.rmtree(os.path.join(CORPUS, d))
    jobs = [(f"nul-{fmt}", lambda s, r, f=fmt: nul_case(s, f, r))
            for fmt in ("search-replace", "udiff", "whole", "apply-patch", "tool-call")]
    jobs += [(f"count-{label}", lambda s, r, x=label: count_case(s, x, r)) for label in COUNTS]
    jobs += [(f"bare-{label}-{k}", lambda s, r, x=label: bare_path(s, x, r))
             for label in ("names_a_file", "no_such_file", "long_component") for k in range(2)]
    jobs += [(f"sentence-{k}", sentence_above) for k in range(2)]
    count = 0
    for j, (label, make) in enumerate(jobs):
        src = code[j % len(code)]
        case = make(src, random.Random(f"hostile/{label}"))
        if case is None:
            continue
        case.name = f"gen-hostile-{label}-{os.path.splitext(src.name)[0]}"
        write(case)
        count += 1
    print(f"wrote {count} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
