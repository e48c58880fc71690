#!/usr/bin/env bash
# Builds the npm package `patchbay` in packages/patchbay/: the three wasm
# modules (core, syntax, exact tokens) with the `wasm` profile (size), their
# wasm-bindgen glue, and the package version taken from the workspace. The
# package's own sources (package.json, index.js, syntax.js, tokens.js,
# worker.js, their .d.ts, README.md) are committed; what this writes into
# core/, syntax/ and tokens/, and the licence files, is build output
# (gitignored). The core module
# is written in two parts, split by binaryen's wasm-split (split_core).
# Prints each module's size; with PATCHBAY_SYNTAX_SIZES=1 also the syntax
# module's without grammars and per grammar (scripts/syntax-sizes.sh).
# Needs `scripts/setup.sh wasm` (the wasm32 target, the matching CLI, clang, binaryen).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
target_dir=${CARGO_TARGET_DIR:-target}
pkg=packages/patchbay
out=$target_dir/wasm32-unknown-unknown/wasm

# The declarations are generated from the Rust types and committed; a
# build from stale ones stops here (`cargo run -p patchbay-types` rewrites
# them).
cargo run -q -p patchbay-types -- --check

size() { # label file
  local raw gz
  raw=$(wc -c <"$2")
  gz=$(gzip -9 -c "$2" | wc -c)
  printf 'build-package: %-28s %8d bytes, gzip -9 %7d bytes (%d KiB)\n' "$1" "$raw" "$gz" $((gz / 1024))
}

bindgen() { # crate dir
  local stripped
  stripped=$(mktemp -d)/$1.wasm
  node scripts/strip-target-features.mjs "$out/$1.wasm" "$stripped"
  # Without the name section: function names only serve stack traces, and
  # weigh a fifth of the module.
  wasm-bindgen --target web --remove-name-section --remove-producers-section --out-dir "$pkg/$2" "$stripped"
  rm -r "$(dirname "$stripped")"
  node scripts/glue-strings.mjs "$pkg/$2/$1.js"
  node scripts/check-wasm-imports.mjs "$pkg/$2/${1}_bg.wasm"
  # The glue declares the raw wasm exports (`InitOutput`, never called by
  # users) with `any` parameters; `unknown` keeps the public .d.ts free of it.
  sed -i 's/\([(,] *[a-z]*\): any\b/\1: unknown/g' "$pkg/$2/$1.d.ts"
}

# The WebAssembly features the modules use (binaryen validates against them).
features=(--enable-simd --enable-bulk-memory --enable-sign-ext --enable-mutable-globals
  --enable-nontrapping-float-to-int --enable-multivalue)

# The core module in two parts (packages/patchbay/rest.js): binaryen's
# wasm-split keeps in the first what scripts/core-profile.mjs ran, and
# moves the other functions into the second, loaded when a call needs one.
split_core() {
  local tmp
  tmp=$(mktemp -d)
  bindgen patchbay_wasm core
  node scripts/glue-split.mjs "$pkg/core/patchbay_wasm.js"
  wasm-split --instrument "${features[@]}" -o "$tmp/instrumented.wasm" "$pkg/core/patchbay_wasm_bg.wasm"
  node scripts/core-profile.mjs "$pkg/core/patchbay_wasm.js" "$tmp/instrumented.wasm" "$tmp/core.profile"
  wasm-split "${features[@]}" --profile "$tmp/core.profile" \
    -o1 "$tmp/first.wasm" -o2 "$pkg/core/patchbay_wasm_rest.wasm" "$pkg/core/patchbay_wasm_bg.wasm"
  mv "$tmp/first.wasm" "$pkg/core/patchbay_wasm_bg.wasm"
  rm -r "$tmp"
}

# One crate a cargo run: built together, features would unify and the core
# module would carry the tokens module's vocabularies.
cargo build --profile wasm --target wasm32-unknown-unknown -p patchbay-wasm
split_core
cargo build --profile wasm --target wasm32-unknown-unknown -p patchbay-tokens-wasm
bindgen patchbay_tokens_wasm tokens

cflags=$(bash scripts/wasm-cflags.sh)
if [[ ${PATCHBAY_SYNTAX_SIZES:-} == 1 ]]; then
  # The syntax module without grammars and with each grammar alone (one
  # build each, so only on request).
  bash scripts/syntax-sizes.sh none rust python javascript typescript go java c cpp
fi
CFLAGS_wasm32_unknown_unknown=$cflags \
  cargo build --profile wasm --target wasm32-unknown-unknown -p patchbay-syntax-wasm
bindgen patchbay_syntax_wasm syntax

# The workspace's version (`[workspace.package]`, the first `version =`).
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
node -e '
  const fs = require("fs"); const f = process.argv[1];
  const p = JSON.parse(fs.readFileSync(f, "utf8"));
  if (p.version !== process.argv[2]) { p.version = process.argv[2]; fs.writeFileSync(f, JSON.stringify(p, null, 2) + "\n"); }
' "$pkg/package.json" "$version"

# The licence texts the `license` field names, from the repository root
# (npm packs only what `files` lists; these are build output too).
cp LICENSE-MIT LICENSE-APACHE "$pkg/"

size 'core, first part' "$pkg/core/patchbay_wasm_bg.wasm"
size 'core, second part' "$pkg/core/patchbay_wasm_rest.wasm"
size syntax "$pkg/syntax/patchbay_syntax_wasm_bg.wasm"
size tokens "$pkg/tokens/patchbay_tokens_wasm_bg.wasm"
