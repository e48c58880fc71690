#!/usr/bin/env python3
"""Finds import circles between the modules of each Rust crate under crates/*/src.

usage: cycles.py [--self-test] [--depth N] [--nested] [--why] [SRC_DIR ...]

A module uses another when its code names it: a `use` line (`crate::`, `super::`,
`self::` or a child module; brace trees expanded, `as` and globs read), or a path
in code (`crate::a::f()`, `super::T`, `child::f()`). A path leads to the module
that defines the item: through the `use` lines that re-export it, so
`crate::Report` leads to the module `lib.rs` takes `Report` from. Comments,
strings, char literals and `#[cfg(test)]` items (test modules included) are not
read; an inline `mod x { ... }` counts as part of its file.

A module and the modules inside it count as one (a `mod.rs` registry that names
its children, a child that uses its parent's types), unless --nested is given.
--depth N folds every module into its first N path segments: `--depth 1` is the
folder-level view, where `apply/text` and `apply/locate` are both `apply`.
--why prints the line behind each edge of a circle.
--self-test first runs the check on small crates written to a temporary folder.
Exits 1 naming each circle when there is one (or a self-test fails), 0 otherwise.
"""
import argparse
import re
import sys
import tempfile
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
RAW_STRING = re.compile(r'b?r(#*)"')
CHAR = re.compile(r"'(\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'])'")
ATTRIBUTE = re.compile(r"\s*#\[")
MOD_DECL = re.compile(r"\s*(pub(\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;")


