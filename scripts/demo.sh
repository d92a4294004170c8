#!/usr/bin/env bash
# The main job: installs what is missing, builds Causeway, and reads a bundled real LTTng
# kernel trace (many-threads, ~240,000 events): its summary, then a few events.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release >/dev/null
trace="${1:-tests/data/traces/lttng/many-threads}"
cw=build/release/src/causeway
echo "== causeway stats $trace"
"$cw" stats "$trace" | sed -n 1,25p  # sed reads all: no SIGPIPE under pipefail
echo
echo "== causeway events $trace --name 'sched_s*' --limit 8"
"$cw" events "$trace" --name 'sched_s*' --limit 8
