#!/usr/bin/env python3
"""Builds the corpus cases of the `udiff` format: tests/corpus/gen-udiff-*.

Like make_corpus.py (whose helpers it imports), every case starts from real
source excerpts in sources/, knows the change it means, writes the unified
diff a model would write with one labelled fault injected, and derives the
one correct outcome from the fault alone: the expected files are computed
here from the intended change, never taken from the engine. The diffs are
written here too (git style, 3 lines of context, numbers and counts computed
from the change), so the engine's own renderer is not trusted either.

Faults are the ones models make in diffs: line numbers and counts that drift,
unchanged lines that lost their one-space marker (or an empty line written
for a blank one), added lines that lost their `+`, `@@ @@` headers without
numbers, a reply cut off mid-hunk; plus files created, deleted and renamed,
several files and hunks, CRLF and missing final newlines, a path leaving the
root, and strict mode (`git apply` rules). Traps put a look-alike of the
target in the file (a near-miss block, a duplicate, the inner lines of a
hunk whose outer context is wrong, as GNU patch's fuzz would take them):
the engine must refuse, or take the place the diff pins down, never the
look-alike.

Usage: python3 tests/tools/corpus_udiff.py   (rewrites only gen-udiff-*).
Deterministic: the same sources give the same cases.
"""

import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_corpus as mc  # noqa: E402  (Src, Case, write, join, change, pick_block)

PREFIX = "gen-udiff-"


# ---------------------------------------------------------------- diffs, written here


def minimal(old, new):
    """Body lines for old -> new: common head and tail unchanged, the middle
    removed then added (a valid unified-diff body, if not always minimal)."""
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    q = 0
    while q < min(len(old), len(new)) - p and old[-1 - q] == new[-1 - q]:
        q += 1
    body = [(" ", x) for x in old[:p]]
    body += [("-", x) for x in old[p:len(old) - q]]
    body += [("+", x) for x in new[p:len(new) - q]]
    body += [(" ", x) for x in old[len(old) - q:]]
    return body


def hunk(lines, s, m, new, ctx=3, delta=0):
    """The hunk replacing lines[s:s+m] by new: (header numbers, body)."""
    a, b = max(0, s - ctx), min(len(lines), s + m + ctx)
    body = [(" ", x) for x in lines[a:s]] + minimal(lines[s:s + m], new) + [(" ", x) for x in lines[s + m:b]]
    oc = sum(1 for k, _ in body if k != "+")
    nc = sum(1 for k, _ in body if k != "-")
    os_ = a + 1 if oc else a
    ns = a + 1 + delta if nc else a + delta
    return [os_, oc, ns, nc], body


def header(nums):
    os_, oc, ns, nc = nums
    return f"@@ -{os_},{oc} +{ns},{nc} @@\n"


def body_text(body, eol="\n"):
    out = []
    for k, x in body:
        if k == "\\":
            out.append("\\ No newline at end of file\n")
        else:
            out.append(f"{k}{x}{eol}")
    return "".join(out)


def file_header(path, git=True):
    head = f"diff --git a/{path} b/{path}\n" if git else ""
    return f"{head}--- a/{path}\n+++ b/{path}\n"


def fenced(text, intro=None, rng=None):
    intro = intro if intro is not None else (rng.choice(mc.PROSE) if rng else "")
    return f"{intro}```diff\n{text}```\n"


def after_of(lines, s, m, new):
    out = list(lines)
    out[s:s + m] = new
    return out


def pick(src, rng, m=3, pred=None, lines=None):
    return mc.pick_block(src, rng, m=m, pred=pred, lines=lines)


def indented(b):
    return any(x.startswith((" ", "\t")) for x in b) and any(x and not x[0].isspace() for x in b)


# ---------------------------------------------------------------- cases


