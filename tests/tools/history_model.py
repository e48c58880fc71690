"""The rules a correct engine follows, written out independently of the
engine, so that corpus_history.py can compute the one correct outcome of a
case without asking patchbay.

- `find`: the matcher ladder of docs/formats.md / ARCHITECTURE.md: exact, then
  trailing whitespace, then one indentation prefix added or removed, then
  leading/trailing blank lines of the block ignored, then a constant
  indentation width (tab stops 4, 8, 2), then Unicode look-alikes folded.
  Each level counts every candidate: one wins, two or more are ambiguous
  unless a hint selects exactly one within the window, none moves on.
  Naive O(lines x block): the excerpts are small.
- `tag`: the hashline tag (CRC-32 of the line without trailing whitespace,
  big-endian, base64url, first 4 characters).
- `file_crc`: the CRC-32 of the whole file as the `lines` format shows it.
"""

import base64
import zlib

LEVELS = ["exact", "trailing_ws", "indent", "blank_lines", "tabs", "unicode"]

_FOLD = {}
for _c in "\u2018\u2019\u201a\u201b\u2032\uff07":
    _FOLD[_c] = "'"
for _c in "\u201c\u201d\u201e\u201f\u2033\uff02":
    _FOLD[_c] = '"'
for _c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d":
    _FOLD[_c] = "-"
for _c in ["\u00a0", "\u202f", "\u205f", "\u3000"] + [chr(x) for x in range(0x2000, 0x200B)]:
    _FOLD[_c] = " "
for _c in "\u200b\u200c\u200d\u2060\ufeff":
    _FOLD[_c] = ""
_FOLD.update({"\u2026": "...", "\uff08": "(", "\uff09": ")", "\uff1a": ":", "\uff1b": ";",
              "\uff0c": ",", "\u2039": "<", "\u203a": ">"})


def fold(s):
    return "".join(_FOLD.get(c, c) for c in s)


def indent(s):
    return s[: len(s) - len(s.lstrip())]


def blank(s):
    return s.strip() == ""


def width(ind, tab):
    w = 0
    for c in ind:
        w = w + tab - w % tab if c == "\t" else w + 1
    return w


def key(level, s):
    if level == "exact":
        return s
    if level == "unicode":
        return fold(s).strip()
    return s.strip()


def prefix_shift(file, block):
    shift = None
    for f, b in zip(file, block):
        if blank(f) or blank(b):
            continue
        fi, bi = indent(f), indent(b)
        if fi == bi:
            this = ("none",)
        elif fi.endswith(bi):
            this = ("add", fi[: len(fi) - len(bi)])
        elif bi.endswith(fi):
            this = ("remove", bi[: len(bi) - len(fi)])
        else:
            return None
        if shift is None:
            shift = this
        elif shift != this:
            return None
    return shift or ("none",)


def width_shift(file, block):
    pairs = [(indent(f), indent(b)) for f, b in zip(file, block) if not blank(f) and not blank(b)]
    for tab in (4, 8, 2):
        deltas = {width(f, tab) - width(b, tab) for f, b in pairs}
        if len(deltas) <= 1:
            return ("width",)
    return None


def _verify(level, window, sub):
    if any(key(level, f) != key(level, b) for f, b in zip(window, sub)):
        return False
    if level == "exact":
        return True
    if level == "trailing_ws":
        return prefix_shift(window, sub) == ("none",)
    if level in ("indent", "blank_lines"):
        return prefix_shift(window, sub) is not None
    return width_shift(window, sub) is not None


def find(lines, block, hint=None, window=20):
    """('ok', start, end, level) | ('ambiguous', level) | ('not_found',) | ('empty',)"""
    if all(blank(b) for b in block):
        return ("empty",)
    lead = next(i for i, b in enumerate(block) if not blank(b))
    trail = next(i for i, b in enumerate(reversed(block)) if not blank(b))
    n = len(lines)
    for level in LEVELS:
        if level == "blank_lines" and lead == 0 and trail == 0:
            continue
        sub = block[lead: len(block) - trail] if LEVELS.index(level) >= 3 else block
        m = len(sub)
        if m > n:
            continue
        cands = [s for s in range(n - m + 1) if _verify(level, lines[s: s + m], sub)]
        if len(cands) == 1:
            return ("ok", cands[0], cands[0] + m, level)
        if len(cands) > 1:
            if hint is not None:
                lo, hi = max(hint - window, 0), min(hint + window, n - m)
                near = [s for s in cands if lo <= s <= hi]
                if len(near) == 1:
                    return ("ok", near[0], near[0] + m, level)
            return ("ambiguous", level)
    return ("not_found",)


def count_overlapping(hay, needle):
    n, at = 0, hay.find(needle)
    while at != -1:
        n += 1
        at = hay.find(needle, at + 1)
    return n


_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def tag(line):
    crc = zlib.crc32(line.rstrip().encode("utf-8")) & 0xFFFFFFFF
    b = crc.to_bytes(4, "big")
    out = base64.urlsafe_b64encode(b).decode().rstrip("=")
    assert all(c in _B64 for c in out)
    return out[:4]
