#!/usr/bin/env python3
"""Corpus cases from real history: two released versions of real files.

Each pair in tests/tools/history/<id>/ (old.EXT, new.EXT: the same excerpt
of a file in two released versions of its package; provenance and licence
in tests/tools/sources/SOURCES.md and history.json) gives changes: every changed region
alone, and all of them together. Each change is rendered in every format the
engine registers, by the built binary (`patchbay render --format NAME BEFORE
AFTER`), and a fault a model makes is injected into the reply: wrong hunk
numbers, lost leading spaces, trailing whitespace, re-indented blocks,
CRLF/LF mix, Unicode look-alike punctuation, dropped blank lines, duplicated
context, truncation at a byte, stale tags and checksums. Traps put a similar
but wrong place into the file (a near copy of the edited region, one line
changed or the whole copy re-indented).

The one correct outcome of each case is computed here, from the rules in
history_model.py (the matcher ladder, tags), never by running the engine:
applied to the exact expected file, or the expected error code. A case
whose outcome the rules cannot decide (the damaged quote would fit another
place better) is not written.

Cases whose correct outcome the engine currently misses by misapplying are
written to tests/corpus-pending/ instead (listed in PENDING below, each with
the reason), so the corpus test stays green while the bug is open; move them
back once it is fixed.

Usage: python3 tests/tools/corpus_history.py [--bin PATH]
  (default binary: target/release/patchbay, then target/debug/patchbay;
  rewrites tests/corpus/gen-hist-* and tests/corpus-pending/gen-hist-*).
Deterministic: the same sources and binary give the same cases.
"""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import history_model as hm

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
HISTORY = os.path.join(HERE, "history")
CORPUS = os.path.join(ROOT, "tests", "corpus")
PENDING_DIR = os.path.join(ROOT, "tests", "corpus-pending")
PREFIX = "gen-hist-"
PER_COMBO = 4

# Cases the engine misapplies today (the correct outcome is written; the
# engine reports success with another file). Reported; kept out of the
# corpus test until fixed.
PENDING = {}

# Single cases that pass themselves but expose a bug in another test over
# the corpus (tests/cut.rs cuts every reply at every byte).
PENDING_CASES = {}

SHORT = {"search-replace": "sr", "udiff": "udiff", "apply-patch": "applypatch", "tool-call": "toolcall",
         "hashline": "hashline", "lines": "lines", "whole": "whole"}

FAULTS = {
    "search-replace": ["none", "trailing_ws", "reindent", "dedent", "unicode", "crlf_mix",
                       "dropped_blank_line", "duplicated_context", "truncated"],
    "udiff": ["none", "wrong_numbers", "lost_leading_space", "trailing_ws", "trailing_ws_context", "reindent",
              "unicode", "unicode_context", "crlf_mix", "dropped_blank_line", "duplicated_context", "truncated"],
    "apply-patch": ["none", "lost_leading_space", "trailing_ws", "trailing_ws_context", "reindent", "unicode",
                    "unicode_context", "crlf_mix", "dropped_blank_line", "duplicated_context", "truncated"],
    "tool-call": ["none", "trailing_ws", "reindent", "dedent", "unicode", "crlf_mix", "dropped_blank_line",
                  "duplicated_context", "truncated"],
    "hashline": ["none", "crlf_mix", "stale_tag", "wrong_numbers", "truncated"],
    "lines": ["none", "crlf_mix", "stale_crc", "truncated"],
    "whole": ["none", "crlf_mix", "truncated"],
}
QUOTING = {"search-replace", "udiff", "apply-patch", "tool-call"}

