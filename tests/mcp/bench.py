"""`patchbay mcp` timings through the official Python SDK, in one run:
a `read` of a 10,000-line file and an `edit` round trip (read the line,
edit it) in each mode, beside `patchbay apply` of the same edit as a
process. Medians of RUNS calls each, after one warm-up.

    python bench.py PATCHBAY [RUNS]     (scripts/mcp-bench.sh runs it)
"""

import asyncio
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client

PATCHBAY = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
LINES = 10_000
MODES = ["hashline", "lines", "str-replace"]


def text(r) -> str:
    return "".join(c.text for c in r.content if c.type == "text")


def big_file() -> str:
    """10,000 lines of Python: 1,000 functions of 10 lines."""
    out = []
    for i in range(LINES // 10):
        out.append(f"def step_{i}(state):")
        out += [f"    state.v{j} = state.v{j} + {i * 10 + j}" for j in range(7)]
        out += ["    return state", ""]
    return "\n".join(out) + "\n"


async def timed(coro):
    t = time.perf_counter()
    r = await coro
    return r, (time.perf_counter() - t) * 1000


def edit_for(mode: str, view: str, n: int, old: str, new: str, path: str) -> dict:
    if mode == "hashline":
        tag = re.search(rf"^{n}:(\S+) ", view, re.M).group(1)
        return {"line": n, "tag": tag, "new": new}
    if mode == "lines":
        return {"lines": f"{n}:{n}", "new": new}
    return {"old_str": old, "new_str": new}


def as_reply(mode: str, e: dict, path: str, text_now: str) -> str:
    """The same edit as a reply `patchbay apply` takes."""
    e = dict(e, path=path)
    if mode == "lines":
        e["crc32"] = f"{zlib.crc32(text_now.encode()):08x}"
    if mode == "str-replace":
        e["command"] = "str_replace"
    return json.dumps(e) + "\n"


async def bench_mode(mode: str, root: Path, rows: list):
    params = StdioServerParameters(
        command=PATCHBAY, args=["mcp", "--root", str(root), "--mode", mode, "--budget", "1000000"])
    path = root / "big.py"
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        reads, planned, trips, applies = [], [], [], []
        for i in range(RUNS + 1):
            res, ms = await timed(s.call_tool("read", {"path": "big.py"}))
            assert not res.is_error and text(res).count("\n") >= LINES
            reads.append(ms)
            n = 5002 + 10 * (i % 50)
            old = path.read_text().split("\n")[n - 1]
            new = old + f"  # run {i}"
            t = time.perf_counter()
            view = text(await s.call_tool("read", {"path": "big.py", "start": n, "end": n}))
            e = edit_for(mode, view, n, old, new, "big.py")
            res = await s.call_tool("edit", {"path": "big.py", "edits": [e]})
            trips.append((time.perf_counter() - t) * 1000)
            assert not res.is_error, text(res)
            assert path.read_text().split("\n")[n - 1] == new
            # The same change undone by `patchbay apply` as a process.
            back = edit_for(mode, view.replace(old, new), n, new, old, "big.py")
            if mode == "hashline":
                back["tag"] = re.search(rf"^{n}:(\S+) ", text(await s.call_tool(
                    "read", {"path": "big.py", "start": n, "end": n})), re.M).group(1)
            reply = Path(tempfile.mktemp(suffix=".txt"))
            reply.write_text(as_reply(mode, back, "big.py", path.read_text()))
            fmt = {"hashline": "hashline", "lines": "lines", "str-replace": "tool-call"}[mode]
            t = time.perf_counter()
            p = subprocess.run([PATCHBAY, "apply", "--root", str(root), "--format", fmt,
                                "--edits", str(reply)], capture_output=True, text=True)
            applies.append((time.perf_counter() - t) * 1000)
            reply.unlink()
            assert p.returncode == 0, p.stdout + p.stderr
            assert path.read_text().split("\n")[n - 1] == old
    # A read within the default budget (6,000 tokens): the planner's pick.
    params.args = ["mcp", "--root", str(root), "--mode", mode]
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        for _ in range(RUNS + 1):
            res, ms = await timed(s.call_tool("read", {"path": "big.py", "task": "change step_500"}))
            assert "def step_500(state):" in text(res) and "over the read budget" in text(res)
            planned.append(ms)
    med = lambda v: statistics.median(v[1:])
    rows.append((mode, med(reads), med(planned), med(trips), med(applies)))


async def main():
    root = Path(tempfile.mkdtemp(prefix="patchbay-bench-"))
    (root / "big.py").write_text(big_file())
    rows = []
    for mode in MODES:
        await bench_mode(mode, root, rows)
    print(f"{LINES:,}-line file ({(root / 'big.py').stat().st_size:,} bytes), median of {RUNS} calls, ms\n")
    print("| mode | read (whole file) | read (over the 6,000-token budget: planner) | read line + edit (MCP) | `patchbay apply` process |")
    print("|---|---:|---:|---:|---:|")
    for mode, a, b, c, d in rows:
        print(f"| {mode} | {a:.2f} | {b:.2f} | {c:.2f} | {d:.2f} |")


if __name__ == "__main__":
    asyncio.run(main())