def clean(src, rng, fault):
    """Faults the lenient reading must absorb; applies to the intended file."""
    lines = src.lines
    pred = None
    if fault in ("lost_space", "lost_space_tabs"):
        pred = lambda b: any(x.startswith(" " * 4) for x in b) or any(x.startswith("\t") for x in b)
    s = pick(src, rng, pred=pred)
    if s is None:
        return None
    old = lines[s:s + 3]
    new = mc.change(src, old)
    nums, body = hunk(lines, s, 3, new)
    path, eol, final = src.path, "\n", True
    desc = ""
    if fault == "none":
        desc = "a clean git diff"
    elif fault == "wrong_numbers":
        shift = 17 + rng.randrange(20)
        nums = [nums[0] + shift, nums[1], nums[2] + shift, nums[3]]
        desc = f"the hunk header's line numbers are {shift} lines off"
    elif fault == "no_numbers":
        desc = "`@@ @@` without numbers, as models write it"
    elif fault == "wrong_counts":
        nums = [nums[0], nums[1] + 2, nums[2], nums[3] - 1]
        desc = "the header's counts disagree with the body (the diff is fenced, so it is not a cut reply)"
    elif fault in ("lost_space", "lost_space_tabs"):
        body = [("", x) if k == " " else (k, x) for k, x in body]
        desc = "every unchanged line lost its one-space marker (indented ones look one column short)"
    elif fault == "crlf":
        eol = "\r\n"
        desc = "the file uses CRLF, the diff LF"
    else:
        raise ValueError(fault)
    before = mc.join(lines, eol, final)
    after = mc.join(after_of(lines, s, 3, new), eol, final)
    head = "@@ @@\n" if fault == "no_numbers" else header(nums)
    out = fenced(file_header(path) + head + body_text(body), rng=rng)
    return mc.Case(None, "udiff", {path: before}, out, "applied", after={path: after}, fault=fault,
                   description=desc, source=src.name)


def blank_context(src, rng, fault):
    """A blank unchanged line written as an empty line (its space lost)."""
    lines = src.lines
    for s in range(2, len(lines) - 4):
        if lines[s - 1] == "" and lines[s].strip() and lines[s + 1].strip() and lines[s + 2].strip() \
                and mc.count_block(lines, lines[s - 2:s + 3], key=lambda x: x.strip()) == 1 and rng.random() < 0.5:
            old = lines[s:s + 3]
            new = mc.change(src, old)
            nums, body = hunk(lines, s, 3, new)
            if not any(k == " " and x == "" for k, x in body):
                continue
            out = fenced(file_header(src.path) + header(nums) + "".join(
                "\n" if (k == " " and x == "") else f"{k}{x}\n" for k, x in body), rng=rng)
            return mc.Case(None, "udiff", {src.path: mc.join(lines)}, out, "applied",
                           after={src.path: mc.join(after_of(lines, s, 3, new))}, fault=fault, source=src.name,
                           description="blank unchanged lines are written as empty lines, without their space")
    return None


def missing_plus(src, rng, fault):
    """Three added lines, the middle one without its `+`."""
    lines = src.lines
    s = pick(src, rng, pred=lambda b: b[1].startswith((" ", "\t")))
    if s is None:
        return None
    ind = mc.indent_of(lines[s + 1])
    added = [src.note(ind, f"added line {k}") for k in (1, 2, 3)]
    new = lines[s:s + 2] + added + lines[s + 2:s + 3]
    nums, body = hunk(lines, s, 3, new)
    k = [i for i, (m, _) in enumerate(body) if m == "+"][1]
    body[k] = ("", body[k][1])
    out = fenced(file_header(src.path) + header(nums) + body_text(body), rng=rng)
    return mc.Case(None, "udiff", {src.path: mc.join(lines)}, out, "applied",
                   after={src.path: mc.join(after_of(lines, s, 3, new))}, fault=fault, source=src.name,
                   description="the middle one of three added lines lost its `+` (an indented one then looks like an unchanged line one column short)")


