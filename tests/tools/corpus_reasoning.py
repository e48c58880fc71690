#!/usr/bin/env python3
"""Corpus cases for two shapes of real replies:

- `gen-think-*`: a reasoning model's reply that starts with its reasoning
  section (`<think>` ... `</think>`, `<thinking>`, `<reasoning>`, or only the
  close when the chat template opened the tag), in which the model drafts an
  edit it then decides against. Only the edit after the section applies; a
  section that never closes means the reply was cut (`truncated`); a tag
  inside an edit's text is content.
- `gen-chain-*`: SEARCH/REPLACE blocks and `str_replace` calls where a later
  edit quotes text an earlier edit of the same reply wrote (Aider and
  Anthropic's editor apply them one after another). They apply as those
  tools apply them; an edit ambiguous or absent in that text is refused.

As in make_corpus.py, the expected outcome is computed here, from the change
the generator meant, by applying the intended edits to the file with plain
string replacement, independently of the engine.

Usage: python3 tests/tools/corpus_reasoning.py   (rewrites tests/corpus/gen-think-* and gen-chain-*)
"""

import json
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_corpus import CORPUS, SOURCES, LANG, Case, Src, change, join, pick_block, sr_block, write  # noqa: E402
from corpus_udiff import body_text, header, hunk  # noqa: E402

FORMATS = ["search-replace", "udiff", "whole", "apply-patch", "tool-call"]
PER_FAULT = 2


def replace_once(text, old, new):
    """`text` with the one whole-line occurrence of `old` replaced, or None
    when it occurs zero or several times."""
    hay, needle = "\n" + text, "\n" + join(old)
    if hay.count(needle) != 1:
        return None
    return hay.replace(needle, "\n" + join(new), 1)[1:]


def edit_text(fmt, src, lines, s, old, new):
    """The reply text of one edit in `fmt` replacing lines[s:s+len(old)]."""
    if fmt == "search-replace":
        return sr_block(src.path, src.lang, old, new)
    if fmt == "udiff":
        nums, body = hunk(lines, s, len(old), new)
        return f"```diff\n--- a/{src.path}\n+++ b/{src.path}\n{header(nums)}{body_text(body)}```\n"
    if fmt == "whole":
        after = list(lines)
        after[s : s + len(old)] = new
        return f"{src.path}\n```{src.lang}\n{join(after)}```\n"
    if fmt == "apply-patch":
        body = "".join(f"-{x}\n" for x in old) + "".join(f"+{x}\n" for x in new)
        return f"*** Begin Patch\n*** Update File: {src.path}\n@@\n{body}*** End Patch\n"
    call = {"command": "str_replace", "path": src.path, "old_str": "\n".join(old), "new_str": "\n".join(new)}
    return json.dumps(call) + "\n"


def two_regions(src, rng):
    """Two unique, separate 3-line regions."""
    a = pick_block(src, rng)
    if a is None:
        return None
    for _ in range(20):
        b = pick_block(src, rng)
        if b is not None and abs(b - a) > 8:
            return a, b
    return None


SECTIONS = {
    "draft_applies": ("<think>\n", "</think>\n"),
    "draft_absent": ("<think>\n", "</think>\n"),
    "template_opened": ("", "</think>\n"),
    "thinking_tag": ("<thinking>\n", "</thinking>\n"),
    "reasoning_tag": ("<reasoning>\n", "</reasoning>\n"),
    "unclosed": ("<think>\n", None),
}


def think_case(src, fmt, fault, rng):
    regions = two_regions(src, rng)
    if regions is None:
        return None
    a, b = regions
    lines = src.lines
    da, db = lines[a : a + 3], lines[b : b + 3]
    draft_old = list(da)
    if fault == "draft_absent":
        draft_old[1] = draft_old[1] + "  # a line the file does not have"
    draft = edit_text(fmt, src, lines, a, draft_old, change(src, da, "draft"))
    real_new = change(src, db, "answer")
    real = edit_text(fmt, src, lines, b, db, real_new)
    opener, closer = SECTIONS[fault]
    thought = f"{opener}The user wants a note. Maybe the fix belongs here:\n\n{draft}\n" \
              "No: that function is fine, the note belongs further down.\n"
    before = {src.path: src.text}
    if closer is None:
        return Case(None, fmt, before, thought, "truncated", code="truncated", fault=fault, source=src.name,
                    description="a reasoning section that never closes: cut before the answer, nothing applies")
    out = f"{thought}{closer}\nHere is the change:\n\n{real}"
    after = replace_once(src.text, db, real_new)
    if after is None:
        return None
    return Case(None, fmt, before, out, "applied", after={src.path: after}, fault=fault, trap=True,
                source=src.name, description="an edit drafted in the reasoning section is not applied; the answer's is")


