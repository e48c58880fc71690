"""The `apply-patch` (Codex V4A) cases: see corpus_patch_tool.py."""

import difflib
import os

from make_corpus import PROSE, Case, change, count_block, indent_of, join, kept, pick_block
from patch_tool.common import STRIP, copied_duplicate, natural_duplicate, replaced, trap_file, unique_headers


def chunk(old, new, anchors=(), eof=False, head="@@"):
    out = [f"@@ {a.strip()}" for a in anchors] or [head]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            out += [" " + x for x in old[i1:i2]]
        else:
            out += ["-" + x for x in old[i1:i2]] + ["+" + x for x in new[j1:j2]]
    if eof:
        out.append("*** End of File")
    return out


def patch(*sections, begin=True):
    body = "".join(x + "\n" for sec in sections for x in sec)
    return ("*** Begin Patch\n" if begin else "") + body + "*** End Patch\n"


def update(path, *chunks, move=None):
    return [f"*** Update File: {path}"] + ([f"*** Move to: {move}"] if move else []) + [x for c in chunks for x in c]


def ap(src, before, out, status="applied", after=None, code=None, fault="none", trap=False, desc=""):
    return Case(None, "apply-patch", before, out, status, code=code, after=after, fault=fault, trap=trap,
                description=desc, source=src.name)


def ap_simple(src, rng, fault):
    """One chunk, with a fault the shared ladder must absorb."""
    L = list(src.lines)
    pred = None
    if fault == "indent":
        pred = lambda b: all(indent_of(x) for x in b) and len({indent_of(x)[:1] for x in b}) == 1  # noqa: E731
    if fault == "unicode":
        pred = lambda b: '"' in b[1] or "'" in b[1]  # noqa: E731
    s = pick_block(src, rng, pred=pred)
    if s is None:
        return None
    old = L[s : s + 3]
    new = change(src, old)
    file_lines, p_old, p_new, eol = L, old, new, "\n"
    before_path = src.path
    desc = {"none": "one update chunk, context and changed lines"}.get(fault, "")
    ch = chunk(p_old, p_new)
    if fault == "trailing_ws":
        file_lines = replaced(L, s, 3, [x + "  " for x in old])
        desc = "the file has trailing whitespace on the block the model did not copy; the chunk's lines replace the block"
    elif fault == "indent":
        common = min(len(indent_of(x)) for x in old)
        ch = chunk([x[common:] for x in old], [x[common:] for x in new])
        desc = "the model dropped the block's common indentation; the replacement is re-indented"
    elif fault == "unicode":
        tr = str.maketrans({'"': "\u201c", "'": "\u2019"})
        ch = [("-" + x[1:].translate(tr)) if x.startswith("-") else x for x in ch]
        desc = "the model typeset the quotes of the removed line"
    elif fault == "crlf":
        eol = "\r\n"
        desc = "the file uses CRLF, the patch LF"
    elif fault == "fenced_prose":
        desc = "a fenced patch with prose around it and markers padded with whitespace"
    elif fault == "no_begin":
        desc = "the reply forgot `*** Begin Patch`"
    elif fault == "udiff_header":
        ch = [f"@@ -{s + 1},3 +{s + 1},4 @@"] + ch[1:]
        desc = "a unified-diff hunk header instead of a bare `@@`"
    after = {before_path: join(replaced(file_lines, s, 3, kept(old, new, file_lines[s : s + 3])), eol)}
    before = {before_path: join(file_lines, eol)}
    if fault == "fenced_prose":
        body = patch(update(src.path, ch)).replace("*** Begin Patch", "  *** Begin Patch  ").replace("*** End Patch", "*** End Patch \t")
        out = "I'll make the change.\n\n```diff\n" + body + "```\n\nThe rest of the file is unchanged.\n"
    else:
        out = rng.choice(PROSE) + patch(update(src.path, ch), begin=fault != "no_begin")
    return ap(src, before, out, after=after, fault=fault, desc=desc)


