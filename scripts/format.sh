#!/usr/bin/env bash
# clang-format over the project's C++ sources. --check reports files that differ (no change).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.h' '*.cc' 2>/dev/null || find src tests bench fuzz -name '*.h' -o -name '*.cc')
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    if ! clang-format --style=file "$f" | cmp -s - "$f"; then echo "  needs formatting: $f"; bad=1; fi
  done
  [ $bad -eq 0 ] && echo "  all ${#files[@]} files formatted"
  exit $bad
fi
clang-format --style=file -i "${files[@]}"