def strip_code(text):
    """Blanks out comments, string and char literals, keeping newlines (and so line numbers)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif (m := RAW_STRING.match(text, i)) and (i == 0 or not re.match(r"\w", text[i - 1])):
            end = text.find('"' + m.group(1), m.end())
            j = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'":
            m = CHAR.match(text, i)
            if m:  # a char literal; otherwise a lifetime or label, kept as it is
                out.append("' '")
                i = m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def skip_item(code, i):
    """Index just past the item starting at i: its first `;` at depth 0, or its closing brace."""
    depth = 0
    while i < len(code):
        c = code[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ";" and depth == 0:
            return i + 1
        elif c == "{":
            depth = 1
            i += 1
            while i < len(code) and depth:
                depth += {"{": 1, "}": -1}.get(code[i], 0)
                i += 1
            return i
        i += 1
    return i


def drop_test_items(code):
    """Blanks every item under `#[cfg(test)]`, keeping newlines; returns the code and the test `mod` names."""
    test_mods = set()
    attr = re.compile(r"#\[cfg\(test\)\]")
    while True:
        m = attr.search(code)
        if not m:
            return code, test_mods
        start = m.start()
        i = m.end()
        while True:  # further attributes on the same item
            rest = ATTRIBUTE.match(code, i)
            if not rest:
                break
            i = skip_bracket(code, rest.end() - 1)
        decl = MOD_DECL.match(code, i)
        if decl:
            test_mods.add(decl.group(3))
        end = skip_item(code, i)
        code = code[:start] + "\n" * code.count("\n", start, end) + code[end:]


def skip_bracket(code, i):
    """Index just past the `]` that closes the `[` at i."""
    depth = 0
    while i < len(code):
        depth += {"[": 1, "]": -1}.get(code[i], 0)
        i += 1
        if depth == 0:
            return i
    return i


class Crate:
    def __init__(self, src):
        self.src = Path(src)
        self.files = {}  # module path tuple -> file
        self.code = {}  # module path tuple -> stripped code
        root = self.src / "lib.rs"
        if not root.exists():
            root = self.src / "main.rs"
        if root.exists():
            self.load((), root, self.src)
        self.imports = {m: self.read_imports(m) for m in self.code}

    def load(self, mod, path, child_dir):
        raw = path.read_text(errors="replace")
        code, test_mods = drop_test_items(strip_code(raw))
        self.files[mod] = path
        self.code[mod] = code
        for m in re.finditer(r"((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;", code):
            name = m.group(2)
            if name in test_mods:
                continue
            given = re.search(r'#\[path\s*=\s*"([^"]*)"\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+' + name + r"\s*;", raw)
            if given:  # strip_code blanks the string, so the file name comes from the raw text
                self.load(mod + (name,), path.parent / given.group(1), path.parent / name)
                continue
            for cand, cdir in ((child_dir / (name + ".rs"), child_dir / name), (child_dir / name / "mod.rs", child_dir / name)):
                if cand.exists():
                    self.load(mod + (name,), cand, cdir)
                    break

    def base(self, mod, segs):
        """Resolves the leading `crate`/`super`/`self`/child segments to (module, remaining segments)."""
        if not segs:
            return None
        if segs[0] == "crate":
            return (), segs[1:]
        if segs[0] in ("super", "self"):
            cur = list(mod)
            i = 0
            while i < len(segs) and segs[i] in ("super", "self"):
                if segs[i] == "super":
                    if not cur:
                        return None
                    cur.pop()
                i += 1
            return tuple(cur), segs[i:]
        if mod + (segs[0],) in self.code:
            return mod, segs
        return None

    def read_imports(self, mod):
        """Each `use` in the module: (segments, bound name, line number, module it is written in)."""
        code, out = self.code[mod], []
        blocks = inline_modules(code)
        for m in re.finditer(r"\buse\s+([^;]*);", code):
            line = code.count("\n", 0, m.start()) + 1
            ctx = mod + inline_path(blocks, m.start())
            for segs, bound in parse_use(m.group(1)):
                out.append((segs, bound, line, ctx))
        return out

    def target(self, mod, segs, seen=None):
        """The module defining the item that `segs`, written in `mod`, names; None outside the crate."""
        start = self.base(mod, segs)
        if start is None:
            return None
        cur, rest = start
        cur = tuple(cur)
        while rest and cur + (rest[0],) in self.code:
            cur, rest = cur + (rest[0],), rest[1:]
        if rest:
            seen = seen or set()
            key = (cur, rest[0])
            if key not in seen:
                seen.add(key)
                for isegs, bound, _, ctx in self.imports.get(cur, ()):
                    if bound == rest[0] and isegs and isegs[-1] != "*":
                        found = self.target(ctx, isegs + rest[1:], seen)
                        if found is not None:
                            return found
        return cur

    def edges(self):
        """{module: {dependency: first line naming it}}"""
        out = {}
        for mod, code in self.code.items():
            deps = {}
            for segs, _, line, ctx in self.imports[mod]:
                self.add(deps, mod, ctx, segs, line)
            no_use = re.sub(r"\buse\s+[^;]*;", blank, code)
            blocks = inline_modules(no_use)
            for m in re.finditer(r"(?<![\w:])" + IDENT + r"(?:\s*::\s*" + IDENT + r")+", no_use):
                if re.search(r"\(\s*in\s+$", no_use[max(0, m.start() - 8) : m.start()]):
                    continue  # `pub(in crate::x)` is a visibility, not a use
                line = no_use.count("\n", 0, m.start()) + 1
                ctx = mod + inline_path(blocks, m.start())
                self.add(deps, mod, ctx, re.sub(r"\s", "", m.group(0)).split("::"), line)
            out[mod] = deps
        return out

    def add(self, deps, mod, ctx, segs, line):
        t = self.target(ctx, segs)
        while t is not None and t not in self.code:
            t = t[:-1]  # an inline module belongs to the file that holds it
        if t is not None and t != mod and t not in deps:
            deps[t] = line


def blank(m):
    """A regex match's text as spaces, its newlines kept (so positions and line numbers stay)."""
    return re.sub(r"[^\n]", " ", m.group(0))


def inline_modules(code):
    """(start, end, name) of each `mod NAME { ... }` written inside a file."""
    out = []
    for m in re.finditer(r"\bmod\s+(" + IDENT + r")\s*\{", code):
        out.append((m.end() - 1, skip_item(code, m.end() - 1), m.group(1)))
    return out


def inline_path(blocks, pos):
    """Names of the inline modules around position pos, outermost first."""
    return tuple(name for start, end, name in sorted(blocks) if start < pos < end)


