#!/usr/bin/env bash
# Bounded resources under load (issue 57), not part of the test command:
#  1. requests overlapping on one thread (bench/make_overlapping_requests): `causeway
#     requests` on N = 10k, 100k, 1M of them, peak RSS and time (memory linear in N);
#  2. the HTML report and the Chrome export under a memory cap (ulimit -v): written, or
#     refused with a message, never an abort;
#  3. a soak: `causeway record --snapshot` for DURATION seconds under `perf bench sched
#     messaging`, a snapshot every 10 s, then every command on every snapshot.
# Prints peak RSS, lost events and errors; exits 1 on any error.
# Usage: sudo scripts/stress.sh [--duration S (600)] [--sizes "10000 100000 1000000"]
#                               [--skip-bench] [--skip-soak]
set -uo pipefail
cd "$(dirname "$0")/.."
duration=600
sizes="10000 100000 1000000"
bench=1
soak=1
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --skip-bench) bench=0; shift ;;
    --skip-soak) soak=0; shift ;;
    *) echo "usage: scripts/stress.sh [--duration S] [--sizes \"N...\"] [--skip-bench] [--skip-soak]" >&2; exit 2 ;;
  esac
done
cw="${CAUSEWAY:-build/release/src/causeway}"
gen="${MAKE_OVERLAPPING:-build/release/bench/make_overlapping_requests}"
for b in "$cw" "$gen"; do
  [ -x "$b" ] || { echo "stress: $b is not built (cmake --build --preset release --target causeway make_overlapping_requests)" >&2; exit 2; }
done
work="${STRESS_DIR:-/tmp/causeway-stress}"
mkdir -p "$work"
errors=0
peak_rss=0
# run LABEL CMD...: runs CMD, prints its time and peak RSS; an exit code other than 0 is an
# error (the output is kept in $work/LABEL.out / .err).
run() {
  local label="$1"; shift
  local rc=0
  /usr/bin/time -f "%e %M" -o "$work/$label.time" "$@" >"$work/$label.out" 2>"$work/$label.err" || rc=$?
  read -r secs kb <"$work/$label.time" 2>/dev/null || { secs=0; kb=0; }
  kb="${kb:-0}"
  [ "$kb" -gt "$peak_rss" ] 2>/dev/null && peak_rss=$kb
  printf '%-40s exit %-3s %8.2f s %8.1f MB\n' "$label" "$rc" "$secs" "$(awk -v k="$kb" 'BEGIN{print k/1024}')"
  if [ "$rc" -ne 0 ]; then
    errors=$((errors + 1))
    sed 's/^/    /' "$work/$label.err" | tail -3
  fi
  return 0
}

if [ "$bench" = 1 ]; then
  echo "== requests overlapping on one thread: causeway requests (text, --limit 20)"
  for n in $sizes; do
    dir="$work/overlapping-$n"
    [ -f "$dir/kernel/metadata" ] || { rm -rf "$dir"; "$gen" "$dir" --requests "$n" || { errors=$((errors + 1)); continue; }; }
    run "requests-overlapping-$n" "$cw" requests "$dir"
  done
  echo "== reports under a 2 GB cap (ulimit -v): written, or refused with a message"
  n=$(echo "$sizes" | awk '{print $1}')
  dir="$work/overlapping-$n"
  for what in html chrome; do
    rc=0
    if [ "$what" = html ]; then
      args=(requests "$dir" --format html -o "$work/report.html")
    else
      args=(export "$dir" --format chrome -o "$work/trace.json")
    fi
    (ulimit -v 2000000; "$cw" "${args[@]}") >"$work/$what.out" 2>"$work/$what.err" || rc=$?
    printf '%-40s exit %s: %s\n' "$what report ($n requests)" "$rc" "$(head -c 200 "$work/$what.out" "$work/$what.err" | tr '\n' ' ')"
    # 0 (written) or 1 (refused, or out of memory, with a message); 134 is an abort.
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then errors=$((errors + 1)); fi
    if [ "$rc" -eq 1 ] && ! [ -s "$work/$what.err" ]; then errors=$((errors + 1)); fi
  done
fi

if [ "$soak" = 1 ]; then
  if [ "$(id -u)" -ne 0 ]; then echo "stress: the soak records the kernel: run as root" >&2; exit 2; fi
  command -v perf >/dev/null || { echo "stress: the soak needs perf (perf bench sched messaging)" >&2; exit 2; }
  rec="$work/soak"
  rm -rf "$rec"
  echo "== soak: causeway record --snapshot for ${duration} s under perf bench sched messaging, a snapshot every 10 s"
  "$cw" record -o "$rec" --snapshot --duration "$duration" >"$work/record.out" 2>"$work/record.err" &
  rec_pid=$!
  (while :; do perf bench sched messaging -g 10 -l 200 >/dev/null 2>&1; done) &
  load_pid=$!
  sleep 2
  end=$((SECONDS + duration - 2))
  while [ "$SECONDS" -lt "$end" ] && kill -0 "$rec_pid" 2>/dev/null; do
    sleep 10
    kill -0 "$rec_pid" 2>/dev/null || break
    "$cw" snapshot "$rec" >>"$work/snapshot.out" 2>>"$work/snapshot.err" || { echo "snapshot failed: $(tail -1 "$work/snapshot.err")"; errors=$((errors + 1)); }
  done
  kill "$load_pid" 2>/dev/null; wait "$load_pid" 2>/dev/null
  wait "$rec_pid"; rc=$?
  echo "recorder exit $rc; $(grep -i -m3 'lost\|discarded\|events' "$work/record.out" | tr '\n' ' ')"
  [ "$rc" -eq 0 ] || errors=$((errors + 1))
  snaps=("$rec"/snapshot-*)
  echo "${#snaps[@]} snapshots"
  lost_total=0
  for s in "${snaps[@]}"; do
    [ -d "$s" ] || continue
    name=$(basename "$s")
    run "$name-stats" "$cw" stats "$s" --format json
    lost=$(grep -o '"discarded_events": *[0-9]*' "$work/$name-stats.out" | head -1 | grep -o '[0-9]*$')
    lost_total=$((lost_total + ${lost:-0}))
    run "$name-events" "$cw" events "$s" --format jsonl
    run "$name-threads" "$cw" threads "$s" --format json
    # The busiest thread (threads lists them by running time, most first).
    tid=$(grep -o '"tid": *[0-9]*' "$work/$name-threads.out" | head -1 | grep -o '[0-9]*$')
    [ -n "$tid" ] && run "$name-critpath" "$cw" critpath "$s" --tid "$tid" --format json
    run "$name-sync" "$cw" sync "$s"
    # No spans in a kernel-only snapshot: requests must say so and exit 1, not crash.
    "$cw" requests "$s" >"$work/$name-requests.out" 2>"$work/$name-requests.err"; rc=$?
    printf '%-40s exit %-3s %s\n' "$name-requests" "$rc" "$(head -c 60 "$work/$name-requests.err")"
    if [ "$rc" -ne 0 ] && { [ "$rc" -ne 1 ] || ! grep -q "No spans" "$work/$name-requests.err"; }; then
      errors=$((errors + 1))
    fi
  done
  echo "kernel events lost in the snapshots (discarded by the ring buffer): $lost_total"
fi

echo "peak RSS of the commands: $(awk -v k="$peak_rss" 'BEGIN{printf "%.1f MB", k/1024}'); errors: $errors"
[ "$errors" -eq 0 ]
