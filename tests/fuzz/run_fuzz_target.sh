#!/usr/bin/env bash
# run_fuzz_target.sh TARGET_BINARY WORK_DIR FINDINGS_DIR RUNS DICT OPTIONS SEED_DIR... : the ctest
# fuzz.<target>. Runs RUNS mutated inputs from the seeds with a fixed seed (-seed=1), so the same
# build explores the same inputs on any machine at any load: the test is reproducible, and its length
# is a count, not a wall time. The seeds go in as one list (-seed_inputs), folder by folder in the
# order given and each folder's files in byte order of their names, never as folders: libFuzzer takes
# a folder's files in the file system's directory order and keeps that order among files of one size,
# so the same seeds in another clone (another directory hash) started another search. New inputs go
# to a fresh WORK_DIR/corpus; a finding (crash-*, leak-*, oom-*, timeout-*) is kept in FINDINGS_DIR
# (never cleared by a later run) and printed in hex in the test's output, so a CI log alone is enough
# to rebuild it. -timeout is a hang detector only: the slowest input of any target runs in well under
# a second, so 300 s is reached only by an input that never ends.
set -euo pipefail
bin=$1 work=$2 findings=$3 runs=$4 dict=$5 options=$6
shift 6
rm -rf "$work"
mkdir -p "$work/corpus" "$work/tmp" "$work/artifacts" "$findings"
export TMPDIR="$work/tmp" # the targets' scratch folders (fuzz/fuzz_support.hpp), cleared with WORK_DIR
for d in "$@"; do if [ -d "$d" ]; then find "$d" -type f | LC_ALL=C sort; fi; done | paste -sd, >"$work/seeds.txt"
flags=(-seed=1 -runs="$runs" -timeout=300 -rss_limit_mb=2048 -print_final_stats=1
       -artifact_prefix="$work/artifacts/")
[ -s "$work/seeds.txt" ] && flags+=(-seed_inputs=@"$work/seeds.txt")
[ -f "$dict" ] && flags+=(-dict="$dict")
[ -f "$options" ] && mapfile -t -O "${#flags[@]}" flags <"$options"
rc=0
"$bin" "${flags[@]}" "$work/corpus" || rc=$?
for f in "$work"/artifacts/*; do
  [ -f "$f" ] || continue
  cp "$f" "$findings/"
  echo "run_fuzz_target.sh: FINDING $(basename "$f") ($(stat -c %s "$f") bytes), kept as $findings/$(basename "$f");"
  echo "  reproduce: $bin $findings/$(basename "$f")"
  echo "  to keep it as a regression: cp $findings/$(basename "$f") fuzz/regressions/$(basename "$bin" | sed 's/^fuzz_//')/"
  echo "  its bytes (xxd -r -p to rebuild):"
  head -c 65536 "$f" | xxd -p | sed 's/^/    /'
  [ "$rc" != 0 ] || rc=1
done
exit "$rc"
