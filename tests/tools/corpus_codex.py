#!/usr/bin/env python3
"""Codex-style conformance cases for the `apply-patch` format (the
`codex-*` cases of tests/corpus/): one scenario for each behaviour class of
Codex's own apply-patch scenarios (adding, deleting, moving, several chunks,
anchors, `*** End of File`, padded markers, rejected patches), written here
with our own files and patches. Where patchbay differs from Codex by design
the expected outcome is ours, and the case's description says what Codex
does (see docs/formats.md, "apply-patch").

Each case lists its files before, the patch, and the expected outcome (the
files after, or the refusal code), written by hand: the oracle does not come
from the engine.

Usage: python3 tests/tools/corpus_codex.py   (rewrites tests/corpus/codex-*)
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_corpus import CORPUS, Case, write  # noqa: E402

APP = "def greet(name):\n    return 'hi ' + name\n\n\ndef part(n):\n    return n * 2\n"


def patch(*body):
    return "*** Begin Patch\n" + "".join(b + "\n" for b in body) + "*** End Patch\n"


CASES = [
    ("add_file", {}, patch("*** Add File: notes/todo.md", "+# Todo", "+- ship it"),
     "applied", {"notes/todo.md": "# Todo\n- ship it\n"}, None, "an added file is created"),
    ("multiple_operations", {"gone.txt": "bye\n", "app.py": APP},
     patch("*** Add File: new/mod.py", "+X = 1", "*** Delete File: gone.txt", "*** Update File: app.py",
           "@@ def part(n):", "-    return n * 2", "+    return n * 3"),
     "applied", {"new/mod.py": "X = 1\n", "app.py": APP.replace("n * 2", "n * 3")}, None,
     "add, delete and update in one patch"),
    ("multiple_chunks", {"app.py": APP},
     patch("*** Update File: app.py", "@@ def greet(name):", "-    return 'hi ' + name", "+    return 'hello ' + name",
           "@@ def part(n):", "-    return n * 2", "+    return n // 2"),
     "applied", {"app.py": APP.replace("'hi '", "'hello '").replace("n * 2", "n // 2")}, None,
     "two chunks of one file"),
    ("move_to_new_directory", {"old/name.txt": "one\ntwo\n", "old/keep.txt": "k\n"},
     patch("*** Update File: old/name.txt", "*** Move to: renamed/dir/name.txt", "@@", " one", "-two", "+TWO"),
     "applied", {"renamed/dir/name.txt": "one\nTWO\n", "old/keep.txt": "k\n"}, None,
     "a move with a change into a folder that does not exist yet"),
    ("rejects_empty_patch", {"a.txt": "a\n"}, patch(), "failed", None, "no_edits",
     "a patch with no sections changes nothing"),
    ("rejects_missing_context", {"app.py": APP},
     patch("*** Update File: app.py", "@@", " def nope():", "-    pass", "+    return 1"),
     "failed", None, "not_found", "context that is not in the file"),
    ("rejects_missing_file_delete", {"a.txt": "a\n"}, patch("*** Delete File: missing.txt"),
     "failed", None, "file_missing", "deleting a file that does not exist"),
    ("rejects_empty_update", {"a.txt": "a\n"}, patch("*** Update File: a.txt"),
     "failed", None, "malformed", "an update section without chunks"),
    ("requires_existing_file_for_update", {"a.txt": "a\n"},
     patch("*** Update File: b.txt", "@@", "-a", "+b"), "failed", None, "file_missing",
     "updating a file that does not exist"),
    ("move_onto_existing_refused", {"a.txt": "a\n", "b.txt": "b\n"},
     patch("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+A"), "failed", None, "file_exists",
     "a move onto an existing file is refused (Codex overwrites it; `overwrite: true` does too)"),
    ("move_onto_existing_overwrite", {"a.txt": "a\n", "b.txt": "b\n"},
     patch("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+A"), "applied", {"b.txt": "A\n"}, None,
     "with `overwrite: true`, Codex's rule: the move replaces the existing file", {"overwrite": True}),
    ("add_onto_existing_refused", {"dup.txt": "old\n"}, patch("*** Add File: dup.txt", "+new"), "failed", None,
     "file_exists", "adding a file that exists is refused (Codex overwrites it; `overwrite: true` does too)"),
    ("add_onto_existing_overwrite", {"dup.txt": "old\n"}, patch("*** Add File: dup.txt", "+new"), "applied",
     {"dup.txt": "new\n"}, None, "with `overwrite: true`, Codex's rule: the added file replaces it",
     {"overwrite": True}),
    ("delete_directory_fails", {"dir/foo.txt": "f\n"}, patch("*** Delete File: dir"), "failed", None,
     "file_missing", "a folder is not a file to delete"),
    ("rejects_unknown_action", {"a.txt": "a\n"}, patch("*** Frobnicate File: a.txt"), "failed", None,
     "malformed", "an action the format does not have"),
    ("keeps_missing_final_newline", {"n.txt": "a\nb"}, patch("*** Update File: n.txt", "@@", " a", "-b", "+c"),
     "applied", {"n.txt": "a\nc"}, None,
     "the file's missing final newline is kept (Codex adds one)"),
    ("all_or_nothing", {"a.txt": "a\n"},
     patch("*** Add File: created.txt", "+c", "*** Update File: a.txt", "@@", "-zzz", "+y"),
     "failed", None, "not_found", "one failing section holds back the others (Codex leaves the file it created)"),
    ("pure_addition_chunk", {"app.py": APP},
     patch("*** Update File: app.py", "@@ def part(n):", "+    # doubles n"),
     "applied", {"app.py": APP.replace("def part(n):\n", "def part(n):\n    # doubles n\n")}, None,
     "a chunk of only added lines goes right after its anchor"),
    ("padded_chunk_header", {"app.py": APP},
     patch("*** Update File: app.py", "@@   ", " def part(n):", "-    return n * 2", "+    return n + n"),
     "applied", {"app.py": APP.replace("n * 2", "n + n")}, None, "a chunk header with trailing spaces"),
    ("padded_markers", {"app.py": APP},
     "  *** Begin Patch  \n*** Update File: app.py  \n@@\n def part(n):\n-    return n * 2\n+    return 2 * n\n"
     "*** End Patch   \n",
     "applied", {"app.py": APP.replace("n * 2", "2 * n")}, None, "marker lines padded with spaces"),
    ("unicode", {"u.txt": "naïve café\nπ ≈ 3.14\n"},
     patch("*** Update File: u.txt", "@@", " naïve café", "-π ≈ 3.14", "+π ≈ 3.14159"),
     "applied", {"u.txt": "naïve café\nπ ≈ 3.14159\n"}, None, "non-ASCII text"),
    ("delete_file", {"keep.txt": "k\n", "obsolete.txt": "o\n"}, patch("*** Delete File: obsolete.txt"),
     "applied", {"keep.txt": "k\n"}, None, "a file deleted, the other kept"),
    ("deletion_only", {"l.txt": "1\n2\n3\n"}, patch("*** Update File: l.txt", "@@", " 1", "-2", " 3"),
     "applied", {"l.txt": "1\n3\n"}, None, "a chunk that only removes a line"),
    ("end_of_file_marker", {"t.txt": "x\ny\nx\n"},
     patch("*** Update File: t.txt", "@@", " y", "-x", "+z", "*** End of File"),
     "applied", {"t.txt": "x\ny\nz\n"}, None, "`*** End of File` pins the chunk to the last lines"),
]


def main():
    for d in os.listdir(CORPUS):
        if d.startswith("codex-"):
            shutil.rmtree(os.path.join(CORPUS, d))
    for k, spec in enumerate(CASES, 1):
        name, before, out, status, after, code, description = spec[:7]
        options = spec[7] if len(spec) > 7 else None
        case = Case(f"codex-{k:02d}-{name}", "apply-patch", before, out, status, code=code,
                    after=after if status == "applied" else None, description=description,
                    source="written for patchbay in the shape of Codex's apply-patch scenarios",
                    options=options)
        write(case)
    print(f"wrote {len(CASES)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
