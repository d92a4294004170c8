#!/usr/bin/env bash
# Benchmarks (not part of the tests). Writes a synthetic LTTng-like kernel trace with our
# CTF writer and decodes it with Causeway and with babeltrace2, side by side.
#   scripts/bench.sh [SIZE_MB ...]     default: 100 600
# Traces go to $BENCH_DIR (default /tmp/causeway-bench) and are reused between runs. Each has
# $CPUS CPU streams (default 4; a machine with more CPUs writes more streams, which the
# merge must interleave); $RUNS runs (default 3). HEADER=plain writes perf's event header
# (u32 id, u64 timestamp) instead of LTTng's compact one. ROTATE_MB=M writes a rotated
# recording instead, as `lttng rotate` every M MB would (chunks that share the trace UUID).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release >/dev/null
dir="${BENCH_DIR:-/tmp/causeway-bench}"
mkdir -p "$dir"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 600)
for mb in "${sizes[@]}"; do
  cpus="${CPUS:-4}"
  trace="$dir/kernel-${mb}mb"
  [ "$cpus" = 4 ] || trace="$trace-${cpus}cpus"
  header=()
  if [ -n "${ROTATE_MB:-}" ]; then
    trace="$trace-rotated-${ROTATE_MB}mb"
    header=(--rotate-mb "$ROTATE_MB")
  fi
  case "${HEADER:-lttng}" in
    lttng) ;;
    plain) trace="$trace-plain" header+=(--plain-header) ;;
    *) echo "HEADER must be lttng or plain, not '${HEADER}'" >&2; exit 2 ;;
  esac
  if [ ! -f "$trace/metadata" ] && [ ! -f "$trace/chunk-0/metadata" ]; then
    rm -rf "$trace"
    build/release/bench/make_kernel_trace "$trace" --size-mb "$mb" --cpus "$cpus" --seed 1 \
      ${header[@]+"${header[@]}"}
  fi
  build/release/bench/ctf_read_bench "$trace" --runs "${RUNS:-3}"
  echo
done
