#!/usr/bin/env bash
# Runs the OpenTelemetry test services once: the collector stand-in, the backend and the
# frontend on loopback ports the kernel picks, then the load, then a clean stop (SIGTERM, so
# each service's batch span processor flushes). Spans land in OUT_DIR/otel.json, one OTLP
# JSON document per line. Made to run under the recorder:
#
#   causeway record -o DIR -- tests/otel/run.sh DIR/spans
#   causeway requests DIR            # finds DIR/spans by default
#
# Options (defaults keep a run to a few seconds):
#   --rounds N        sequential rounds, one request per route each    (10)
#   --bursts N        bursts per burst route                            (5)
#   --burst-routes L  routes hit by bursts, comma-separated             (lock,sleep)
#   --burst-size N    concurrent requests per burst                     (4)
#   --seed N          order of the sequential requests                  (1)
#   --disk-kb N       KB written before each fsync                      (8)
#   --disk-fsyncs N   fsyncs per /api/disk request                      (3)
#   --cpu-ms N        CPU loop of /api/cpu in the backend               (20)
#   --sleep-ms N      timer of /api/sleep in the backend                (20)
#   --lock-ms N       critical section of /api/lock in the backend      (10)
#   --step-ms N       the frontend's CPU step after the backend answers (1.5)
#   --data-dir DIR    where /api/disk writes (a temporary folder under /var/tmp, which
#                     must not be tmpfs: fsync there would not reach a disk)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
case "$1" in -h | --help) usage ;; esac
out_dir="$1"
shift

rounds=10 bursts=5 burst_routes=lock,sleep burst_size=4 seed=1
export DISK_KB=8 DISK_FSYNCS=3 CPU_MS=20 SLEEP_MS=20 LOCK_MS=10 STEP_MS=1.5
data_dir=""
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  case "$1" in
    --rounds) rounds="$2" ;;
    --bursts) bursts="$2" ;;
    --burst-routes) burst_routes="$2" ;;
    --burst-size) burst_size="$2" ;;
    --seed) seed="$2" ;;
    --disk-kb) DISK_KB="$2" ;;
    --disk-fsyncs) DISK_FSYNCS="$2" ;;
    --cpu-ms) CPU_MS="$2" ;;
    --sleep-ms) SLEEP_MS="$2" ;;
    --lock-ms) LOCK_MS="$2" ;;
    --step-ms) STEP_MS="$2" ;;
    --data-dir) data_dir="$2" ;;
    *) usage ;;
  esac
  shift 2
done

if [ ! -d "$here/node_modules/@opentelemetry/sdk-node" ]; then
  echo "run.sh: OpenTelemetry packages missing: run scripts/setup.sh (npm ci in tests/otel)" >&2
  exit 1
fi

mkdir -p "$out_dir"
spans="$out_dir/otel.json"
: >"$spans"
work="$(mktemp -d)"
made_data_dir=0
if [ -z "$data_dir" ]; then
  data_dir="$(mktemp -d /var/tmp/causeway-otel-data.XXXXXX)"
  made_data_dir=1
fi

# Every process this script starts, by PID; stopped on any exit.
pids=()
stop() { # stop PID...: SIGTERM, then up to 10 s for each to exit, then SIGKILL
  local pid
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "$@"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}
# shellcheck disable=SC2317 # (called by the EXIT trap, which shellcheck does not follow)
cleanup() {
  local status=$?
  # Latest first: the load, then the services (which flush their spans), then the collector.
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop "${pids[i]}"; done
  if [ "$status" -ne 0 ]; then
    for log in "$work"/*.log; do
      [ -s "$log" ] && { echo "--- $(basename "$log")" >&2; tail -n 20 "$log" >&2; }
    done
  fi
  rm -rf "$work"
  [ "$made_data_dir" -eq 0 ] || rm -rf "$data_dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

wait_for_port() { # wait_for_port NAME PID: prints the port the process wrote
  local name="$1" pid="$2"
  for _ in $(seq 200); do
    if [ -s "$work/$name.port" ]; then cat "$work/$name.port"; return 0; fi
    kill -0 "$pid" 2>/dev/null || { echo "run.sh: $name exited before listening" >&2; return 1; }
    sleep 0.05
  done
  echo "run.sh: $name did not listen within 10 s" >&2
  return 1
}

node "$here/collector.js" --out "$spans" --port-file "$work/collector.port" \
  2>"$work/collector.log" &
collector=$!
pids+=("$collector")
collector_port="$(wait_for_port collector "$collector")"

# Ordinary OpenTelemetry configuration by environment; metrics and logs are not exported
# (the stand-in takes traces only).
export OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$collector_port"
export OTEL_METRICS_EXPORTER=none OTEL_LOGS_EXPORTER=none

OTEL_SERVICE_NAME=backend node --require "$here/otel.js" "$here/backend.js" \
  --port-file "$work/backend.port" --data-dir "$data_dir" >"$work/backend.log" 2>&1 &
backend=$!
pids+=("$backend")
backend_port="$(wait_for_port backend "$backend")"

OTEL_SERVICE_NAME=frontend node --require "$here/otel.js" "$here/frontend.js" \
  --port-file "$work/frontend.port" --backend "http://127.0.0.1:$backend_port" \
  >"$work/frontend.log" 2>&1 &
frontend=$!
pids+=("$frontend")
frontend_port="$(wait_for_port frontend "$frontend")"

echo "run.sh: collector pid $collector port $collector_port, backend pid $backend port $backend_port, frontend pid $frontend port $frontend_port" >&2
# In the background so that a SIGTERM to this script is handled at once (bash runs a trap
# only after the foreground command ends, but interrupts `wait`).
node "$here/load.js" --url "http://127.0.0.1:$frontend_port" --rounds "$rounds" \
  --bursts "$bursts" --burst-routes "$burst_routes" --burst-size "$burst_size" \
  --seed "$seed" &
load=$!
pids+=("$load")
load_status=0
wait "$load" || load_status=$?

# The services first: each flushes its spans to the collector before it exits, so once
# both are gone the file is complete and the collector can go.
stop "$frontend" "$backend"
stop "$collector"
pids=()
cat "$work/collector.log" >&2
echo "run.sh: $(wc -l <"$spans") OTLP JSON documents in $spans" >&2
exit $load_status
