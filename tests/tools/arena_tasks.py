#!/usr/bin/env python3
"""Builds the arena's task set (tests/arena/tasks/) from real files.

Each task is a folder: task.json (the task text, language, kind), before/
(the files as the model sees them) and after/ (the one expected result).
after/ is made here from before/ by plain text replacements, each asserted
to occur exactly as often as listed, so the expected result never comes
from patchbay itself.

before/ is copied from tests/tools/sources/ or tests/tools/history/ (see
their SOURCES.md) when the task names a source there; the two large files
are kept in their task's before/ as taken from the crates' published
sources (see tests/arena/SOURCES.md). Run from the repository root:
    python3 tests/tools/arena_tasks.py
"""
import json
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
OUT = os.path.join(ROOT, "arena", "tasks")

# name, language, kind, task, files: [(path in task, source or None, [(old, new, count)])]
TASKS = [
    ("py-textwrap-width", "python", "single-line",
     "In textwrap.py, change the default width of TextWrapper from 70 to 80.",
     [("textwrap.py", "sources/textwrap.py", [("                 width=70,\n", "                 width=80,\n", 1)])]),
    ("py-json-rename", "python", "multi-site",
     "In json_decoder.py, rename the function _decode_uXXXX to _decode_hex4, including every call.",
     [("json_decoder.py", "sources/json_decoder.py", [("_decode_uXXXX", "_decode_hex4", 3)])]),
    ("go-builder-rename", "go", "multi-site",
     "In strings_builder.go, rename the method copyCheck to checkCopy, including every call.",
     [("strings_builder.go", "sources/strings_builder.go", [("copyCheck", "checkCopy", 6)])]),
    ("go-reader-message", "go", "single-line",
     "In strings_reader.go, make Seek's error for a negative position read \"strings.Reader.Seek: position is negative\".",
     [("strings_reader.go", "sources/strings_reader.go",
       [("\"strings.Reader.Seek: negative position\"", "\"strings.Reader.Seek: position is negative\"", 1)])]),
    ("go-two-files", "go", "multi-file",
     "Move strings_reader.go and strings_builder.go to a package named textutil: change the package clause of both files.",
     [("strings_reader.go", "sources/strings_reader.go", [("\npackage strings\n", "\npackage textutil\n", 1)]),
      ("strings_builder.go", "sources/strings_builder.go", [("\npackage strings\n", "\npackage textutil\n", 1)])]),
    ("c-poly1305-rename", "c", "multi-site",
     "In poly1305.c, rename the helper mul32x32_64 to mul_u32_wide, at its definition and at every call.",
     [("poly1305.c", "sources/ring_poly1305.c", [("mul32x32_64", "mul_u32_wide", 26)])]),
    ("js-ms-year", "javascript", "single-line",
     "In index.js, use the Gregorian year length: a year is 365.2425 days instead of 365.25.",
     [("index.js", "sources/ms_index.js", [("var y = d * 365.25;", "var y = d * 365.2425;", 1)])]),
    ("js-range-rename", "javascript", "multi-site",
     "In range.js, rename the Range method parseRange to parseOneRange, including its call.",
     [("range.js", "sources/semver_range.js", [("parseRange (range)", "parseOneRange (range)", 1), ("this.parseRange(", "this.parseOneRange(", 1)])]),
    ("ts-merge-deep-rename", "typescript", "multi-site",
     "In merge-deep.d.ts, rename the type SimplifyDeep to SimplifyDeeply, including its use.",
     [("merge-deep.d.ts", "history/merge_deep_d_ts/new.ts", [("SimplifyDeep<", "SimplifyDeeply<", 2)])]),
    ("java-device-platform", "java", "block",
     "In Device.java, shorten getPlatform to a single return statement with the conditional operator (isAmazonDevice() ? AMAZON_PLATFORM : ANDROID_PLATFORM).",
     [("Device.java", "history/device_java/new.java",
       [("    public String getPlatform() {\n        String platform;\n        if (isAmazonDevice()) {\n            platform = AMAZON_PLATFORM;\n        } else {\n            platform = ANDROID_PLATFORM;\n        }\n        return platform;\n    }\n",
         "    public String getPlatform() {\n        return isAmazonDevice() ? AMAZON_PLATFORM : ANDROID_PLATFORM;\n    }\n", 1)])]),
    ("rs-either-typo", "rust", "two-sites",
     "In lib.rs, fix the typo in the documentation of for_both! and map_both!: \"even though the don't share\" should be \"even though they don't share\" (it occurs twice).",
     [("lib.rs", "sources/either_lib.rs", [("even though the don't share", "even though they don't share", 2)])]),
    ("md-memchr-heading", "markdown", "single-line",
     "In README.md, rename the section \"Compiling without the standard library\" to \"Using memchr without std\".",
     [("README.md", "sources/memchr_README.md", [("### Compiling without the standard library\n", "### Using memchr without std\n", 1)])]),
    ("rs-semver-parse-large", "rust", "large-file",
     "In parse.rs, in the function numeric_identifier, replace the test `digit < b'0' || digit > b'9'` with `!digit.is_ascii_digit()`.",
     [("parse.rs", None, [("        if digit < b'0' || digit > b'9' {\n", "        if !digit.is_ascii_digit() {\n", 1)])]),
    ("rs-either-flip-large", "rust", "large-file",
     "In lib.rs, mark the method Either::flip with #[must_use] (on the line right above `pub fn flip`).",
     [("lib.rs", None, [("    pub fn flip(self) -> Either<R, L> {\n", "    #[must_use]\n    pub fn flip(self) -> Either<R, L> {\n", 1)])]),
]


def build(name, language, kind, task, files):
    folder = os.path.join(OUT, name)
    for sub in ("before", "after"):
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
    for path, source, edits in files:
        before = os.path.join(folder, "before", path)
        if source is not None:
            shutil.copyfile(os.path.join(TOOLS, source), before)
        with open(before, encoding="utf-8", newline="") as f:
            text = f.read()
        for old, new, count in edits:
            found = text.count(old)
            assert found == count, f"{name}/{path}: {old!r} occurs {found} times, not {count}"
            text = text.replace(old, new)
        with open(os.path.join(folder, "after", path), "w", encoding="utf-8", newline="") as f:
            f.write(text)
    meta = {"task": task, "language": language, "kind": kind}
    with open(os.path.join(folder, "task.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")


def main():
    for t in TASKS:
        build(*t)
    print(f"{len(TASKS)} tasks in {os.path.relpath(OUT, os.path.dirname(ROOT))}")


if __name__ == "__main__":
    main()
