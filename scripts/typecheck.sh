#!/usr/bin/env bash
# Type-checks the page (web/src) and the npm package's JavaScript
# (packages/patchbay/*.js) with tsc: JSDoc types against the package's
# .d.ts files and the generated wasm-bindgen ones (web/tsconfig.json).
# Needs web/node_modules (`npm ci` in web/, as scripts/setup.sh does) and
# the built package (scripts/build-package.sh writes the generated .d.ts).
set -euo pipefail
cd "$(dirname "$0")/../web"
node_modules/.bin/tsc -p tsconfig.json
