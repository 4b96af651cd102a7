#!/usr/bin/env bash
# The main job: set up (Debian packages), build, and run every shipped case (cases/) on the stand-in
# original and the second stand-in's cases (cases/retail/: the engine built like a retail image) on
# the default synthetic archives. Prints the counts, the wall time, events per second
# and where the HTML report is; exits 0 only when nothing unexplained differs (1 divergent, 2 error).
# Extra arguments go to `refcheck run` (e.g. --jobs 1, or --image/--profile/--data for a real image).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
dir=$(./scripts/build.sh | tail -n 1)
exec "$dir/tools/refcheck/refcheck" run --out out/run "$@"
