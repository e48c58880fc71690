"""What an agent spends through `patchbay mcp` to read a file and change
a line, a block (5 lines) and a function, in each mode, on the shipped
arena task set (tests/arena/tasks): every figure is a token count by the
server's own `tokens` tool (o200k_base) of what really went over the wire,
and every edit is applied and checked on disk.

    python figures.py PATCHBAY TASKS_DIR     (scripts/mcp-bench.sh runs it)

For each task's edited file: the change sites are the first function of
10 to 60 lines in its outline (the function), its middle line (the line)
and the 5 lines from there (the block); the new text is the old with
` X` appended to each line, the same in every mode. Costs: the `read`
answer (the whole file, or only the function by `symbol`), the `edit`
call's arguments as JSON and the `edit` answer.
"""

import asyncio
import json
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client

PATCHBAY, TASKS = sys.argv[1], Path(sys.argv[2])
MODES = ["hashline", "lines", "str-replace"]
KINDS = ["line", "block", "function"]


def edited_file(task: Path) -> str:
    for f in sorted((task / "before").rglob("*")):
        rel = f.relative_to(task / "before")
        after = task / "after" / rel
        if f.is_file() and (not after.exists() or after.read_bytes() != f.read_bytes()):
            return str(rel)
    raise ValueError(f"{task}: no edited file")


def text(r) -> str:
    return "".join(c.text for c in r.content if c.type == "text")


async def call(s, tool, args) -> str:
    r = await s.call_tool(tool, args)
    if r.is_error:
        raise RuntimeError(f"{tool} {json.dumps(args)[:200]}: {text(r)}")
    return text(r)


async def tokens(s, t: str) -> int:
    answer = await call(s, "tokens", {"text": t, "tokenizer": "o200k_base"})
    return int(re.search(r"text: (\d+) tokens", answer).group(1))


def sites(outline: str, lines: list[str]):
    """(name, first, last) of the function; the line; the block."""
    for m in re.finditer(r"^\s*(\d+)-(\d+)\s+(\S+)\s+(.+)$", outline, re.M):
        a, b, kind, name = int(m[1]), int(m[2]), m[3], m[4].strip()
        if kind in ("function", "method") and 10 <= b - a + 1 <= 60:
            mid = (a + b) // 2
            while not lines[mid - 1].strip():
                mid += 1
            return name, {"line": (mid, mid), "block": (mid, mid + 4), "function": (a, b)}
    return None


def hashline_edit(view: str, a: int, b: int, new: str) -> dict:
    tags = dict(re.findall(r"^(\d+):(\S+) ", view, re.M))
    if a == b:
        return {"line": a, "tag": tags[str(a)], "new": new}
    return {"lines": "\n".join(f"{n}:{tags[str(n)]}" for n in range(a, b + 1)), "new": new}


def str_replace_edit(lines: list[str], a: int, b: int, new_lines: list[str]) -> dict:
    """old_str grown by whole lines around the region until it is unique."""
    whole = "\n".join(lines)
    lo, hi = a, b
    while True:
        old = "\n".join(lines[lo - 1:hi])
        if whole.count(old) == 1:
            new = "\n".join(lines[lo - 1:a - 1] + new_lines + lines[b:hi])
            return {"old_str": old, "new_str": new}
        lo, hi = max(1, lo - 1), min(len(lines), hi + 1)


async def measure(mode: str, task: Path, root: Path, rel: str) -> dict:
    original = (root / rel).read_text()
    lines = original.split("\n")
    params = StdioServerParameters(
        command=PATCHBAY, args=["mcp", "--root", str(root), "--mode", mode, "--budget", "1000000"])
    out = {}
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        found = sites(await call(s, "outline", {"path": rel}), lines)
        if not found:
            return {}
        name, spans = found
        for kind in KINDS:
            a, b = spans[kind]
            new_lines = [l + " X" for l in lines[a - 1:b]]
            for read_args, label in [({"path": rel}, "file"), ({"path": rel, "symbol": name}, "symbol")]:
                (root / rel).write_text(original)
                view = await call(s, "read", read_args)
                if mode == "hashline":
                    e = hashline_edit(view, a, b, "\n".join(new_lines))
                elif mode == "lines":
                    e = {"lines": f"{a}:{b}", "new": "\n".join(new_lines)}
                else:
                    e = str_replace_edit(lines, a, b, new_lines)
                args = {"path": rel, "edits": [e]}
                answer = await call(s, "edit", args)
                want = "\n".join(lines[:a - 1] + new_lines + lines[b:])
                assert (root / rel).read_text() == want, (task.name, mode, kind)
                cost = [await tokens(s, view), await tokens(s, json.dumps(args)), await tokens(s, answer)]
                out[(kind, label)] = cost
        (root / rel).write_text(original)
    return out


async def main():
    results = {m: {} for m in MODES}
    used = []
    for task in sorted(p for p in TASKS.iterdir() if p.is_dir()):
        rel = edited_file(task)
        root = Path(tempfile.mkdtemp(prefix="patchbay-fig-"))
        shutil.copytree(task / "before", root, dirs_exist_ok=True)
        per_mode = {m: await measure(m, task, root, rel) for m in MODES}
        shutil.rmtree(root)
        if all(per_mode.values()):
            used.append(f"{task.name} ({rel})")
            for m in MODES:
                for key, cost in per_mode[m].items():
                    results[m].setdefault(key, []).append(cost)
    print(f"{len(used)} tasks with a function of 10-60 lines: {', '.join(used)}\n")
    print("| mode | read | line | block | function |")
    print("|---|---|---:|---:|---:|")
    for label in ["file", "symbol"]:
        for m in MODES:
            cells = []
            for kind in KINDS:
                costs = results[m][(kind, label)]
                med = lambda i: statistics.median(c[i] for c in costs)
                total = statistics.median(sum(c) for c in costs)
                cells.append(f"{total:.0f} ({med(0):.0f} + {med(1):.0f} + {med(2):.0f})")
            what = "whole file" if label == "file" else "the function (`symbol`)"
            print(f"| {m} | {what} | " + " | ".join(cells) + " |")
    print("\nEach cell: the median over the tasks of read answer + edit call + edit answer, in o200k_base tokens.")


if __name__ == "__main__":
    asyncio.run(main())
