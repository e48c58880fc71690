#!/usr/bin/env bash
# Sizes of the syntax module (patchbay/syntax, web/pkg-syntax) per set of grammars: builds
# patchbay-syntax-wasm with each language alone, with none (the tree-sitter
# runtime, the binding and the parts of the core a slice uses) and with all, runs wasm-bindgen on each, and
# prints a Markdown table of raw and gzip -9 sizes. See docs/benchmarks.md.
#
#   scripts/syntax-sizes.sh                 the default sets
#   scripts/syntax-sizes.sh rust,python     only these sets (comma-separated
#                                           features; "none" for the runtime)
# Needs what scripts/setup.sh wasm installs. Each set is one build with the
# package's `wasm` profile and wasm-bindgen flags (scripts/build-package.sh),
# so the sizes are the package's; the grammars' C is compiled once and
# reused. `PATCHBAY_SYNTAX_SIZES=1 scripts/build-package.sh` runs it too.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

sets=("$@")
[ ${#sets[@]} -eq 0 ] && sets=(none rust python javascript typescript go java c cpp rust,python,javascript,typescript all)
target_dir=${CARGO_TARGET_DIR:-target}
cflags=$(bash scripts/wasm-cflags.sh)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kib() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1024 }'; }

rows=()
for set in "${sets[@]}"; do
  case "$set" in
    all) features=(--features "rust,python,javascript,typescript,go,java,c,cpp") ;;
    none) features=() ;;
    *) features=(--features "$set") ;;
  esac
  echo "syntax-sizes: building $set" >&2
  CFLAGS_wasm32_unknown_unknown=$cflags cargo build --profile wasm --target wasm32-unknown-unknown \
    -p patchbay-syntax-wasm --no-default-features "${features[@]}" >&2
  rm -rf "$tmp/pkg"
  # As build-package.sh's bindgen: without the section that names reference types.
  node scripts/strip-target-features.mjs "$target_dir/wasm32-unknown-unknown/wasm/patchbay_syntax_wasm.wasm" "$tmp/syntax.wasm"
  wasm-bindgen --target web --remove-name-section --remove-producers-section --out-dir "$tmp/pkg" "$tmp/syntax.wasm"
  module="$tmp/pkg/patchbay_syntax_wasm_bg.wasm"
  node scripts/check-wasm-imports.mjs "$module" >&2
  raw=$(wc -c <"$module")
  gz=$(gzip -9 -c "$module" | wc -c)
  rows+=("| ${set//,/, } | $(kib "$raw") | $(kib "$gz") |")
done
echo "| grammars | wasm KiB | gzip -9 KiB |"
echo "|---|---:|---:|"
printf '%s\n' "${rows[@]}"
