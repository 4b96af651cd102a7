#!/usr/bin/env bash
# The test command: set up (Debian packages), build, and pass every test with CTest.
#   scripts/test.sh              normal build (build/)
#   scripts/test.sh --sanitize   AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan/)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
dir=$(./scripts/build.sh "$@" | tail -n 1)
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)"
