#!/usr/bin/env bash
# The main job: set up (Debian packages), build, and run refcheck's default run.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
dir=$(./scripts/build.sh | tail -n 1)
"$dir/tools/emudemo/emudemo" --out out/emudemo "$@"
