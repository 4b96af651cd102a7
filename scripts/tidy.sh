#!/usr/bin/env bash
# clang-tidy over the compilation database: scripts/tidy.sh [PATH_REGEX...] [--jobs J] [--no-build]
#   PATH_REGEX   only the translation units whose path matches (default: every project source file
#                of build/compile_commands.json: emu/ reimpl/ harness/ tools/ tests/ bench/ fuzz/)
#   --jobs J     clang-tidy processes at once (default: nproc)
#   --no-build   use build/ as it is (no setup, no build; the database must exist)
# The checks are .clang-tidy's (every check left out is named there with its reason); every warning is
# an error. Exit 0 when the tree is tidy-clean, 1 on a finding, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc) build=1 filters=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    -*) echo "tidy.sh: unknown option $1" >&2; exit 2 ;;
    *) filters+=("$1"); shift ;;
  esac
done
dir=build
if [ "$build" = 1 ]; then
  ./scripts/setup.sh >&2
  dir=$(./scripts/build.sh | tail -n 1)
fi
[ -f "$dir/compile_commands.json" ] || { echo "tidy.sh: no $dir/compile_commands.json (build first)" >&2; exit 2; }
root=$(pwd)
[ ${#filters[@]} -gt 0 ] || filters=("^$root/(emu|reimpl|harness|tools|tests|bench|fuzz)/")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
run-clang-tidy-14 -p "$dir" -j "$jobs" -quiet "${filters[@]}" 2>&1 | sed "s/\x1b\[[0-9;]*m//g" >"$log" || rc=$?
# Keep the diagnostics, drop the per-file command echo and clang-tidy's suppression counts.
grep -E '(warning|error):|^ ' "$log" | grep -v -E '^(clang-tidy-14|[0-9]+ warnings? generated)' || true
findings=$(grep -cE ': (warning|error): ' "$log" || true)
echo "tidy.sh: $findings finding(s) in $(grep -c '^clang-tidy-14' "$log" || true) translation unit(s)" >&2
[ "$findings" = 0 ] && [ "$rc" = 0 ] && exit 0
exit 1
