"""The `tool-call` (Anthropic text-editor JSON) cases: see corpus_patch_tool.py."""

import json
import os
import random

from make_corpus import PROSE, Case, change, indent_of, join, kept
from patch_tool.common import flat, near, occurrences, replaced, tc_block, trap_file


def call(command, path, **fields):
    return {"command": command, "path": path, **fields}


def jl(*calls):
    return "".join(json.dumps(c) + "\n" for c in calls)


def tc(src, before, out, status="applied", after=None, code=None, fault="none", trap=False, desc=""):
    return Case(None, "tool-call", before, out, status, code=code, after=after, fault=fault, trap=trap,
                description=desc, source=src.name)


def tc_replace(src, rng, fault):
    L = list(src.lines)
    pred = None
    if fault == "indent":
        pred = lambda b: all(indent_of(x) for x in b) and len({indent_of(x)[:1] for x in b}) == 1  # noqa: E731
    if fault == "unicode":
        pred = lambda b: '"' in b[1] or "'" in b[1]  # noqa: E731
    s = tc_block(src, rng, pred)
    if s is None:
        return None
    old, new = L[s : s + 3], change(src, L[s : s + 3])
    o, n = "\n".join(old), "\n".join(new)
    file_lines, eol, desc = L, "\n", "one str_replace call"
    out = None
    if fault == "trailing_ws":
        file_lines = replaced(L, s, 3, [x + "  " for x in old])
        desc = "the file has trailing whitespace the model did not copy: not a substring, the line ladder finds it"
    elif fault == "indent":
        common = min(len(indent_of(x)) for x in old)
        o, n = "\n".join(x[common:] for x in old), "\n".join(x[common:] for x in new)
        desc = "old_str and new_str lost the block's indentation; the replacement is re-indented"
    elif fault == "unicode":
        o = o.translate(str.maketrans({'"': "\u201c", "'": "\u2019"}))
        desc = "the model typeset the quotes of old_str"
    elif fault == "crlf":
        eol = "\r\n"
        desc = "the file uses CRLF, old_str LF"
    elif fault == "fenced_prose":
        out = ("Let me update it.\n\n```json\n" + json.dumps(call("str_replace", src.path, old_str=o, new_str=n), indent=2)
               + "\n```\n\nThat should do it.\n")
        desc = "a pretty-printed call in a json fence, prose around it"
    elif fault == "envelope":
        out = json.dumps({"type": "tool_use", "id": "toolu_01", "name": "str_replace_based_edit_tool",
                          "input": call("str_replace", src.path, old_str=o, new_str=n)}) + "\n"
        desc = "inside a tool_use envelope"
    elif fault == "name_envelope":
        out = "Calling the editor:\n" + json.dumps({"name": "str_replace_editor", "input": call("str_replace", src.path, old_str=o, new_str=n)}, indent=1) + "\n"
        desc = "inside a {name, input} envelope"
    elif fault == "raw_newlines":
        esc = lambda lines: "\n".join(json.dumps(x)[1:-1] for x in lines)  # noqa: E731
        out = ('{"command": "str_replace", "path": "%s", "old_str": "%s", "new_str": "%s"}\n'
               % (src.path, esc(old), esc(new)))
        desc = "raw newlines inside the JSON strings (repaired)"
    elif fault == "delete_text":
        o = "\n".join(old[:2]) + "\n"
        if occurrences(flat(L), o) != 1:
            return None
        out = jl({"command": "str_replace", "path": src.path, "old_str": o})
        desc = "str_replace without new_str deletes"
        return tc(src, {src.path: join(L)}, out, after={src.path: join(replaced(L, s, 2, []))}, fault=fault, desc=desc)
    elif fault == "view_and_edit":
        out = jl(call("view", src.path, view_range=[max(1, s - 2), s + 5]), call("str_replace", src.path, old_str=o, new_str=n))
        desc = "a view and an edit in one reply; the view changes nothing"
    if out is None:
        out = rng.choice(PROSE) + jl(call("str_replace", src.path, old_str=o, new_str=n))
    return tc(src, {src.path: join(file_lines, eol)}, out,
              after={src.path: join(replaced(file_lines, s, 3, kept(old, new, file_lines[s : s + 3])), eol)},
              fault=fault, desc=desc)


