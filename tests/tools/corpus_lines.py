#!/usr/bin/env python3
"""Builds the corpus cases of the line-addressed formats (hashline, lines) and
of their detection (auto) from the real source excerpts in sources/.

Cases: tests/corpus/gen-hashline-*, gen-lines-*, gen-auto-hashline-*,
gen-auto-lines-* (only these are removed and rewritten; other generators own
the other prefixes). Each is a folder as make_corpus.py writes it.

Everything the engine computes is computed here again, independently, from
the contract in docs/contracts.md: the hashline tag (zlib.crc32 of the line without
trailing whitespace, 4-byte big-endian, base64url, first N characters; a
second CRC-32 started at 0x9e3779b9 widens it past 5 characters; `N:` is
hashed first when the line number is), the whole-file CRC-32, the per-line
hashes of a seen-lines snapshot, and where a moved block lands. The expected
files come from applying the intended edits to the original lines here; the
expected refusals come from the fault injected. Nothing is blessed.

Usage: python3 tests/tools/corpus_lines.py   (deterministic)
"""

import base64
import json
import os
import random
import shutil
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_corpus as mc  # noqa: E402  (Src, Case, write, join, change, pick_block)

# What a group of faults answers for a fault it does not build (None is a
# case the source cannot give).
NOT_MINE = object()

PREFIXES = ("gen-hashline-", "gen-lines-", "gen-auto-hashline-", "gen-auto-lines-")
WIDE_SEED = 0x9E3779B9


# ---------------------------------------------------------------- the contract, again


def tag(line, n, length=4, with_line=False):
    body = line.rstrip().encode("utf-8")
    prefix = f"{n}:".encode() if with_line else b""
    raw = (zlib.crc32(prefix + body) & 0xFFFFFFFF).to_bytes(4, "big")
    if length > 5:
        raw += (zlib.crc32(prefix + body, WIDE_SEED) & 0xFFFFFFFF).to_bytes(4, "big")
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")[:length]


def line_hash(line):
    return zlib.crc32(line.rstrip().encode("utf-8")) & 0xFFFFFFFF


def file_crc(text):
    return zlib.crc32(text.encode("utf-8")) & 0xFFFFFFFF


def entries(lines, a, b, **opts):
    """`N:TAG` of 1-based lines a..b, newline-separated."""
    return "\n".join(f"{n}:{tag(lines[n - 1], n, **opts)}" for n in range(a, b + 1))


def build(lines, edits):
    """Applies (start, end, new) edits, 0-based against the same original
    lines, in the transaction's order: by start, inserts before replacements."""
    out, pos = [], 0
    for s, e, new in sorted(edits, key=lambda x: (x[0], x[1] > x[0])):
        out += lines[pos:s]
        out += new
        pos = max(pos, e)
    return out + lines[pos:]


def seen_of(lines, ranges, text):
    shown = sorted({n for a, b in ranges for n in range(a, b + 1) if 1 <= n <= len(lines)})
    return {"crc32": f"{file_crc(text):08x}", "lines": [[n, line_hash(lines[n - 1])] for n in shown]}


def jl(objs, fence=True, prose=""):
    body = "\n".join(json.dumps(o, ensure_ascii=False) for o in objs) + "\n"
    return prose + ("```json\n" + body + "```\n" if fence else body)


def jarr(objs, prose=""):
    body = "[\n" + ",\n".join("  " + json.dumps(o, ensure_ascii=False) for o in objs) + "\n]\n"
    return prose + "```json\n" + body + "```\n"


def case(name, fmt, before, output, status, code=None, after=None, fault="none", trap=False, desc="",
         source="", options=None):
    c = mc.Case(name, fmt, before, output, status, code=code, after=after, fault=fault, trap=trap,
                description=desc, source=source, options=options)
    return c


def pick(src, rng, m=3):
    s = mc.pick_block(src, rng, m=m)
    return None if s is None else s


def duplicate_line(src, rng):
    """A non-blank line whose exact text occurs at least twice: (index, others)."""
    lines = src.lines
    idx = [i for i, l in enumerate(lines) if l.strip() and lines.count(l) >= 2 and "`" not in l]
    if not idx:
        return None
    i = rng.choice(idx)
    return i, [j for j, l in enumerate(lines) if l == lines[i] and j != i]


# ---------------------------------------------------------------- hashline


