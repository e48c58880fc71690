"""`patchbay mcp` through the official MCP Python SDK, over stdio.

Run by scripts/mcp-test.sh (which makes the venv): python test_mcp.py PATCHBAY.
Every expectation is computed here, independently of the server: the
files' new text by string edits, hashline tags by their published
algorithm (docs/contracts.md), CRCs with zlib.
"""

import asyncio
import base64
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import zlib
from contextlib import asynccontextmanager
from pathlib import Path

import jsonschema
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

PATCHBAY = os.path.abspath(sys.argv[1])
TOOLS = {"read", "edit", "apply", "search", "outline", "tokens"}
INVALID_PARAMS = -32602

APP_PY = """import os


def f(x):
    return x + 1


def g(y):
    total = y * 2
    return total


class Box:
    def size(self):
        return 3
"""


def tag(line: str) -> str:
    """The hashline tag: base64url of the big-endian CRC-32 of the line
    without trailing whitespace, first 4 characters."""
    crc = zlib.crc32(line.rstrip().encode()).to_bytes(4, "big")
    return base64.urlsafe_b64encode(crc).decode().rstrip("=")[:4]


def sandbox() -> Path:
    """A root with code, an ignored folder and a link that leaves it."""
    root = Path(tempfile.mkdtemp(prefix="patchbay-mcp-"))
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text(APP_PY)
    (root / "notes.md").write_text("# Notes\n\nneedle in the notes\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "gen.py").write_text("needle in a build file\n")
    outside = Path(tempfile.mkdtemp(prefix="patchbay-outside-"))
    (outside / "secret.txt").write_text("needle outside\n")
    (root / "out").symlink_to(outside)
    # `ignore` honours .gitignore only inside a git work tree.
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@asynccontextmanager
async def server(root: Path, *args: str):
    params = StdioServerParameters(command=PATCHBAY, args=["mcp", "--root", str(root), *args])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def text(result) -> str:
    return "".join(c.text for c in result.content if c.type == "text")


async def ok(s, tool, args) -> str:
    r = await s.call_tool(tool, args)
    assert not r.is_error, f"{tool} {args} failed: {text(r)}"
    return text(r)


async def refused(s, tool, args) -> str:
    r = await s.call_tool(tool, args)
    assert r.is_error, f"{tool} {args} was not refused: {text(r)}"
    return text(r)


async def protocol_error(s, tool, args) -> int:
    try:
        r = await s.call_tool(tool, args)
    except MCPError as e:
        return e.error.code
    raise AssertionError(f"{tool} {args} answered {text(r)!r}, not a protocol error")


def tagged(view: str) -> dict:
    """line number -> (tag, text) of a hashline view."""
    out = {}
    for line in view.splitlines():
        m = re.match(r"^(\d+):(\S+) (.*)$", line)
        if m:
            out[int(m.group(1))] = (m.group(2), m.group(3))
    return out


async def test_initialize_and_schemas():
    root = sandbox()
    async with server(root) as s:
        tools = (await s.list_tools()).tools
        assert {t.name for t in tools} == TOOLS, [t.name for t in tools]
        for t in tools:
            jsonschema.Draft202012Validator.check_schema(t.input_schema)
            assert t.input_schema["type"] == "object"
            assert "Example" in t.description, t.name
            # The worked example in the description fits the schema.
            example = t.description.split("Example: ", 1)[1].split(" or ")[0]
            json_text = example[: example.rindex("}") + 1]
            jsonschema.validate(json.loads(json_text), t.input_schema)


async def test_every_tool():
    root = sandbox()
    async with server(root) as s:
        view = await ok(s, "read", {"path": "src/app.py"})
        lines = APP_PY.splitlines()
        assert tagged(view) == {i + 1: (tag(l), l) for i, l in enumerate(lines)}
        part = await ok(s, "read", {"path": "src/app.py", "symbol": "g"})
        assert set(tagged(part)) == {8, 9, 10}, part
        outline = await ok(s, "outline", {"path": "src/app.py"})
        for name, span in [("f", "4-5"), ("g", "8-10"), ("Box", "13-15")]:
            assert re.search(rf"{span}.*\b{name}\b", outline), outline
        count = await ok(s, "tokens", {"text": "hello world", "tokenizer": "o200k_base"})
        assert "text: 2 tokens" in count, count
        hits = await ok(s, "search", {"pattern": "needle"})
        assert "notes.md" in hits and "3:" in hits
        assert "build/" not in hits and "outside" not in hits, hits
        reply = "src/app.py\n<<<<<<< SEARCH\n        return 3\n=======\n        return 4\n>>>>>>> REPLACE\n"
        preview = await ok(s, "apply", {"reply": reply, "dry_run": True})
        assert "-        return 3" in preview and "+        return 4" in preview, preview
        assert (root / "src/app.py").read_text() == APP_PY
        await ok(s, "apply", {"reply": reply})
        assert (root / "src/app.py").read_text() == APP_PY.replace("return 3", "return 4")


async def test_read_edit_read_hashline():
    root = sandbox()
    async with server(root, "--mode", "hashline") as s:
        view = tagged(await ok(s, "read", {"path": "src/app.py"}))
        t5, _ = view[5]
        after = await ok(s, "edit", {"path": "src/app.py", "edits": [
            {"op": "replace", "line": 5, "tag": t5, "new": "    return x + 2"}]})
        want = APP_PY.replace("x + 1", "x + 2")
        assert (root / "src/app.py").read_text() == want
        assert tagged(after)[5] == (tag("    return x + 2"), "    return x + 2"), after
        again = tagged(await ok(s, "read", {"path": "src/app.py"}))
        assert again[5] == (tag("    return x + 2"), "    return x + 2")


async def test_read_edit_read_lines():
    root = sandbox()
    async with server(root, "--mode", "lines") as s:
        view = await ok(s, "read", {"path": "src/app.py"})
        crc = f"{zlib.crc32(APP_PY.encode()):08x}"
        assert f"crc32={crc}" in view, view
        assert "9\t    total = y * 2" in view
        await ok(s, "edit", {"path": "src/app.py", "edits": [
            {"lines": "9:10", "new": "    return y * 3"}]})
        want = APP_PY.replace("    total = y * 2\n    return total\n", "    return y * 3\n")
        assert (root / "src/app.py").read_text() == want
        # Line 15 was shown before the edit; it is line 14 now, and the
        # session knows it without another read.
        await ok(s, "edit", {"path": "src/app.py", "edits": [{"line": 14, "new": "        return 4"}]})
        want = want.replace("return 3", "return 4")
        assert (root / "src/app.py").read_text() == want
        again = await ok(s, "read", {"path": "src/app.py", "start": 8, "end": 9})
        assert "9\t    return y * 3" in again, again
    # A fresh session that saw lines 1-3 may not edit line 9.
    async with server(root, "--mode", "lines") as s:
        await ok(s, "read", {"path": "src/app.py", "start": 1, "end": 3})
        msg = await refused(s, "edit", {"path": "src/app.py", "edits": [{"line": 9, "new": "x"}]})
        assert "not_shown" in msg, msg
        assert (root / "src/app.py").read_text() == want


async def test_read_edit_read_str_replace():
    root = sandbox()
    async with server(root, "--mode", "str-replace") as s:
        view = await ok(s, "read", {"path": "src/app.py"})
        assert view.endswith(APP_PY), view
        await ok(s, "edit", {"path": "src/app.py", "edits": [
            {"old_str": "return total", "new_str": "return total + 1"}]})
        want = APP_PY.replace("return total", "return total + 1")
        assert (root / "src/app.py").read_text() == want
        again = await ok(s, "read", {"path": "src/app.py", "symbol": "g"})
        assert "return total + 1" in again
        msg = await refused(s, "edit", {"path": "src/app.py", "edits": [
            {"old_str": "return", "new_str": "yield"}]})
        assert "ambiguous" in msg, msg
        assert (root / "src/app.py").read_text() == want


async def test_read_edit_read_any():
    root = sandbox()
    async with server(root, "--mode", "any") as s:
        view = tagged(await ok(s, "read", {"path": "src/app.py"}))
        await ok(s, "edit", {"path": "src/app.py", "edits": [
            {"op": "delete", "line": 1, "tag": view[1][0]}]})
        assert (root / "src/app.py").read_text() == APP_PY.replace("import os\n", "", 1)
        await ok(s, "edit", {"path": "src/app.py", "edits": [
            {"command": "str_replace", "old_str": "x + 1", "new_str": "x - 1"}]})
        want = APP_PY.replace("import os\n", "", 1).replace("x + 1", "x - 1")
        assert (root / "src/app.py").read_text() == want


async def test_stale_tag_refused_with_current_lines():
    root = sandbox()
    async with server(root) as s:
        view = tagged(await ok(s, "read", {"path": "src/app.py"}))
        behind = APP_PY.replace("x + 1", "x + 100")
        (root / "src/app.py").write_text(behind)
        msg = await refused(s, "edit", {"path": "src/app.py", "edits": [
            {"line": 5, "tag": view[5][0], "new": "    return 0"}]})
        assert "stale_tag" in msg, msg
        assert f"5:{tag('    return x + 100')}" in msg and "return x + 100" in msg, msg
        assert (root / "src/app.py").read_text() == behind


async def test_file_changed_behind_the_servers_back():
    root = sandbox()
    async with server(root, "--mode", "str-replace") as s:
        await ok(s, "read", {"path": "src/app.py"})
        behind = APP_PY.replace("import os", "import sys")
        (root / "src/app.py").write_text(behind)
        msg = await refused(s, "edit", {"path": "src/app.py", "edits": [
            {"old_str": "x + 1", "new_str": "x + 2"}]})
        assert "file_changed" in msg, msg
        assert (root / "src/app.py").read_text() == behind
        # Read again, and the same edit goes through.
        await ok(s, "read", {"path": "src/app.py"})
        await ok(s, "edit", {"path": "src/app.py", "edits": [
            {"old_str": "x + 1", "new_str": "x + 2"}]})
        assert (root / "src/app.py").read_text() == behind.replace("x + 1", "x + 2")


async def test_path_escapes():
    root = sandbox()
    secret = (root / "out" / "secret.txt").resolve()
    async with server(root, "--mode", "str-replace") as s:
        for path in ["../etc/passwd", "/etc/passwd", "out/secret.txt"]:
            msg = await refused(s, "read", {"path": path})
            assert "path_escape" in msg, (path, msg)
        msg = await refused(s, "edit", {"path": "out/secret.txt", "edits": [
            {"old_str": "needle", "new_str": "pin"}]})
        assert "path_escape" in msg, msg
        reply = "--- a/out/secret.txt\n+++ b/out/secret.txt\n@@ -1 +1 @@\n-needle outside\n+pin\n"
        msg = await refused(s, "apply", {"reply": reply})
        assert "path_escape" in msg, msg
        msg = await refused(s, "search", {"pattern": "needle", "path": "../"})
        assert "path_escape" in msg, msg
    assert secret.read_text() == "needle outside\n"


async def test_malformed_calls_are_protocol_errors():
    root = sandbox()
    async with server(root) as s:
        assert await protocol_error(s, "read", {"path": 5}) == INVALID_PARAMS
        assert await protocol_error(s, "read", {}) == INVALID_PARAMS
        assert await protocol_error(s, "edit", {"path": "a", "edits": "x"}) == INVALID_PARAMS
        assert await protocol_error(s, "no_such_tool", {}) == INVALID_PARAMS
        assert await protocol_error(s, "apply", {"reply": "", "format": "nope"}) == INVALID_PARAMS
        assert await protocol_error(s, "tokens", {"text": "x", "tokenizer": "nope"}) == INVALID_PARAMS
        # Still serving.
        assert "def f(x):" in await ok(s, "read", {"path": "src/app.py"})


def test_raw_garbage_on_stdin():
    """Lines that are not JSON-RPC get an error or are dropped; the server
    answers the next request."""
    root = sandbox()
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    lines = [json.dumps(m) for m in msgs] + [
        "this is not json",
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": "nope"}',
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "read", "arguments": [1]}}',
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
    ]
    p = subprocess.run([PATCHBAY, "mcp", "--root", str(root)], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, timeout=30)
    answers = {}
    for line in p.stdout.splitlines():
        m = json.loads(line)
        answers[m.get("id")] = m
    assert "result" in answers[4] and len(answers[4]["result"]["tools"]) == 6, p.stdout
    assert "error" in answers[3], answers[3]
    assert "error" in answers[None], p.stdout  # the line that is not JSON
    assert p.returncode == 0, p.stderr