def tc_two(src, rng, fault):
    L = src.lines
    a, b = tc_block(src, rng), tc_block(src, rng)
    if a is None or b is None or abs(a - b) < 5:
        return None
    a, b = sorted((a, b))
    na, nb = change(src, L[a : a + 3], "first"), change(src, L[b : b + 3], "second")
    ca = call("str_replace", src.path, old_str="\n".join(L[a : a + 3]), new_str="\n".join(na))
    cb = call("str_replace", src.path, old_str="\n".join(L[b : b + 3]), new_str="\n".join(nb))
    before = {src.path: join(L)}
    after = {src.path: join(replaced(replaced(L, b, 3, nb), a, 3, na))}
    if fault == "array":
        return tc(src, before, "```json\n" + json.dumps([cb, ca], indent=2) + "\n```\n", after=after, fault=fault,
                  desc="an array of two calls, in reverse file order")
    if fault == "json_lines":
        ins = call("insert", src.path, insert_line=0, new_str=src.note("", "inserted at the top"))
        top = [src.note("", "inserted at the top")]
        after = {src.path: join(top + replaced(replaced(L, b, 3, nb), a, 3, na))}
        return tc(src, before, jl(ca, ins, cb), after=after, fault=fault, desc="one call per line, an insert among them")
    if fault == "cut_array":
        text = json.dumps([ca, cb], indent=2)
        cut = rng.randrange(text.index('"old_str"', text.rindex('"command"')) + 12, len(text) - 20)
        return tc(src, before, text[:cut], "truncated", code="truncated", fault=fault,
                  desc="an array cut inside its second call; the first is held back")
    if fault == "second_ambiguous":
        dup = L + [""] + L[b : b + 3]
        return tc(src, {src.path: join(dup)}, jl(ca, cb), "failed", code="ambiguous", fault=fault, trap=True,
                  desc="the second call's old_str occurs twice; nothing is applied")
    raise ValueError(fault)


def tc_dups(src, rng, fault):
    """old_str that occurs twice: a copy of the block after the end."""
    L = src.lines
    s = tc_block(src, rng, pred=None)
    if s is None or s > len(L) - 45:
        s = tc_block(src, random.Random(src.name + fault), pred=None)
    if s is None or s > len(L) - 45:
        return None
    old, new = L[s : s + 3], change(src, L[s : s + 3])
    f = L + [""] + old
    o, n = "\n".join(old), "\n".join(new)
    before = {src.path: join(f)}
    if fault == "duplicate":
        return tc(src, before, jl(call("str_replace", src.path, old_str=o, new_str=n)), "failed", code="ambiguous",
                  fault=fault, trap=True, desc="old_str occurs twice and no line_hint says which")
    if fault == "line_hint":
        return tc(src, before, jl(call("str_replace", src.path, old_str=o, new_str=n, line_hint=s + 1)),
                  after={src.path: join(replaced(f, s, 3, kept(old, new, f[s : s + 3])))}, fault=fault, trap=True,
                  desc="old_str occurs twice; line_hint selects the first")
    if fault == "hint_far":
        h = (s + len(L)) // 2
        if abs(h - s) <= 21 or abs(len(L) + 1 - h) <= 21:
            return None
        return tc(src, before, jl(call("str_replace", src.path, old_str=o, new_str=n, line_hint=h + 1)), "failed",
                  code="ambiguous", fault=fault, trap=True, desc="old_str occurs twice and the line_hint is near neither")
    raise ValueError(fault)