def tag_in_content(src, rng):
    """A fenced block whose new text has a close tag as a line of its own,
    and an unfenced one with a tag inside a line, in a reply that opens no
    section: the tags are content."""
    s = pick_block(src, rng)
    if s is None or src.comment is None:
        return None
    old = src.lines[s : s + 3]
    new = change(src, old, "answer")
    new[2] = new[2] + " (strips a trailing </think>)"
    new.insert(3, "</think>")
    out = "Here is the change.\n\n" + sr_block(src.path, src.lang, old, new)
    after = replace_once(src.text, old, new)
    if after is None:
        return None
    return Case(None, "search-replace", {src.path: src.text}, out, "applied", after={src.path: after},
                fault="tag_in_content", source=src.name, description="a close tag inside an edit's text is content")


def chained(src, fmt, fault, rng):
    """Block 2 quotes what block 1 wrote (and block 3 what block 2 wrote)."""
    s = pick_block(src, rng)
    if s is None or src.comment is None:
        return None
    old1 = src.lines[s : s + 3]
    new1 = change(src, old1, "first")
    steps = [(old1, new1)]
    if fault == "same_block_again":
        steps.append((new1, new1[:2] + [src.note("", "second thoughts")] + new1[2:]))
    elif fault in ("builds_on_previous", "chain_of_three"):
        old2 = new1[1:3]
        steps.append((old2, [old2[0], src.note("", "builds on the first"), old2[1]]))
        if fault == "chain_of_three":
            old3 = steps[-1][1][1:2]
            steps.append((old3, [old3[0] + " and the second"]))
    elif fault == "ambiguous_in_result":
        twice = src.note("", "twice")
        steps[0] = (old1, [old1[0], twice, old1[1], twice, old1[2]])
        steps.append(([twice], [twice + " once"]))
    elif fault == "absent_everywhere":
        steps.append(([new1[1] + " but not quite"], [src.note("", "never written")]))
    text = src.text
    for old, new in steps:
        text = replace_once(text, old, new) if text is not None else None
    parts = [edit_text(fmt, src, src.lines, 0, old, new) for old, new in steps]
    out = "I'll make the change in steps.\n\n" + "\n".join(parts)
    before = {src.path: src.text}
    if fault in ("ambiguous_in_result", "absent_everywhere"):
        code = "ambiguous" if fault == "ambiguous_in_result" else "not_found"
        return Case(None, fmt, before, out, "failed", code=code, fault=fault, trap=True, source=src.name,
                    description="a later edit that is not unique in the text the earlier edits produce is refused")
    if text is None:
        return None
    return Case(None, fmt, before, out, "applied", after={src.path: text}, fault=fault, source=src.name,
                description="a later edit quotes text an earlier edit of the reply wrote; applied in order")


def main():
    names = sorted(n for n in os.listdir(SOURCES) if os.path.splitext(n)[1] in LANG)
    code = [Src(n) for n in names if Src(n).comment]
    for d in os.listdir(CORPUS):
        if d.startswith("gen-think-") or d.startswith("gen-chain-"):
            shutil.rmtree(os.path.join(CORPUS, d))
    count = 0
    jobs = [(f"think-{fmt}-{fault}", lambda s, r, f=fmt, x=fault: think_case(s, f, x, r))
            for fmt in FORMATS for fault in SECTIONS]
    jobs.append(("think-search-replace-tag_in_content", tag_in_content))
    jobs += [(f"chain-{fmt}-{fault}", lambda s, r, f=fmt, x=fault: chained(s, f, x, r))
             for fmt in ("search-replace", "tool-call")
             for fault in ("builds_on_previous", "same_block_again", "chain_of_three",
                           "ambiguous_in_result", "absent_everywhere")]
    for j, (label, make) in enumerate(jobs):
        made = 0
        for k in range(len(code) * 2):
            if made >= PER_FAULT:
                break
            src = code[(j * PER_FAULT + k) % len(code)]
            case = make(src, random.Random(f"{label}/{k}"))
            if case is None:
                continue
            case.name = f"gen-{label}-{os.path.splitext(src.name)[0]}"
            if os.path.exists(os.path.join(CORPUS, case.name)):
                continue
            write(case)
            made += 1
            count += 1
    print(f"wrote {count} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
