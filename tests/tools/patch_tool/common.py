"""Shared pieces of the apply-patch and tool-call corpus generators: finding
blocks, scope-header anchors and look-alikes in real sources (see
corpus_patch_tool.py)."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from make_corpus import change, count_block, indent_of, pick_block  # noqa: E402

STRIP = lambda x: x.strip()  # noqa: E731


def replaced(lines, s, m, new):
    out = list(lines)
    out[s : s + m] = new
    return out


def is_header(line):
    """A line that opens a scope, usable as an `@@` anchor."""
    t = line.strip()
    if len(t) < 8 or t.startswith(("#", "//", "/*", "*", "<!--", "```", "@")):
        return False
    return t.endswith((":", "{", "(")) or re.match(r"(pub |async |export )*(def|class|fn|func|function|impl) ", t)


def unique_headers(lines, lo, hi):
    return [i for i in range(max(lo, 0), min(hi, len(lines))) if is_header(lines[i])
            and count_block(lines, [lines[i]], key=STRIP) == 1]


def occurrences(hay, needle):
    """Occurrences of a substring, overlapping ones included."""
    n, k = 0, hay.find(needle)
    while k >= 0:
        n += 1
        k = hay.find(needle, k + 1)
    return n


def natural_duplicate(src):
    """A 2-line block that occurs twice in the real file, with a unique
    header line between the two: (start of the second, header index)."""
    L = src.lines
    for i in range(len(L) - 1):
        b = L[i : i + 2]
        if any(len(x.strip()) < 8 for x in b) or count_block(L, b, key=STRIP) != 2 or count_block(L, b) != 2:
            continue
        later = [j for j in range(i + 2, len(L) - 1) if [x.strip() for x in L[j : j + 2]] == [x.strip() for x in b]]
        if not later:
            continue
        j = later[0]
        hs = unique_headers(L, i + 2, j)
        if hs and b[0].strip() != b[1].strip():
            return j, hs[-1]
    return None


def copied_duplicate(src, rng):
    """Synthetic: a block B after a unique header A, and the file with a copy
    of B put before A. Returns (file lines, B's start in it, header index)."""
    L = src.lines
    heads = unique_headers(L, 0, len(L) - 6)
    rng.shuffle(heads)
    for a in heads:
        for b in range(a + 1, min(a + 20, len(L) - 3)):
            blk = L[b : b + 3]
            if any(not x.strip() or "```" in x for x in blk) or count_block(L, blk, key=STRIP) != 1:
                continue
            f = L[:a] + blk + [""] + L[a:]
            return f, b + 4, a + 4
    return None


def flat(lines):
    return "".join(x + "\n" for x in lines)


def tc_block(src, rng, pred=None):
    """A 3-line block whose text (without final newline) occurs once."""
    L = src.lines
    for _ in range(20):
        s = pick_block(src, rng, pred=pred)
        if s is not None and occurrences(flat(L), "\n".join(L[s : s + 3])) == 1:
            return s
    return None


def near(block):
    """The block with one character of its longest line changed."""
    k = max(range(len(block)), key=lambda i: len(block[i].strip()))
    w = block[k].rstrip()
    return block[:k] + [w[:-1] + ("X" if not w.endswith("X") else "Y")] + block[k + 1 :]


def trap_file(src, rng, fault):
    """Shared set-ups of the look-alike traps: (file, target start, old, new, indent cut)."""
    L = src.lines
    pred = None
    if fault == "indent_dup":
        pred = lambda b: all(indent_of(x) for x in b) and len({indent_of(x)[:1] for x in b}) == 1  # noqa: E731
    s = tc_block(src, rng, pred)
    if s is None:
        return None
    old = L[s : s + 3]
    if fault == "duplicate_ws":
        f = L + [""] + [x + " " for x in old]
    elif fault == "near_copy":
        f = L + [""] + near(old)
    elif fault == "ladder_near_copy":
        f = replaced(L, s, 3, [x + "  " for x in old]) + [""] + near(old)
    elif fault == "indent_dup":
        f = L + [""] + ["    " + x for x in old]
    else:
        raise ValueError(fault)
    return f, s, old, change(src, old), min(len(indent_of(x)) for x in old)
