#!/usr/bin/env bash
# Recorder overhead (not a test): the same workload, alternately without and with
# `causeway record`, and the ratio of the medians.
#   scripts/bench_record.sh [ROUND_TRIPS] [RUNS]    default: 100000 round trips, 7 runs
# Workloads: a pipe ping-pong between two threads (two context switches and two wake-ups
# per round trip, the recorder's worst case) and a TCP ping-pong over loopback (adds four
# packet events per round trip). Needs root (the recorder loads eBPF programs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release >/dev/null
cli=build/release/src/causeway
work=build/release/tests/causeway_workload
n="${1:-100000}"
runs="${2:-7}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

seconds() {  # command... -> elapsed seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for mode in pipe-pingpong tcp-pingpong; do
  : >"$tmp/base"; : >"$tmp/rec"
  for i in $(seq "$runs"); do
    # Alternate, so drift on a shared machine hits both sides alike.
    seconds "$work" "$mode" "$n" "$tmp/info" >>"$tmp/base"
    rm -rf "$tmp/r"
    seconds "$cli" record -o "$tmp/r" -- "$work" "$mode" "$n" "$tmp/info" >>"$tmp/rec"
  done
  events=$("$cli" stats "$tmp/r" --format json | grep -o '"events": *[0-9]*' | head -1 | grep -o '[0-9]*$')
  b=$(median <"$tmp/base"); r=$(median <"$tmp/rec")
  printf '%-14s %d round trips, median of %d: untraced %.3f s, recorded %.3f s (%s events): overhead %.1f%%, %.0f ns per round trip\n' \
    "$mode" "$n" "$runs" "$b" "$r" "${events:-?}" "$(awk -v r="$r" -v b="$b" 'BEGIN { print (r / b - 1) * 100 }')" \
    "$(awk -v r="$r" -v b="$b" -v n="$n" 'BEGIN { print (r - b) * 1e9 / n }')"
done
echo "(recorded time includes starting and stopping the recorder: about 0.3 s of fixed cost)"
