#!/usr/bin/env bash
# The main job: installs what is missing, builds Causeway, and analyzes a bundled real LTTng
# kernel trace (many-threads, ~240,000 events): its summary, a few events, the threads with
# their time per state, and the critical path of the thread that forks 8000 workers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release >/dev/null
trace="${1:-tests/data/traces/lttng/many-threads}"
cw=build/release/src/causeway
echo "== causeway stats $trace"
"$cw" stats "$trace" | sed -n 1,12p  # sed reads all: no SIGPIPE under pipefail
echo
echo "== causeway events $trace --name 'sched_s*' --limit 5"
"$cw" events "$trace" --name 'sched_s*' --limit 5
echo
echo "== causeway threads $trace --limit 8"
"$cw" threads "$trace" --limit 8
if [ $# -eq 0 ]; then
  # genKernelTraces (tid 2673) forks the workers one by one and waits for each: its critical
  # path runs through them.
  echo
  echo "== causeway critpath $trace --tid 2673 --begin 1457113582.9 --end 1457113582.9003"
  "$cw" critpath "$trace" --tid 2673 --begin 1457113582.9 --end 1457113582.9003
fi
