#!/usr/bin/env bash
# Runs every analysis command on the bundled traces and demo recordings and writes each
# command's stdout, stderr and exit code into OUT_DIR, one file per run. Two builds'
# OUT_DIRs compared with `diff -r` tell whether a change altered any output byte: the check
# a refactoring must pass.
#
#   scripts/golden_outputs.sh BUILD_BIN OUT_DIR
#   scripts/golden_outputs.sh /tmp/before/causeway /tmp/out-before
#   scripts/golden_outputs.sh build/release/src/causeway /tmp/out-after
#   diff -r /tmp/out-before /tmp/out-after && echo same
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: scripts/golden_outputs.sh CAUSEWAY_BINARY OUT_DIR" >&2
  exit 2
fi
cw="$(realpath "$1")"
out="$(realpath -m "$2")"
cd "$(dirname "$0")/.."
data="$PWD/tests/data"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# run NAME ARGS...: one run of the command, outputs kept under NAME.
run() {
  local name="$1"
  shift
  local rc=0
  (cd "$work" && "$cw" "$@" >"$out/$name.out" 2>"$out/$name.err") || rc=$?
  # Paths of the scratch folder and of the checkout differ between runs: name them the same
  # way in both, so that two checkouts' outputs compare.
  sed -i -e "s|$work|WORK|g" -e "s|$PWD|REPO|g" "$out/$name.out" "$out/$name.err"
  echo "$rc" >"$out/$name.rc"
}

# keep FILE DEST: a file a command wrote, kept with the scratch folder's path named WORK.
keep() {
  if [ -f "$1" ]; then sed -e "s|$work|WORK|g" -e "s|$PWD|REPO|g" "$1" >"$2" && rm -f "$1"; else echo missing >"$2"; fi
}

traces=(lttng/many-threads lttng/bug446190 lttng/memory lttng/hello-lost perf-sched)
for t in "${traces[@]}"; do
  n="${t//\//_}"
  dir="$data/traces/$t"
  run "$n.events" events "$dir" --limit 2000
  run "$n.events.jsonl" events "$dir" --format jsonl --limit 2000
  run "$n.stats" stats "$dir" --threads 1
  run "$n.stats.json" stats "$dir" --format json --threads 1
  run "$n.threads" threads "$dir"
  run "$n.threads.json" threads "$dir" --format json
  # The critical paths of the three threads that ran longest.
  for tid in $("$cw" threads "$dir" --format json --sort running 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(str(t["tid"]) for t in d["threads"][:3]))' 2>/dev/null); do
    run "$n.critpath.$tid" critpath "$dir" --tid "$tid"
    run "$n.critpath.$tid.json" critpath "$dir" --tid "$tid" --format json
  done
done

for r in lock cpu disk net; do
  tar -C "$work" -xf "$data/recordings/demo-$r.tar.zst" --use-compress-program=unzstd
  dir="$work/$r"
  run "demo-$r.stats" stats "$dir" --threads 1
  run "demo-$r.threads" threads "$dir"
  run "demo-$r.sync" sync "$dir"
  run "demo-$r.requests" requests "$dir" --limit -1
  run "demo-$r.requests.json" requests "$dir" --format json --limit -1
  run "demo-$r.requests.html" requests "$dir" --format html -o "$work/r.html"
  keep "$work/r.html" "$out/demo-$r.report.html"
  run "demo-$r.diagnose" diagnose "$dir" --limit -1
  run "demo-$r.diagnose.json" diagnose "$dir" --format json --limit -1
  run "demo-$r.export" export "$dir" --format chrome -o "$work/t.json"
  keep "$work/t.json" "$out/demo-$r.chrome.json"
  for id in $("$cw" requests "$dir" --format json --limit 3 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(r["id"] for r in d["requests"]))' 2>/dev/null); do
    run "demo-$r.request.$id" request "$dir" "$id"
    run "demo-$r.request.$id.json" request "$dir" "$id" --format json
  done
  rm -rf "$dir"
done
echo "golden outputs: $(ls "$out" | wc -l) files in $out"
