#!/usr/bin/env bash
# The main job: installs what is missing, builds Causeway and its demo application, runs the
# demo (a frontend calling customer, driver and route services over HTTP) under
# `causeway record` with one fault switched on, then the diagnosis: the slowest requests
# with the dominant cause of each (spans joined with the kernel trace), the slowest one's
# critical path, and where the trace and spans are.
#   scripts/demo.sh [FAULT]      FAULT: lock (default), cpu, disk, net
# Without root (recording loads eBPF programs), it analyzes a bundled LTTng trace instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release >/dev/null
cw=build/release/src/causeway
demo=build/release/examples/demo/causeway-demo
fault="${1:-lock}"

if [ "$(id -u)" -ne 0 ] || [ ! -e /sys/kernel/btf/vmlinux ]; then
  trace=tests/data/traces/lttng/many-threads
  echo "(not root, or no kernel BTF: cannot record here; analyzing the bundled trace $trace)"
  "$cw" stats "$trace" | sed -n 1,12p
  echo
  "$cw" threads "$trace" --limit 8
  echo
  "$cw" critpath "$trace" --tid 2673 --begin 1457113582.9 --end 1457113582.9003
  exit 0
fi

out="${CAUSEWAY_DEMO_OUT:-causeway-demo-out}/$(date +%Y%m%d-%H%M%S)-$fault"
mkdir -p "$(dirname "$out")"
echo "== causeway record -o $out -- causeway-demo run --fault $fault --duration 5"
"$cw" record -o "$out" -- "$demo" run --fault "$fault" --duration 5 --spans-dir "$out/spans"
echo
echo "== causeway stats $out/kernel"
"$cw" stats "$out/kernel" | sed -n 1,12p  # sed reads all: no SIGPIPE under pipefail
echo
echo "== causeway requests $out --limit 8   (slowest requests and what held them back)"
"$cw" requests "$out" --limit 8
slowest=$("$cw" requests "$out" --limit 1 | sed -n 2p | cut -d' ' -f1)
if [ -n "$slowest" ]; then
  echo
  echo "== causeway request $out $slowest   (the slowest one's critical path, first lines)"
  "$cw" request "$out" "$slowest" | sed -n 1,24p
fi
"$cw" requests "$out" --format html -o "$out/requests.html" >/dev/null
echo
echo "Report:        $out/requests.html   (timeline of every request's critical path, pie per request; open it in a browser)"
echo "Recording:     $out"
echo "Kernel trace:  $out/kernel   (babeltrace2 $out/kernel; causeway threads/critpath $out)"
echo "Spans:         $(ls "$out"/spans/*.json 2>/dev/null | tr '\n' ' ')"
if [ -d "$out/ust" ]; then echo "Span events:   $out/ust"; fi
echo "Next: causeway request $out ID   (any request from the table above)"
echo
echo "Explore it in the browser (the web UI: request list, zoomable critical paths, pie, levels):"
echo "  $cw serve $out --port 8080    # then open http://127.0.0.1:8080/"