def ap_two_chunks(src, rng, fault):
    L = src.lines
    a, b = pick_block(src, rng), pick_block(src, rng)
    if a is None or b is None or abs(a - b) < 5:
        return None
    a, b = sorted((a, b))
    na, nb = change(src, L[a : a + 3], "first"), change(src, L[b : b + 3], "second")
    after = replaced(replaced(L, b, 3, nb), a, 3, na)
    if fault == "reverse_order":
        out = patch(update(src.path, chunk(L[b : b + 3], nb), chunk(L[a : a + 3], na)))
        return ap(src, {src.path: join(L)}, out, after={src.path: join(after)}, fault=fault,
                  desc="two chunks in reverse file order; each is located against the original")
    if fault == "second_missing":
        wrong = list(L[b : b + 3])
        wrong[1] = wrong[1].rstrip() + " extra"
        out = patch(update(src.path, chunk(L[a : a + 3], na), chunk(wrong, nb)))
        return ap(src, {src.path: join(L)}, out, "failed", code="not_found", fault=fault, trap=True,
                  desc="the second chunk misquotes a context line; the first one is held back")
    raise ValueError(fault)


def ap_anchor(src, rng, fault):
    """Context that occurs twice; the `@@` anchor picks the second place."""
    nat = natural_duplicate(src)
    if nat:
        L, s, h = list(src.lines), nat[0], nat[1]
        m, how = 2, "in the real file"
    else:
        cd = copied_duplicate(src, rng)
        if cd is None:
            return None
        (L, s, h), m, how = cd, 3, "(a copy before the header)"
    old = L[s : s + m]
    new = change(src, old, "anchored")
    before = {src.path: join(L)}
    if fault == "anchor":
        out = patch(update(src.path, chunk(old, new, anchors=[L[h]])))
        return ap(src, before, out, after={src.path: join(replaced(L, s, m, new))}, fault=fault, trap=True,
                  desc=f"the context occurs twice {how}; the `@@ {L[h].strip()}` anchor selects the one after it")
    if fault == "duplicate":
        out = patch(update(src.path, chunk(old, new)))
        return ap(src, before, out, "failed", code="ambiguous", fault=fault, trap=True,
                  desc=f"the context occurs twice {how} and no anchor says which: refused, never the first hit")
    if fault == "anchor_missing":
        fake = {"python": "def _not_in_this_file(self):", "rust": "fn not_in_this_file() {", "go": "func notInThisFile() {",
                "javascript": "function notInThisFile() {", "c": "static void not_in_this_file(void) {"}.get(src.lang)
        out = patch(update(src.path, chunk(old, new, anchors=[fake])))
        return ap(src, before, out, "failed", code="not_found", fault=fault, trap=True,
                  desc="the anchor names a function the file does not have")
    raise ValueError(fault)


def ap_nested(src, rng, fault):
    """Anchors A1 then A2, where A2's line occurs twice: once before A1 (a
    copy with its block, like a same-named method in an earlier class)."""
    L = src.lines
    heads = unique_headers(L, 0, len(L) - 6)
    rng.shuffle(heads)
    for a1 in heads:
        for a2 in unique_headers(L, a1 + 1, min(a1 + 40, len(L))):
            for b in range(a2 + 1, min(a2 + 15, len(L) - 3)):
                blk = L[b : b + 3]
                if any(not x.strip() or "```" in x for x in blk) or count_block(L, blk, key=STRIP) != 1:
                    continue
                f = L[:a1] + [L[a2]] + blk + [""] + L[a1:]
                k = 5  # lines inserted before a1
                old, new = blk, change(src, blk, "nested")
                before = {src.path: join(f)}
                if fault == "nested_anchors":
                    out = patch(update(src.path, chunk(old, new, anchors=[L[a1], L[a2]])))
                    return ap(src, before, out, after={src.path: join(replaced(f, b + k, 3, new))}, fault=fault, trap=True,
                              desc="two `@@` anchors: the outer one is unique, the inner one occurs twice (once before the outer); the block after both is changed")
                if fault == "anchor_twice":
                    out = patch(update(src.path, chunk(old, new, anchors=[L[a2]])))
                    return ap(src, before, out, "failed", code="ambiguous", fault=fault, trap=True,
                              desc="the only anchor occurs twice in the file: refused, not the first one")
                raise ValueError(fault)
    return None


