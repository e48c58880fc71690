#!/usr/bin/env python3
"""Compares the SEARCH/REPLACE blocks patchbay finds in an Aider chat-history
transcript with the blocks Aider's own parser found (Aider's gold file).

Neither input is part of this repository (they are Aider's, Apache-2.0): read
them in Aider's public repository (tests/fixtures/chat-history.md and
tests/fixtures/chat-history-search-replace-gold.txt) and give their paths.

Usage: python3 tests/tools/aider_conformance.py CHAT-HISTORY.md GOLD.txt
Prints: blocks in the gold file, found identically (path, SEARCH and REPLACE),
same text with another or no path, missing, and extra.
"""

import json
import os
import subprocess
import sys
from collections import Counter

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


SECTION = {}
INVALID = {}


def gold_blocks(path):
    """(path, search, replace) of every block in Aider's gold output."""
    out, lines = [], open(path, encoding="utf-8").read().split("\n")
    i = 0
    section = ""
    while i < len(lines):
        l = lines[i]
        if l.startswith("@@@ #### "):
            section = l[4:].rsplit(" ", 1)[0].strip()
        if l.startswith("@@@ SEARCH: "):
            name = l[len("@@@ SEARCH: "):].rsplit(" ", 1)[0]
            i += 1
            search = []
            while lines[i] != "@" * 20:
                search.append(lines[i])
                i += 1
            i += 1
            replace = []
            while not lines[i].startswith("@@@ REPLACE"):
                replace.append(lines[i])
                i += 1
            out.append((name, "".join(x + "\n" for x in search), "".join(x + "\n" for x in replace)))
            SECTION[out[-1]] = section
        i += 1
    return out


def ours(chat):
    run = subprocess.run(["cargo", "run", "-q", "-p", "patchbay-tests", "--bin", "aider-blocks", chat],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    rows = [json.loads(l) for l in run.stdout.splitlines() if l.strip()]
    invalid = Counter(r["invalid"] for r in rows if "invalid" in r)
    for r in rows:
        if "invalid" in r:
            INVALID.setdefault(r["section"], []).append(r["invalid"])
    return [(r["path"], r["search"], r["replace"]) for r in rows if "invalid" not in r], invalid


def main():
    chat, gold = sys.argv[1], sys.argv[2]
    want = gold_blocks(gold)
    got, invalid = ours(chat)
    got_exact = Counter(got)
    got_text = Counter((s, r) for _, s, r in got)
    same = other_path = missing = 0
    for b in want:
        if got_exact[b] > 0:
            got_exact[b] -= 1
            got_text[(b[1], b[2])] -= 1
            same += 1
    for b in want:
        pass
    leftover = Counter(want) - Counter(got)
    for b in leftover.elements():
        if got_text[(b[1], b[2])] > 0:
            got_text[(b[1], b[2])] -= 1
            other_path += 1
        else:
            missing += 1
            sec = SECTION.get(b, "")
            print("missing:", b[0], repr(sec[:70]), INVALID.get(sec), file=sys.stderr)
    extra = sum(max(0, c) for c in got_text.values())
    print(f"gold blocks {len(want)}; patchbay: identical {same}, same text other path {other_path}, "
          f"missing {missing}, extra {extra}; refused parts {dict(invalid)}")


if __name__ == "__main__":
    main()