def hashline(src, rng, fault):
    L = list(src.lines)
    p = src.path
    text = mc.join(L)
    before = {p: text}
    s = pick(src, rng)
    if s is None:
        return None
    blk = L[s:s + 3]
    new = mc.change(src, blk, "hashline")
    a, b = s + 1, s + 3  # 1-based range of the block

    def ok(edits, output, desc, trap=False, options=None, files=None, eol="\n", final=True, bom=""):
        fl = files or L
        after_text = bom + mc.join(build(fl, edits), eol, final)
        bt = {p: bom + mc.join(fl, eol, final)}
        return case(None, "hashline", bt, output, "applied", after={p: after_text}, fault=fault, trap=trap,
                    desc=desc, source=src.name, options=options)

    def bad(code, output, desc, trap=False, files=None, options=None, status="failed"):
        return case(None, "hashline", files or before, output, status, code=code, fault=fault, trap=trap,
                    desc=desc, source=src.name, options=options)
    for group in (hashline_edits, hashline_refusals, hashline_options_and_files):
        built = group(src, rng, fault, L, p, before, s, new, a, b, ok, bad)
        if built is not NOT_MINE:
            return built
    raise ValueError(fault)


def hashline_edits(src, rng, fault, L, p, before, s, new, a, b, ok, bad):
    """Edits that apply: single lines, ranges, inserts, deletes, several at once."""
    if fault == "replace_one":
        n = a + 1
        new1 = [new[1]]
        out = "Here is the edit:\n\n" + json.dumps({"tool": "edit", "path": p, "line": n, "tag": tag(L[n - 1], n),
                                                   "new": new1[0]}, indent=2, ensure_ascii=False) + "\n"
        return ok([(n - 1, n, new1)], out, "the flat tool-style shape: one line by line and tag")
    if fault == "replace_range":
        out = jl([{"tool": "edit", "path": p, "lines": entries(L, a, b), "new": "\n".join(new)}])
        return ok([(a - 1, b, new)], out, "a contiguous range as N:TAG lines, the new text as one string")
    if fault == "insert_top":
        top = [src.note("", "inserted at the top by the corpus")]
        out = jl([{"op": "insert_after", "path": p, "line": 0, "new": top[0]}])
        return ok([(0, 0, top)], out, "insert_after line 0 (no tag) inserts at the top")
    if fault == "insert_end":
        n = len(L)
        end = [src.note("", "appended at the end by the corpus")]
        out = jl([{"op": "insert_after", "path": p, "line": n, "tag": tag(L[n - 1], n), "new": end}])
        return ok([(n, n, end)], out, "insert_after the last line", trap=False)
    if fault == "delete_range":
        out = jl([{"op": "delete", "path": p, "lines": entries(L, a, b)}])
        return ok([(a - 1, b, [])], out, "delete a range")
    if fault == "delete_line":
        out = jl([{"op": "delete", "path": p, "line": a, "tag": tag(L[a - 1], a)}])
        return ok([(a - 1, a, [])], out, "delete one line by line and tag")
    if fault in ("multi_any_order", "array_prose", "jsonl"):
        t = pick(src, rng)
        if t is None or abs(t - s) < 6:
            return None
        c, d = t + 1, t + 3
        new2 = mc.change(src, L[t:t + 3], "second")
        if min(a, c) < 4:
            return None
        ins_at = min(a, c) - 2  # above both blocks
        ins = [src.note(mc.indent_of(L[ins_at - 1]), "inserted between")]
        objs = [
            {"op": "replace", "path": p, "lines": entries(L, c, d), "new": "\n".join(new2)},
            {"op": "insert_after", "path": p, "line": ins_at, "tag": tag(L[ins_at - 1], ins_at), "new": ins},
            {"op": "replace", "path": p, "lines": entries(L, a, b), "new": new},
        ]
        objs.sort(key=lambda o: -o.get("line", int(o.get("lines", "0:").split(":")[0])))
        edits = [(a - 1, b, new), (c - 1, d, new2), (ins_at, ins_at, ins)]
        if fault == "multi_any_order":
            out = jl(objs, fence=False, prose="Three edits, last first:\n\n")
            return ok(edits, out, "three edits in reverse file order, an insert among them; all numbers refer to the original view",
                      trap=True)
        if fault == "array_prose":
            out = jarr(objs, prose="I'll make three changes.\n\n") + "\nLet me know if the tests pass.\n"
            return ok(edits, out, "a fenced JSON array with prose around it", trap=True)
        out = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs)
        return ok(edits, out, "one bare JSON object per line", trap=True)
    if fault == "new_array":
        arr = [new[0], "", new[1]]
        out = jl([{"op": "replace", "path": p, "lines": entries(L, a, a + 1), "new": arr}])
        return ok([(a - 1, a + 1, arr)], out, "new as an array of lines, one of them empty")
    if fault == "copied_view_text":
        view = "\n".join(f"{n}:{tag(L[n - 1], n)} {L[n - 1]}" for n in range(a, b + 1))
        out = jl([{"op": "replace", "path": p, "lines": view, "new": "\n".join(new)}])
        return ok([(a - 1, b, new)], out, "the lines were copied from the view with their text after the tags")
    if fault == "raw_newlines":
        body = json.dumps({"path": p, "lines": entries(L, a, b), "new": "\n".join(new)}, ensure_ascii=False)
        body = body.replace("\\n", "\n")
        return ok([(a - 1, b, new)], "```json\n" + body + "\n```\n",
                  "the model wrote raw newlines inside the JSON strings (repaired)")
    return NOT_MINE