def structure(src, rng, fault, other=None):
    """Files and hunks: several of each, creations, deletions, renames."""
    lines = src.lines
    path = src.path
    before = {path: mc.join(lines)}
    if fault == "two_hunks":
        a, b = pick(src, rng), pick(src, rng)
        if a is None or b is None or abs(a - b) < 10:
            return None
        a, b = sorted((a, b))
        na, nb = mc.change(src, lines[a:a + 3], "first"), mc.change(src, lines[b:b + 3], "second")
        n1, b1 = hunk(lines, a, 3, na)
        n2, b2 = hunk(lines, b, 3, nb, delta=len(na) - 3)
        # Written in reverse order: hunks are located independently.
        out = fenced(file_header(path) + header(n2) + body_text(b2) + header(n1) + body_text(b1), rng=rng)
        after = after_of(after_of(lines, b, 3, nb), a, 3, na)
        return mc.Case(None, "udiff", before, out, "applied", after={path: mc.join(after)}, fault=fault,
                       source=src.name, description="two hunks in one file, the later one first")
    if fault == "multi_file":
        s, t = pick(src, rng), pick(other, rng)
        if s is None or t is None:
            return None
        ns, nt = mc.change(src, lines[s:s + 3]), mc.change(other, other.lines[t:t + 3])
        h1, b1 = hunk(lines, s, 3, ns)
        h2, b2 = hunk(other.lines, t, 3, nt)
        out = fenced(file_header(path) + header(h1) + body_text(b1) + file_header(other.path) + header(h2) + body_text(b2), rng=rng)
        files = {path: mc.join(lines), other.path: mc.join(other.lines)}
        after = {path: mc.join(after_of(lines, s, 3, ns)), other.path: mc.join(after_of(other.lines, t, 3, nt))}
        return mc.Case(None, "udiff", files, out, "applied", after=after, fault=fault,
                       source=f"{src.name}, {other.name}", description="one hunk in each of two files, git headers")
    if fault == "create":
        p = os.path.dirname(path) + "/new_" + os.path.basename(path)
        text = lines[:10]
        out = fenced(f"diff --git a/{p} b/{p}\nnew file mode 100644\n--- /dev/null\n+++ b/{p}\n"
                     f"@@ -0,0 +1,{len(text)} @@\n" + body_text([("+", x) for x in text]), rng=rng)
        return mc.Case(None, "udiff", before, out, "applied", after={**before, p: mc.join(text)}, fault=fault,
                       source=src.name, description="`--- /dev/null` creates a file")
    if fault == "delete":
        extra = os.path.dirname(path) + "/old_" + os.path.basename(path)
        files = {**before, extra: mc.join(lines[:8])}
        out = fenced(f"diff --git a/{extra} b/{extra}\ndeleted file mode 100644\n--- a/{extra}\n+++ /dev/null\n"
                     f"@@ -1,8 +0,0 @@\n" + body_text([("-", x) for x in lines[:8]]), rng=rng)
        return mc.Case(None, "udiff", files, out, "applied", after=before, fault=fault, source=src.name,
                       description="`+++ /dev/null` deletes a file")
    if fault == "rename":
        s = pick(src, rng)
        if s is None:
            return None
        to = os.path.dirname(path) + "/moved_" + os.path.basename(path)
        new = mc.change(src, lines[s:s + 3], "moved")
        nums, body = hunk(lines, s, 3, new)
        out = fenced(f"diff --git a/{path} b/{to}\nsimilarity index 96%\nrename from {path}\nrename to {to}\n"
                     f"--- a/{path}\n+++ b/{to}\n" + header(nums) + body_text(body), rng=rng)
        return mc.Case(None, "udiff", before, out, "applied", after={to: mc.join(after_of(lines, s, 3, new))},
                       fault=fault, source=src.name, description="a git rename with a hunk: edited, then moved")
    if fault == "bare_prose":
        s = pick(src, rng)
        if s is None:
            return None
        new = mc.change(src, lines[s:s + 3])
        nums, body = hunk(lines, s, 3, new)
        out = ("I'll make the change as a unified diff.\n\n" + file_header(path, git=False) + header(nums) +
               body_text(body) + "\nThis adds the note. Let me know if anything else is needed!\n")
        return mc.Case(None, "udiff", before, out, "applied", after={path: mc.join(after_of(lines, s, 3, new))},
                       fault=fault, source=src.name, description="a bare diff (no fence, no git line) with prose around it")
    if fault == "no_final_newline":
        return without_final_newline(src, rng, fault)
    raise ValueError(fault)


