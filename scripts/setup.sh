#!/usr/bin/env bash
# Installs what Causeway needs to build, test and run on Debian 12 (apt packages only).
# Does nothing when everything is already there.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  clang libclang-rt-14-dev           # libFuzzer targets
  libgtest-dev libgmock-dev libbenchmark-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev libzstd-dev
  libbpf-dev bpftool libelf-dev zlib1g-dev   # the recorder: eBPF programs, CO-RE skeleton
  iproute2 util-linux                # record tests: network namespaces, setpriv, unshare
  libcpp-httplib-dev                 # the demo: HTTP between its services
  babeltrace2                        # the reference CTF reader, used by tests and benchmarks
  linux-perf                         # perf data convert --to-ctf, for the perf interop test
  valgrind
  liblttng-ust-dev lttng-tools        # the client tracepoint benchmark: LTTng-UST side by side
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "causeway setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
