#!/usr/bin/env bash
# One client tracepoint against LTTng-UST on the same event, disabled and enabled, side by
# side in one process (bench/tracepoint/tracepoint_bench.cc), with the ratio. Starts an
# LTTng session daemon if none runs (and stops it at the end), and a session with the
# benchmark's event enabled. Usage: scripts/bench_client.sh [extra Google Benchmark flags]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release >/dev/null
BENCH=build/release/bench/tracepoint/tracepoint_bench
[ -x "$BENCH" ] || { echo "bench_client: $BENCH was not built (liblttng-ust-dev missing?)" >&2; exit 1; }

TMP=$(mktemp -d /tmp/causeway-bench-client.XXXXXX)
SESSION="causeway-bench-$$"
STARTED_SESSIOND=""
cleanup() {
  lttng destroy "$SESSION" >/dev/null 2>&1 || true
  if [ -n "$STARTED_SESSIOND" ]; then
    pkill -x lttng-sessiond >/dev/null 2>&1 || true
    sleep 0.5
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT

if ! pgrep -x lttng-sessiond >/dev/null; then
  # User-space tracing only: this machine has no LTTng kernel modules.
  lttng-sessiond --daemonize --no-kernel
  STARTED_SESSIOND=1
fi
lttng create "$SESSION" --output "$TMP/lttng" >/dev/null
# Large sub-buffers so that a batch never overflows LTTng's buffers either.
lttng enable-channel -u --subbuf-size 8M --num-subbuf 8 cwch >/dev/null
lttng enable-event -u -c cwch 'cwbench:event' >/dev/null
lttng start >/dev/null

CW_BENCH_TRACE_DIR="$TMP/causeway" "$BENCH" "$@"

lttng stop >/dev/null
kept=$(babeltrace2 "$TMP/lttng" 2>/dev/null | wc -l)
echo "lttng-ust events kept in its trace: $kept"
