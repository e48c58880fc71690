#!/usr/bin/env bash
# The real-server tests: llama.cpp's llama-server with a tiny real instruct
# model (scripts/llama-server.sh builds and caches both; the first run takes
# some 10-16 minutes on 2 cores, later ones reuse the cache), started on
# loopback by the tests themselves, and against it `patchbay run` and `arena`
# (tests/real-server/cli.test.mjs) and the page's OpenAI-compatible provider
# in Chromium (tests/real-server/page.test.mjs, when web/dist is built).
#
#   scripts/real-server-test.sh               both (needs web/dist: scripts/build-web.sh)
#   REAL_SERVER_CLI_ONLY=1 scripts/real-server-test.sh    the CLI's only
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

mapfile -t paths < <(scripts/llama-server.sh)
export LLAMA_SERVER=${paths[0]} LLAMA_MODEL=${paths[1]}

cargo build -q -p patchbay-cli
target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
export PATCHBAY_BIN=$target/debug/patchbay

files=(tests/real-server/cli.test.mjs)
if [ -z "${REAL_SERVER_CLI_ONLY:-}" ]; then
  if [ ! -f web/dist/index.html ]; then
    echo "real-server-test: web/dist is missing: run scripts/build-web.sh first (or set REAL_SERVER_CLI_ONLY=1)" >&2
    exit 1
  fi
  # Chromium and playwright-core (skipped when present).
  bash scripts/setup.sh browser e2e
  files+=(tests/real-server/page.test.mjs)
fi
# One file at a time: each starts its own server, and the machine has 2 cores.
node --test --test-concurrency=1 "${files[@]}"