def parse_use(raw):
    """The leaves of one use tree (the text between `use` and `;`): (segments, name bound)."""
    raw = re.sub(r"^\s*(pub(\([^)]*\))?\s+)?", "", raw)
    raw = re.sub(r"^::", "", raw.strip())
    tokens = re.findall(IDENT + r"|::|[{},*]", raw)
    pos = [0]

    def tree(prefix):
        leaves = []
        path = list(prefix)
        while pos[0] < len(tokens):
            t = tokens[pos[0]]
            if t == "::":
                pos[0] += 1
            elif t == "{":
                pos[0] += 1
                while pos[0] < len(tokens) and tokens[pos[0]] != "}":
                    leaves += tree(path)
                    if pos[0] < len(tokens) and tokens[pos[0]] == ",":
                        pos[0] += 1
                pos[0] += 1
                return leaves
            elif t in (",", "}"):
                break
            elif t == "as":
                alias = tokens[pos[0] + 1] if pos[0] + 1 < len(tokens) else "_"
                pos[0] += 2
                segs = path[:-1] if path and path[-1] == "self" else path
                leaves.append((segs, alias))
                return leaves
            else:
                path.append(t)
                pos[0] += 1
        if len(path) > len(prefix) or path:
            segs = path[:-1] if path and path[-1] == "self" else path
            leaves.append((segs, segs[-1] if segs else None))
        return leaves

    return tree([])


def circles(edges):
    """Strongly connected components of more than one node (Tarjan's, iterative)."""
    index, low, on, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(edges.get(root, ())))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(edges.get(w, ()))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def name(mod):
    return "/".join(mod) or "(crate root)"


def fold(edges, depth):
    out = {}
    for mod, deps in edges.items():
        a = mod[:depth]
        for dep, why in deps.items():
            b = dep[:depth]
            if a != b:
                out.setdefault(a, {}).setdefault(b, why)
        out.setdefault(a, {})
    return out


def contains(a, b):
    """Whether one of two modules is inside the other (or they are the same)."""
    return a[: len(b)] == b or b[: len(a)] == a


def check(src, depth=None, nested=False):
    """The circles of one crate: each a list of (module, {member it uses: (file, line, text)})."""
    crate = Crate(src)
    graph = {}
    for mod, deps in crate.edges().items():
        lines = crate.files[mod].read_text(errors="replace").splitlines()
        rel = crate.files[mod].relative_to(crate.src)
        kept = {d: (rel, n, lines[n - 1].strip()) for d, n in deps.items() if nested or not contains(mod, d)}
        graph[mod] = kept
    if depth is not None:
        graph = fold(graph, depth)
    return [[(m, {d: graph[m][d] for d in comp if d in graph[m]}) for m in comp] for comp in circles(graph)]


def show(src, found, why):
    for comp in found:
        print(f"{src}: circle: " + ", ".join(name(m) for m, _ in comp))
        for m, uses in comp if why else ():
            for d, (file, line, text) in sorted(uses.items()):
                print(f"    {name(m)} -> {name(d)}: {src / file}:{line}: {text}")


def crate(lib, **files):
    """A crate for the self-test: `lib` is lib.rs, each keyword a file (`a__b` is `a/b.rs`)."""
    return {"lib.rs": lib, **{k.replace("__", "/") + ".rs": v for k, v in files.items()}}