def tc_misc(src, rng, fault):
    L = src.lines
    n_lines = len(L)
    s = tc_block(src, rng)
    if s is None:
        return None
    old, new = L[s : s + 3], change(src, L[s : s + 3])
    o, n = "\n".join(old), "\n".join(new)
    before = {src.path: join(L)}
    stem, ext = os.path.splitext(src.path)
    note = src.note("", "added by the corpus")
    if fault == "insert_top":
        return tc(src, before, jl(call("insert", src.path, insert_line=0, new_str=note + "\n")),
                  after={src.path: join([note] + L)}, fault=fault, desc="insert_line 0 inserts at the top")
    if fault == "insert_end":
        return tc(src, before, jl(call("insert", src.path, insert_line=n_lines, new_str=note)),
                  after={src.path: join(L + [note])}, fault=fault, desc="insert after the last line")
    if fault == "insert_mid":
        return tc(src, before, jl(call("insert", src.path, insert_line=s + 1, new_str=note)),
                  after={src.path: join(L[: s + 1] + [note] + L[s + 1 :])}, fault=fault, desc="insert after a line in the middle")
    if fault == "insert_out_of_range":
        return tc(src, before, jl(call("insert", src.path, insert_line=n_lines + 5, new_str=note)), "failed",
                  code="out_of_range", fault=fault, desc="insert_line past the end")
    if fault == "create":
        p = f"{stem}_new{ext}"
        return tc(src, before, jl(call("create", p, file_text=flat(L[:12]))), after={**before, p: join(L[:12])},
                  fault=fault, desc="create a new file")
    if fault == "create_exists":
        return tc(src, before, jl(call("create", src.path, file_text=flat(L[:12]))), "failed", code="file_exists",
                  fault=fault, desc="create does not overwrite an existing file")
    if fault == "view":
        return tc(src, before, jl(call("view", src.path, view_range=[s + 1, -1])), after=before, fault=fault,
                  desc="a view is read-only: applied, nothing changes")
    if fault == "view_out_of_range":
        return tc(src, before, jl(call("view", src.path, view_range=[n_lines + 3, n_lines + 9])), "failed",
                  code="out_of_range", fault=fault, desc="view_range past the end")
    if fault == "undo_edit":
        return tc(src, before, jl(call("undo_edit", src.path)), "failed", code="malformed", fault=fault,
                  desc="undo_edit is refused: there is no edit history")
    if fault == "truncated":
        full = json.dumps(call("str_replace", src.path, old_str=o, new_str=n))
        cut = rng.randrange(full.index('"new_str"') + 13, len(full) - 3)
        return tc(src, before, rng.choice(PROSE) + full[:cut], "truncated", code="truncated", fault=fault,
                  desc="the call is cut inside new_str")
    if fault == "malformed_json":
        text = json.dumps(call("str_replace", src.path, old_str=o, new_str=n)).replace('", "old_str"', '" "old_str"')
        return tc(src, before, text + "\n", "failed", code="malformed", fault=fault, desc="a missing comma")
    if fault == "path_escape":
        return tc(src, before, jl(call("str_replace", "../" + src.path, old_str=o, new_str=n)), "failed",
                  code="path_escape", fault=fault, desc="the path climbs out of the root")
    if fault == "absolute_path":
        return tc(src, before, jl(call("str_replace", "/repo/" + src.path, old_str=o, new_str=n)), "failed",
                  code="path_escape", fault=fault, desc="an absolute path, as the reference tool would take")
    if fault == "missing_file":
        return tc(src, before, jl(call("str_replace", f"{stem}_missing{ext}", old_str=o, new_str=n)), "failed",
                  code="file_missing", fault=fault, desc="str_replace in a file that does not exist")
    if fault == "similar_elsewhere":
        k = max(range(3), key=lambda i: len(old[i].strip()))
        w = list(old)
        w[k] = old[k].rstrip()[:-1] + ("X" if not old[k].rstrip().endswith("X") else "Y")
        return tc(src, before, jl(call("str_replace", src.path, old_str="\n".join(w), new_str=n)), "failed",
                  code="not_found", fault=fault, trap=True, desc="old_str differs from the file by one character")
    if fault == "hallucinated_line":
        w = old[:2] + [src.note(indent_of(old[1]), "a line that is not in the file")] + old[2:]
        return tc(src, before, jl(call("str_replace", src.path, old_str="\n".join(w), new_str=n)), "failed",
                  code="not_found", fault=fault, trap=True, desc="old_str has a line the file does not have")
    if fault == "substring":
        # A short fragment that occurs inside several lines.
        text = flat(L)
        frags = sorted({x.strip() for x in L if len(x.strip()) >= 6 and occurrences(text, x.strip()) >= 2})
        if not frags:
            return None
        frag = rng.choice(frags)
        return tc(src, before, jl(call("str_replace", src.path, old_str=frag, new_str=frag + " ")), "failed",
                  code="ambiguous", fault=fault, trap=True, desc="a one-line fragment that occurs in several places")
    raise ValueError(fault)


