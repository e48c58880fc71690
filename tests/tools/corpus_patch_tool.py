#!/usr/bin/env python3
"""Builds the corpus cases of the `apply-patch` (Codex V4A) and `tool-call`
(Anthropic text-editor JSON) formats: tests/corpus/gen-applypatch-* and
tests/corpus/gen-toolcall-*.

Like make_corpus.py (whose helpers it imports), every case starts from real
source excerpts in sources/, knows the change it means, writes the reply a
model would write with one labelled fault, and derives the one correct
outcome from the fault alone: the expected files are computed here, never
taken from the engine. Traps put a look-alike of the target elsewhere in the
file (a natural or copied duplicate, a near-miss quote); the engine must
refuse or pick the place the reply pins down, never the look-alike.

Usage: python3 tests/tools/corpus_patch_tool.py   (rewrites only its own
prefixes). Deterministic: the same sources give the same cases.
"""

import os
import random
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ next to the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_corpus import CORPUS, LANG, SOURCES, Src, write  # noqa: E402
from patch_tool.applypatch import (ap_anchor, ap_eof, ap_files, ap_multi, ap_near_miss, ap_nested,  # noqa: E402
                                   ap_pure_add, ap_simple, ap_traps, ap_two_chunks)
from patch_tool.toolcall import tc_dups, tc_misc, tc_multi, tc_replace, tc_traps, tc_two  # noqa: E402

PREFIXES = ("gen-applypatch-", "gen-toolcall-")
PER_SCENARIO = 2


def main():
    names = sorted(n for n in os.listdir(SOURCES) if os.path.splitext(n)[1] in LANG)
    srcs = [Src(n) for n in names if n != "SOURCES.md"]
    code = [s for s in srcs if s.comment]
    for d in os.listdir(CORPUS) if os.path.isdir(CORPUS) else []:
        if d.startswith(PREFIXES):
            shutil.rmtree(os.path.join(CORPUS, d))
    plans = []
    for f in ["none", "trailing_ws", "indent", "unicode", "crlf", "fenced_prose", "no_begin", "udiff_header"]:
        plans.append(("applypatch", f, ap_simple, srcs if f == "none" else code))
    plans += [("applypatch", f, ap_two_chunks, code) for f in ["reverse_order", "second_missing"]]
    plans += [("applypatch", f, ap_anchor, code) for f in ["anchor", "duplicate", "anchor_missing"]]
    plans += [("applypatch", f, ap_nested, code) for f in ["nested_anchors", "anchor_twice"]]
    plans += [("applypatch", f, ap_eof, code) for f in ["end_of_file", "eof_not_at_end", "no_final_newline"]]
    plans += [("applypatch", f, ap_files, code) for f in ["add", "add_exists", "delete", "delete_missing", "move",
                                                          "move_exists", "truncated", "path_escape", "absolute_path",
                                                          "malformed"]]
    plans += [("applypatch", f, ap_near_miss, code) for f in ["similar_elsewhere", "hallucinated_line"]]
    plans.append(("applypatch", "pure_add", ap_pure_add, code))
    plans += [("applypatch", f, ap_traps, code) for f in ["duplicate_ws", "near_copy", "indent_dup", "tail_no_eof",
                                                          "shifting"]]
    for f in ["none", "trailing_ws", "indent", "unicode", "crlf", "fenced_prose", "envelope", "name_envelope",
              "raw_newlines", "delete_text", "view_and_edit"]:
        plans.append(("toolcall", f, tc_replace, code))
    plans += [("toolcall", f, tc_two, code) for f in ["array", "json_lines", "cut_array", "second_ambiguous"]]
    plans += [("toolcall", f, tc_dups, code) for f in ["duplicate", "line_hint", "hint_far"]]
    plans += [("toolcall", f, tc_misc, code) for f in ["insert_top", "insert_end", "insert_mid", "insert_out_of_range",
                                                       "create", "create_exists", "view", "view_out_of_range",
                                                       "undo_edit", "truncated", "malformed_json", "path_escape",
                                                       "absolute_path", "missing_file", "similar_elsewhere",
                                                       "hallucinated_line", "substring"]]
    plans += [("toolcall", f, tc_traps, code) for f in ["duplicate_ws", "near_copy", "ladder_near_copy", "indent_dup",
                                                        "hint_second", "substring_suffix", "shifting", "second_not_found"]]
    count = {}
    for i, (fmt, fault, fn, pool) in enumerate(plans):
        made = 0
        for j in range(len(pool)):
            if made >= PER_SCENARIO:
                break
            src = pool[(i + j) % len(pool)]
            case = fn(src, random.Random(f"{fmt}/{fault}/{src.name}"), fault)
            if case is None:
                continue
            case.name = f"gen-{fmt}-{fault}-{os.path.splitext(src.name)[0]}"
            write(case)
            made += 1
            count[fmt] = count.get(fmt, 0) + 1
        if made == 0:
            print(f"no case for {fmt}/{fault}", file=sys.stderr)
    for fmt, fn in (("applypatch", ap_multi), ("toolcall", tc_multi)):
        a, b = code[1], code[4]
        case = fn((a, b), random.Random(f"{fmt}/multi"))
        if case:
            case.name = f"gen-{fmt}-multi_file-0"
            write(case)
            count[fmt] = count.get(fmt, 0) + 1
    print(f"wrote {count}", file=sys.stderr)


if __name__ == "__main__":
    main()
