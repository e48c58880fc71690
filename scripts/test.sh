#!/usr/bin/env bash
# THE test command: installs what is missing, then runs every check and test,
# and ends with a summary of each step and its time.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

steps=()
current=""
started=$SECONDS

summary() {
  local rc=$?
  echo
  echo "==================== patchbay test summary ===================="
  for s in "${steps[@]}"; do echo "  ok      $s"; done
  if [ "$rc" -ne 0 ] && [ -n "$current" ]; then
    echo "  FAILED  $current (exit $rc)"
    echo "RESULT: FAILED after $((SECONDS - started))s"
  elif [ "$rc" -ne 0 ]; then
    echo "RESULT: FAILED (exit $rc) after $((SECONDS - started))s"
  else
    echo "RESULT: all ${#steps[@]} steps passed in $((SECONDS - started))s"
  fi
  echo "==============================================================="
}
trap summary EXIT

# step NAME COMMAND...: runs one step, timing it.
step() {
  current=$1
  shift
  local t=$SECONDS
  echo
  echo "==> $current"
  "$@"
  steps+=("$(printf '%-44s %4ss' "$current" $((SECONDS - t)))")
  current=""
}

step "setup (toolchain, chromium, node packages)" bash scripts/setup.sh
step "cargo fmt --check" cargo fmt --all -- --check
step "import circles (scripts/cycles.py)" bash -c 'python3 scripts/cycles.py --self-test && python3 scripts/cycles.py --depth 1'
step "cargo clippy -D warnings" cargo clippy --workspace --all-targets -- -D warnings
step "cargo doc -D warnings" env RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --lib
step "cargo test --workspace" cargo test --workspace
step "cargo test -p patchbay --features exact-tokens" cargo test -p patchbay --features exact-tokens
step "hostile inputs, full size (release)" cargo test --release -p patchbay --test hostile
step "syntax hostile inputs, full size (release)" cargo test --release -p patchbay-syntax --test hostile
step "fuzz smoke (15 s a target)" env FUZZ_SEED=1 bash scripts/fuzz.sh 15
step "mcp: Python SDK + Inspector CLI clients" bash scripts/mcp-test.sh
step "core builds for wasm32" cargo build -p patchbay --target wasm32-unknown-unknown
step "build package + web (wasm, glue, import check)" bash scripts/build-web.sh
step "tsc: page and package JS (scripts/typecheck.sh)" bash scripts/typecheck.sh
step "e2e: node + chromium (node --test)" bash -c 'cd tests/e2e && node --test'
step "real llama-server: run, arena, page (node --test)" bash scripts/real-server-test.sh
step "package: packed tarball, node + chromium" bash -c 'cd tests/package && node --test'
step "editors: an outside Vite app with CodeMirror and Monaco, chromium" bash -c 'cd tests/editors-app && node --test'
