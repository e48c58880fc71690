#!/usr/bin/env bash
# Benchmarks; prints ratios against a peer measured in the same run (no
# timed assertions anywhere). See docs/benchmarks.md.
#
#   scripts/bench.sh            both parts
#   scripts/bench.sh native     the in-process bench (cargo bench -p patchbay --bench apply)
#   scripts/bench.sh process    whole processes: `patchbay apply` vs GNU `patch`
#
# RUNS=N sets the number of timed runs a side in the process part (default 21).
# Needs what scripts/setup.sh installs, plus Debian's `patch` and `diff`
# (installed with apt-get when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(native process)
runs=${RUNS:-21}

say() { printf 'bench: %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Microseconds since the epoch, without forking (bash 5's EPOCHREALTIME).
now_us() {
  local t=${EPOCHREALTIME/[.,]/}
  echo "$t"
}

# median and min of the numbers on stdin (one per line), "MEDIAN MIN".
stats() {
  sort -n | awk '{ v[NR] = $1 } END { printf "%d %d\n", v[int((NR + 1) / 2)], v[1] }'
}

ms() { awk -v us="$1" 'BEGIN { printf "%.3f ms", us / 1000 }'; }

native() {
  say "in-process: cargo bench -p patchbay --bench apply"
  cargo bench -p patchbay --bench apply
}

process() {
  if [ -z "${EPOCHREALTIME:-}" ]; then
    echo "bench: needs bash 5 (EPOCHREALTIME)" >&2
    exit 1
  fi
  for tool in patch diff; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      say "installing $tool (Debian package)"
      pkg=$tool
      [ "$tool" = diff ] && pkg=diffutils
      as_root env DEBIAN_FRONTEND=noninteractive apt-get update
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$pkg"
    fi
  done

  say "building patchbay (release)"
  cargo build --release -p patchbay-cli
  local target_dir
  target_dir=$(cargo metadata --format-version 1 --no-deps |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
  local bin="$target_dir/release/patchbay"
  [ -x "$bin" ] || { echo "bench: no binary at $bin" >&2; exit 1; }

  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  say "generating the fixtures (the bench binary's generator)"
  cargo bench -p patchbay --bench apply -- --write-fixtures "$tmp"
  local rel=src/server.go
  # The unified diff GNU patch applies: the same change, with exact line
  # numbers and 3 lines of context, named by its path under the root.
  diff -u --label "$rel" --label "$rel" "$tmp/before/$rel" "$tmp/expected.go" >"$tmp/change.diff" || [ $? -eq 1 ]
  local hunks
  hunks=$(grep -c '^@@' "$tmp/change.diff")
  say "file $(wc -l <"$tmp/before/$rel") lines; reply $(grep -c '^<<<<<<< SEARCH' "$tmp/reply.txt") blocks, $(wc -c <"$tmp/reply.txt") bytes; diff $hunks hunks, $(wc -c <"$tmp/change.diff") bytes"

  mkdir -p "$tmp/pb/src" "$tmp/gp/src"
  reset() { cp "$tmp/before/$rel" "$tmp/pb/$rel"; cp "$tmp/before/$rel" "$tmp/gp/$rel"; }
  run_patchbay() { "$bin" apply --edits "$tmp/reply.txt" --root "$tmp/pb" >/dev/null; }
  run_patch() { patch -p0 -s -d "$tmp/gp" -i "$tmp/change.diff" >/dev/null; }

  # Check both once, then warm the page cache with two untimed runs each.
  reset
  run_patchbay
  run_patch
  cmp -s "$tmp/pb/$rel" "$tmp/expected.go" || { echo "bench: patchbay's result differs from the expected file" >&2; exit 1; }
  cmp -s "$tmp/gp/$rel" "$tmp/expected.go" || { echo "bench: patch's result differs from the expected file" >&2; exit 1; }
  for _ in 1 2; do reset; run_patchbay; run_patch; done

  say "timing $runs runs a side, interleaved"
  : >"$tmp/t.patchbay"
  : >"$tmp/t.patch"
  local i t0 t1
  for ((i = 0; i < runs; i++)); do
    reset
    t0=$(now_us); run_patchbay; t1=$(now_us)
    echo $((t1 - t0)) >>"$tmp/t.patchbay"
    t0=$(now_us); run_patch; t1=$(now_us)
    echo $((t1 - t0)) >>"$tmp/t.patch"
    cmp -s "$tmp/pb/$rel" "$tmp/expected.go" || { echo "bench: patchbay's result differs (run $i)" >&2; exit 1; }
    cmp -s "$tmp/gp/$rel" "$tmp/expected.go" || { echo "bench: patch's result differs (run $i)" >&2; exit 1; }
  done
  local pm pmin gm gmin
  read -r pm pmin < <(stats <"$tmp/t.patchbay")
  read -r gm gmin < <(stats <"$tmp/t.patch")
  echo
  printf '| %-36s | %24s | %24s | %8s |\n' "case (whole process, output checked)" "patchbay median (min)" "GNU patch median (min)" "ratio"
  printf '|%s|%s|%s|%s|\n' "--------------------------------------" "--------------------------" "--------------------------" "----------"
  printf '| %-36s | %24s | %24s | %7sx |\n' "50 blocks / 100k lines ($hunks hunks)" \
    "$(ms "$pm") ($(ms "$pmin"))" "$(ms "$gm") ($(ms "$gmin"))" \
    "$(awk -v a="$pm" -v b="$gm" 'BEGIN { printf "%.2f", b / a }')"
  echo
  echo "ratio = GNU patch median / patchbay median (above 1: patchbay is faster);"
  echo "patchbay takes $(awk -v a="$pm" -v b="$gm" 'BEGIN { printf "%.1f", a / b }')x the time of GNU patch"
}

for part in "${parts[@]}"; do
  case "$part" in
    native | process) "$part" ;;
    *) echo "bench: unknown part '$part' (expected native, process)" >&2; exit 2 ;;
  esac
done
