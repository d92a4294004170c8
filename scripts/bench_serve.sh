#!/usr/bin/env bash
# `causeway serve` under a scripted client (bench/serve_client.js): time from start to
# listening reading the trace (--no-index) and from the index `causeway index` builds (built
# here first when missing or stale), then, against the indexed server, the first view
# (thread tree, 100 threads' states and the arrows over the whole trace at 1000 px, CPU
# usage), a zoom/pan session (p50, p99 of the server time from Server-Timing and of the
# round trip), and CLIENTS concurrent sessions (errors, p50, p99).
# Usage: scripts/bench_serve.sh TRACE_OR_RECORDING_DIR [ZOOMS (100)] [CLIENTS (20)]
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:?usage: scripts/bench_serve.sh TRACE_OR_RECORDING_DIR [ZOOMS] [CLIENTS]}"
zooms="${2:-100}"
clients="${3:-20}"
cw=build/release/src/causeway
out=$(mktemp)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -f "$out"
}
trap cleanup EXIT

# Starts the server with extra flags "$@"; `elapsed`: the seconds until it listens.
start_server() {
  local start
  start=$(date +%s.%N)
  "$cw" serve "$dir" --port 0 "$@" >"$out" 2>&1 &
  pid=$!
  for _ in $(seq 6000); do
    grep -q listening "$out" && break
    kill -0 "$pid" 2>/dev/null || { cat "$out" >&2; exit 1; }
    sleep 0.05
  done
  elapsed=$(echo "$(date +%s.%N) - $start" | bc)
}
stop_server() {
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
}

echo "trace: $dir ($(du -sh --exclude=.causeway "$dir" | cut -f1))"
start_server --no-index
no_index=$elapsed
stop_server
"$cw" index "$dir" >/dev/null
start_server
with_index=$elapsed
grep -q "using the index" "$out" || { echo "the server did not use the index:" >&2; cat "$out" >&2; exit 1; }
echo "listening after: ${no_index} s reading the trace, ${with_index} s from the index" \
  "($(echo "scale=1; $no_index / $with_index" | bc)x)"
grep 'events,' "$out" || true
url=$(grep -o 'http://[^/]*' "$out" | head -1)
node bench/serve_client.js "$url" "$zooms" "$clients"
