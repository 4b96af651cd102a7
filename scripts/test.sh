#!/usr/bin/env bash
# The test command: set up (Debian packages), check the house format and harness/src's layout, build,
# and pass every test with CTest. .ci/run is exactly this command.
#   scripts/test.sh              normal build (build/)
#   scripts/test.sh --sanitize   AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan/)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/format.sh --check
./scripts/layout.sh
dir=$(./scripts/build.sh "$@" | tail -n 1)
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)"