def without_final_newline(src, rng, fault):
    """A hunk at the end of a file without a final newline, marked as git
    marks it."""
    lines = src.lines
    path = src.path
    n = len(lines)
    old = lines[n - 3:]
    if any(not x.strip() for x in old):
        return None
    new = mc.change(src, old)
    nums, body = hunk(lines, n - 3, 3, new)
    # git marks the file's last line on both sides.
    marked = []
    last_old = max(i for i, (k, _) in enumerate(body) if k != "+")
    last_new = max(i for i, (k, _) in enumerate(body) if k != "-")
    for i, b in enumerate(body):
        marked.append(b)
        if i in (last_old, last_new):
            marked.append(("\\", ""))
    out = fenced(file_header(path) + header(nums) + body_text(marked), rng=rng)
    return mc.Case(None, "udiff", {path: mc.join(lines, final=False)}, out, "applied",
                   after={path: mc.join(after_of(lines, n - 3, 3, new), final=False)}, fault=fault,
                   source=src.name, description="the file has no final newline; the hunk ends at its last line with `\\ No newline at end of file`")


def strict(src, rng, fault):
    """Strict mode: `git apply` rules."""
    lines = list(src.lines)
    pred = (lambda b: b[0].strip() and not b[0][0].isspace()) if fault == "strict_prefix" else None
    s = pick(src, rng, pred=pred)
    if s is None:
        return None
    new = mc.change(src, lines[s:s + 3])
    nums, body = hunk(lines, s, 3, new)
    before = {src.path: mc.join(lines)}
    after = {src.path: mc.join(after_of(lines, s, 3, new))}
    opts = {"strict": True}
    if fault == "strict_clean":
        out = fenced(file_header(src.path) + header(nums) + body_text(body), rng=rng)
        return mc.Case(None, "udiff", before, out, "applied", after=after, fault=fault, source=src.name,
                       options=opts, description="strict mode, a correct diff")
    if fault == "strict_offset":
        nums = [nums[0] + 6, nums[1], nums[2] + 6, nums[3]]
        out = fenced(file_header(src.path) + header(nums) + body_text(body), rng=rng)
        return mc.Case(None, "udiff", before, out, "applied", after=after, fault=fault, source=src.name,
                       options=opts, description="strict mode: the numbers are 6 lines off but the context is exact (git apply takes offsets)")
    if fault == "strict_counts":
        nums = [nums[0], nums[1] - 1, nums[2], nums[3]]
        out = fenced(file_header(src.path) + header(nums) + body_text(body), rng=rng)
        return mc.Case(None, "udiff", before, out, "failed", code="malformed", fault=fault, source=src.name,
                       options=opts, description="strict mode: the header's old count is one short")
    if fault == "strict_prefix":
        body = [("", x) if (k == " " and x and not x[0].isspace()) else (k, x) for k, x in body]
        if all(k for k, _ in body):
            return None
        out = fenced(file_header(src.path) + header(nums) + body_text(body), rng=rng)
        return mc.Case(None, "udiff", before, out, "failed", code="malformed", fault=fault, source=src.name,
                       options=opts, description="strict mode: an unchanged line lost its marker")
    if fault == "strict_whitespace":
        ctx = [i for i in range(max(0, s - 3), s) if lines[i].strip()]
        if not ctx:
            return None
        before = {src.path: mc.join([x + "  " if i in ctx else x for i, x in enumerate(lines)])}
        out = fenced(file_header(src.path) + header(nums) + body_text(body), rng=rng)
        return mc.Case(None, "udiff", before, out, "failed", code="not_found", fault=fault, source=src.name,
                       options=opts, description="strict mode: the file has trailing spaces the context lacks (exact only)")
    raise ValueError(fault)


