#!/usr/bin/env bash
# Every test: installs what is missing, builds with ASan+UBSan, runs the unit and end-to-end
# tests under ctest, then each libFuzzer target for a short bounded time ($FUZZ_SECONDS, 20 s).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh asan
ctest --preset asan
if [ -x scripts/fuzz.sh ]; then
  FUZZ_SECONDS="${FUZZ_SECONDS:-20}" scripts/fuzz.sh
fi
echo "clang-format check:"
scripts/format.sh --check
