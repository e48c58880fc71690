#!/usr/bin/env bash
# Builds the playground and serves it on 127.0.0.1 (PORT, default 8080).
# Installs only what the build needs (the wasm target, the wasm-bindgen CLI,
# and web/'s node packages: esbuild and CodeMirror).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh wasm web
bash scripts/build-web.sh
# serve.mjs prints the URL once it listens: "patchbay playground: http://127.0.0.1:PORT/".
exec node web/serve.mjs
