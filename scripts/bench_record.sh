#!/usr/bin/env bash
# Recorder overhead (not a test): the same workload, alternately untraced, under
# `causeway record` with the minimal set of events, with the minimal set and the page cache
# events, and with the default set, and the ratios of the medians; then the recorder's own
# CPU time over 3 s of recording, idle and beside a busy load, minimal and default.
#   scripts/bench_record.sh [ROUND_TRIPS] [RUNS]    default: 100000 round trips, 7 runs
#   SKIP_BUILD=1 scripts/bench_record.sh ...        use build/release as it is
#   (CAUSEWAY_CLI=... CAUSEWAY_WORKLOAD=...: other binaries, e.g. copies kept from a rebuild)
# Sets: minimal = --no-syscalls --no-page-cache --no-http (scheduling, interrupts, timers,
# block, TCP segments); +page cache = --no-syscalls --no-http; default = everything
# (syscalls, page cache, HTTP capture).
# Workloads: a pipe ping-pong between two threads (two context switches, two wake-ups and
# four system calls per round trip, the recorder's worst case), a TCP ping-pong over
# loopback (adds four packet events per round trip), and a warm file read with dd, 4 KiB
# per read() (one page cache read event and two system calls per 4 KiB: the page cache's
# worst case; ROUND_TRIPS reads of a file of ROUND_TRIPS / 4 pages, read 4 times). Needs
# root (the recorder loads eBPF programs).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${SKIP_BUILD:-}" ]; then
  scripts/setup.sh
  scripts/build.sh release >/dev/null
fi
cli="${CAUSEWAY_CLI:-build/release/src/causeway}"
work="${CAUSEWAY_WORKLOAD:-build/release/tests/causeway_workload}"
n="${1:-100000}"
runs="${2:-7}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

seconds() {  # command... -> elapsed seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
overhead() { awk -v r="$1" -v b="$2" 'BEGIN { printf "%.1f", (r / b - 1) * 100 }'; }
per_trip() { awk -v r="$1" -v b="$2" -v n="$n" 'BEGIN { printf "%.0f", (r - b) * 1e9 / n }'; }
events_of() { "$cli" stats "$1" --format json | grep -o '"events": *[0-9]*' | head -1 | grep -o '[0-9]*$'; }

# The file for the read workload: n / 4 pages, read 4 times per run (n reads of 4 KiB).
pages=$(( n / 4 ))
dd if=/dev/urandom of="$tmp/file" bs=4k count="$pages" status=none
cat "$tmp/file" >/dev/null  # warm
file_read() { for _ in 1 2 3 4; do dd if="$tmp/file" of=/dev/null bs=4k status=none; done; }
export -f file_read
export tmp
workload() {  # mode -> the command that runs it
  case "$1" in
    file-read) echo bash -c file_read ;;
    *) echo "$work" "$1" "$n" "$tmp/info" ;;
  esac
}

declare -A set_flags=(
  [minimal]="--no-syscalls --no-page-cache --no-http"
  [pagecache]="--no-syscalls --no-http"
  [default]=""
)
sets="minimal pagecache default"
for mode in pipe-pingpong tcp-pingpong file-read; do
  read -r -a cmd <<<"$(workload "$mode")"
  : >"$tmp/base"
  for s in $sets; do : >"$tmp/t-$s"; done
  for i in $(seq "$runs"); do
    # Alternate, so drift on a shared machine hits every side alike.
    seconds "${cmd[@]}" >>"$tmp/base"
    for s in $sets; do
      rm -rf "$tmp/r-$s"
      # shellcheck disable=SC2086
      seconds "$cli" record -o "$tmp/r-$s" ${set_flags[$s]} -- "${cmd[@]}" >>"$tmp/t-$s"
    done
  done
  b=$(median <"$tmp/base")
  printf '%-14s %d round trips, median of %d: untraced %.3f s\n' "$mode" "$n" "$runs" "$b"
  for s in $sets; do
    t=$(median <"$tmp/t-$s")
    printf '  %-10s %.3f s (%s events): overhead %s%%, %s ns per round trip\n' "$s" "$t" \
      "$(events_of "$tmp/r-$s")" "$(overhead "$t" "$b")" "$(per_trip "$t" "$b")"
  done
done
echo "(recorded time includes starting and stopping the recorder: about 0.3 s of fixed cost;"
echo " file-read: a round trip is one read() of 4 KiB)"

# The recorder alone (no command: its CPU time is its own), 3 s of recording each.
cpu_seconds() {  # command... -> user + system CPU seconds
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>&1
  awk '{ print $1 + $2 }' "$tmp/time"
}
for load in idle busy; do
  load_pid=""
  if [ "$load" = busy ]; then
    # A loop of small system calls and wake-ups beside the recorder: the pipe ping-pong.
    "$work" pipe-pingpong 1000000000 "$tmp/load-info" >/dev/null 2>&1 &
    load_pid=$!
  fi
  : >"$tmp/cpu-min"; : >"$tmp/cpu-def"
  for i in $(seq 3); do
    rm -rf "$tmp/r" "$tmp/s"
    # shellcheck disable=SC2086
    cpu_seconds "$cli" record -o "$tmp/r" --duration 3 ${set_flags[minimal]} >>"$tmp/cpu-min"
    cpu_seconds "$cli" record -o "$tmp/s" --duration 3 >>"$tmp/cpu-def"
  done
  [ -n "$load_pid" ] && kill "$load_pid" && wait "$load_pid" 2>/dev/null || true
  p=$(median <"$tmp/cpu-min"); q=$(median <"$tmp/cpu-def")
  printf 'recorder CPU, %-4s machine, 3 s recording, median of 3: minimal %.2f s (%.1f%% of one CPU, %s events); default %.2f s (%.1f%%, %s events)\n' \
    "$load" "$p" "$(awk -v c="$p" 'BEGIN { print c / 3 * 100 }')" "$(events_of "$tmp/r")" \
    "$q" "$(awk -v c="$q" 'BEGIN { print c / 3 * 100 }')" "$(events_of "$tmp/s")"
done
echo "(recorder CPU includes loading the BPF programs and writing the trace)"
