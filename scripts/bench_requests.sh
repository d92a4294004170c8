#!/usr/bin/env bash
# Request analysis end to end on a recording with many requests: records the demo (no fault,
# as fast as it goes) once under causeway record, then times `causeway requests` (read the
# kernel and user-space traces and the spans, build the graph, every request's critical path
# and the summaries) and, beside it, `causeway threads` (the kernel graph alone), RUNS times
# each, interleaved; prints medians of CPU time, MB/s per core, wall time and peak RSS.
# Usage: sudo [BASELINE=OTHER_CAUSEWAY] scripts/bench_requests.sh [REQUESTS (10000)] [RUNS (3)]
# BASELINE: another build of causeway (e.g. a copy of build/release/src/causeway kept from
# before a change), measured in the same runs, interleaved with this build: on a shared VM
# whose speed drifts, the ratios it prints are the figures to trust, not the absolute times.
set -euo pipefail
cd "$(dirname "$0")/.."
requests="${1:-10000}"
runs="${2:-3}"
if [ "$(id -u)" -ne 0 ]; then echo "bench_requests: causeway record needs root" >&2; exit 1; fi
if [ -n "${BASELINE:-}" ] && [ ! -x "$BASELINE" ]; then
  echo "bench_requests: BASELINE=$BASELINE is not an executable (a causeway binary)" >&2; exit 2
fi
scripts/setup.sh
scripts/build.sh release >/dev/null
cw=build/release/src/causeway
rec="build/bench-requests-$requests"
if [ ! -f "$rec/kernel/metadata" ]; then
  rm -rf "$rec"
  echo "recording the demo until $requests requests are served (once; kept in $rec)" >&2
  "$cw" record -o "$rec" -- build/release/examples/demo/causeway-demo run --requests "$requests" \
    --rate 0 --concurrency 16 --duration 0 >/dev/null
fi
bytes=$(du -sb "$rec/kernel" "$rec/ust" "$rec/spans" | awk '{s+=$1} END {print s}')
kernel_bytes=$(du -sb "$rec/kernel" | awk '{print $1}')
echo "recording: $rec, $((bytes / 1000000)) MB (kernel + user-space traces + spans), kernel $((kernel_bytes / 1000000)) MB"

measure() {  # prints "cpu_seconds max_rss_kb wall_seconds sys_seconds"
  /usr/bin/time -f "%U %S %M %e" "$@" >/dev/null 2>/tmp/causeway-bench-time.$$ || { cat /tmp/causeway-bench-time.$$ >&2; exit 1; }
  tail -1 /tmp/causeway-bench-time.$$ | awk '{printf "%.3f %d %.3f %.3f\n", $1 + $2, $3, $4, $2}'
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
# Labels in the order measured (interleaved, run after run); with BASELINE, a previous build
# of causeway is measured beside this one, in the same runs.
labels=(requests threads)
[ -n "${BASELINE:-}" ] && labels+=("requests-baseline" "threads-baseline")
declare -A cpus rsss walls syss
for i in $(seq "$runs"); do
  for label in "${labels[@]}"; do
    bin="$cw"; [ "${label%-baseline}" != "$label" ] && bin="$BASELINE"
    if [ "${label%-baseline}" = requests ]; then args=(requests "$rec" --format json --limit -1)
    else args=(threads "$rec/kernel" --format json); fi
    read -r c m w k < <(measure "$bin" "${args[@]}")
    cpus[$label]+="$c "; rsss[$label]+="$m "; walls[$label]+="$w "; syss[$label]+="$k "
  done
done
rm -f /tmp/causeway-bench-time.$$
n=$("$cw" requests "$rec" --format json --limit 0 | grep -o '"requests":[0-9][0-9]*' | head -1 | cut -d: -f2)
declare -A cpu_median rss_median
for label in "${labels[@]}"; do
  # MB/s over what each reads: requests the whole recording, threads the kernel trace.
  b=$bytes; [ "${label%-baseline}" = threads ] && b=$kernel_bytes
  cpu=$(printf '%s\n' ${cpus[$label]} | median)
  sys=$(printf '%s\n' ${syss[$label]} | median)
  rss=$(printf '%s\n' ${rsss[$label]} | median)
  wall=$(printf '%s\n' ${walls[$label]} | median)
  cpu_median[$label]=$cpu; rss_median[$label]=$rss
  # The kernel's share (sys) is shown apart: mostly zeroing the pages the heap first
  # touches, its cost varies severalfold from run to run on a shared VM.
  awk -v w="$label" -v c="$cpu" -v k="$sys" -v r="$rss" -v b="$b" -v t="$wall" 'BEGIN {
    printf "%-18s CPU %.2f s (sys %.2f)  %.0f MB/s per core  wall %.2f s (%.0f MB/s)  peak RSS %.1f MB (%.0f%% of what it reads)\n",
           w, c, k, b / 1e6 / c, t, b / 1e6 / t, r / 1024, 100 * r * 1024 / b }'
done
if [ -n "${BASELINE:-}" ]; then
  for what in requests threads; do
    awk -v w="$what" -v c="${cpu_median[$what]}" -v cb="${cpu_median[$what-baseline]}" \
        -v r="${rss_median[$what]}" -v rb="${rss_median[$what-baseline]}" 'BEGIN {
      printf "%-18s this build / baseline: CPU %.3f, peak RSS %.3f\n", w, c / cb, r / rb }'
  done
fi
echo "requests analysed: $n; goal: >= 500 MB/s per core"
