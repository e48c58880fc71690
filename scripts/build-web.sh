#!/usr/bin/env bash
# Builds the WebAssembly module and its JS glue into web/pkg, checks that the
# module imports nothing but wasm-bindgen's functions, and prints its size.
# Then the same for the syntax module (tree-sitter grammars) in
# web/pkg-syntax, a bundle of its own that the page loads only on demand.
# Needs `scripts/setup.sh wasm` (the wasm32 target, the matching CLI, clang
# and llvm for the grammars' C).
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

# The syntax module: the grammars are C, compiled by clang for wasm32 with
# the flags of scripts/wasm-cflags.sh (set for this build only).
cflags=$(bash scripts/wasm-cflags.sh)
CFLAGS_wasm32_unknown_unknown=$cflags \
  cargo build --release --target wasm32-unknown-unknown -p patchbay-syntax-wasm
wasm-bindgen --target web --out-dir web/pkg-syntax \
  "$target_dir/wasm32-unknown-unknown/release/patchbay_syntax_wasm.wasm"
module=web/pkg-syntax/patchbay_syntax_wasm_bg.wasm
node scripts/check-wasm-imports.mjs "$module"
raw=$(wc -c <"$module")
gz=$(gzip -9 -c "$module" | wc -c)
printf 'build-web: %s %d bytes (%d KiB), gzip -9 %d bytes (%d KiB)\n' \
  "$module" "$raw" $((raw / 1024)) "$gz" $((gz / 1024))

# The exact-tokens module (tiktoken's vocabularies, ~2.4 MB) in web/pkg-tokens,
# loaded only when the user asks for an exact count. Its build script gives
# it a 4 MB stack: built for size, tiktoken overflowed wasm's 1 MB.
cargo build --release --target wasm32-unknown-unknown -p patchbay-tokens-wasm
wasm-bindgen --target web --out-dir web/pkg-tokens \
  "$target_dir/wasm32-unknown-unknown/release/patchbay_tokens_wasm.wasm"
module=web/pkg-tokens/patchbay_tokens_wasm_bg.wasm
node scripts/check-wasm-imports.mjs "$module"
raw=$(wc -c <"$module")
gz=$(gzip -9 -c "$module" | wc -c)
printf 'build-web: %s %d bytes (%d KiB), gzip -9 %d bytes (%d KiB)\n' \
  "$module" "$raw" $((raw / 1024)) "$gz" $((gz / 1024))

# The page itself: web/src bundled by esbuild (web/build.mjs) into web/dist,
# with the wasm modules, the measurements it links to (docs/benchmarks.md),
# and a brotli and gzip twin of every file. Needs `scripts/setup.sh web`.
node web/build.mjs
