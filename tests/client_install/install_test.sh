#!/usr/bin/env bash
# causeway-client as an application gets it: built as the release preset builds it (-O2,
# LTO), installed with `cmake --install --component client` into an empty prefix, and a
# small program (consumer.cc) compiled against it through pkg-config at -O0, -O1 and -O2,
# run with Jaeger and OTLP files set: it must exit 0 and the files must hold its spans. The
# installed archives must hold no LTO bytecode (client/CMakeLists.txt says why).
#
#   install_test.sh SOURCE_DIR WORK_DIR CXX
# WORK_DIR/build is kept between runs (an incremental rebuild); the prefix is made anew.
set -euo pipefail
src="$1"
work="$2"
cxx="$3"
build="$work/build"
prefix="$work/prefix"
mkdir -p "$work"

cmake -S "$src" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="-O2 -g" -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON \
  -DCAUSEWAY_RECORD=OFF -DCAUSEWAY_TESTS=OFF -DCAUSEWAY_BENCH=OFF -DCAUSEWAY_DEMO=OFF \
  -DCAUSEWAY_SANITIZE=OFF >"$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$build" --target causeway-client causeway_ctf causeway_base
rm -rf "$prefix"
cmake --install "$build" --component client --prefix "$prefix"

pc_dir="$(dirname "$(find "$prefix" -name causeway-client.pc)")"
for archive in "$pc_dir"/../*.a; do
  if readelf -S "$archive" | grep -q '\.gnu\.lto_'; then
    echo "FAIL: $archive holds LTO bytecode" >&2
    exit 1
  fi
done
for level in -O0 -O1 -O2; do
  out="$work/run$level"
  rm -rf "$out"
  mkdir -p "$out"
  # shellcheck disable=SC2046  # pkg-config's flags are words
  "$cxx" -std=c++20 "$level" -o "$out/consumer" "$src/tests/client_install/consumer.cc" \
    $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs causeway-client)
  "$out/consumer" "$out/spans.jaeger.json" "$out/spans.otlp.json"
  for file in spans.jaeger.json spans.otlp.json; do
    for name in "GET /installed" "installed query" "install-check"; do
      if ! grep -q "$name" "$out/$file"; then
        echo "FAIL ($level): $file has no \"$name\"" >&2
        exit 1
      fi
    done
  done
  echo "ok ($level): the consumer ran and its spans are in both files"
done
