#!/usr/bin/env bash
# Installs what Causeway needs to build, test and run on Debian 12 (apt packages only).
# Does nothing when everything is already there.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  clang libclang-rt-14-dev           # libFuzzer targets
  libgtest-dev libgmock-dev libbenchmark-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev libzstd-dev
  libsimdjson-dev                    # span files: OTLP and Jaeger JSON, parsed at GB/s
  libabsl-dev                        # flat hash maps: span ids, packets in flight
  libbpf-dev bpftool libelf-dev zlib1g-dev   # the recorder: eBPF programs, CO-RE skeleton
  iproute2 util-linux                # record tests: network namespaces, setpriv, unshare
  tar zstd                           # the demo recordings committed as test data (.tar.zst)
  libcpp-httplib-dev                 # the demo (HTTP between its services), causeway serve
  libnats-dev nats-server            # Pivot Tracing: agents and `causeway pivot` talk over NATS
  babeltrace2                        # the reference CTF reader, used by tests and benchmarks
  linux-perf                         # perf data convert --to-ctf, for the perf interop test
  valgrind
  time                               # GNU time: scripts/bench_events_text.sh's CPU times
  postgresql libpq-dev libsqlite3-dev sqlite3   # scripts/bench_store.sh: the store beside them
  liblttng-ust-dev lttng-tools        # LTTng-UST: the interop test records with it; the client benchmark
  chromium                           # the HTML report test: a real headless browser
)

# Node.js drives Chromium (Playwright) in the HTML report test and runs the OpenTelemetry test
# services (tests/otel); the machine's own node is used when there is one.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then PACKAGES+=(nodejs npm); fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "causeway setup: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Playwright (npm), pinned by tests/browser/package-lock.json, for the HTML report test.
cd "$(dirname "$0")/.."
if [ ! -d tests/browser/node_modules/playwright-core ]; then
  echo "causeway setup: npm ci in tests/browser (playwright-core)" >&2
  npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error >/dev/null
fi

# esbuild (npm), pinned by web/package-lock.json: the build bundles the web UI with it
# (web/CMakeLists.txt); without it `causeway serve` says the UI was not built.
if [ ! -d web/node_modules/esbuild ]; then
  echo "causeway setup: npm ci in web (esbuild, the web UI's bundler)" >&2
  npm ci --prefix web --no-audit --no-fund --loglevel=error >/dev/null
fi

# The official OpenTelemetry JS SDK (npm), pinned by tests/otel/package-lock.json, for the
# Node.js test services that Causeway records with no change to their code.
if [ ! -d tests/otel/node_modules/@opentelemetry/sdk-node ]; then
  echo "causeway setup: npm ci in tests/otel (OpenTelemetry JS SDK)" >&2
  npm ci --prefix tests/otel --no-audit --no-fund --loglevel=error >/dev/null
fi

# The Trace Server Protocol's TypeScript client (npm), pinned by tests/tsp/package-lock.json,
# for the `causeway serve` test (its json-bigint is overridden to the registry's 1.0.0: the
# package declares a git URL).
if [ ! -d tests/tsp/node_modules/tsp-typescript-client ]; then
  echo "causeway setup: npm ci in tests/tsp (tsp-typescript-client)" >&2
  npm ci --prefix tests/tsp --no-audit --no-fund --loglevel=error >/dev/null
fi
