#!/usr/bin/env bash
# Installs what building and testing patchbay needs on a fresh Debian machine
# with rustup, node and npm. Idempotent: every step is skipped when already done.
# Everything comes from package managers (rustup, cargo, apt, npm); no step
# downloads a toolchain or a browser from anywhere else.
#
#   scripts/setup.sh            everything
#   scripts/setup.sh wasm       the wasm32 target, the wasm-bindgen CLI, clang, llvm and binaryen
#   scripts/setup.sh rust       rustfmt and clippy
#   scripts/setup.sh browser    Chromium (Debian package) for the playground tests
#   scripts/setup.sh e2e        node packages of tests/e2e
#   scripts/setup.sh web        node packages of web/ (esbuild, CodeMirror, lz-string)
#   scripts/setup.sh package    node packages of tests/package (typescript)
#   scripts/setup.sh editors    node packages of tests/editors-app (Vite, CodeMirror, Monaco, typescript)
#   scripts/setup.sh tools      GNU patch, diff and git (the udiff tests run them)
#   scripts/setup.sh headers    libstdc++, glibc and Linux UAPI headers (the syntax tests outline them)
#   scripts/setup.sh mcp        the MCP test clients: a Python venv (mcp, jsonschema) and tests/mcp's node packages
set -euo pipefail
cd "$(dirname "$0")/.."

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(rust wasm browser e2e web package editors tools headers mcp)

say() { printf 'setup: %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

setup_rust() {
  for c in rustfmt clippy; do
    if ! cargo "${c/rustfmt/fmt}" --version >/dev/null 2>&1; then
      say "adding rustup component $c"
      rustup component add "$c"
    fi
  done
}

setup_wasm() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding rustup target wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi
  # The syntax module's grammars are C: clang compiles them for wasm32 and
  # llvm-ar archives them (the native build uses the system's cc).
  if command -v clang >/dev/null 2>&1 && command -v llvm-ar >/dev/null 2>&1; then
    say "clang and llvm-ar present"
  else
    say "installing clang and llvm (Debian packages)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y clang llvm
  fi
  # binaryen's wasm-split cuts the core module in two (scripts/build-package.sh).
  if command -v wasm-split >/dev/null 2>&1 && command -v wasm-opt >/dev/null 2>&1; then
    say "binaryen present"
  else
    say "installing binaryen (Debian package)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y binaryen
  fi
  # The CLI must match the wasm-bindgen crate exactly; the pin is the source of truth.
  local want have
  want=$(sed -n 's/^wasm-bindgen *= *"=\([0-9][0-9.]*\)".*/\1/p' crates/patchbay-wasm/Cargo.toml)
  if [ -z "$want" ]; then
    echo 'setup: no exact pin wasm-bindgen = "=X" in crates/patchbay-wasm/Cargo.toml' >&2
    exit 1
  fi
  # One CLI serves both modules, so the syntax module pins the same version.
  if ! grep -q "^wasm-bindgen = \"=$want\"" crates/patchbay-syntax-wasm/Cargo.toml; then
    echo "setup: crates/patchbay-syntax-wasm/Cargo.toml must pin wasm-bindgen = \"=$want\" too" >&2
    exit 1
  fi
  have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
  if [ "$have" = "$want" ]; then
    say "wasm-bindgen $want present"
  else
    say "installing wasm-bindgen-cli $want (was: ${have:-none}); this takes a few minutes"
    # Not --locked: the CLI's lock file names a version the registry no longer has.
    cargo install wasm-bindgen-cli --version "$want"
  fi
}

setup_browser() {
  if [ -x /usr/bin/chromium ]; then
    say "chromium present"
  else
    say "installing chromium (Debian package)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  fi
}

setup_tools() {
  # crates/patchbay/tests/udiff_tools.rs checks repaired diffs with `git apply`
  # and the fuzz simulation against GNU `patch`.
  local missing=() cmd pkg
  for pair in patch:patch diff:diffutils git:git; do
    cmd=${pair%%:*} pkg=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    say "patch, diff and git present"
  else
    say "installing ${missing[*]} (Debian packages)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
  fi
}

setup_headers() {
  # crates/patchbay-syntax/tests/headers.rs outlines real C and C++ headers
  # from /usr/include: libstdc++ 12's, glibc's and Linux's UAPI ones.
  local missing=() probe pkg
  for pair in c++/12/mutex:libstdc++-12-dev stdlib.h:libc6-dev linux/bpf.h:linux-libc-dev; do
    probe=${pair%%:*} pkg=${pair#*:}
    [ -f "/usr/include/$probe" ] || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    say "libstdc++, glibc and Linux UAPI headers present"
  else
    say "installing ${missing[*]} (Debian packages)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
  fi
}

# npm_packages DIR: installs DIR's node packages from its lock file, once.
npm_packages() {
  local dir=$1 stamp=$1/node_modules/.patchbay-setup
  # Skip when node_modules was installed from this very lock file.
  if [ -f "$dir/package-lock.json" ] && [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then
    say "$dir node packages present"
    return
  fi
  say "installing $dir node packages"
  # playwright-core never downloads browsers; this keeps any package from trying.
  export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
  if [ -f "$dir/package-lock.json" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund)
  else
    (cd "$dir" && npm install --no-audit --no-fund)
  fi
  cp "$dir/package-lock.json" "$stamp"
}

setup_e2e() { npm_packages tests/e2e; }

# The page's build: esbuild (its platform binary comes as an npm package of
# the lock file) and the CodeMirror packages it bundles.
setup_web() { npm_packages web; }

# The npm package's tests: typescript (pinned) for `tsc --strict`.
setup_package() { npm_packages tests/package; }

# The MCP tests' clients (scripts/mcp-test.sh): the official Python SDK in a
# venv outside the tree, made from tests/mcp/requirements.txt (every
# package pinned) and remade when that file changes; and the Inspector's CLI
# from tests/mcp's lock file.
MCP_VENV=${PATCHBAY_MCP_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/patchbay/mcp-venv}
setup_mcp() {
  local req=tests/mcp/requirements.txt stamp=$MCP_VENV/.patchbay-setup
  if [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then
    say "MCP Python client present ($MCP_VENV)"
  else
    say "making the MCP Python venv in $MCP_VENV"
    rm -rf "$MCP_VENV"
    python3 -m venv "$MCP_VENV"
    "$MCP_VENV/bin/pip" install --quiet --disable-pip-version-check -r "$req"
    cp "$req" "$stamp"
  fi
  npm_packages tests/mcp
}

# The outside web IDE (tests/editors-app): Vite, CodeMirror, Monaco and
# typescript, pinned in its own lock file; the test installs the packed
# package into it.
setup_editors() { npm_packages tests/editors-app; }

for part in "${parts[@]}"; do
  case "$part" in
    rust | wasm | browser | e2e | web | package | editors | tools | headers | mcp) "setup_$part" ;;
    *) echo "setup: unknown part '$part' (expected rust, wasm, browser, e2e, web, package, editors, tools, headers, mcp)" >&2; exit 2 ;;
  esac
done