def traps(src, rng, fault):
    """A look-alike of the target exists; never applied there."""
    lines = list(src.lines)
    s = pick(src, rng, m=5)
    if s is None:
        return None
    block = lines[s:s + 5]
    new_mid = mc.change(src, block[1:4])
    nums, body = hunk(lines, s + 1, 3, new_mid, ctx=1)
    if fault == "similar_elsewhere":
        # A near-miss of the real block: one unchanged line differs.
        k = max((i for i, (m, _) in enumerate(body) if m == " "), key=lambda i: len(body[i][1].strip()))
        w = body[k][1].rstrip()
        body[k] = (" ", w[:-1] + ("X" if not w.endswith("X") else "Y"))
        out = fenced(file_header(src.path) + header(nums) + body_text(body), rng=rng)
        return mc.Case(None, "udiff", {src.path: mc.join(lines)}, out, "failed", code="not_found", fault=fault,
                       trap=True, source=src.name, description="the context is a near miss of a real block; never applied to the look-alike")
    if fault == "hallucinated":
        ind = mc.indent_of(body[0][1])
        body.insert(1, (" ", src.note(ind, "a line that is not in the file")))
        nums = [nums[0], nums[1] + 1, nums[2], nums[3] + 1]
        out = fenced(file_header(src.path) + header(nums) + body_text(body), rng=rng)
        return mc.Case(None, "udiff", {src.path: mc.join(lines)}, out, "failed", code="not_found", fault=fault,
                       trap=True, source=src.name, description="an unchanged line the file does not have")
    if fault == "fuzz_trap":
        # The file holds a second copy of the hunk's inner lines; the hunk's
        # outer context lines are wrong. GNU patch's fuzz drops them and
        # takes a copy; patchbay finds the hunk nowhere in full.
        copy = [src.note("", "a copy of the block follows")] + block[1:4] + [src.note("", "end of copy")]
        file_lines = lines + [""] + copy
        body[0] = (" ", src.note(mc.indent_of(block[0]), "wrong first line"))
        body[-1] = (" ", src.note(mc.indent_of(block[4]), "wrong last line"))
        out = fenced(file_header(src.path) + header(nums) + body_text(body), rng=rng)
        return mc.Case(None, "udiff", {src.path: mc.join(file_lines)}, out, "failed", code="not_found", fault=fault,
                       trap=True, source=src.name,
                       description="the outer context lines are wrong; GNU patch (fuzz 1) would apply the inner lines to one of two copies, patchbay refuses")
    if fault in ("duplicate", "duplicate_hinted"):
        old = lines[s + 1:s + 4]
        pad = [src.note("", f"padding {i}") for i in range(30)]
        file_lines = lines + pad + block
        nums, body = hunk(file_lines, s + 1, 3, new_mid, ctx=1)
        if fault == "duplicate":
            out = fenced(file_header(src.path) + "@@ @@\n" + body_text(body), rng=rng)
            return mc.Case(None, "udiff", {src.path: mc.join(file_lines)}, out, "failed", code="ambiguous",
                           fault=fault, trap=True, source=src.name,
                           description="the hunk occurs twice and the header has no numbers to choose")
        out = fenced(file_header(src.path) + header(nums) + body_text(body), rng=rng)
        after = after_of(file_lines, s + 1, 3, new_mid)
        assert old == file_lines[s + 1:s + 4]
        return mc.Case(None, "udiff", {src.path: mc.join(file_lines)}, out, "applied",
                       after={src.path: mc.join(after)}, fault=fault, trap=True, source=src.name,
                       description="the hunk occurs twice, far apart; the header's line picks the first")
    if fault == "numbers_at_lookalike":
        # The numbers point at a copy that differs in one line; content wins.
        copy = list(block)
        copy[2] = copy[2] + "  " + (src.comment or "#") + " copy"
        file_lines = copy + [""] + lines
        nums, body = hunk(file_lines, s + 1 + len(copy) + 1, 3, new_mid, ctx=1)
        nums = [2, nums[1], 2, nums[3]]
        out = fenced(file_header(src.path) + header(nums) + body_text(body), rng=rng)
        after = after_of(file_lines, s + 1 + len(copy) + 1, 3, new_mid)
        return mc.Case(None, "udiff", {src.path: mc.join(file_lines)}, out, "applied",
                       after={src.path: mc.join(after)}, fault=fault, trap=True, source=src.name,
                       description="the header's line points at a near copy at the top of the file; the hunk's content only matches the real block")
    raise ValueError(fault)


