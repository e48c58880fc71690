#!/usr/bin/env bash
# Benchmarks; prints ratios against a peer measured in the same run (no
# timed assertions anywhere). See docs/benchmarks.md.
#
#   scripts/bench.sh            both parts
#   scripts/bench.sh native     the in-process bench (cargo bench -p patchbay --bench apply)
#   scripts/bench.sh process    whole processes: `patchbay apply` (SEARCH/REPLACE and
#                               unified diff) vs GNU patch, git apply, jsdiff, ...
#                               (scripts/peers.sh timing)
#   scripts/bench.sh mcp        `patchbay mcp` through the Python SDK: a read of a
#                               10,000-line file and an edit round trip per mode,
#                               beside `patchbay apply` as a process; and the token
#                               figures of docs/agents.md (tests/mcp/bench.py, figures.py)
#   scripts/bench.sh hostile    growth exponents of the hostile shapes (doubling series,
#                               the `growth_*` tests of crates/patchbay/tests/hostile.rs)
#
# RUNS=N sets the number of timed runs a tool in the process part (default 21).
# Needs what scripts/setup.sh installs; peers.sh installs its own tools.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(native process)
runs=${RUNS:-21}

say() { printf 'bench: %s\n' "$*"; }

native() {
  say "in-process: cargo bench -p patchbay --bench apply"
  cargo bench -p patchbay --bench apply
}

# Whole processes on the same 100,000-line fixture: patchbay (its SEARCH/
# REPLACE reply, and the equivalent unified diff applied leniently) against
# GNU patch, git apply and the node peers. One implementation, in peers.sh.
process() {
  RUNS=$runs bash scripts/peers.sh timing
}

# Each hostile shape at n, 2n, 4n, 8n: one line a shape with the exponent of
# each doubling (1 is linear). The tests assert only time(8n)/time(n) < 13.6.
hostile() {
  say "hostile growth: cargo test --release -p patchbay --test hostile growth"
  cargo test --release -p patchbay --test hostile growth -- --nocapture --test-threads=1 \
    | grep -oE 'growth .* n=.*overall -?[0-9.]+|test result.*'
}

# The MCP server through its Python client (the venv of scripts/setup.sh mcp).
mcp() {
  bash scripts/setup.sh mcp
  local venv=${PATCHBAY_MCP_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/patchbay/mcp-venv}
  cargo build --release -p patchbay-cli
  say "mcp: read and edit round trips (tests/mcp/bench.py)"
  "$venv/bin/python" tests/mcp/bench.py target/release/patchbay "$runs"
  say "mcp: tokens to read and change, arena task set (tests/mcp/figures.py)"
  "$venv/bin/python" tests/mcp/figures.py target/release/patchbay tests/arena/tasks
}

for part in "${parts[@]}"; do
  case "$part" in
    native | process | hostile | mcp) "$part" ;;
    *) echo "bench: unknown part '$part' (expected native, process, hostile, mcp)" >&2; exit 2 ;;
  esac
done
