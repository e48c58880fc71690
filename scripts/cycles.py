#!/usr/bin/env python3
"""Finds import circles between the modules of each Rust crate under crates/*/src.

usage: cycles.py [--self-test] [--depth N] [--why] [SRC_DIR ...]

A module depends on another when its code names it: a `use crate::`, `use super::`,
`use self::` or `use child::` line (use trees with braces are expanded), or a
`crate::`/`super::`/`self::` path anywhere in its code. A path leads to the module
that defines the item: through a `use` that re-exports it, so `crate::Report` leads
to the module `lib.rs` takes `Report` from, not to the crate root. Comments,
strings and `#[cfg(test)]` items (test modules included) are not read.

--depth N folds every module into its first N path segments (`--depth 1` is the
folder-level view: `apply/text` and `apply/locate` both become `apply`).
--why prints, for each edge inside a circle, the line that makes it.
--self-test first runs the checks on small crates written to a temporary folder.
Exits 1 naming each circle when there is one, 0 when there is none.
"""
import re
import sys
import tempfile
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


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
        elif re.match(r'b?r#*"', text[i : i + 260]) and (i == 0 or not re.match(r"\w", text[i - 1])):
            m = re.match(r'b?r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + m.end())
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
            m = re.match(r"'(\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'])'", text[i:])
            if m:  # a char literal; otherwise a lifetime or label, kept as it is
                out.append("' '")
                i += m.end()
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
            rest = re.match(r"\s*#\[", code[i:])
            if not rest:
                break
            i = skip_bracket(code, i + rest.end() - 1)
        decl = re.match(r"\s*(pub(\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;", code[i:])
        if decl:
            test_mods.add(decl.group(3))
        end = skip_item(code, i)
        code = code[:start] + "\n" * code.count("\n", start, end) + code[end:]


def skip_bracket(code, i):
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
            no_use = re.sub(r"\buse\s+[^;]*;", lambda m: " " * (len(m.group(0)) - m.group(0).count("\n")) + "\n" * m.group(0).count("\n"), code)
            blocks = inline_modules(no_use)
            for m in re.finditer(r"(?<![\w:])" + IDENT + r"(?:\s*::\s*" + IDENT + r")+", no_use):
                if re.search(r"\bin\s+$", no_use[max(0, m.start() - 8) : m.start()]):
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
    """Use-tree leaves of one `use` body (text between `use` and `;`), with `as` aliases read from the spacing."""
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
    return a[: len(b)] == b or b[: len(a)] == a


def check(src, depth=None, why=False, quiet=False, nested=False):
    """Prints the circles in one crate; returns how many there are."""
    crate = Crate(src)
    edges = crate.edges()
    if not nested:
        edges = {m: {d: ln for d, ln in deps.items() if not contains(m, d)} for m, deps in edges.items()}
    graph = {m: {d: (m, line) for d, line in deps.items()} for m, deps in edges.items()}
    if depth is not None:
        graph = fold(graph, depth)
    found = circles(graph)
    for comp in found:
        if not quiet:
            print(f"{src}: circle: " + ", ".join(name(m) for m in comp))
            if why:
                members = set(comp)
                for a in comp:
                    for b, (mod, line) in sorted(graph[a].items()):
                        if b in members:
                            file = crate.files[mod]
                            text = file.read_text(errors="replace").splitlines()[line - 1].strip()
                            print(f"    {name(a)} -> {name(b)}: {file}:{line}: {text}")
    return len(found)


SELF_TESTS = [
    # (name, files, depth, circles expected)
    ("two files that use each other", {"lib.rs": "mod a;\nmod b;\n", "a.rs": "use crate::b::B;\npub struct A;\n", "b.rs": "use crate::a::A;\npub struct B;\n"}, None, 1),
    ("one direction only", {"lib.rs": "mod a;\nmod b;\n", "a.rs": "use crate::b::B;\npub struct A;\n", "b.rs": "pub struct B;\n"}, None, 0),
    ("a circle through super:: and a brace tree", {"lib.rs": "mod x;\n", "x/mod.rs": "mod p;\nmod q;\n", "x/p.rs": "use super::{q::{Q as R}, Other};\n", "x/q.rs": "pub fn f() { super::p::g() }\n"}, None, 1),
    ("a path in code, not a use line", {"lib.rs": "mod a;\nmod b;\n", "a.rs": "pub fn f() { crate::b::g() }\n", "b.rs": "pub fn g() { let _ = crate::a::f; }\n"}, None, 1),
    ("comments, strings and tests are not read", {"lib.rs": "mod a;\nmod b;\n", "a.rs": "use crate::b::B;\n", "b.rs": "// use crate::a::A;\nconst S: &str = \"crate::a::A\";\nconst C: char = '\"';\n#[cfg(test)]\nmod tests { use crate::a::A; }\n#[cfg(test)]\nmod more;\n", "b/more.rs": "use crate::a::A;\n"}, None, 0),
    ("a re-export leads to the defining module", {"lib.rs": "mod a;\nmod b;\npub use b::B;\n", "a.rs": "use crate::B;\npub struct A;\n", "b.rs": "pub struct B;\n"}, None, 0),
    ("a re-export that closes a circle", {"lib.rs": "mod a;\nmod b;\npub use b::B;\n", "a.rs": "use crate::B;\npub struct A;\n", "b.rs": "pub struct B(crate::a::A);\n"}, None, 1),
    ("folders fold at depth 1", {"lib.rs": "mod f;\nmod g;\n", "f/mod.rs": "mod x;\n", "f/x.rs": "use crate::g::y::Y;\n", "g/mod.rs": "mod y;\nmod z;\n", "g/y.rs": "", "g/z.rs": "use crate::f::X;\n", "f/y.rs": ""}, 1, 1),
]


def self_test():
    passed = failed = 0
    for label, files, depth, want in SELF_TESTS:
        with tempfile.TemporaryDirectory() as tmp:
            for rel, text in files.items():
                p = Path(tmp) / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)
            got = check(tmp, depth, quiet=True)
        if got == want:
            passed += 1
        else:
            failed += 1
            print(f"self-test FAILED: {label}: {got} circles, expected {want}")
    print(f"cycles.py self-test: {passed} passed, {failed} failed")
    return failed == 0


def main(argv):
    args = list(argv)
    depth, why, ok = None, False, True
    if "--self-test" in args:
        args.remove("--self-test")
        ok = self_test()
    nested = "--nested" in args
    if nested:
        args.remove("--nested")
    if "--why" in args:
        args.remove("--why")
        why = True
    if "--depth" in args:
        i = args.index("--depth")
        depth = int(args[i + 1])
        del args[i : i + 2]
    srcs = args or sorted(str(p) for p in (Path(__file__).resolve().parent.parent / "crates").glob("*/src"))
    total = sum(check(src, depth, why, nested=nested) for src in srcs)
    level = "folder" if depth == 1 else ("module" if depth is None else f"depth-{depth}")
    print(f"cycles.py: {total} {level}-level import circles in {len(srcs)} crates")
    return 0 if ok and total == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
