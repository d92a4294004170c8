#!/usr/bin/env bash
# Request analysis end to end on a recording with many requests: records the demo (no fault,
# as fast as it goes) once under causeway record, then times `causeway requests` (read the
# kernel and user-space traces and the spans, build the graph, every request's critical path
# and the summaries) and, beside it, `causeway threads` (the kernel graph alone), RUNS times
# each, interleaved; prints medians of CPU time, MB/s per core, wall time and peak RSS.
# Usage: sudo scripts/bench_requests.sh [REQUESTS (10000)] [RUNS (3)]
set -euo pipefail
cd "$(dirname "$0")/.."
requests="${1:-10000}"
runs="${2:-3}"
if [ "$(id -u)" -ne 0 ]; then echo "bench_requests: causeway record needs root" >&2; exit 1; fi
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
req_cpu=(); req_rss=(); req_wall=(); req_sys=(); thr_cpu=(); thr_rss=(); thr_wall=(); thr_sys=()
for i in $(seq "$runs"); do
  read -r c m w k < <(measure "$cw" requests "$rec" --format json --limit -1)
  req_cpu+=("$c"); req_rss+=("$m"); req_wall+=("$w"); req_sys+=("$k")
  read -r c m w k < <(measure "$cw" threads "$rec/kernel" --format json)
  thr_cpu+=("$c"); thr_rss+=("$m"); thr_wall+=("$w"); thr_sys+=("$k")
done
rm -f /tmp/causeway-bench-time.$$
n=$("$cw" requests "$rec" --format json --limit 0 | grep -o '"requests":[0-9][0-9]*' | head -1 | cut -d: -f2)
for what in requests threads; do
  # MB/s over what each reads: requests the whole recording, threads the kernel trace.
  if [ "$what" = requests ]; then cpus=("${req_cpu[@]}"); rsss=("${req_rss[@]}"); walls=("${req_wall[@]}"); syss=("${req_sys[@]}"); b=$bytes
  else cpus=("${thr_cpu[@]}"); rsss=("${thr_rss[@]}"); walls=("${thr_wall[@]}"); syss=("${thr_sys[@]}"); b=$kernel_bytes; fi
  cpu=$(printf '%s\n' "${cpus[@]}" | median)
  sys=$(printf '%s\n' "${syss[@]}" | median)
  rss=$(printf '%s\n' "${rsss[@]}" | median)
  wall=$(printf '%s\n' "${walls[@]}" | median)
  # The kernel's share (sys) is shown apart: mostly zeroing the pages the heap first
  # touches, its cost varies severalfold from run to run on a shared VM.
  awk -v w="$what" -v c="$cpu" -v k="$sys" -v r="$rss" -v b="$b" -v t="$wall" 'BEGIN {
    printf "%-9s CPU %.2f s (sys %.2f)  %.0f MB/s per core  wall %.2f s (%.0f MB/s)  peak RSS %.1f MB (%.0f%% of what it reads)\n",
           w, c, k, b / 1e6 / c, t, b / 1e6 / t, r / 1024, 100 * r * 1024 / b }'
done
echo "requests analysed: $n; goal: >= 500 MB/s per core"
