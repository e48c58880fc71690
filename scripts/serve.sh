#!/usr/bin/env bash
# Builds the playground and serves it on 127.0.0.1 (PORT, default 8080).
# Installs only what the build needs (the wasm target and wasm-bindgen CLI).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh wasm
bash scripts/build-web.sh
# serve.mjs prints the URL once it listens: "patchbay playground: http://127.0.0.1:PORT/".
exec node web/serve.mjs
