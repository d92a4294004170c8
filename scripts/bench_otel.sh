#!/usr/bin/env bash
# Unmodified OpenTelemetry services (tests/otel: Node.js, the official OTel JS SDK) under
# load, recorded by causeway record: how many spans the HTTP messages placed on their
# threads (goal: >= 99% of the spans with a remote parent or child), and the time of
# `causeway requests` per request on that recording beside the same on the demo's recording
# of as many requests, whose spans come from causeway-client's sync events
# (scripts/bench_requests.sh records it). RUNS runs each, interleaved; medians.
# Usage: sudo scripts/bench_otel.sh [REQUESTS (10000)] [RUNS (3)]
set -euo pipefail
cd "$(dirname "$0")/.."
requests="${1:-10000}"
runs="${2:-3}"
if [ "$(id -u)" -ne 0 ]; then echo "bench_otel: causeway record needs root" >&2; exit 1; fi
scripts/setup.sh
scripts/build.sh release >/dev/null
cw=build/release/src/causeway
# run.sh's load: 4 requests a round, 8 a burst round (lock and sleep, 4 each): 60% rounds.
rounds=$((requests * 6 / 10 / 4))
bursts=$(((requests - 4 * rounds) / 8))
total=$((4 * rounds + 8 * bursts))
otel="build/bench-otel-$total"
if [ ! -f "$otel/kernel/metadata" ]; then
  rm -rf "$otel"
  echo "recording the OTel services for $total requests (once; kept in $otel)" >&2
  "$cw" record -o "$otel" -- tests/otel/run.sh "$otel/spans" --rounds "$rounds" --bursts "$bursts" >/dev/null
fi
demo="build/bench-requests-$total"
if [ ! -f "$demo/kernel/metadata" ]; then
  rm -rf "$demo"
  echo "recording the demo until $total requests are served (once; kept in $demo)" >&2
  "$cw" record -o "$demo" -- build/release/examples/demo/causeway-demo run --requests "$total" \
    --rate 0 --concurrency 16 --duration 0 >/dev/null
fi

"$cw" requests "$otel" --format json --limit 0 > /tmp/causeway-bench-otel.$$.json
python3 - /tmp/causeway-bench-otel.$$.json <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
placed = c["spans_by_thread_source"]["http_message"] + c["spans_by_thread_source"]["ancestor"]
print(f"OTel recording: {c['requests']} requests, {c['spans']} spans, {c['http_messages']} HTTP messages "
      f"({c['http_messages_with_context']} with trace context, {c['http_messages_truncated']} cut)")
print(f"placement: {c['spans_by_thread_source']['http_message']} spans by HTTP messages, "
      f"{c['spans_by_thread_source']['ancestor']} under their parent, {c['spans_without_thread']} without a thread: "
      f"{100.0 * placed / max(1, c['spans']):.2f}% placed (goal >= 99%)")
PY
rm -f /tmp/causeway-bench-otel.$$.json

measure() {  # CPU seconds (user + sys) of one run
  /usr/bin/time -f "%U %S" "$@" >/dev/null 2>/tmp/causeway-bench-time.$$ || { cat /tmp/causeway-bench-time.$$ >&2; exit 1; }
  tail -1 /tmp/causeway-bench-time.$$ | awk '{printf "%.3f\n", $1 + $2}'
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
: > /tmp/causeway-bench-otel-a.$$
: > /tmp/causeway-bench-otel-b.$$
for ((i = 0; i < runs; i++)); do
  measure "$cw" requests "$otel" --limit 0 >> /tmp/causeway-bench-otel-a.$$
  measure "$cw" requests "$demo" --limit 0 >> /tmp/causeway-bench-otel-b.$$
done
a=$(median < /tmp/causeway-bench-otel-a.$$)
b=$(median < /tmp/causeway-bench-otel-b.$$)
rm -f /tmp/causeway-bench-otel-a.$$ /tmp/causeway-bench-otel-b.$$ /tmp/causeway-bench-time.$$
awk -v a="$a" -v b="$b" -v n="$total" 'BEGIN {
  printf "causeway requests, CPU s (median of runs): OTel spans placed by HTTP messages %.3f, causeway-client spans (demo) %.3f\n", a, b
  printf "per request: %.1f us vs %.1f us: ratio %.2f (goal <= 1.10; the two recordings differ in kernel events per request)\n", 1e6 * a / n, 1e6 * b / n, a / b
}'
