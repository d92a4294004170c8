#!/usr/bin/env bash
# Benchmark of the index's graph file (not part of the tests): `causeway threads` on a
# large generated kernel trace first reading the trace (--no-index), then loading the
# kernel analysis from the index, median of N runs each, and the speedup; the graph file's
# size against the trace's; and the file's load speed alone (bench/kernel_analysis_file_bench).
#   scripts/bench_index.sh [SIZE_MB]     default: 300; RUNS=N (default 5)
# The trace goes to $BENCH_DIR (default /tmp/causeway-bench) and is reused; the index to a
# private cache folder under it (--cache), removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${SKIP_BUILD:-}" ] || { scripts/setup.sh; scripts/build.sh release >/dev/null; }
dir="${BENCH_DIR:-/tmp/causeway-bench}"
mb="${1:-300}"
runs="${RUNS:-5}"
trace="$dir/kernel-${mb}mb"
mkdir -p "$dir"
if [ ! -f "$trace/metadata" ]; then
  rm -rf "$trace"
  build/release/bench/make_kernel_trace "$trace" --size-mb "$mb" --cpus 4 --seed 1
fi
cache="$(mktemp -d "$dir/index-cache.XXXXXX")"
trap 'rm -rf "$cache"' EXIT
cw=build/release/src/causeway

# Builds the graph file where the commands look for it: `causeway index` when it writes one,
# else the benchmark program's --write-index (the same function, WriteKernelAnalysisFile).
"$cw" index "$trace" --cache "$cache" >/dev/null 2>&1 || true
graph="$(find "$cache" -name graph.cwg | head -1)"
if [ -z "$graph" ]; then
  graph="$(build/release/bench/kernel_analysis_file_bench "$trace" --write-index "$cache")"
fi

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# Wall seconds of one run of the command (stdout discarded; stderr checked for the note).
timed() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>"$cache/stderr"
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
measure() {  # label, expected note ("" for none), command...
  local label="$1" note="$2"
  shift 2
  local times=()
  for _ in $(seq "$runs"); do
    times+=("$(timed "$@")")
    if [ -n "$note" ] && ! grep -q "$note" "$cache/stderr"; then
      echo "expected '$note' on stderr of: $*" >&2
      cat "$cache/stderr" >&2
      exit 1
    fi
  done
  printf '%s\n' "${times[@]}" | median
}

trace_bytes=$(du -sb --exclude=.causeway "$trace" | cut -f1)
graph_bytes=$(stat -c %s "$graph")
echo "trace: $trace ($((trace_bytes / 1000000)) MB); graph file: $((graph_bytes / 1000000)) MB ($(echo "scale=1; 100 * $graph_bytes / $trace_bytes" | bc)% of the trace)"
without=$(measure "threads --no-index" "" "$cw" threads "$trace" --cache "$cache" --no-index)
with=$(measure "threads (index)" "using the index built" "$cw" threads "$trace" --cache "$cache")
echo "causeway threads, median of $runs: reading the trace ${without} s, with the index ${with} s: $(echo "scale=1; $without / $with" | bc)x"
without=$(measure "critpath" "" "$cw" threads "$trace" --cache "$cache" --no-index --critical)
with=$(measure "critpath" "using the index built" "$cw" threads "$trace" --cache "$cache" --critical)
echo "causeway threads --critical, median of $runs: reading the trace ${without} s, with the index ${with} s: $(echo "scale=1; $without / $with" | bc)x"
build/release/bench/kernel_analysis_file_bench "$trace" "$cache/load.cwg" --runs "$runs"
