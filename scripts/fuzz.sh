#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`: clang, ASan+UBSan) and runs each one for
# $FUZZ_SECONDS seconds (default 30) on a copy of its seed corpus, fuzz/corpus/NAME/, with
# the dictionary fuzz/NAME.dict when there is one. Prints one line per fuzzer and exits
# non-zero when one finds a crash, a leak, a hang (over $FUZZ_TIMEOUT s, default 25) or an
# input needing more than 2 GB; the input is kept in build/fuzz/artifacts/NAME/.
# Usage: scripts/fuzz.sh [NAME...]   (default: every fuzz/*_fuzzer.cc)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-30}"
timeout="${FUZZ_TIMEOUT:-25}"

cmake --preset fuzz >/dev/null
cmake --build build/fuzz -j "$(nproc)" >/dev/null

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for src in fuzz/*_fuzzer.cc; do names+=("$(basename "$src" _fuzzer.cc)"); done
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/causeway-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
failed=0
for name in "${names[@]}"; do
  bin="build/fuzz/fuzz/${name}_fuzzer"
  artifacts="build/fuzz/artifacts/$name"
  mkdir -p "$work/$name" "$artifacts"
  if [ -d "fuzz/corpus/$name" ]; then cp -R "fuzz/corpus/$name/." "$work/$name/"; fi
  args=("$work/$name" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout="$timeout"
        -artifact_prefix="$artifacts/" -print_final_stats=1)
  if [ -f "fuzz/$name.dict" ]; then args+=(-dict="fuzz/$name.dict"); fi
  log="$work/$name.log"
  rc=0
  # Temporary files of the targets (merge_fuzzer writes traces) go below $work, removed at
  # exit even when a target aborts.
  TMPDIR="$work" "$bin" "${args[@]}" >"$log" 2>&1 || rc=$?
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  # The last status line: "#123456 DONE cov: 1234 ft: 5678 corp: 345/67Kb ...".
  last="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)"
  cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
  ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")"
  corp="$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")"
  if [ "$rc" -eq 0 ]; then
    echo "fuzz $name: ok, ${runs:-?} runs in ${seconds} s, coverage ${cov:-?} edges, ${ft:-?} features, corpus ${corp:-?} inputs"
  else
    failed=1
    what="$(grep -m 1 -E '^==[0-9]+==ERROR|^SUMMARY|ALARM|out-of-memory|deadly signal' "$log" || echo "exit code $rc")"
    echo "fuzz $name: FAILED after ${runs:-?} runs: $what"
    echo "  input kept in $artifacts/; reproduce with: $bin $artifacts/<file>"
    tail -n 40 "$log" | sed 's/^/  | /'
  fi
done
exit $failed
