#!/usr/bin/env bash
# Tracing overhead on the demo under one fixed load: no tracing, spans only, spans + kernel
# in snapshot mode, spans + kernel to disk (bench/demo_overhead.cc). Needs root (the
# recorder). Usage: sudo scripts/bench_overhead.sh [--runs N] [--rate R] [--duration S] [--warmup S]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  echo "bench_overhead: causeway record needs root; run it with sudo" >&2
  exit 1
fi
scripts/setup.sh
scripts/build.sh release >/dev/null
exec build/release/bench/demo_overhead build/release/src/causeway \
  build/release/examples/demo/causeway-demo "$@"
