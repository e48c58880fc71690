#!/usr/bin/env bash
# Builds the playground's modules: the npm package (scripts/build-package.sh:
# core, syntax and exact-tokens modules, each checked to import nothing but
# wasm-bindgen's functions, sizes printed), which the page depends on (web/
# installs it from packages/patchbay). The syntax and tokens modules' glue
# and .wasm files are also copied to web/pkg-syntax and web/pkg-tokens for
# the tests and benchmarks that load the raw modules under node; those that
# load the core's glue take it from packages/patchbay/core, beside the
# loader of its second part (packages/patchbay/rest.js) that it imports.
# Needs `scripts/setup.sh wasm` (the wasm32 target, the matching CLI, clang
# and llvm for the grammars' C).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build-package.sh
pkg=packages/patchbay
rm -rf web/pkg # a stale copy of the core's glue, from builds that put it there
for pair in syntax:pkg-syntax tokens:pkg-tokens; do
  from=$pkg/${pair%%:*} to=web/${pair##*:}
  rm -rf "$to"
  mkdir -p "$to"
  cp "$from"/*.js "$from"/*.d.ts "$from"/*.wasm "$to"/
done

# The page itself: web/src bundled by esbuild (web/build.mjs) into web/dist,
# with the wasm modules, the measurements it links to (docs/benchmarks.md),
# and a brotli and gzip twin of every file. Needs `scripts/setup.sh web`.
node web/build.mjs
