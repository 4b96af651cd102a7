#!/usr/bin/env bash
# Configure and build refcheck into build/ (or build-asan/ with --sanitize). Used by run.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build; extra=()
if [ "${1:-}" = "--sanitize" ]; then dir=build-asan; extra=(-DREFCHECK_SANITIZE=ON); shift; fi
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${extra[@]}" >&2
fi
cmake --build "$dir" -j "$(nproc)" >&2
echo "$dir"
