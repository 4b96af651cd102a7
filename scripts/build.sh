#!/usr/bin/env bash
# Configure and build refcheck into build/ (or build-asan/ with --sanitize). Used by run.sh and test.sh.
# The sanitizer build uses clang-14 (ASan + UBSan, and libFuzzer for the targets of fuzz/); the normal
# build uses the default compiler. The stand-in original is cross-compiled by mingw in both.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build; extra=()
if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan; shift
  extra=(-DREFCHECK_SANITIZE=ON -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14)
  # A build-asan/ configured earlier with another compiler is configured afresh.
  if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++-14$' "$dir/CMakeCache.txt"; then
    rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
  fi
fi
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${extra[@]}" >&2
fi
cmake --build "$dir" -j "$(nproc)" >&2
echo "$dir"
