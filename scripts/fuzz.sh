#!/usr/bin/env bash
# Fuzzes every target of fuzz/ (cargo-fuzz, libFuzzer with AddressSanitizer)
# for SECONDS each, seeded from the test corpus, and prints one line a
# target with its executions. Fails on the first crash, leak, timeout or
# out-of-memory, naming the input that caused it.
#
#   scripts/fuzz.sh             60 seconds a target
#   scripts/fuzz.sh 300         5 minutes a target
#   scripts/fuzz.sh 30 parse    only the named targets
#   FUZZ_SEED=1 scripts/fuzz.sh 15   a fixed libFuzzer seed (scripts/test.sh)
#
# cargo-fuzz needs nightly compiler flags (-Zsanitizer); the stable
# toolchain accepts them with RUSTC_BOOTSTRAP=1, which this script sets for
# the fuzz build only. Installs the pinned cargo-fuzz when it is missing.
# Inputs found interesting stay in fuzz/corpus/TARGET (git-ignored), so a
# later run continues from them; a crash is saved in fuzz/artifacts/TARGET.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

CARGO_FUZZ_VERSION=0.13.2
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(parse matcher transaction apply check_output syntax)

say() { printf 'fuzz: %s\n' "$*"; }

have=$(cargo fuzz --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$CARGO_FUZZ_VERSION" ]; then
  say "installing cargo-fuzz $CARGO_FUZZ_VERSION (was: ${have:-none})"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi
export RUSTC_BOOTSTRAP=1

# Seeds: every corpus reply, prefixed with the bytes that select its format
# (index in patchbay::formats::names(); a wrong index only changes which
# parser a seed starts in) and, for `apply`, with its file.
seed() {
  local names=(search-replace whole apply-patch hashline lines tool-call udiff auto)
  local dir case fmt i k=0 file
  mkdir -p fuzz/corpus/parse fuzz/corpus/apply fuzz/corpus/check_output fuzz/corpus/syntax
  for dir in tests/corpus/*/; do
    case=$(basename "$dir")
    [ -f "$dir/output.txt" ] || continue
    fmt=$(sed -n 's/.*"format": *"\([^"]*\)".*/\1/p' "$dir/case.json" | head -1)
    i=7
    for k in "${!names[@]}"; do [ "${names[$k]}" = "$fmt" ] && i=$k; done
    { printf "\\x$(printf %02x "$i")\\x00"; cat "$dir/output.txt"; } >"fuzz/corpus/parse/seed-$case"
    # A case that creates its files has no before/.
    file=$(find "$dir/before" -type f 2>/dev/null | sort | head -1 || true)
    { printf "\\x$(printf %02x "$i")\\x00\\x07"; [ -n "$file" ] && cat "$file"; printf '\0'; cat "$dir/output.txt"; } \
      >"fuzz/corpus/apply/seed-$case"
  done
  for f in tests/corpus/*/output.txt; do
    cp "$f" "fuzz/corpus/check_output/seed-$(basename "$(dirname "$f")")"
  done
  # syntax: the syntax fixtures and corpus sources, each behind its language's index in
  # patchbay_syntax::lang::ALL (a wrong index only changes the grammar).
  local langs=(rs py js ts tsx go java c cpp) f ext
  for f in crates/patchbay-syntax/tests/fixtures/* tests/tools/sources/*; do
    [ -f "$f" ] || continue
    ext=${f##*.}
    i=0
    for k in "${!langs[@]}"; do [ "${langs[$k]}" = "$ext" ] && i=$k; done
    case $ext in h) i=7 ;; hpp) i=8 ;; esac
    { printf "\\x$(printf %02x "$i")\\x01"; cat "$f"; } >"fuzz/corpus/syntax/seed-$(basename "$f")"
  done
}
seed

say "building the targets"
(cd fuzz && cargo fuzz build -O)

results=()
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t" fuzz/logs
  log="fuzz/logs/$t.log"
  say "running $t for ${seconds}s"
  set +e
  (cd fuzz && cargo fuzz run -O "$t" -- -max_total_time="$seconds" -timeout=20 \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 ${FUZZ_SEED:+-seed=$FUZZ_SEED}) >"$log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  if [ $rc -ne 0 ]; then
    echo "----- $t failed (exit $rc); the end of its log:"
    tail -40 "$log"
    echo "-----"
    echo "reproduce: (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run -O $t ARTIFACT)"
    ls fuzz/artifacts/"$t"/ 2>/dev/null | sed 's/^/artifact: fuzz\/artifacts\/'"$t"'\//'
    exit 1
  fi
  results+=("$(printf '%-14s %6ss %12s execs %8s edges' "$t" "$seconds" "${runs:-?}" "${cov:-?}")")
done
echo
echo "fuzz: every target ran clean"
for r in "${results[@]}"; do echo "  $r"; done
