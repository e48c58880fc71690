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


def main():
    names = sorted(n for n in os.listdir(SOURCES) if os.path.splitext(n)[1] in LANG)
    code = [Src(n) for n in names if Src(n).comment]
    for d in os.listdir(CORPUS):
        if d.startswith("gen-hostile-"):
            shutil.rmtree(os.path.join(CORPUS, d))
    jobs = [(f"nul-{fmt}", lambda s, r, f=fmt: nul_case(s, f, r))
            for fmt in ("search-replace", "udiff", "whole", "apply-patch", "tool-call")]
    jobs += [(f"count-{label}", lambda s, r, x=label: count_case(s, x, r)) for label in COUNTS]
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
