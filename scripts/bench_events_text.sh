#!/usr/bin/env bash
# Benchmark (not part of the tests): printing every event of a trace as text, the job a user
# runs to read a trace by eye or pipe it to grep. `causeway events TRACE` (text close to
# babeltrace2's, and --format jsonl) against `babeltrace2 TRACE` (its text sink), each
# writing to /dev/null, runs interleaved; prints medians of wall and CPU time, events/s and
# the ratios. The outputs are checked to be the same lines first (text against babeltrace2's,
# one run each to files).
#   scripts/bench_events_text.sh [TRACE_DIR]   default: a 100 MB synthetic kernel trace
# The default trace goes to $BENCH_DIR (default /tmp/causeway-bench) and is reused;
# $RUNS runs (default 5). Needs GNU time (/usr/bin/time, Debian's package `time`).
set -euo pipefail
trace="${1:+$(realpath "$1")}"  # before the cd: a path relative to where it was run
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release >/dev/null
dir="${BENCH_DIR:-/tmp/causeway-bench}"
runs="${RUNS:-5}"
if [ -z "$trace" ]; then
  mkdir -p "$dir"
  trace="$dir/kernel-100mb"
  if [ ! -f "$trace/metadata" ]; then
    rm -rf "$trace"
    build/release/bench/make_kernel_trace "$trace" --size-mb 100 --cpus 4 --seed 1
  fi
fi
causeway="$PWD/build/release/src/causeway"
work="$(mktemp -d "${TMPDIR:-/tmp}/causeway-text-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

if [ ! -x /usr/bin/time ]; then
  echo "bench_events_text.sh needs GNU time: apt-get install time" >&2
  exit 2
fi

# Same lines first: a faster printer that prints something else proves nothing. Causeway
# also prints the tracer's discarded events as lines of their own, which babeltrace2's
# text does not have: those are left out of the comparison.
"$causeway" events "$trace" >"$work/causeway.txt"
babeltrace2 "$trace" >"$work/babeltrace2.txt"
grep -v ' <discarded>: { count = ' "$work/causeway.txt" >"$work/causeway-events.txt" || true
events=$(wc -l <"$work/causeway-events.txt")
if ! cmp -s "$work/causeway-events.txt" "$work/babeltrace2.txt"; then
  echo "causeway events and babeltrace2 print different lines for $trace:" >&2
  diff "$work/causeway-events.txt" "$work/babeltrace2.txt" | head -5 >&2 || true
  exit 1
fi
rm -f "$work"/*.txt

# One timed run: appends "wall cpu" (seconds) to $work/NAME.
timed() {
  local name="$1"
  shift
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >/dev/null
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$work/time" >>"$work/$name"
}
for ((run = 1; run <= runs; ++run)); do
  timed text "$causeway" events "$trace"
  timed jsonl "$causeway" events "$trace" --format jsonl
  timed babeltrace2 babeltrace2 "$trace"
done

median() {  # column $2 of file $1
  sort -g -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}
bt_wall=$(median "$work/babeltrace2" 1)
echo "trace: $trace ($events events), $runs runs, medians, output to /dev/null"
for name in text jsonl babeltrace2; do
  wall=$(median "$work/$name" 1)
  cpu=$(median "$work/$name" 2)
  label="causeway events --format $name"
  [ "$name" = babeltrace2 ] && label="babeltrace2 (text sink)"
  awk -v l="$label" -v w="$wall" -v c="$cpu" -v n="$events" -v bt="$bt_wall" 'BEGIN {
    printf "%-34s median %7.3f s  CPU %7.3f s  %6.2f M events/s  %5.1fx babeltrace2\n",
           l, w, c, n / (w > 0 ? w : 1e-9) / 1e6, bt / (w > 0 ? w : 1e-9) }'
done
