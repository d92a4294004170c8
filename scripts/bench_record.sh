#!/usr/bin/env bash
# Recorder overhead (not a test): the same workload, alternately without `causeway record`,
# under it, and under `causeway record --syscalls`, and the ratios of the medians; then the
# recorder's own CPU time over 3 s of recording, idle and beside a busy load, with and
# without --syscalls.
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
overhead() { awk -v r="$1" -v b="$2" 'BEGIN { printf "%.1f", (r / b - 1) * 100 }'; }
per_trip() { awk -v r="$1" -v b="$2" -v n="$n" 'BEGIN { printf "%.0f", (r - b) * 1e9 / n }'; }
events_of() { "$cli" stats "$1" --format json | grep -o '"events": *[0-9]*' | head -1 | grep -o '[0-9]*$'; }

for mode in pipe-pingpong tcp-pingpong; do
  : >"$tmp/base"; : >"$tmp/rec"; : >"$tmp/sys"
  for i in $(seq "$runs"); do
    # Alternate, so drift on a shared machine hits every side alike.
    seconds "$work" "$mode" "$n" "$tmp/info" >>"$tmp/base"
    rm -rf "$tmp/r" "$tmp/s"
    seconds "$cli" record -o "$tmp/r" -- "$work" "$mode" "$n" "$tmp/info" >>"$tmp/rec"
    seconds "$cli" record -o "$tmp/s" --syscalls -- "$work" "$mode" "$n" "$tmp/info" >>"$tmp/sys"
  done
  b=$(median <"$tmp/base"); r=$(median <"$tmp/rec"); s=$(median <"$tmp/sys")
  printf '%-14s %d round trips, median of %d: untraced %.3f s; recorded %.3f s (%s events): overhead %s%%, %s ns per round trip; with --syscalls %.3f s (%s events): overhead %s%%, %s ns per round trip\n' \
    "$mode" "$n" "$runs" "$b" "$r" "$(events_of "$tmp/r")" "$(overhead "$r" "$b")" "$(per_trip "$r" "$b")" \
    "$s" "$(events_of "$tmp/s")" "$(overhead "$s" "$b")" "$(per_trip "$s" "$b")"
done
echo "(recorded time includes starting and stopping the recorder: about 0.3 s of fixed cost)"

# The recorder alone (no command: its CPU time is its own), 3 s of recording each.
cpu_seconds() {  # command... -> user + system CPU seconds
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>&1
  awk '{ print $1 + $2 }' "$tmp/time"
}
for load in idle busy; do
  load_pid=""
  if [ "$load" = busy ]; then
    # A loop of small system calls and wake-ups beside the recorder: the pipe ping-pong.
    "$work" pipe-pingpong 1000000000 "$tmp/load-info" >/dev/null 2>&1 &
    load_pid=$!
  fi
  : >"$tmp/cpu-plain"; : >"$tmp/cpu-sys"
  for i in $(seq 3); do
    rm -rf "$tmp/r" "$tmp/s"
    cpu_seconds "$cli" record -o "$tmp/r" --duration 3 >>"$tmp/cpu-plain"
    cpu_seconds "$cli" record -o "$tmp/s" --duration 3 --syscalls >>"$tmp/cpu-sys"
  done
  [ -n "$load_pid" ] && kill "$load_pid" && wait "$load_pid" 2>/dev/null || true
  p=$(median <"$tmp/cpu-plain"); q=$(median <"$tmp/cpu-sys")
  printf 'recorder CPU, %-4s machine, 3 s recording, median of 3: %.2f s (%.1f%% of one CPU, %s events); with --syscalls %.2f s (%.1f%%, %s events)\n' \
    "$load" "$p" "$(awk -v c="$p" 'BEGIN { print c / 3 * 100 }')" "$(events_of "$tmp/r")" \
    "$q" "$(awk -v c="$q" 'BEGIN { print c / 3 * 100 }')" "$(events_of "$tmp/s")"
done
echo "(recorder CPU includes loading the BPF programs and writing the trace)"