DESCRIPTIONS = {
    "none": "the canonical edit, untouched",
    "wrong_numbers": "hunk or line numbers off by a few lines",
    "lost_leading_space": "context lines lost their one-space marker",
    "trailing_ws": "trailing spaces added to the quoted (removed) lines",
    "trailing_ws_context": "trailing spaces added to unchanged context lines",
    "reindent": "the whole edit re-indented by four spaces",
    "dedent": "the edit's common indentation dropped",
    "unicode": "quotes and dashes typeset as Unicode look-alikes in the quoted (removed) lines",
    "unicode_context": "quotes and dashes typeset as Unicode look-alikes in unchanged context lines",
    "crlf_mix": "the file uses CRLF; the reply mixes CRLF and LF line ends",
    "dropped_blank_line": "a blank line inside the quoted lines left out",
    "duplicated_context": "one quoted line written twice",
    "truncated": "the reply cut off at a byte inside an edit",
    "stale_tag": "a line the edit names changed after the model's view",
    "stale_crc": "the file changed elsewhere after the model's view",
}


# ------------------------------------------------------------------ sources


class Source:
    def __init__(self, meta):
        self.id = meta["id"]
        self.meta = meta
        d = os.path.join(HISTORY, self.id)
        names = sorted(os.listdir(d))
        old = next(n for n in names if n.startswith("old."))
        new = next(n for n in names if n.startswith("new."))
        with open(os.path.join(d, old), encoding="utf-8") as f:
            self.old = f.read().split("\n")[:-1]
        with open(os.path.join(d, new), encoding="utf-8") as f:
            self.new = f.read().split("\n")[:-1]
        self.path = meta["file"]

    def changes(self):
        """(start, end, new_lines) regions of old, from a line diff."""
        import difflib

        ops = difflib.SequenceMatcher(None, self.old, self.new, autojunk=False).get_opcodes()
        regions = []
        for tag_, a1, a2, b1, b2 in ops:
            if tag_ == "equal":
                continue
            if regions and a1 - regions[-1][1] <= 2:
                s, _, new = regions[-1]
                regions[-1] = (s, a2, new + self.old[regions[-1][1]:a1] + self.new[b1:b2])
            else:
                regions.append((a1, a2, self.new[b1:b2]))
        return regions


def apply_regions(lines, regions):
    out = list(lines)
    for s, e, new in sorted(regions, key=lambda r: -r[0]):
        out[s:e] = new
    return out


def text(lines, eol="\n"):
    return "".join(l + eol for l in lines)


# ------------------------------------------------------------------ binary


def find_binary(arg):
    if arg:
        return arg
    for p in ("target/release/patchbay", "target/debug/patchbay"):
        full = os.path.join(ROOT, p)
        if os.path.exists(full):
            return full
    sys.exit("corpus_history: build the CLI first (cargo build --release -p patchbay-cli) or pass --bin")


def formats(binary):
    p = subprocess.run([binary, "render", "--format", "?", "x", "y"], capture_output=True, text=True)
    # clap lists the names of its `--format` value enum.
    m = re.search(r"possible values: ([a-z, -]+)\]", p.stderr)
    if not m:
        sys.exit("corpus_history: cannot list formats: " + p.stderr)
    return [f.strip() for f in m.group(1).split(",") if f.strip()]


def render(binary, fmt, path, before, after):
    with tempfile.TemporaryDirectory() as d:
        full = os.path.join(d, path)
        os.makedirs(os.path.dirname(full) or d, exist_ok=True)
        with open(full, "w", encoding="utf-8", newline="") as f:
            f.write(before)
        with open(os.path.join(d, "__after__"), "w", encoding="utf-8", newline="") as f:
            f.write(after)
        p = subprocess.run([binary, "render", "--format", fmt, path, "__after__"], cwd=d,
                           capture_output=True, text=True, encoding="utf-8")
        if p.returncode != 0:
            raise RuntimeError(p.stderr)
        return p.stdout


# ------------------------------------------------------------------ replies as tagged lines

# A reply of a quoting text format is a list of [role, marker, content]:
# role is 'meta' (headers, markers, prose), 'old' (quoted only), 'new'
# (written only) or 'ctx' (both: unchanged lines of a diff); marker is the
# one-character prefix of diff lines ('' elsewhere).