def tc_traps(src, rng, fault):
    L = src.lines
    if fault in ("duplicate_ws", "near_copy", "ladder_near_copy", "indent_dup"):
        t = trap_file(src, rng, fault)
        if t is None:
            return None
        f, s, old, new, cut = t
        before = {src.path: join(f)}
        n = "\n".join(new)
        if fault == "duplicate_ws":
            return tc(src, before, jl(call("str_replace", src.path, old_str="\n".join(x + "\t" for x in old), new_str=n)),
                      "failed", code="ambiguous", fault=fault, trap=True,
                      desc="not a substring, and two places once trailing whitespace is ignored")
        if fault == "indent_dup":
            o, n = "\n".join(x[cut:] for x in old), "\n".join(x[cut:] for x in new)
            return tc(src, before, jl(call("str_replace", src.path, old_str=o, new_str=n)), "failed", code="ambiguous",
                      fault=fault, trap=True, desc="old_str lost its indentation and the block also stands elsewhere at another indentation")
        return tc(src, before, jl(call("str_replace", src.path, old_str="\n".join(old), new_str=n)),
                  after={src.path: join(replaced(f, s, 3, kept(old, new, f[s : s + 3])))}, fault=fault, trap=True,
                  desc={"near_copy": "a copy differing by one character is elsewhere; the exact one is changed",
                        "ladder_near_copy": "the file has trailing whitespace and a near copy elsewhere; the line ladder finds the right one"}[fault])
    s = tc_block(src, rng)
    if s is None:
        return None
    old, new = L[s : s + 3], change(src, L[s : s + 3])
    before = {src.path: join(L)}
    if fault == "hint_second":
        if s > len(L) - 45:
            return None
        f = L + [""] + old
        out = jl(call("str_replace", src.path, old_str="\n".join(old), new_str="\n".join(new), line_hint=len(L) + 2))
        return tc(src, {src.path: join(f)}, out, after={src.path: join(replaced(f, len(L) + 1, 3, new))}, fault=fault,
                  trap=True, desc="old_str occurs twice; line_hint selects the copy at the end")
    if fault == "substring_suffix":
        x = old[1]
        if len(x.strip()) < 8:
            return None
        f = L + [src.note("", "was: ") + x]
        out = jl(call("str_replace", src.path, old_str=x, new_str=new[1]))
        return tc(src, {src.path: join(f)}, out, "failed", code="ambiguous", fault=fault, trap=True,
                  desc="old_str is a whole line that also occurs inside a longer line (a comment quoting it)")
    if fault in ("shifting", "second_not_found"):
        t = tc_block(src, rng)
        if t is None or abs(t - s) < 5:
            return None
        ot = L[t : t + 3]
        if fault == "second_not_found":
            out = jl(call("str_replace", src.path, old_str="\n".join(old), new_str="\n".join(new)),
                     call("str_replace", src.path, old_str="\n".join(near(ot)), new_str="\n".join(change(src, ot))))
            return tc(src, before, out, "failed", code="not_found", fault=fault, trap=True,
                      desc="the second call misquotes a line; the first is held back")
        na, nb = old + ot, change(src, ot, "moved")
        after = list(L)
        for st, nw in sorted([(s, na), (t, nb)], reverse=True):
            after[st : st + 3] = nw
        out = jl(call("str_replace", src.path, old_str="\n".join(old), new_str="\n".join(na)),
                 call("str_replace", src.path, old_str="\n".join(ot), new_str="\n".join(nb)))
        return tc(src, before, out, after={src.path: join(after)}, fault=fault, trap=True,
                  desc="call 1 adds a copy of call 2's old_str; located against the original, it is still unique")
    raise ValueError(fault)


def tc_multi(srcs, rng):
    a, b = srcs
    sa, sb = tc_block(a, rng), tc_block(b, rng)
    if sa is None or sb is None:
        return None
    na, nb = change(a, a.lines[sa : sa + 3]), change(b, b.lines[sb : sb + 3])
    out = jl(call("str_replace", a.path, old_str="\n".join(a.lines[sa : sa + 3]), new_str="\n".join(na)),
             call("str_replace", b.path, old_str="\n".join(b.lines[sb : sb + 3]), new_str="\n".join(nb)))
    return Case(None, "tool-call", {a.path: join(a.lines), b.path: join(b.lines)}, out, "applied",
                after={a.path: join(replaced(a.lines, sa, 3, na)), b.path: join(replaced(b.lines, sb, 3, nb))},
                fault="multi_file", description="calls in two files", source=f"{a.name}, {b.name}")
