#!/usr/bin/env bash
# Builds the WebAssembly module and its JS glue into web/pkg, checks that the
# module imports nothing but wasm-bindgen's functions, and prints its size.
# Needs `scripts/setup.sh wasm` (the wasm32 target and the matching CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

cargo build --release --target wasm32-unknown-unknown -p patchbay-wasm
target_dir=${CARGO_TARGET_DIR:-target}
wasm-bindgen --target web --out-dir web/pkg \
  "$target_dir/wasm32-unknown-unknown/release/patchbay_wasm.wasm"

module=web/pkg/patchbay_wasm_bg.wasm
node scripts/check-wasm-imports.mjs "$module"

raw=$(wc -c <"$module")
gz=$(gzip -9 -c "$module" | wc -c)
js=$(wc -c <web/pkg/patchbay_wasm.js)
printf 'build-web: %s %d bytes (%d KiB), gzip -9 %d bytes (%d KiB); JS glue %d bytes\n' \
  "$module" "$raw" $((raw / 1024)) "$gz" $((gz / 1024)) "$js"