def hashline_refusals(src, rng, fault, L, p, before, s, new, a, b, ok, bad):
    """Tags that pick one of equal lines, and edits refused: stale or
    invented tags, gaps, cuts, overlaps."""
    if fault == "duplicate_line_exact":
        d = duplicate_line(src, rng)
        if d is None:
            return None
        i, others = d
        n = i + 1
        repl = [L[i] + ("  " + src.comment + " only this one" if src.comment else " (only this one)")]
        out = jl([{"path": p, "line": n, "tag": tag(L[i], n), "new": repl[0]}])
        return ok([(i, n, repl)], out, f"the line's text also stands on lines {', '.join(str(j + 1) for j in others[:5])}; the number picks exactly one",
                  trap=True)
    if fault == "stale_tag":
        changed = list(L)
        changed[a] = changed[a] + ("  " + src.comment + " changed by someone else" if src.comment else " changed")
        out = jl([{"path": p, "lines": entries(L, a, b), "new": "\n".join(new)}])
        return bad("stale_tag", out, "the file changed after the view: one of the tagged lines is different now", trap=True,
                   files={p: mc.join(changed)})
    if fault == "stale_shift":
        changed = [src.note("", "a line added above by someone else")] + L
        if all(tag(changed[n - 1], n) == tag(L[n - 1], n) for n in range(a, b + 1)):
            return None  # the shifted lines happen to carry the same tags
        out = jl([{"path": p, "lines": entries(L, a, b), "new": "\n".join(new)}])
        return bad("stale_tag", out, "a line was inserted above after the view: the numbers now name other lines", trap=True,
                   files={p: mc.join(changed)})
    if fault == "hallucinated_tag":
        real = tag(L[a - 1], a)
        fake = "".join(rng.choice("ABCDEFGHabcdefgh0123456789_-") for _ in range(4))
        if fake == real:
            return None
        out = jl([{"path": p, "line": a, "tag": fake, "new": new[0]}])
        return bad("stale_tag", out, "a tag the view never showed", trap=True)
    if fault == "gap":
        gap = f"{a}:{tag(L[a - 1], a)}\n{b}:{tag(L[b - 1], b)}"
        out = jl([{"path": p, "lines": gap, "new": "x"}])
        return bad("malformed", out, "a range with a line missing in the middle")
    if fault == "out_of_range":
        n = len(L) + 3
        out = jl([{"path": p, "line": n, "tag": "AAAA", "new": "x"}])
        return bad("out_of_range", out, "a line past the end of the file", trap=True)
    if fault == "truncated":
        full = json.dumps({"path": p, "lines": entries(L, a, b), "new": "\n".join(new)}, ensure_ascii=False)
        cut = rng.randrange(full.index('"new"') + 8, len(full) - 2)
        return bad("truncated", "```json\n" + full[:cut], "the reply was cut inside the JSON", status="truncated")
    if fault == "truncated_array":
        t = pick(src, rng)
        if t is None or abs(t - s) < 4:
            return None
        first = json.dumps({"path": p, "lines": entries(L, a, b), "new": "\n".join(new)}, ensure_ascii=False)
        second = json.dumps({"path": p, "line": t + 1, "tag": tag(L[t], t + 1), "new": L[t] + " "}, ensure_ascii=False)
        out = "```json\n[\n  " + first + ",\n  " + second[: len(second) // 2]
        return bad("truncated", out, "an array cut in its second edit: the first is complete but nothing applies",
                   status="truncated")
    if fault == "overlap":
        out = jl([{"path": p, "lines": entries(L, a, b), "new": "\n".join(new)},
                  {"path": p, "line": b, "tag": tag(L[b - 1], b), "new": "x"}])
        return bad("overlap", out, "two edits claim the same line", trap=True)
    return NOT_MINE


def hashline_options_and_files(src, rng, fault, L, p, before, s, new, a, b, ok, bad):
    """Tag options of the case, file shapes (CRLF, no final newline, BOM),
    JSON faults, envelopes and paths."""
    if fault == "tag_len6_line":
        opts = {"length": 6, "with_line": True}
        objs = [{"path": p, "lines": entries(L, a, b, **opts), "new": "\n".join(new)}]
        return ok([(a - 1, b, new)], jl(objs), "6-character tags with the line number hashed (case options)",
                  options={"tags": {"len": 6, "withLine": True}})
    if fault == "tag_len2":
        objs = [{"path": p, "line": a, "tag": tag(L[a - 1], a, length=2), "new": new[0]}]
        return ok([(a - 1, a, [new[0]])], jl(objs), "2-character tags (case options)", options={"tags": {"len": 2}})
    if fault == "wrong_tag_options":
        objs = [{"path": p, "lines": entries(L, a, b), "new": "\n".join(new)}]
        return bad("stale_tag", jl(objs), "the model copied 4-character tags, the caller checks 8 with line numbers",
                   trap=True, options={"tags": {"len": 8, "withLine": True}})
    if fault == "with_line_moved_copy":
        d = duplicate_line(src, rng)
        if d is None:
            return None
        i, others = d
        j = others[0]
        # The tag of line i written with line j's number: the same text, so
        # only hashing the line number tells the model named the wrong line.
        objs = [{"path": p, "line": j + 1, "tag": tag(L[i], i + 1, with_line=True), "new": "x"}]
        return bad("stale_tag", jl(objs), f"the tag of line {i + 1} with the number of line {j + 1} (same text): caught only when line numbers are hashed",
                   trap=True, options={"tags": {"withLine": True}})
    if fault == "crlf":
        out = jl([{"path": p, "lines": entries(L, a, b), "new": "\n".join(new)}])
        return ok([(a - 1, b, new)], out, "a CRLF file keeps CRLF", eol="\r\n")
    if fault == "no_final_newline":
        n = len(L)
        last = [L[-1] + (" " + src.comment + " last" if src.comment else " last")]
        out = jl([{"path": p, "line": n, "tag": tag(L[-1], n), "new": last}])
        return ok([(n - 1, n, last)], out, "the last line of a file without a final newline", final=False)
    if fault == "bom":
        first = [L[0] + (" " + src.comment + " first" if src.comment else " first")]
        out = jl([{"path": p, "line": 1, "tag": tag(L[0], 1), "new": first}])
        return ok([(0, 1, first)], out, "line 1 of a file with a byte-order mark (the tag does not include it)",
                  bom="\ufeff")
    if fault == "malformed_json":
        body = json.dumps({"path": p, "line": a, "tag": tag(L[a - 1], a), "new": new[0]}, ensure_ascii=False)
        body = body.replace(', "tag"', ' "tag"')
        return bad("malformed", "```json\n" + body + "\n```\n", "a missing comma: not JSON")
    if fault == "missing_tag":
        return bad("malformed", jl([{"path": p, "line": a, "new": new[0]}]), "a line without its tag")
    if fault == "default_path":
        out = jl([{"lines": entries(L, a, b), "new": "\n".join(new)}])
        return ok([(a - 1, b, new)], out, "no path: the caller names the file", options={"defaultPath": p})
    if fault == "envelope":
        args = json.dumps({"path": p, "edits": [{"lines": entries(L, a, b), "new": "\n".join(new)}]}, ensure_ascii=False)
        out = json.dumps({"type": "function", "function": {"name": "edit", "arguments": args}}, ensure_ascii=False) + "\n"
        return ok([(a - 1, b, new)], out, "a function-call envelope with JSON-string arguments and an edits list")
    if fault == "path_escape":
        out = jl([{"path": "../" + p, "line": a, "tag": tag(L[a - 1], a), "new": new[0]}])
        return bad("path_escape", out, "the path climbs out of the root")
    return NOT_MINE


# ---------------------------------------------------------------- lines


def shown_around(L, p, a, b, text):
    """The lines shown around a block a..b (8 more each side), and the case
    options of that snapshot: (lo, hi, options)."""
    lo, hi = max(1, a - 8), min(len(L), b + 8)
    return lo, hi, {"seen": {p: seen_of(L, [(lo, hi)], text)}}


def lines_case(src, rng, fault):
    L = list(src.lines)
    p = src.path
    text = mc.join(L)
    before = {p: text}
    crc = f"crc32={file_crc(text):08x}"
    s = pick(src, rng)
    if s is None:
        return None
    blk = L[s:s + 3]
    new = mc.change(src, blk, "lines")
    a, b = s + 1, s + 3

    def block(head, body=()):
        return f"@@ {head}\n" + "".join(x + "\n" for x in body)

    def ok(edits, output, desc, trap=False, options=None, files=None, eol="\n", final=True):
        fl = files or L
        return case(None, "lines", {p: mc.join(fl, eol, final)}, output, "applied",
                    after={p: mc.join(build(fl, edits), eol, final)}, fault=fault, trap=trap, desc=desc,
                    source=src.name, options=options)

    def bad(code, output, desc, trap=False, files=None, options=None, status="failed"):
        return case(None, "lines", files or before, output, status, code=code, fault=fault, trap=trap, desc=desc,
                    source=src.name, options=options)
    for group in (lines_file_crc, lines_forms, lines_seen, lines_seen_moved):
        built = group(src, rng, fault, L, p, text, before, crc, s, new, a, b, block, ok, bad)
        if built is not NOT_MINE:
            return built
    raise ValueError(fault)


def lines_file_crc(src, rng, fault, L, p, text, before, crc, s, new, a, b, block, ok, bad):
    """Blocks checked by the file's CRC-32: ranges, single lines, inserts, deletes, several at once."""
    # -- file-crc
    if fault == "crc_range":
        out = "Replacing the block:\n\n" + block(f"{p} {a}:{b} {crc}", new) + "@@ end\n"
        return ok([(a - 1, b, new)], out, "a range with the file's CRC-32 from the view")
    if fault == "crc_single":
        out = block(f"{p} {a + 1} {crc}", [new[1]]) + "@@ end\n"
        return ok([(a, a + 1, [new[1]])], out, "one line by number")
    if fault == "crc_insert_top":
        top = [src.note("", "top of the file")]
        out = block(f"{p} after 0 {crc}", top) + "@@ end\n"
        return ok([(0, 0, top)], out, "after 0 inserts at the top")
    if fault == "crc_insert_end":
        end = [src.note("", "end of the file")]
        out = block(f"{p} after {len(L)} {crc}", end) + "@@ end\n"
        return ok([(len(L), len(L), end)], out, "inserts after the last line")
    if fault == "crc_delete":
        out = block(f"{p} delete {a}:{b} {crc}") + "@@ end\n"
        return ok([(a - 1, b, [])], out, "deletes a range")
    if fault == "crc_multi_any_order":
        t = pick(src, rng)
        if t is None or abs(t - s) < 6:
            return None
        c, d = t + 1, t + 3
        new2 = mc.change(src, L[t:t + 3], "second")
        if min(a, c) < 4:
            return None
        ins_at = min(a, c) - 2
        ins = [src.note(mc.indent_of(L[ins_at - 1]), "inserted between")]
        blocks = sorted([(c, block(f"{p} {c}:{d} {crc}", new2)), (a, block(f"{p} {a}:{b} {crc}", new)),
                         (ins_at, block(f"{p} after {ins_at} {crc}", ins))], key=lambda x: -x[0])
        out = "".join(x[1] for x in blocks) + "@@ end\n"
        return ok([(a - 1, b, new), (c - 1, d, new2), (ins_at, ins_at, ins)], out,
                  "three blocks in reverse order, an insert among them; numbers refer to the view", trap=True)
    if fault == "crc_view_header":
        out = f"# file: {p} {crc} lines={len(L)}\n" + block(f"{a}:{b}", new) + "@@ end\n"
        return ok([(a - 1, b, new)], out, "the model copied the view header; the blocks name no path or CRC")
    if fault == "crc_mismatch":
        t = (s + 20) % len(L)
        changed = list(L)
        changed[t] = changed[t] + "x"
        out = block(f"{p} {a}:{b} {crc}", new) + "@@ end\n"
        return bad("stale_tag", out, "an unrelated line changed after the view: the file CRC refuses the edit",
                   trap=True, files={p: mc.join(changed)})
    if fault == "crc_fenced":
        out = "```\n" + block(f"{p} {a}:{b} {crc}", new) + "```\n\nThat's the change.\n"
        return ok([(a - 1, b, new)], out, "blocks in a fence: the closing fence ends the last block")
    return NOT_MINE


def lines_forms(src, rng, fault, L, p, text, before, crc, s, new, a, b, block, ok, bad):
    """Other forms of a range, JSON, and edits refused: gaps, cuts, overlaps, numbers nothing checks."""
    if fault == "list_form":
        out = block(f"{p} {a},{a + 1},{b} {crc}", new) + "@@ end\n"
        return ok([(a - 1, b, new)], out, "the range as a list 11,12,13")
    if fault == "gap":
        out = block(f"{p} {a},{b} {crc}", new) + "@@ end\n"
        return bad("malformed", out, "a list with a line missing")
    if fault == "out_of_range":
        out = block(f"{p} {len(L) + 1}:{len(L) + 4} {crc}", new) + "@@ end\n"
        return bad("out_of_range", out, "a range past the end of the file", trap=True)
    if fault == "truncated":
        out = block(f"{p} {a}:{b} {crc}", new[:2])
        return bad("truncated", out, "no `@@ end`: the last block may be cut short", status="truncated")
    if fault == "json_crc":
        out = jl([{"path": p, "lines": f"{a}:{b}", "new": "\n".join(new), "crc32": crc.split("=")[1]}])
        return ok([(a - 1, b, new)], out, "the JSON form with the file CRC")
    if fault == "json_truncated":
        full = json.dumps({"path": p, "lines": f"{a}:{b}", "new": "\n".join(new)}, ensure_ascii=False)
        return bad("truncated", "```json\n" + full[: len(full) - 5], "a JSON edit cut off", status="truncated")
    if fault == "overlap":
        out = block(f"{p} {a}:{b} {crc}", new) + block(f"{p} {b} {crc}", ["x"]) + "@@ end\n"
        return bad("overlap", out, "two blocks claim the same line")
    if fault == "blank_lines_kept":
        body = [new[0], "", new[1], ""] + new[2:]
        out = block(f"{p} {a}:{b} {crc}", body) + "@@ end\n"
        return ok([(a - 1, b, body)], out, "blank lines inside a block are new lines, kept verbatim")
    if fault == "crlf":
        t = "\r\n".join(L) + "\r\n"
        out = block(f"{p} {a}:{b} crc32={file_crc(t):08x}", new) + "@@ end\n"
        return ok([(a - 1, b, new)], out, "a CRLF file: the CRC is of its bytes, CRLF survives", eol="\r\n")
    if fault == "caller_crc":
        out = block(f"{p} {a}:{b}", new) + "@@ end\n"
        return ok([(a - 1, b, new)], out, "the caller kept the CRC of the view (snapshot without lines)",
                  options={"seen": {p: {"crc32": f"{file_crc(text):08x}"}}})
    if fault == "caller_crc_stale":
        changed = [src.note("", "added after the view")] + L
        out = block(f"{p} {a}:{b}", new) + "@@ end\n"
        return bad("stale_tag", out, "the caller's CRC no longer matches the file", trap=True,
                   files={p: mc.join(changed)}, options={"seen": {p: {"crc32": f"{file_crc(text):08x}"}}})
    if fault == "unchecked":
        out = block(f"{p} {a}:{b}", new) + "@@ end\n"
        return bad("malformed", out, "no CRC and no snapshot: plain numbers cannot be checked, so they are refused",
                   trap=True)
    return NOT_MINE


def lines_seen(src, rng, fault, L, p, text, before, crc, s, new, a, b, block, ok, bad):
    """Checked by a seen-lines snapshot: the model was shown lines lo..hi of the original."""
    lo, hi, opts = shown_around(L, p, a, b, text)
    if fault == "seen_exact":
        out = block(f"{p} {a}:{b}", new) + "@@ end\n"
        return ok([(a - 1, b, new)], out, f"shown lines {lo}-{hi}; the edit is inside them", options=opts)
    if fault == "seen_json":
        out = jl([{"path": p, "lines": f"{a}:{b}", "new": new}])
        return ok([(a - 1, b, new)], out, "the JSON form against a seen-lines snapshot", options=opts)
    if fault == "seen_insert_after":
        ins = [src.note(mc.indent_of(L[hi - 1]), "after the last shown line")]
        out = block(f"{p} after {hi}", ins) + "@@ end\n"
        return ok([(hi, hi, ins)], out, "an insert after the last shown line", options=opts)
    if fault == "seen_never_shown":
        if hi + 5 > len(L):
            return None
        out = block(f"{p} {hi + 3}:{hi + 4}", ["x"]) + "@@ end\n"
        return bad("not_shown", out, f"shown lines {lo}-{hi}; the edit names lines it never saw", trap=True,
                   options=opts)
    if fault == "seen_partly_shown":
        if hi + 2 > len(L):
            return None
        out = block(f"{p} {hi - 1}:{hi + 1}", ["x"]) + "@@ end\n"
        return bad("not_shown", out, "the range runs one line past what was shown", trap=True, options=opts)
    if fault == "seen_unknown_file":
        out = block(f"{p} {a}:{b}", new) + "@@ end\n"
        return bad("not_shown", out, "the snapshot has no record of this file", trap=True,
                   options={"seen": {"src/other.txt": {"lines": [[1, 0]]}}})
    if fault == "seen_changed_line":
        changed = list(L)
        changed[a] = changed[a] + "x"
        out = block(f"{p} {a}:{b}", new) + "@@ end\n"
        return bad("stale_tag", out, "one of the edited lines changed after it was shown", trap=True,
                   files={p: mc.join(changed)}, options=opts)
    if fault == "seen_unrelated_change":
        if lo < 2:
            return None
        changed = list(L)
        changed[0] = changed[0] + "x"  # outside the shown block
        out = block(f"{p} {a}:{b}", new) + "@@ end\n"
        return ok([(a - 1, b, new)], out, "line 1 changed, far from what was shown: the numbers still hold (the file CRC would refuse)",
                  trap=True, files=changed, options=opts)
    return NOT_MINE


def lines_seen_moved(src, rng, fault, L, p, text, before, crc, s, new, a, b, block, ok, bad):
    """A seen-lines snapshot of a file that moved under it, and snapshots of two reads."""
    lo, hi, opts = shown_around(L, p, a, b, text)
    if fault in ("seen_moved_down", "seen_moved_up"):
        if fault == "seen_moved_down":
            k = 3
            changed = [src.note("", f"added line {i}") for i in range(k)] + L
        else:
            # Lines above the shown block were deleted.
            k = -min(3, lo - 1)
            if k == 0:
                return None
            changed = L[-k:]
        out = block(f"{p} {a}:{b}", new) + "@@ end\n"
        sh = k
        return ok([(a - 1 + sh, b + sh, new)], out,
                  f"the shown block moved {abs(k)} lines {'down' if k > 0 else 'up'} after the view: found again by its line hashes, applied there",
                  trap=True, files=changed, options=opts)
    if fault == "seen_moved_ambiguous":
        # The shown block was duplicated above it: two places match.
        changed = L[lo - 1:hi] + [""] + L
        out = block(f"{p} {a}:{b}", new) + "@@ end\n"
        return bad("ambiguous", out, "the shown block was copied above itself after the view: it occurs twice",
                   trap=True, files={p: mc.join(changed)}, options=opts)
    if fault == "seen_two_reads":
        t = pick(src, rng)
        if t is None or abs(t - s) < 20:
            return None
        c, d = t + 1, t + 3
        new2 = mc.change(src, L[t:t + 3], "second")
        sn = seen_of(L, [(a - 1, b + 1), (c - 1, d + 1)], text)
        out = block(f"{p} {c}:{d}", new2) + block(f"{p} {a}:{b}", new) + "@@ end\n"
        return ok([(a - 1, b, new), (c - 1, d, new2)], out, "two separate reads recorded in one snapshot",
                  options={"seen": {p: sn}})
    if fault == "seen_moved_multi":
        changed = [src.note("", "new header line")] + L
        t = pick(src, rng)
        if t is None or abs(t - s) < 6:
            return None
        c, d = t + 1, t + 3
        new2 = mc.change(src, L[t:t + 3], "second")
        sn = seen_of(L, [(a - 2, b + 2), (c - 2, d + 2)], text)
        out = block(f"{p} {a}:{b}", new) + block(f"{p} {c}:{d}", new2) + "@@ end\n"
        return ok([(a, b + 1, new), (c, d + 1, new2)], out, "two shown blocks both moved down one line; each is found again",
                  trap=True, files=changed, options={"seen": {p: sn}})
    return NOT_MINE


# ---------------------------------------------------------------- auto


def auto_case(src, rng, fault):
    L = list(src.lines)
    p = src.path
    text = mc.join(L)
    s = pick(src, rng)
    if s is None:
        return None
    new = mc.change(src, L[s:s + 3], "auto")
    a, b = s + 1, s + 3
    after = {p: mc.join(build(L, [(a - 1, b, new)]))}

    def ok(output, desc, trap=False):
        return case(None, "auto", {p: text}, output, "applied", after=after, fault=fault, trap=trap, desc=desc,
                    source=src.name)

    if fault == "hashline":
        return ok(jl([{"tool": "edit", "path": p, "lines": entries(L, a, b), "new": "\n".join(new)}],
                     prose="Editing with tags:\n\n"), "detected as hashline by its N:TAG lines")
    if fault == "hashline_after_prose_json":
        # Prose with braces and a JSON example that is no edit come first.
        prose = ('The config stays {"debug": false} and {braces} in prose are fine.\n\n'
                 '```json\n{"name": "example", "version": 1}\n```\n\nThe edit:\n\n')
        return ok(jl([{"path": p, "lines": entries(L, a, b), "new": "\n".join(new)}], prose=prose),
                  "prose with braces and a non-edit JSON object before the hashline edit")
    if fault == "lines":
        crc = f"crc32={file_crc(text):08x}"
        return ok(f"@@ {p} {a}:{b} {crc}\n" + "".join(x + "\n" for x in new) + "@@ end\n",
                  "detected as lines by its @@ header")
    if fault == "lines_json":
        return ok(jl([{"path": p, "lines": f"{a}:{b}", "new": "\n".join(new), "crc32": f"{file_crc(text):08x}"}]),
                  "`lines: \"N:M\"` of digits is a range: lines, not a line with tag M", trap=True)
    if fault == "sr_with_tags_inside":
        # A SEARCH/REPLACE block whose new text holds a hashline-looking JSON
        # comment: the SEARCH marker comes first, so search-replace wins.
        old = L[s:s + 3]
        cm = src.comment or "#"
        inner = f'{mc.indent_of(old[1])}{cm} {{"line": {a}, "tag": "{tag(L[a - 1], a)}", "new": "x"}}'
        new_sr = old[:2] + [inner] + old[2:]
        out = mc.sr_block(p, src.lang, old, new_sr)
        return case(None, "auto", {p: text}, out, "applied", after={p: mc.join(L[:s] + new_sr + L[s + 3:])},
                    fault=fault, trap=True, desc="a SEARCH block whose new text holds hashline JSON: the first marker wins",
                    source=src.name)
    if fault == "lines_untagged":
        # A hashline edit that lost its tag reads as a plain line number; with
        # nothing to check it against, it is refused, never applied blind.
        out = jl([{"path": p, "line": a, "new": new[0]}])
        return case(None, "auto", {p: text}, out, "failed", code="malformed", fault=fault, trap=True,
                    desc="a line number without tag or CRC, and no snapshot: refused", source=src.name)
    if fault == "hashline_truncated":
        full = json.dumps({"path": p, "line": a, "tag": tag(L[a - 1], a), "new": "\n".join(new)}, ensure_ascii=False)
        return case(None, "auto", {p: text}, "```json\n" + full[:-6], "truncated", code="truncated", fault=fault,
                    desc="a cut-off hashline edit is still detected, then refused as truncated", source=src.name)
    raise ValueError(fault)


HASHLINE = ["replace_one", "replace_range", "insert_top", "insert_end", "delete_range", "delete_line",
            "multi_any_order", "array_prose", "jsonl", "new_array", "copied_view_text", "raw_newlines",
            "duplicate_line_exact", "stale_tag", "stale_shift", "hallucinated_tag", "gap", "out_of_range",
            "truncated", "truncated_array", "overlap", "tag_len6_line", "tag_len2", "wrong_tag_options",
            "with_line_moved_copy", "crlf", "no_final_newline", "bom", "malformed_json", "missing_tag",
            "default_path", "envelope", "path_escape"]
LINES = ["crc_range", "crc_single", "crc_insert_top", "crc_insert_end", "crc_delete", "crc_multi_any_order",
         "crc_view_header", "crc_mismatch", "crc_fenced", "list_form", "gap", "out_of_range", "truncated",
         "json_crc", "json_truncated", "overlap", "blank_lines_kept", "crlf", "caller_crc", "caller_crc_stale",
         "unchecked", "seen_exact", "seen_json", "seen_insert_after", "seen_never_shown", "seen_partly_shown",
         "seen_unknown_file", "seen_changed_line", "seen_unrelated_change", "seen_moved_down", "seen_moved_up",
         "seen_moved_ambiguous", "seen_two_reads", "seen_moved_multi"]
AUTO = ["hashline", "hashline_after_prose_json", "lines", "lines_json", "sr_with_tags_inside", "hashline_truncated",
        "lines_untagged"]


def main():
    names = sorted(n for n in os.listdir(mc.SOURCES) if os.path.splitext(n)[1] in mc.LANG)
    srcs = [mc.Src(n) for n in names]
    code = [s for s in srcs if s.comment]
    for d in os.listdir(mc.CORPUS) if os.path.isdir(mc.CORPUS) else []:
        if d.startswith(PREFIXES):
            shutil.rmtree(os.path.join(mc.CORPUS, d))
    count = {"hashline": 0, "lines": 0, "auto": 0}
    traps = {"hashline": 0, "lines": 0, "auto": 0}
    plans = [("hashline", f, hashline, srcs) for f in HASHLINE]
    plans += [("lines", f, lines_case, srcs) for f in LINES]
    plans += [("auto", f, auto_case, code) for f in AUTO]
    for i, (kind, fault, fn, pool) in enumerate(plans):
        made = None
        for j in range(len(pool)):
            src = pool[(i + j) % len(pool)]
            rng = random.Random(f"{kind}/{fault}/{src.name}")
            made = fn(src, rng, fault)
            if made is not None:
                break
        if made is None:
            raise SystemExit(f"no source fits {kind}/{fault}")
        stem = os.path.splitext(src.name)[0]
        prefix = {"hashline": "gen-hashline-", "lines": "gen-lines-"}.get(kind)
        if kind == "auto":
            prefix = "gen-auto-lines-" if fault.startswith("lines") else "gen-auto-hashline-"
        made.name = f"{prefix}{fault}-{stem}"
        mc.write(made)
        count[kind] += 1
        traps[kind] += bool(made.trap)
    print(f"wrote {count} cases, traps {traps}", file=sys.stderr)


if __name__ == "__main__":
    main()
