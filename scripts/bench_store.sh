#!/usr/bin/env bash
# Benchmark of the state store beside PostgreSQL and SQLite's R*-tree (not part of the
# tests), on the intervals of a synthetic kernel trace: construction, disk size, single,
# full and view queries, the store's cost inside the analysis, and the goals of issue 58.
#   scripts/bench_store.sh [--size MB] [store_compare_bench options...]   default: 1000 MB
# The trace goes to $BENCH_DIR (default /tmp/causeway-bench) and is reused between runs.
# PostgreSQL runs as a private cluster in a temporary directory (initdb, pg_ctl, a unix
# socket there, no TCP), as the `postgres` user when run as root; it is stopped and the
# directory removed on exit, failure or interrupt included.
set -euo pipefail
cd "$(dirname "$0")/.."
size=1000
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target make_kernel_trace store_compare_bench -j "$(nproc)" >/dev/null

dir="${BENCH_DIR:-/tmp/causeway-bench}"
mkdir -p "$dir"
trace="$dir/kernel-${size}mb"
if [ ! -f "$trace/metadata" ]; then
  rm -rf "$trace"
  build/release/bench/make_kernel_trace "$trace" --size-mb "$size" --cpus 4 --seed 1
fi

pgbin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
as=()
if [ "$(id -u)" -eq 0 ]; then as=(runuser -u postgres --); fi
work="$(mktemp -d "${TMPDIR:-/tmp}/causeway-store-bench.XXXXXX")"
chmod 755 "$work"
pgdata="$work/pg"
stop_postgres() {
  if [ -f "$pgdata/postmaster.pid" ]; then
    "${as[@]}" "$pgbin/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null 2>&1 ||
      kill -TERM "$(head -1 "$pgdata/postmaster.pid")" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap stop_postgres EXIT
trap 'exit 130' INT TERM

mkdir "$pgdata"
touch "$work/postgres.log"
[ ${#as[@]} -eq 0 ] || chown postgres: "$pgdata" "$work/postgres.log"
"${as[@]}" "$pgbin/initdb" -D "$pgdata" -U postgres --auth=trust -E UTF8 --no-locale >/dev/null
# A competent bulk-load setup: no WAL for a table created in the loading transaction
# (wal_level minimal), no fsync (the store does not sync either), memory for sorts and
# index builds, buffers that hold the tables (warm queries), no JIT (short queries). Index
# builds stay in the backend (no parallel workers) so that its CPU time, which the
# benchmark reads from /proc, is all of the build's: the machine's load makes wall times
# noisy.
"${as[@]}" "$pgbin/pg_ctl" -D "$pgdata" -l "$work/postgres.log" -w -o "\
  -c listen_addresses='' -c unix_socket_directories='$pgdata' \
  -c wal_level=minimal -c max_wal_senders=0 -c fsync=off -c synchronous_commit=off \
  -c full_page_writes=off -c max_wal_size=20GB -c shared_buffers=4GB \
  -c maintenance_work_mem=2GB -c work_mem=256MB -c jit=off \
  -c max_parallel_maintenance_workers=0" start >/dev/null
echo "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'), SQLite $(sqlite3 --version | awk '{print $1}'), private cluster in $pgdata"

build/release/bench/store_compare_bench "$trace" --work "$work" \
  --pg "host=$pgdata dbname=postgres user=postgres" "${args[@]}"