# (what it shows, files, options, the circles expected)
SELF_TESTS = [
    ("two files that use each other", crate("mod a;\nmod b;\n", a="use crate::b::B;\npub struct A;\n", b="use crate::a::A;\npub struct B;\n"), {}, [["a", "b"]]),
    ("one direction only", crate("mod a;\nmod b;\n", a="use crate::b::B;\n", b="pub struct B;\n"), {}, []),
    ("super:: and a brace tree with an alias", crate("mod x;\n", x__mod="mod p;\nmod q;\n", x__p="use super::{q::{Q as R}, Other};\n", x__q="pub fn f() { super::p::g() }\n"), {}, [["x/p", "x/q"]]),
    ("a path in code, not a use line", crate("mod a;\nmod b;\n", a="pub fn f() { crate::b::g() }\n", b="pub fn g() { let _ = crate :: a :: f; }\n"), {}, [["a", "b"]]),
    ("a path after `in`", crate("mod a;\nmod b;\n", a="use crate::b::B;\n", b="fn f() { for x in crate::a::all() {} }\n"), {}, [["a", "b"]]),
    ("a glob use", crate("mod a;\nmod b;\n", a="use crate::b::*;\n", b="use crate::a::A;\n"), {}, [["a", "b"]]),
    (
        "comments, strings, char literals, visibilities and tests are not read",
        crate(
            "mod a;\nmod b;\n",
            a="use crate::b::B;\n",
            b="// use crate::a::A;\n/* crate::a::A /* nested */ crate::a::A */\nconst S: &str = \"crate::a::A \\\" crate::a::A\";\n"
            "const R: &str = r#\"crate::a::A \" crate::a::A\"#;\nconst C: char = '\"';\nfn f<'a>(x: &'a str) {}\n"
            "pub(in crate::a) struct V;\n#[cfg(test)]\nmod tests { use crate::a::A; }\n#[cfg(test)]\nmod more;\n",
            b__more="use crate::a::A;\n",
        ),
        {},
        [],
    ),
    ("a re-export leads to the defining module", crate("mod a;\nmod b;\npub use b::B;\n", a="use crate::B;\n", b="pub struct B;\n"), {}, []),
    ("a re-export that closes a circle", crate("mod a;\nmod b;\npub use b::B;\n", a="use crate::B;\npub struct A;\n", b="pub struct B(crate::a::A);\n"), {}, [["a", "b"]]),
    ("super::super from an inline module", crate("mod a;\nmod b;\n", a="mod inner {\n    use super::super::b::B;\n}\n", b="use crate::a::A;\n"), {}, [["a", "b"]]),
    ("a #[path] module", crate('#[path = "elsewhere.rs"]\nmod a;\nmod b;\n', elsewhere="use crate::b::B;\n", b="use crate::a::A;\n"), {}, [["a", "b"]]),
    ("a module and one inside it: only with --nested", crate("mod x;\n", x__mod="mod p;\npub use p::P;\npub struct S;\n", x__p="use super::S;\npub struct P;\n"), {}, []),
    ("a module and one inside it, --nested", crate("mod x;\n", x__mod="mod p;\npub use p::P;\npub struct S;\n", x__p="use super::S;\npub struct P;\n"), {"nested": True}, [["x", "x/p"]]),
    (
        "folders at --depth 1",
        crate("mod f;\nmod g;\n", f__mod="mod x;\n", f__x="use crate::g::y::Y;\n", g__mod="mod y;\nmod z;\n", g__y="", g__z="use crate::f::X;\n"),
        {"depth": 1},
        [["f", "g"]],
    ),
]


def self_test():
    passed = failed = 0
    for label, files, options, want in SELF_TESTS:
        with tempfile.TemporaryDirectory() as tmp:
            for rel, text in files.items():
                p = Path(tmp) / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)
            got = [[name(m) for m, _ in comp] for comp in check(Path(tmp), **options)]
        if sorted(got) == sorted(want):
            passed += 1
        else:
            failed += 1
            print(f"cycles.py self-test FAILED: {label}: found {got}, expected {want}")
    print(f"cycles.py self-test: {passed} passed, {failed} failed")
    return failed == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", nargs="*", type=Path, help="a crate's src folder (default: every crates/*/src)")
    ap.add_argument("--self-test", action="store_true", help="first check this script on small crates")
    ap.add_argument("--depth", type=int, help="fold modules into their first N path segments (1: folders)")
    ap.add_argument("--nested", action="store_true", help="count uses between a module and one inside it")
    ap.add_argument("--why", action="store_true", help="print the line behind each edge of a circle")
    a = ap.parse_args()
    ok = self_test() if a.self_test else True
    root = Path(__file__).resolve().parent.parent
    srcs = [p.resolve() for p in a.src] or sorted((root / "crates").glob("*/src"))
    total = 0
    for src in srcs:
        shown = src.relative_to(root) if src.is_relative_to(root) else src
        found = check(src, a.depth, a.nested)
        show(shown, found, a.why)
        total += len(found)
    view = {None: "module", 1: "folder"}.get(a.depth, f"depth-{a.depth}")
    print(f"cycles.py: {total} {view}-level import circles in {len(srcs)} crates")
    return 0 if ok and total == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
