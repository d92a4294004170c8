#!/usr/bin/env bash
# Benchmark of the kernel analysis (not part of the tests): execution graph plus the
# critical path of every thread that ran, on synthetic LTTng-like kernel traces of several
# sizes, beside the reader alone; prints MB/s and events/s per core, peak RSS and the
# ratio to Trace Compass's published figure.
#   scripts/bench_graph.sh [SIZE_MB ...]     default: 250 500 1000
# Traces go to $BENCH_DIR (default /tmp/causeway-bench) and are reused between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release >/dev/null
dir="${BENCH_DIR:-/tmp/causeway-bench}"
mkdir -p "$dir"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(250 500 1000)
traces=()
for mb in "${sizes[@]}"; do
  trace="$dir/kernel-${mb}mb"
  if [ ! -f "$trace/metadata" ]; then
    rm -rf "$trace"
    build/release/bench/make_kernel_trace "$trace" --size-mb "$mb" --cpus 4 --seed 1
  fi
  traces+=("$trace")
done
build/release/bench/kernel_graph_bench "${traces[@]}" --runs "${RUNS:-3}" --flat
