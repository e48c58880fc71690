#!/usr/bin/env bash
# patchbay side by side with the tools people use to apply model edits, on
# the same corpus cases, then timed on the 100,000-line fixture of the apply
# bench. See docs/benchmarks.md ("Peers").
#
#   scripts/peers.sh            both parts
#   scripts/peers.sh table      conformance: correct / refused / misapplied per tool and fault
#   scripts/peers.sh timing     whole-process times, median of RUNS runs (default 11)
#
# Installs what it needs: Debian's `patch`, `diffutils` and `git` with
# apt-get when missing, and tests/peers' node packages (jsdiff, diff-match-
# patch, pinned in its package.json and lock file) with `npm ci`. Writes
# target/peers/peers.json (every case and tool) and prints the tables.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(table timing)
runs=${RUNS:-11}

say() { printf 'peers: %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

install() {
  local missing=()
  command -v patch >/dev/null 2>&1 || missing+=(patch)
  command -v diff >/dev/null 2>&1 || missing+=(diffutils)
  command -v git >/dev/null 2>&1 || missing+=(git)
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]} (Debian packages)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
  fi
  local stamp=tests/peers/node_modules/.patchbay-setup
  if [ -f "$stamp" ] && cmp -s tests/peers/package-lock.json "$stamp"; then
    say "tests/peers node packages present"
  else
    say "installing tests/peers node packages"
    (cd tests/peers && npm ci --no-audit --no-fund)
    cp tests/peers/package-lock.json "$stamp"
  fi
  say "building patchbay (release)"
  cargo build --release -p patchbay-cli -p patchbay-tests
  target_dir=$(cargo metadata --format-version 1 --no-deps |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
  bin="$target_dir/release/patchbay"
  out="$target_dir/peers"
  mkdir -p "$out"
  say "$(patch --version | head -1); $(git --version); node $(node --version)"
}

table() {
  say "patchbay's verdicts (the corpus runner)"
  "$target_dir/release/corpus-verdicts" tests/corpus >"$out/verdicts.jsonl"
  say "running the peers on $(wc -l <"$out/verdicts.jsonl") cases (those of their formats)"
  node tests/peers/peers.mjs corpus tests/corpus "$out/verdicts.jsonl" "$out/peers.json"
  if [ -d tests/corpus-pending ]; then
    echo
    say "the same on tests/corpus-pending (generated cases of known, open patchbay bugs)"
    "$target_dir/release/corpus-verdicts" tests/corpus-pending >"$out/verdicts-pending.jsonl"
    node tests/peers/peers.mjs corpus tests/corpus-pending "$out/verdicts-pending.jsonl" "$out/peers-pending.json"
  fi
}

now_us() { local t=${EPOCHREALTIME/[.,]/}; echo "$t"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

timing() {
  if [ -z "${EPOCHREALTIME:-}" ]; then echo "peers: needs bash 5 (EPOCHREALTIME)" >&2; exit 1; fi
  local rel=src/server.go
  tmp=$(mktemp -d)
  trap 'rm -rf "${tmp:-}"' EXIT
  say "fixtures: the apply bench's 100,000-line file and 50-block reply"
  cargo bench -p patchbay --bench apply -- --write-fixtures "$tmp" >/dev/null
  diff -u --label "$rel" --label "$rel" "$tmp/before/$rel" "$tmp/expected.go" >"$tmp/change.diff" || [ $? -eq 1 ]
  local peers="node tests/peers/peers.mjs apply"
  # name | command (DIR is the root, run from the repository)
  local tools=(
    "patchbay (SEARCH/REPLACE reply)|$bin apply --edits $tmp/reply.txt --root DIR"
    "patchbay (the unified diff)|$bin apply --edits $tmp/change.diff --root DIR"
    "GNU patch|patch -p0 -s --batch -d DIR -i $tmp/change.diff"
    "GNU patch --fuzz 0|patch -p0 -s --batch -F 0 -d DIR -i $tmp/change.diff"
    "git apply|git -C DIR apply -p0 $tmp/change.diff"
    "jsdiff fuzzFactor 0 (node)|$peers 'jsdiff fuzzFactor 0' DIR $tmp/change.diff"
    "diff-match-patch (node)|$peers diff-match-patch DIR $tmp/change.diff"
    "exact-unique replacer (node)|$peers 'exact-unique replacer' DIR $tmp/reply.txt"
    "first-match replacer (node)|$peers 'first-match replacer' DIR $tmp/reply.txt"
  )
  local i k name cmd t0 t1 dir="$tmp/root"
  mkdir -p "$dir/src"
  export GIT_CEILING_DIRECTORIES="$tmp"
  say "timing ${#tools[@]} tools, $runs runs each after one checked warm-up (whole process, fresh copy each run)"
  for k in "${!tools[@]}"; do
    name=${tools[$k]%%|*}
    cmd=${tools[$k]#*|}
    cmd=${cmd//DIR/$dir}
    : >"$tmp/t.$k"
    for ((i = -1; i < runs; i++)); do
      cp "$tmp/before/$rel" "$dir/$rel"
      t0=$(now_us)
      if ! eval "$cmd" >/dev/null 2>&1; then echo "peers: $name failed" >&2; echo fail >"$tmp/t.$k"; break; fi
      t1=$(now_us)
      if ! cmp -s "$dir/$rel" "$tmp/expected.go"; then echo "peers: $name gave a different file" >&2; echo wrong >"$tmp/t.$k"; break; fi
      [ $i -ge 0 ] && echo $((t1 - t0)) >>"$tmp/t.$k"
    done
  done
  local base
  base=$(median <"$tmp/t.0")
  echo
  echo "| tool (whole process, result checked) | median | ratio to patchbay |"
  echo "|---|---:|---:|"
  for k in "${!tools[@]}"; do
    name=${tools[$k]%%|*}
    if grep -q '^[a-z]' "$tmp/t.$k"; then
      echo "| $name | $(cat "$tmp/t.$k") | - |"
      continue
    fi
    local m
    m=$(median <"$tmp/t.$k")
    awk -v n="$name" -v m="$m" -v b="$base" 'BEGIN { printf "| %s | %.1f ms | %.2fx |\n", n, m / 1000, m / b }'
  done
  echo
  echo "ratio = tool median / patchbay (SEARCH/REPLACE reply) median: below 1, the tool is faster."
}

install
for part in "${parts[@]}"; do
  case "$part" in
    table | timing) "$part" ;;
    *) echo "peers: unknown part '$part' (expected table, timing)" >&2; exit 2 ;;
  esac
done