async def test_two_clients_lose_no_update():
    root = sandbox()
    start = "".join(f"line {i}\n" for i in range(1, 41))
    (root / "shared.txt").write_text(start)

    async def writer(lines):
        async with server(root) as s:
            for n in lines:
                view = tagged(await ok(s, "read", {"path": "shared.txt", "start": n, "end": n}))
                await ok(s, "edit", {"path": "shared.txt", "edits": [
                    {"line": n, "tag": view[n][0], "new": f"line {n} edited"}]})

    await asyncio.gather(writer(range(1, 21)), writer(range(21, 41)))
    want = "".join(f"line {i} edited\n" for i in range(1, 41))
    assert (root / "shared.txt").read_text() == want


async def test_budget_read_picks_sections():
    root = sandbox()
    body = "".join(
        f"def fn_{i}(a):\n" + "".join(f"    a = a + {j}\n" for j in range(8)) + "    return a\n\n\n"
        for i in range(300)
    )
    (root / "big.py").write_text(body)
    async with server(root, "--budget", "800") as s:
        msg = await ok(s, "read", {"path": "big.py", "task": "change fn_250 to return a * 2"})
        assert "over the read budget of 800" in msg, msg[:300]
        assert "def fn_250(a):" in msg and "Left out" in msg, msg[-500:]
        start = body.splitlines().index("def fn_250(a):") + 1
        assert re.search(rf"^{start}:\S+ def fn_250\(a\):$", msg, re.M), "fn_250 not tagged"
        assert "def fn_3(a):" not in msg.split("Outline")[1].split("\n\n", 1)[1]
        # The whole answer, outline included, stays within the budget.
        count = await ok(s, "tokens", {"text": msg})
        assert int(re.search(r"text: (\d+) tokens", count).group(1)) <= 800, count