def refusals(src, rng, fault):
    lines = src.lines
    s = pick(src, rng)
    if s is None:
        return None
    new = mc.change(src, lines[s:s + 3])
    nums, body = hunk(lines, s, 3, new)
    before = {src.path: mc.join(lines)}
    if fault == "truncated":
        full = file_header(src.path) + header(nums) + body_text(body)
        start = full.index("@@", full.index("+++")) + len(header(nums))
        cut = rng.randrange(start + 2, len(full) - 6)
        out = rng.choice(mc.PROSE) + "```diff\n" + full[:cut]
        return mc.Case(None, "udiff", before, out, "truncated", code="truncated", fault=fault, source=src.name,
                       description="the reply was cut inside a hunk (and its fence)")
    if fault == "truncated_bare":
        full = file_header(src.path, git=False) + header(nums) + body_text(body)
        lines_out = full.splitlines(keepends=True)
        out = "".join(lines_out[:-2])
        return mc.Case(None, "udiff", before, out, "truncated", code="truncated", fault=fault, source=src.name,
                       description="a bare diff that ends two lines short of its header's counts")
    if fault == "path_escape":
        p = "../" + src.path
        out = fenced(f"--- a/{p}\n+++ b/{p}\n" + header(nums) + body_text(body), rng=rng)
        return mc.Case(None, "udiff", before, out, "failed", code="path_escape", fault=fault, source=src.name,
                       description="the path climbs out of the root")
    if fault == "missing_file":
        p = os.path.dirname(src.path) + "/missing_" + os.path.basename(src.path)
        out = fenced(file_header(p) + header(nums) + body_text(body), rng=rng)
        return mc.Case(None, "udiff", before, out, "failed", code="file_missing", fault=fault, source=src.name,
                       description="a hunk for a file that does not exist")
    if fault == "create_exists":
        out = fenced(f"--- /dev/null\n+++ b/{src.path}\n@@ -0,0 +1,3 @@\n" + body_text([("+", x) for x in lines[:3]]), rng=rng)
        return mc.Case(None, "udiff", before, out, "failed", code="file_exists", fault=fault, source=src.name,
                       description="`--- /dev/null` for a file that exists")
    raise ValueError(fault)


# ---------------------------------------------------------------- main


