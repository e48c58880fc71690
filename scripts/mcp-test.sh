#!/usr/bin/env bash
# `patchbay mcp` through two real MCP clients over stdio: the official Python
# SDK (tests/mcp/test_mcp.py: every tool, a read-edit-read cycle per mode,
# stale tags, files changed behind the server's back, path escapes,
# malformed calls, two clients on one root, fuzzed arguments), then the MCP
# Inspector's CLI (lists the tools, calls one). Installs its clients first
# (scripts/setup.sh mcp).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

bash scripts/setup.sh mcp
venv=${PATCHBAY_MCP_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/patchbay/mcp-venv}
cargo build -p patchbay-cli
bin=$PWD/target/debug/patchbay

echo "mcp-test: the Python SDK client"
"$venv/bin/python" tests/mcp/test_mcp.py "$bin"

echo "mcp-test: the Inspector CLI"
sandbox=$(mktemp -d)
trap 'rm -rf "$sandbox"' EXIT
printf 'def f(x):\n    return x + 1\n' >"$sandbox/a.py"
# The CLI reads its own package.json as `../package.json` of the working
# folder, so it runs from inside node_modules (tests/mcp/package.json above).
inspector() {
  (cd tests/mcp/node_modules && ./.bin/mcp-inspector-cli --cli "$bin" mcp --root "$sandbox" "$@" 2>/dev/null)
}
listed=$(inspector --method tools/list)
for tool in read edit apply search outline tokens; do
  grep -q "\"name\": \"$tool\"" <<<"$listed" || { echo "tools/list lacks $tool" >&2; exit 1; }
done
called=$(inspector --method tools/call --tool-name outline --tool-arg path=a.py)
grep -q '1-2  function   f' <<<"$called" || { echo "outline answered: $called" >&2; exit 1; }
grep -q '"isError": false' <<<"$called" || { echo "outline failed: $called" >&2; exit 1; }
echo "mcp-test: ok"