def ap_eof(src, rng, fault):
    L = list(src.lines)
    tail = L[-3:]
    if any(not x.strip() for x in tail) or count_block(L, tail, key=STRIP) != 1:
        return None
    new = change(src, tail, "eof")
    if fault == "end_of_file":
        # The last lines also occur in the middle: `*** End of File` pins them.
        mid = len(L) // 2
        f = L[:mid] + tail + L[mid:]
        out = patch(update(src.path, chunk(tail, new, eof=True)))
        return ap(src, {src.path: join(f)}, out, after={src.path: join(f[:-3] + new)}, fault=fault, trap=True,
                  desc="the file's last lines also occur in its middle; `*** End of File` selects the end")
    if fault == "eof_not_at_end":
        s = pick_block(src, rng, lines=L[: len(L) - 10])
        if s is None:
            return None
        old = L[s : s + 3]
        out = patch(update(src.path, chunk(old, change(src, old), eof=True)))
        return ap(src, {src.path: join(L)}, out, "failed", code="not_found", fault=fault, trap=True,
                  desc="a chunk from the middle of the file is marked `*** End of File`")
    if fault == "no_final_newline":
        out = patch(update(src.path, chunk(tail, new, eof=True)))
        return ap(src, {src.path: join(L, final=False)}, out, after={src.path: join(L[:-3] + new, final=False)},
                  fault=fault, desc="the last lines of a file without a final newline, marked `*** End of File`")
    raise ValueError(fault)


def ap_files(src, rng, fault):
    L = src.lines
    stem, ext = os.path.splitext(src.path)
    before = {src.path: join(L)}
    s = pick_block(src, rng)
    if s is None:
        return None
    old, new = L[s : s + 3], change(src, L[s : s + 3])
    if fault == "add":
        p = f"{stem}_extra{ext}"
        out = patch([f"*** Add File: {p}"] + ["+" + x for x in L[:15]])
        return ap(src, before, out, after={**before, p: join(L[:15])}, fault=fault, desc="a new file")
    if fault == "add_exists":
        out = patch([f"*** Add File: {src.path}"] + ["+" + x for x in L[:5]])
        return ap(src, before, out, "failed", code="file_exists", fault=fault, desc="`Add File` for a file that exists")
    if fault == "delete":
        p = f"{stem}_old{ext}"
        out = patch([f"*** Delete File: {p}"], update(src.path, chunk(old, new)))
        return ap(src, {**before, p: join(L[:10])}, out, after={src.path: join(replaced(L, s, 3, new))}, fault=fault,
                  desc="one file deleted, another updated")
    if fault == "delete_missing":
        out = patch([f"*** Delete File: {stem}_gone{ext}"], update(src.path, chunk(old, new)))
        return ap(src, before, out, "failed", code="file_missing", fault=fault, desc="deleting a file that does not exist; the update is held back")
    if fault == "move":
        p = f"{stem}_moved{ext}"
        out = patch(update(src.path, chunk(old, new), move=p))
        return ap(src, before, out, after={p: join(replaced(L, s, 3, new))}, fault=fault, desc="an update that also moves the file")
    if fault == "move_exists":
        p = f"{stem}_taken{ext}"
        out = patch(update(src.path, chunk(old, new), move=p))
        return ap(src, {**before, p: "taken\n"}, out, "failed", code="file_exists", fault=fault,
                  desc="`Move to` a path that exists")
    if fault == "truncated":
        p = f"{stem}_extra{ext}"
        full = patch(update(src.path, chunk(old, new)), [f"*** Add File: {p}"] + ["+" + x for x in L[:15]])
        cut = rng.randrange(full.index("*** Add File:") + 20, len(full) - len("*** End Patch\n"))
        return ap(src, before, rng.choice(PROSE) + full[:cut], "truncated", code="truncated", fault=fault,
                  desc="the reply is cut inside the second section; the complete first one is held back")
    if fault == "path_escape":
        out = patch(update("../" + src.path, chunk(old, new)))
        return ap(src, before, out, "failed", code="path_escape", fault=fault, desc="the path climbs out of the root")
    if fault == "absolute_path":
        out = patch(update("/" + src.path, chunk(old, new)))
        return ap(src, before, out, "failed", code="path_escape", fault=fault, desc="an absolute path")
    if fault == "malformed":
        out = patch(update(src.path), [f"*** Add File: {stem}_x{ext}"] + L[:3])
        return ap(src, before, out, "failed", code="malformed", fault=fault,
                  desc="an update with no chunks, and an added file whose lines lack `+`")
    raise ValueError(fault)


