#!/usr/bin/env bash
# Every test: installs what is missing, builds with ASan+UBSan, runs the unit and end-to-end
# tests under ctest, then each libFuzzer target for a short bounded time ($FUZZ_SECONDS, 20 s).
# CAUSEWAY_RECORD=OFF scripts/test.sh builds and tests without the recorder (no BTF,
# bpftool, clang or libbpf needed): the tests that record skip, each saying why.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh asan -DCAUSEWAY_RECORD="${CAUSEWAY_RECORD:-ON}"
status=0
ctest --preset asan || status=$?
# ctest counts skipped tests but does not say why they skipped; gtest's output does, on the
# line after "FILE:LINE: Skipped".
log=build/asan/Testing/Temporary/LastTest.log
if grep -q ': Skipped$' "$log" 2>/dev/null; then
  echo "Skipped tests (not counted as passed), by reason:"
  awk 'skipped { print; skipped = 0 } /: Skipped$/ { skipped = 1 }' "$log" | sort | uniq -c |
    sort -rn
fi
# A suite whose SetUpTestSuite fails has its tests reported as skipped, which ctest counts
# as skips: such a failure must fail the run.
if grep -q 'FAILED TEST SUITE' "$log" 2>/dev/null; then
  echo "A test suite's set-up failed (its tests were reported as skipped):"
  grep -B30 'FAILED TEST SUITE' "$log" | grep -E 'Failure|FAILED|Expected|Actual|^[^ ].*: ' | head -40
  status=1
fi
if [ "$status" -ne 0 ]; then exit "$status"; fi
if [ -x scripts/fuzz.sh ]; then
  FUZZ_SECONDS="${FUZZ_SECONDS:-20}" scripts/fuzz.sh
fi
echo "clang-format check:"
scripts/format.sh --check
