#!/usr/bin/env bash
# `causeway serve` under a scripted client (bench/serve_client.js): time from start to
# listening (the analysis), the first view (thread tree, 100 threads' states and the arrows
# over the whole trace at 1000 px, CPU usage), a zoom/pan session (p50, p99 round trip and
# Server-Timing), and CLIENTS concurrent sessions (errors, p50, p99).
# Usage: scripts/bench_serve.sh TRACE_OR_RECORDING_DIR [ZOOMS (100)] [CLIENTS (20)]
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:?usage: scripts/bench_serve.sh TRACE_OR_RECORDING_DIR [ZOOMS] [CLIENTS]}"
zooms="${2:-100}"
clients="${3:-20}"
cw=build/release/src/causeway
out=$(mktemp)
start=$(date +%s.%N)
"$cw" serve "$dir" --port 0 >"$out" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -f "$out"' EXIT
for _ in $(seq 6000); do grep -q listening "$out" && break; sleep 0.1; done
listening=$(date +%s.%N)
url=$(grep -o 'http://[^/]*' "$out" | head -1)
echo "trace: $dir ($(du -sh "$dir" | cut -f1)); listening after $(echo "$listening - $start" | bc) s"
grep 'events,' "$out" || true
node bench/serve_client.js "$url" "$zooms" "$clients"