def ap_near_miss(src, rng, fault):
    L = src.lines
    s = pick_block(src, rng)
    if s is None:
        return None
    old, new = L[s : s + 3], change(src, L[s : s + 3])
    wrong = list(old)
    if fault == "similar_elsewhere":
        k = max(range(3), key=lambda i: len(old[i].strip()))
        w = old[k].rstrip()
        wrong[k] = w[:-1] + ("X" if not w.endswith("X") else "Y")
        desc = "a context line differs from the file by one character; never applied to the look-alike"
    else:
        wrong = old[:2] + [src.note(indent_of(old[1]), "a line that is not in the file")] + old[2:]
        new = new[:3] + [wrong[2]] + new[3:]
        desc = "the chunk has a context line the file does not have"
    out = patch(update(src.path, chunk(wrong, new)))
    return ap(src, {src.path: join(L)}, out, "failed", code="not_found", fault=fault, trap=True, desc=desc)


def ap_traps(src, rng, fault):
    L = src.lines
    if fault in ("duplicate_ws", "near_copy", "indent_dup"):
        t = trap_file(src, rng, fault)
        if t is None:
            return None
        f, s, old, new, cut = t
        before = {src.path: join(f)}
        if fault == "duplicate_ws":
            out = patch(update(src.path, chunk([x + "\t" for x in old], new)))
            return ap(src, before, out, "failed", code="ambiguous", fault=fault, trap=True,
                      desc="no exact match, and two places once trailing whitespace is ignored")
        if fault == "near_copy":
            out = patch(update(src.path, chunk(old, new)))
            return ap(src, before, out, after={src.path: join(replaced(f, s, 3, new))}, fault=fault, trap=True,
                      desc="a copy of the block differing by one character is elsewhere; the exact one is changed")
        out = patch(update(src.path, chunk([x[cut:] for x in old], [x[cut:] for x in new])))
        return ap(src, before, out, "failed", code="ambiguous", fault=fault, trap=True,
                  desc="the chunk lost its indentation and the block also stands elsewhere at another indentation")
    if fault == "tail_no_eof":
        tail = L[-3:]
        if any(not x.strip() for x in tail) or count_block(L, tail, key=STRIP) != 1:
            return None
        f = L[: len(L) // 2] + tail + L[len(L) // 2 :]
        out = patch(update(src.path, chunk(tail, change(src, tail))))
        return ap(src, {src.path: join(f)}, out, "failed", code="ambiguous", fault=fault, trap=True,
                  desc="the last lines also occur in the middle and the chunk has no `*** End of File`")
    if fault == "shifting":
        a, b = pick_block(src, rng), pick_block(src, rng)
        if a is None or b is None or abs(a - b) < 5:
            return None
        oa, ob = L[a : a + 3], L[b : b + 3]
        na, nb = oa + ob, change(src, ob, "moved")
        after = list(L)
        for st, nw in sorted([(a, na), (b, nb)], reverse=True):
            after[st : st + 3] = nw
        out = patch(update(src.path, chunk(oa, na), chunk(ob, nb)))
        return ap(src, {src.path: join(L)}, out, after={src.path: join(after)}, fault=fault, trap=True,
                  desc="chunk 1 adds a copy of chunk 2's lines; located against the original, chunk 2 is still unique")
    raise ValueError(fault)


def ap_pure_add(src, rng, fault):
    L = src.lines
    heads = unique_headers(L, 0, len(L) - 2)
    if not heads:
        return None
    h = rng.choice(heads)
    ind = indent_of(L[h + 1]) if L[h + 1].strip() else indent_of(L[h]) + "    "
    add = [src.note(ind, "inserted after the anchor")]
    out = patch(update(src.path, ["@@ " + L[h].strip()] + ["+" + x for x in add]))
    return ap(src, {src.path: join(L)}, out, after={src.path: join(L[: h + 1] + add + L[h + 1 :])}, fault=fault,
              desc="a chunk of added lines only goes right after its anchor")


def ap_multi(srcs, rng):
    a, b = srcs
    sa, sb = pick_block(a, rng), pick_block(b, rng)
    if sa is None or sb is None:
        return None
    oa, ob = a.lines[sa : sa + 3], b.lines[sb : sb + 3]
    na, nb = change(a, oa), change(b, ob)
    out = patch(update(a.path, chunk(oa, na)), update(b.path, chunk(ob, nb)))
    return Case(None, "apply-patch", {a.path: join(a.lines), b.path: join(b.lines)}, out, "applied",
                after={a.path: join(replaced(a.lines, sa, 3, na)), b.path: join(replaced(b.lines, sb, 3, nb))},
                fault="multi_file", description="two files in one patch", source=f"{a.name}, {b.name}")