def main():
    names = sorted(n for n in os.listdir(mc.SOURCES) if os.path.splitext(n)[1] in mc.LANG)
    srcs = [mc.Src(n) for n in names]
    code = [s for s in srcs if s.comment]
    by = {s.name: s for s in srcs}
    for d in os.listdir(mc.CORPUS) if os.path.isdir(mc.CORPUS) else []:
        if d.startswith(PREFIX):
            shutil.rmtree(os.path.join(mc.CORPUS, d))
    # (fault, function, sources to try in order, how many cases)
    plans = [
        ("none", clean, ["textwrap.py", "strings_reader.go"], 2),
        ("wrong_numbers", clean, ["semver_parse.rs", "ms_index.js"], 2),
        ("no_numbers", clean, ["json_decoder.py", "ring_poly1305.c"], 2),
        ("wrong_counts", clean, ["either_lib.rs", "semver_range.js"], 2),
        ("lost_space", clean, ["textwrap.py", "either_lib.rs", "semver_range.js"], 3),
        ("lost_space_tabs", clean, ["strings_builder.go"], 1),
        ("crlf", clean, ["json_decoder.py"], 1),
        ("blank_context", blank_context, ["textwrap.py", "strings_reader.go"], 2),
        ("missing_plus", missing_plus, ["semver_parse.rs", "json_decoder.py"], 2),
        ("two_hunks", structure, ["textwrap.py"], 1),
        ("create", structure, ["ms_index.js"], 1),
        ("delete", structure, ["ring_poly1305.c"], 1),
        ("rename", structure, ["strings_builder.go"], 1),
        ("bare_prose", structure, ["semver_range.js"], 1),
        ("no_final_newline", structure, ["either_lib.rs", "strings_reader.go"], 1),
        ("strict_clean", strict, ["semver_parse.rs"], 1),
        ("strict_offset", strict, ["textwrap.py"], 1),
        ("strict_counts", strict, ["ms_index.js"], 1),
        ("strict_prefix", strict, ["ring_poly1305.c", "json_decoder.py"], 1),
        ("strict_whitespace", strict, ["strings_reader.go"], 1),
        ("similar_elsewhere", traps, ["textwrap.py", "either_lib.rs", "semver_range.js", "strings_reader.go"], 4),
        ("hallucinated", traps, ["json_decoder.py", "strings_builder.go", "ring_poly1305.c"], 3),
        ("fuzz_trap", traps, ["semver_parse.rs", "ms_index.js", "ring_poly1305.c"], 3),
        ("duplicate", traps, ["strings_reader.go", "json_decoder.py", "either_lib.rs"], 3),
        ("duplicate_hinted", traps, ["textwrap.py", "semver_range.js", "strings_builder.go"], 3),
        ("numbers_at_lookalike", traps, ["semver_parse.rs", "strings_builder.go"], 2),
        ("truncated", refusals, ["either_lib.rs", "ms_index.js"], 2),
        ("truncated_bare", refusals, ["textwrap.py"], 1),
        ("path_escape", refusals, ["semver_range.js"], 1),
        ("missing_file", refusals, ["strings_builder.go"], 1),
        ("create_exists", refusals, ["json_decoder.py"], 1),
    ]
    count = traps_n = 0
    for fault, fn, names_, want in plans:
        made = 0
        pool = [by[n] for n in names_] + [s for s in code if s.name not in names_]
        for src in pool:
            if made >= want:
                break
            rng = random.Random(f"udiff/{fault}/{src.name}")
            case = fn(src, rng, fault)
            if case is None:
                continue
            case.name = f"{PREFIX}{fault}-{os.path.splitext(src.name)[0]}"
            mc.write(case)
            made += 1
            count += 1
            traps_n += case.trap
        if made < want:
            print(f"warning: only {made} of {want} cases for {fault}", file=sys.stderr)
    for j, (a, b) in enumerate([("textwrap.py", "strings_reader.go"), ("either_lib.rs", "ms_index.js")]):
        rng = random.Random(f"udiff/multi/{a}/{b}")
        case = structure(by[a], rng, "multi_file", other=by[b])
        if case:
            case.name = f"{PREFIX}multi_file-{j}"
            mc.write(case)
            count += 1
    print(f"wrote {count} cases ({traps_n} traps)", file=sys.stderr)


if __name__ == "__main__":
    main()