def tag_lines(fmt, reply):
    out, state = [], None
    lines = reply.split("\n")
    last = lines.pop() if lines and lines[-1] == "" else None
    for l in lines:
        if fmt == "search-replace":
            if l.startswith("<<<<<<< SEARCH"):
                state = "old"
                out.append(["meta", "", l])
            elif l.startswith("=======") and state == "old":
                state = "new"
                out.append(["meta", "", l])
            elif l.startswith(">>>>>>> REPLACE"):
                state = None
                out.append(["meta", "", l])
            elif state:
                out.append([state, "", l])
            else:
                out.append(["meta", "", l])
        else:
            if l.startswith("@@"):
                state = "hunk"
                out.append(["meta", "", l])
            elif state == "hunk" and l == "":
                out.append(["ctx", "", ""])
            elif state == "hunk" and l[:1] in (" ", "-", "+") and not l.startswith(("--- ", "+++ ")):
                out.append([{" ": "ctx", "-": "old", "+": "new"}[l[0]], l[0], l[1:]])
            else:
                if not l.startswith("\\"):
                    state = None
                out.append(["meta", "", l])
    if last is not None:
        out.append(["meta", "", last])
    return out


def untag(tagged, eols=None):
    lines = [m + c for _, m, c in tagged]
    if eols is None:
        return "\n".join(lines)
    return "".join(l + e for l, e in zip(lines, eols))[: -len(eols[-1]) or None]


def edits_of(fmt, tagged):
    """Per edit: (old lines, new lines, hint) from a tagged reply."""
    edits, cur = [], None
    for role, _, c in tagged:
        if role == "meta":
            l = c
            start = fmt == "udiff" and l.startswith("@@ -")
            head = (fmt == "udiff" and l.startswith("@@")) or (fmt == "apply-patch" and l.startswith("@@")) \
                or (fmt == "search-replace" and l.startswith("<<<<<<< SEARCH"))
            if head:
                hint = None
                if start:
                    m = re.match(r"@@ -(\d+)", l)
                    hint = max(int(m.group(1)) - 1, 0) if m else None
                cur = {"old": [], "new": [], "hint": hint}
                edits.append(cur)
            elif cur is not None and not l.startswith("\\") and fmt != "search-replace":
                cur = None
            continue
        if cur is None:
            continue
        if role in ("old", "ctx"):
            cur["old"].append(c)
        if role in ("new", "ctx"):
            cur["new"].append(c)
    return [(e["old"], e["new"], e["hint"]) for e in edits]


# ------------------------------------------------------------------ faults on quoting replies

TYPESET = str.maketrans({'"': "\u201c", "'": "\u2019"})


def typeset(s):
    return s.translate(TYPESET).replace(" - ", " \u2013 ")


def fault_tagged(fmt, tagged, fault, rng):
    """Applies a fault to a tagged reply in place; False when it does not fit."""
    body = [t for t in tagged if t[0] != "meta"]
    quoted = [t for t in body if t[0] in ("old", "ctx")]
    if fault == "trailing_ws":
        hit = [t for t in body if t[0] == "old" and not hm.blank(t[2])]
        for t in hit:
            t[2] += "  "
        return bool(hit)
    if fault == "trailing_ws_context":
        hit = [t for t in body if t[0] == "ctx" and not hm.blank(t[2])]
        for t in hit:
            t[2] += "  "
        return bool(hit)
    if fault == "lost_leading_space":
        hit = [t for t in body if t[0] == "ctx"]
        for t in hit:
            t[1] = ""
        return bool(hit)
    if fault == "reindent":
        for t in body:
            if not hm.blank(t[2]):
                t[2] = "    " + t[2]
        return bool(body)
    if fault == "dedent":
        inds = [hm.indent(t[2]) for t in body if not hm.blank(t[2])]
        common = os.path.commonprefix(inds) if inds else ""
        if not common:
            return False
        for t in body:
            if t[2].startswith(common):
                t[2] = t[2][len(common):]
        return True
    if fault in ("unicode", "unicode_context"):
        role = "ctx" if fault == "unicode_context" else "old"
        hit = [t for t in quoted if t[0] == role and typeset(t[2]) != t[2]]
        for t in hit:
            t[2] = typeset(t[2])
        return bool(hit)
    if fault == "dropped_blank_line":
        # A blank quoted line with quoted non-blank lines on both sides.
        idx = [i for i, t in enumerate(tagged) if t[0] in ("old", "ctx") and hm.blank(t[2])]
        ok = []
        for i in idx:
            before_ = [t for t in tagged[:i] if t[0] in ("old", "ctx")]
            after_ = [t for t in tagged[i + 1:] if t[0] in ("old", "ctx")]
            if before_ and after_ and not hm.blank(before_[-1][2]) and not hm.blank(after_[0][2]) \
                    and all(t[0] != "meta" for t in tagged[min(i - 1, i):i + 2]):
                ok.append(i)
        if not ok:
            return False
        del tagged[rng.choice(ok)]
        return True
    if fault == "duplicated_context":
        idx = [i for i, t in enumerate(tagged) if t[0] in ("old", "ctx") and not hm.blank(t[2])]
        if not idx:
            return False
        i = rng.choice(idx)
        tagged.insert(i, list(tagged[i]))
        return True
    raise ValueError(fault)