async def test_fuzzed_arguments_never_kill_the_server():
    root = sandbox()
    rnd = random.Random(30)
    atoms = [None, True, 0, -1, 2**70, 1.5, "", "src/app.py", "../x", "\u0000", "a" * 5000,
             [], [{}], {"op": "replace"}, {"line": 5, "tag": "zz"}]
    keys = ["path", "start", "end", "symbol", "task", "edits", "reply", "format", "dry_run",
            "pattern", "max_results", "ignore_case", "text", "tokenizer", "bogus"]
    async with server(root) as s:
        for _ in range(300):
            args = {k: rnd.choice(atoms) for k in rnd.sample(keys, rnd.randint(0, 4))}
            if rnd.random() < 0.3:
                args["edits"] = [{k: rnd.choice(atoms) for k in rnd.sample(keys, 2)}]
            try:
                await s.call_tool(rnd.choice(sorted(TOOLS) + ["zzz"]), args)
            except MCPError as e:
                assert e.error.code in (INVALID_PARAMS, -32603), e.error
        assert "def f(x):" in await ok(s, "read", {"path": "src/app.py"})
    # Only the sandbox's own files may have changed, and nothing escaped.
    assert (root / "out" / "secret.txt").read_text() == "needle outside\n"


async def main():
    tests = [(n, f) for n, f in globals().items() if n.startswith("test_")]
    failed = 0
    for name, f in tests:
        try:
            r = f()
            if asyncio.iscoroutine(r):
                await asyncio.wait_for(r, timeout=120)
            print(f"ok   {name}")
        except Exception as e:  # noqa: BLE001 - every failure is reported
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}")
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
