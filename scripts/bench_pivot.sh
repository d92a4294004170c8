#!/usr/bin/env bash
# Pivot Tracing's overheads (issue 7): the firing path in one process (bench/pivot: disabled
# tracepoint, advice invocations, baggage with 1 and 60 tuples), then the demo's latency with
# agents and no query, and with five queries installed, against spans only
# (bench/demo_overhead.cc --suite pivot; starts its own nats-server on loopback).
# Usage: scripts/bench_pivot.sh [--runs N] [--rate R] [--duration S] [--warmup S]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release >/dev/null
build/release/bench/pivot/pivot_bench
echo
exec build/release/bench/demo_overhead build/release/src/causeway \
  build/release/examples/demo/causeway-demo --suite pivot "$@"