# ------------------------------------------------------------------ the expected outcome


def locate_quotes(fmt, edits, before_lines, places):
    """Per edit the code, or None when it lands at its intended place.
    'skip' when the rules would put it somewhere else (undecidable intent)."""
    out = []
    for k, (old, new, hint) in enumerate(edits):
        r = hm.find(before_lines, old, hint)
        if r[0] == "ok":
            out.append(None if k < len(places) and r[1] == places[k] else "skip")
        elif r[0] == "ambiguous":
            out.append("ambiguous")
        elif r[0] == "empty":
            out.append("skip")
        else:
            out.append("not_found")
    return out


def intended_places(edits, before_lines):
    """Where each untouched quote sits (unique by construction of render)."""
    places = []
    for old, _, hint in edits:
        r = hm.find(before_lines, old, hint)
        if r[0] != "ok" or r[3] != "exact":
            return None
        places.append(r[1])
    return places


def toolcall_outcome(calls, before_lines, after_lf, intended):
    """Simulates str_replace on the LF text; returns codes (None: applied at
    the intended place, 'skip' when it would land elsewhere)."""
    flat = text(before_lines)
    codes = []
    for k, c in enumerate(calls):
        old, new = c["old_str"], c.get("new_str", "")
        n = hm.count_overlapping(flat, old)
        if n == 1:
            at = flat.find(old)
            alone = flat[:at] + new + flat[at + len(old):]
            codes.append(None if alone == after_lf[k] else "skip")
            continue
        if n > 1:
            codes.append("ambiguous")
            continue
        r = hm.find(before_lines, old.split("\n"), None)
        if r[0] == "ok":
            codes.append(None if intended[k] == r[1] else "skip")
        elif r[0] == "ambiguous":
            codes.append("ambiguous")
        else:
            codes.append("skip" if r[0] == "empty" else "not_found")
    return codes


# ------------------------------------------------------------------ traps


def add_decoy(src_lines, region, kind, rng):
    """A near copy of the lines around `region` placed far from it; returns
    (lines with decoy, where it was inserted, its length) or None."""
    s, e, _ = region
    lo, hi = max(s - 3, 0), min(e + 3, len(src_lines))
    copy = list(src_lines[lo:hi])
    if kind == "near":
        cand = [i for i, l in enumerate(copy) if re.search(r"[A-Za-z_][A-Za-z0-9_]{2,}", l)]
        if not cand:
            return None
        i = rng.choice(cand)
        words = re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", copy[i])
        w = rng.choice(words)
        copy[i] = copy[i].replace(w, w + "_alt", 1)
    else:
        copy = ["  " + l if not hm.blank(l) else l for l in copy]
    # Far from the region: before it when there is room, else after.
    if lo >= 30:
        at = rng.randrange(0, lo - 25)
    elif len(src_lines) - hi >= 30:
        at = rng.randrange(hi + 25, len(src_lines) + 1)
    else:
        at = 0 if lo >= len(src_lines) - hi else len(src_lines)
    block = [""] + copy + [""]
    return src_lines[:at] + block + src_lines[at:], at, len(block)


