#!/usr/bin/env bash
# Prints the C flags the tree-sitter grammars need for wasm32-unknown-unknown
# (scripts/build-web.sh exports them as CFLAGS_wasm32_unknown_unknown):
#   -I<tree-sitter-language>/wasm/include  its small libc headers; most
#                     grammar crates do not add them to the include path
#   -Werror=implicit-function-declaration  a function the headers lack must
#                     fail the build, not become a wasm import (`env.*`) that
#                     only fails when the module loads
#   -include wchar.h -Dstatic_assert=_Static_assert  for tree-sitter-cpp's
#                     scanner (harmless for the other grammars)
# The directory comes from `cargo metadata`, so no machine path is written down.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

dir=$(cargo metadata --format-version 1 --filter-platform wasm32-unknown-unknown |
  node -e '
    let s = "";
    process.stdin.on("data", (c) => (s += c)).on("end", () => {
      const p = JSON.parse(s).packages.find((p) => p.name === "tree-sitter-language");
      if (!p) process.exit(1);
      process.stdout.write(require("path").dirname(p.manifest_path));
    });')
if [ ! -d "$dir/wasm/include" ]; then
  echo "wasm-cflags: no wasm/include in tree-sitter-language ($dir)" >&2
  exit 1
fi
echo "-I$dir/wasm/include -Werror=implicit-function-declaration -include wchar.h -Dstatic_assert=_Static_assert"
