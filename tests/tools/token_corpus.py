#!/usr/bin/env python3
"""Lists the calibration corpus of the token estimator: real source files the
machine already has, picked deterministically, as `LANG<TAB>ID<TAB>PATH` lines
for `cargo run --example token_features`.

Roots are found at run time (nothing here names a machine's paths):
  python    the running interpreter's standard library (sysconfig)
  rust, c   crates in cargo's registry source cache ($CARGO_HOME/registry/src)
  markdown  READMEs and docs of those crates
  js        npm's own bundled node_modules (`npm root -g`/npm/node_modules)
  go        the Go standard library (`go env GOROOT`), when Go is installed
  java      the JDK's lib/src.zip (next to `javac`), extracted to --workdir
  perl      Perl's core modules (@INC), when Perl is installed
  cjk       Chinese/Japanese/Korean prose: CPython's test/cjkencodings/*utf8.txt
            and translated READMEs (*.ja.md, *.zh*.md, *.ko.md) of the crates

Files with a line over 1000 characters (minified or generated) are skipped.
Files that contain the first 256 bytes of a committed test sample
(tests/tokens/samples and tests/tools/sources) are skipped, so the tests
measure held-out text.
Python 3 standard library only.

Usage: token_corpus.py [--per-lang N] [--workdir DIR] > files.tsv
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MIN_BYTES, MAX_BYTES = 600, 120_000


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def walk(root, exts, skip=()):
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in skip and not x.startswith("."))
        for f in sorted(files):
            if f.endswith(exts) and not f.endswith(".min.js"):
                p = os.path.join(d, f)
                try:
                    if MIN_BYTES <= os.path.getsize(p) <= MAX_BYTES:
                        out.append(p)
                except OSError:
                    pass
    return out


def held_out_heads():
    heads = set()
    for d in ("tests/tokens/samples", "tests/tools/sources"):
        for p in glob.glob(os.path.join(REPO, d, "*")):
            if not p.endswith("SOURCES.md"):
                with open(p, "rb") as fh:
                    heads.add(fh.read(256))
    return heads


def roots(workdir):
    """(lang, id prefix, base dir, files) for every root found."""
    found = []
    std = sysconfig.get_paths()["stdlib"]
    found.append(("python", "cpython", std, walk(std, (".py",), skip=("site-packages", "__pycache__"))))
    cargo = os.environ.get("CARGO_HOME") or os.path.join(os.path.expanduser("~"), ".cargo")
    for reg in sorted(glob.glob(os.path.join(cargo, "registry", "src", "*"))):
        found.append(("rust", "crates", reg, walk(reg, (".rs",), skip=("target",))))
        found.append(("c", "crates", reg, walk(reg, (".c", ".h"))))
        found.append(("markdown", "crates", reg, walk(reg, (".md",))))
    npm_root = run(["npm", "root", "-g"])
    if npm_root:
        nm = os.path.join(npm_root, "npm", "node_modules")
        found.append(("js", "npm", nm, walk(nm, (".js",))))
    goroot = run(["go", "env", "GOROOT"])
    if goroot:
        src = os.path.join(goroot, "src")
        found.append(("go", "go", src, walk(src, (".go",), skip=("testdata", "vendor"))))
    javac = shutil.which("javac")
    if javac:
        home = os.path.dirname(os.path.dirname(os.path.realpath(javac)))
        # The default JDK may ship without sources; a sibling JDK may have them.
        zips = [z for z in [os.path.join(home, "lib", "src.zip")]
                + sorted(glob.glob(os.path.join(os.path.dirname(home), "*", "lib", "src.zip")))
                if os.path.exists(z)]
        if zips:
            z = zips[0]
            jdir = os.path.join(workdir, "jdk-src")
            with zipfile.ZipFile(z) as zf:
                names = sorted(n for n in zf.namelist() if n.startswith("java.base/java/") and n.endswith(".java"))
                for n in names[::8]:
                    zf.extract(n, jdir)
            found.append(("java", "jdk", jdir, walk(jdir, (".java",))))
    privlib = run(["perl", "-MConfig", "-e", "print $Config{privlib}"])
    if privlib:
        found.append(("perl", "perl", privlib, walk(privlib, (".pm",))))
    # Prose in Chinese, Japanese and Korean: CPython's codec test texts (the
    # UTF-8 ones) and translated READMEs in the registry.
    found.append(("cjk", "cpython", std, walk(os.path.join(std, "test", "cjkencodings"), ("utf8.txt",))))
    for reg in sorted(glob.glob(os.path.join(cargo, "registry", "src", "*"))):
        translated = [p for p in walk(reg, (".md",)) if any(t in os.path.basename(p) for t in (".ja.", ".zh", ".ko."))]
        found.append(("cjk", "crates", reg, translated))
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-lang", type=int, default=60)
    ap.add_argument("--workdir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "patchbay-token-corpus"))
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    heads = held_out_heads()
    by_lang = {}
    for lang, prefix, base, files in roots(a.workdir):
        for p in files:
            by_lang.setdefault(lang, []).append((prefix + "/" + os.path.relpath(p, base), p))
    for lang in sorted(by_lang):
        items = sorted(by_lang[lang])
        step = max(1, len(items) // a.per_lang)
        picked = 0
        for ident, p in items[::step]:
            if picked >= a.per_lang:
                break
            with open(p, "rb") as fh:
                data = fh.read()
            if any(h in data for h in heads):
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            # Generated blobs (minified bundles, embedded base64) are not
            # code anyone edits through a model; lines that long mark them.
            if max(len(line) for line in text.splitlines() or [""]) > 1000:
                continue
            print(f"{lang}\t{ident}\t{p}")
            picked += 1
        print(f"{lang}: {picked} of {len(items)} files", file=sys.stderr)


if __name__ == "__main__":
    main()