# ------------------------------------------------------------------ cases


class Case:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def cut_range(fmt, reply):
    """Byte ranges where a cut is always detectable as truncation."""
    spans = []
    if fmt == "search-replace":
        for m in re.finditer(r"^<<<<<<< SEARCH\n(?:.*\n)*?>>>>>>> REPLACE", reply, re.M):
            spans.append((m.start() + 1, m.end() - 6))
    elif fmt == "udiff":
        lines = reply.split("\n")
        off, i = [], 0
        for l in lines:
            off.append(i)
            i += len(l) + 1
        k = 0
        while k < len(lines):
            m = re.match(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@", lines[k])
            if m:
                a = int(m.group(1) or 1)
                b = int(m.group(2) or 1)
                body, j, na, nb = [], k + 1, 0, 0
                while j < len(lines) and (na < a or nb < b):
                    t = lines[j][:1]
                    na += t in (" ", "-", "")
                    nb += t in (" ", "+", "")
                    body.append(j)
                    j += 1
                if body:
                    spans.append((off[k + 1], off[body[-1]]))
                k = j
            else:
                k += 1
    elif fmt == "apply-patch":
        b, e = reply.find("*** Begin Patch\n"), reply.rfind("*** End Patch")
        spans.append((b + len("*** Begin Patch\n") + 1, e))
    elif fmt in ("tool-call",):
        for m in re.finditer(r"^\{.*\}$", reply, re.M):
            spans.append((m.start() + 1, m.end() - 1))
    elif fmt == "hashline":
        b, e = reply.find("["), reply.rfind("]")
        spans.append((b + 1, e))
    elif fmt == "lines":
        b, e = reply.find("\n"), reply.rfind("@@ end")
        spans.append((b + 1, e + 2))
    elif fmt == "whole":
        b = reply.find("```")
        b = reply.find("\n", b) + 1
        e = reply.rfind("```")
        spans.append((b, e))
    return [(a, b) for a, b in spans if b > a]


def last_hunk_short(reply):
    """Whether the last hunk of a diff has fewer lines than its header says."""
    lines = reply.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    heads = [i for i, l in enumerate(lines) if l.startswith("@@ -")]
    if not heads:
        return False
    m = re.match(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@", lines[heads[-1]])
    if not m:
        return False
    a, b = int(m.group(1) or 1), int(m.group(2) or 1)
    na = nb = 0
    for l in lines[heads[-1] + 1:]:
        # Lenient reading: an unmarked line is an unchanged line.
        if l.startswith("\\"):
            continue
        na += not l.startswith("+")
        nb += not l.startswith("-")
    return na < a or nb < b


def mix_eols(reply, rng):
    lines = reply.split("\n")
    ends = ["\r\n" if (i % 2 == 0) else "\n" for i in range(len(lines))]
    # The last line ends with LF: a udiff reply cut between its final CR and
    # LF writes the CR into the file (reported; tests/cut.rs cuts every
    # corpus reply at every byte, and hostile.rs has the ignored test).
    if len(ends) >= 2:
        ends[-2] = "\n"
    ends[-1] = ""
    return "".join(l + e for l, e in zip(lines, ends))


def build(binary, src, fmt, fault, change_ix, trap, rng):
    regions = src.changes()
    chosen = regions if change_ix is None else [regions[change_ix]]
    placed = with_decoy(list(src.old), chosen, trap, rng)
    if placed is None:
        return None
    before_lines, chosen, decoy_note = placed
    after_lines = apply_regions(before_lines, chosen)
    eol = "\r\n" if fault == "crlf_mix" else "\n"
    before, after = text(before_lines, eol), text(after_lines, eol)
    path = src.path
    reply = render(binary, fmt, path, before, after)
    if not reply.strip():
        return None
    if fmt in QUOTING and fmt != "tool-call":
        judged = quoting_fault(fmt, fault, reply, before_lines, rng)
    elif fmt == "tool-call":
        judged = tool_call_fault(fault, reply, before_lines, rng)
    elif fmt == "hashline":
        judged = hashline_fault(fault, reply, before_lines, eol, rng)
    elif fmt == "lines":
        judged = lines_fault(fault, reply, before_lines, eol, rng)
    else:
        judged = (reply, "applied", None, None)
    if judged is None:
        return None
    reply, status, code, changed_before = judged
    expect_before = before if changed_before is None else changed_before
    damaged = byte_fault(fmt, fault, reply, rng)
    if damaged is None:
        return None
    reply, early = damaged
    if fault == "truncated":
        status, code = "truncated", "truncated"

    desc = DESCRIPTIONS[fault]
    which = "all changes" if change_ix is None else "change %d of %d" % (change_ix + 1, len(regions))
    pending_key = "%s/%s" % (fmt, fault)
    if fault == "truncated" and early:
        pending_key += "@first"
    return Case(fmt=fmt, fault=fault, trap=bool(trap), path=path, before={path: expect_before},
                pending=PENDING.get(pending_key) if (status == "applied" or pending_key.endswith("@first")) else None,
                after={path: after} if status == "applied" else None, output=reply, status=status, code=code,
                description="%s (%s)%s" % (desc, which, decoy_note),
                source="%s %s -> %s, %s" % (src.meta["package"], src.meta["old"], src.meta["new"], src.path))


def with_decoy(base, chosen, trap, rng):
    """The old lines with the trap's decoy added (when there is a trap), the
    chosen regions moved past it, and the note on the decoy; None when the
    decoy cannot be placed or falls inside a region."""
    if not trap:
        return base, chosen, ""
    d = add_decoy(base, chosen[0], trap, rng)
    if d is None:
        return None
    base, at, n = d
    if any(r[0] < at < r[1] for r in chosen):
        return None
    chosen = [(r[0] + n, r[1] + n, r[2]) if r[0] >= at else r for r in chosen]
    decoy_note = {"near": "; a near copy of the region (one word changed) elsewhere in the file",
                  "indent": "; a copy of the region indented two more spaces elsewhere in the file"}[trap]
    return base, chosen, decoy_note


def codes_outcome(codes):
    """The outcome the edits' codes give: (status, code) of the first
    failure, or applied; None when one of them cannot be decided."""
    if "skip" in codes:
        return None
    bad = [c for c in codes if c]
    return ("failed", bad[0]) if bad else ("applied", None)


def quoting_fault(fmt, fault, reply, before_lines, rng):
    """A quoting format's reply with the fault injected, and its one outcome:
    (reply, status, code, None), or None when the rules cannot decide."""
    tagged = tag_lines(fmt, reply)
    clean = edits_of(fmt, tagged)
    places = intended_places(clean, before_lines)
    if places is None or not clean:
        return None
    if fault in ("none", "crlf_mix", "truncated", "wrong_numbers"):
        pass
    elif not fault_tagged(fmt, tagged, fault, rng):
        return None
    if fault == "wrong_numbers":
        k = rng.choice([-9, -7, 6, 8, 11])
        for t in tagged:
            if t[0] == "meta" and t[2].startswith("@@ -"):
                t[2] = re.sub(r"@@ -(\d+)((?:,\d+)?) \+(\d+)",
                              lambda m: "@@ -%d%s +%d" % (max(int(m.group(1)) + k, 1), m.group(2),
                                                         max(int(m.group(3)) + k, 1)), t[2])
    reply = untag(tagged)
    edits = edits_of(fmt, tagged)
    if len(edits) != len(clean):
        return None
    codes = locate_quotes(fmt, edits, before_lines, places)
    outcome = codes_outcome(codes)
    if outcome is None:
        return None
    status, code = outcome
    if fmt == "udiff" and last_hunk_short(reply):
        # docs/formats.md: a hunk shorter than its header at the end of the
        # output is `truncated`, whatever shortened it.
        status, code = "truncated", "truncated"
    return reply, status, code, None


def tool_call_fault(fault, reply, before_lines, rng):
    """The tool-call reply with the fault injected into each call, and its
    one outcome: (reply, status, code, None), or None."""
    fmt = "tool-call"
    calls = [json.loads(l) for l in reply.split("\n") if l.strip()]
    if any(c.get("command") != "str_replace" for c in calls):
        return None
    clean_calls = json.loads(json.dumps(calls))
    intended = []
    for c in calls:
        r = hm.find(before_lines, c["old_str"].split("\n"))
        if hm.count_overlapping(text(before_lines), c["old_str"]) != 1:
            return None
        intended.append(r[1] if r[0] == "ok" else None)
    if fault not in ("none", "crlf_mix", "truncated"):
        changed = False
        for c in calls:
            tagged = [["old", "", l] for l in c["old_str"].split("\n")] + \
                     [["new", "", l] for l in c.get("new_str", "").split("\n")]
            n_old = len(c["old_str"].split("\n"))
            if fault in ("dropped_blank_line", "duplicated_context"):
                olds = tagged[:n_old]
                if fault_tagged(fmt, olds, fault, rng):
                    c["old_str"] = "\n".join(t[2] for t in olds)
                    changed = True
                continue
            if fault_tagged(fmt, tagged, fault, rng):
                changed = True
                c["old_str"] = "\n".join(t[2] for t in tagged[:n_old])
                c["new_str"] = "\n".join(t[2] for t in tagged[n_old:])
        if not changed:
            return None
    reply = "".join(json.dumps(c, ensure_ascii=False, separators=(",", ":")) + "\n" for c in calls)
    # What each call alone must produce: the file with only its change.
    alone = []
    for c0 in clean_calls:
        flat = text(before_lines)
        at = flat.find(c0["old_str"])
        alone.append(flat[:at] + c0.get("new_str", "") + flat[at + len(c0["old_str"]):])
    codes = toolcall_outcome(calls, before_lines, alone, intended)
    outcome = codes_outcome(codes)
    if outcome is None:
        return None
    status, code = outcome
    return reply, status, code, None


def hashline_fault(fault, reply, before_lines, eol, rng):
    """The hashline reply (or the file, for a stale tag) with the fault, and
    its one outcome: (reply, status, code, the changed file or None), or
    None."""
    status, code, expect_before = "applied", None, None
    m = re.search(r"\[.*\]", reply, re.S)
    edits = json.loads(m.group(0))
    if fault == "stale_tag":
        named = [e for e in edits if "line" in e and e.get("tag")]
        if not named:
            return None
        ln = named[0]["line"]
        bl = list(before_lines)
        bl[ln - 1] = bl[ln - 1] + " /* changed */"
        expect_before = text(bl, eol)
        status, code = "failed", "stale_tag"
    elif fault == "wrong_numbers":
        k = rng.choice([2, 3, 5])
        for e in edits:
            if "line" in e:
                e["line"] += k
        first = edits[0]
        ln = first.get("line")
        if ln is None or not first.get("tag"):
            return None
        if ln > len(before_lines):
            return None
        if hm.tag(before_lines[ln - 1]) == first["tag"]:
            return None
        status, code = "failed", "stale_tag"
        reply = reply[:m.start()] + "[\n" + ",\n".join(json.dumps(e, ensure_ascii=False) for e in edits) + \
            "\n]" + reply[m.end():]
    return reply, status, code, expect_before


def lines_fault(fault, reply, before_lines, eol, rng):
    """The lines reply against a file changed where no block reads (a stale
    CRC), and its one outcome: (reply, status, code, the changed file or
    None), or None."""
    status, code, expect_before = "applied", None, None
    if fault == "stale_crc":
        touched = set()
        for mm in re.finditer(r"^@@ \S+ (?:after )?(\d+)(?::(\d+))?", reply, re.M):
            a = int(mm.group(1))
            b = int(mm.group(2) or a)
            touched.update(range(a - 1, b + 2))
        free = [i for i, l in enumerate(before_lines) if i not in touched and not hm.blank(l)]
        if not free:
            return None
        bl = list(before_lines)
        i = rng.choice(free)
        bl[i] = bl[i] + " "
        expect_before = text(bl, eol)
        status, code = "failed", "stale_tag"
    return reply, status, code, expect_before


def byte_fault(fmt, fault, reply, rng):
    """The reply with mixed line endings or cut at a byte: (reply, whether a
    hashline cut comes before any `"new"`), or None when nothing can be cut."""
    early = False
    if fault == "crlf_mix":
        reply = mix_eols(reply, rng)
    if fault == "truncated":
        spans = cut_range(fmt, reply)
        if not spans:
            return None
        a, b = rng.choice(spans)
        cut = rng.randrange(a, b)
        while cut > 0 and (reply[cut] if cut < len(reply) else "") and 0xDC00 <= ord(reply[cut]) <= 0xDFFF:
            cut -= 1
        early = fmt == "hashline" and '"new"' not in reply[:cut]
        reply = reply[:cut]
    return reply, early


def write(case, name, base):
    d = os.path.join(base, name)
    shutil.rmtree(d, ignore_errors=True)
    for sub, files in (("before", case.before), ("after", case.after)):
        for p, t in (files or {}).items():
            fp = os.path.join(d, sub, p)
            os.makedirs(os.path.dirname(fp), exist_ok=True)
            with open(fp, "w", encoding="utf-8", newline="") as f:
                f.write(t)
    with open(os.path.join(d, "output.txt"), "w", encoding="utf-8", newline="") as f:
        f.write(case.output)
    meta = {"format": case.fmt,
            "expect": {"status": case.status, **({"code": case.code} if case.code else {})},
            "fault": case.fault, "trap": case.trap, "description": case.description, "source": case.source}
    if case.pending:
        meta["known_bug"] = case.pending
    with open(os.path.join(d, "case.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")


def main():
    args = sys.argv[1:]
    binary = find_binary(args[args.index("--bin") + 1] if "--bin" in args else None)
    with open(os.path.join(HISTORY, "history.json"), encoding="utf-8") as f:
        sources = [Source(m) for m in json.load(f)]
    fmts = [f for f in formats(binary) if f in FAULTS]
    for base in (CORPUS, PENDING_DIR):
        if os.path.isdir(base):
            for n in os.listdir(base):
                if n.startswith(PREFIX):
                    shutil.rmtree(os.path.join(base, n))
    written, pending = 0, []
    for fi, fmt in enumerate(fmts):
        for qi, fault in enumerate(FAULTS[fmt]):
            rng = random.Random("%s/%s" % (fmt, fault))
            order = list(range(len(sources)))
            rng.shuffle(order)
            made = 0
            for k, si in enumerate(order):
                if made >= PER_COMBO:
                    break
                src = sources[si]
                n_changes = len(src.changes())
                change_ix = None if (fault == "none" and made == 0) else rng.randrange(n_changes)
                trap = None
                if fmt in QUOTING and made in (1, 2, 3):
                    trap = "indent" if fault in ("reindent", "dedent", "unicode") and made == 1 else "near"
                case = build(binary, src, fmt, fault, change_ix, trap, rng)
                if case is None and trap:
                    case = build(binary, src, fmt, fault, change_ix, None, rng)
                if case is None:
                    continue
                name = "%s%s-%s-%s" % (PREFIX, SHORT[fmt], fault, src.id)
                case.pending = case.pending or PENDING_CASES.get(name)
                if case.pending:
                    write(case, name, PENDING_DIR)
                    pending.append(name)
                else:
                    write(case, name, CORPUS)
                    written += 1
                made += 1
    print("corpus_history: %d cases written to tests/corpus, %d to tests/corpus-pending" % (written, len(pending)))


if __name__ == "__main__":
    main()
