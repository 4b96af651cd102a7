#!/usr/bin/env bash
# run_fuzz_target.sh TARGET_BINARY WORK_DIR DICT OPTIONS SEED_DIR... : the ctest fuzz.<target>. Fuzzes for 20 s
# from the seeds into a fresh WORK_DIR (new inputs; findings land there as crash-*/leak-*/oom-*/
# timeout-*, and the test fails). -timeout is a hang detector only: the slowest input of any target
# runs in well under a second, so 300 s is reached only by an input that never ends.
set -euo pipefail
bin=$1 work=$2 dict=$3 options=$4
shift 4
rm -rf "$work"
mkdir -p "$work/corpus" "$work/tmp"
export TMPDIR="$work/tmp" # the targets' scratch folders (fuzz/fuzz_support.hpp), cleared with WORK_DIR
seeds=()
for d in "$@"; do [ -d "$d" ] && seeds+=("$d"); done
flags=(-max_total_time=20 -timeout=300 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/")
[ -f "$dict" ] && flags+=(-dict="$dict")
[ -f "$options" ] && mapfile -t -O "${#flags[@]}" flags <"$options"
exec "$bin" "${flags[@]}" "$work/corpus" "${seeds[@]}"
