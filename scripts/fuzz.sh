#!/usr/bin/env bash
# Fuzz the parsers: scripts/fuzz.sh [TARGET...] [--seconds N] [--jobs J] [--no-build]
#   TARGET       model_archive texture_archive palette program interpreter case_json profile_json
#                pe_load report_diff report_show report_merge (default: all)
#   --seconds N  wall seconds per target (default 60)
#   --jobs J     targets fuzzed at the same time (default 1)
#   --no-build   use build-asan/ as it is (no setup, no build)
# Sets up and builds the sanitizer build (build-asan/, clang-14, ASan + UBSan + libFuzzer), then runs
# each target from its seeds (build-asan/fuzz/seeds/<target>, fuzz/corpus/<target>) into its working
# corpus build-asan/fuzz/work/<target> (kept, so coverage accumulates over runs) with the dictionary
# fuzz/dict/<target>.dict and the flags of fuzz/options/<target> (e.g. -max_len). A finding (crash, sanitizer report, leak, out-of-memory, hang) is written to
# fuzz/findings/<target>/ and copied to fuzz/regressions/<target>/, where the ctest
# fuzz.<target>.regressions runs it: commit it with the fix. Prints per target the executions, the
# edges covered (cov), the CPU seconds and the findings, and appends them to
# build-asan/fuzz/stats.tsv. Exit 0 when nothing was found, 1 on a finding, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
all=(model_archive texture_archive palette program interpreter case_json profile_json pe_load report_diff
     report_show report_merge)
seconds=60 jobs=1 build=1 targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) if [[ " ${all[*]} " != *" $1 "* ]]; then echo "fuzz.sh: no target $1 (targets: ${all[*]})" >&2; exit 2; fi
       targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
dir=build-asan
if [ "$build" = 1 ]; then
  ./scripts/setup.sh >&2
  dir=$(./scripts/build.sh --sanitize | tail -n 1)
fi

fuzz_one() {
  local t=$1 bin="$dir/fuzz/fuzz_$t" work="$dir/fuzz/work/$t" found="fuzz/findings/$t"
  local log="$dir/fuzz/logs/$t.log" times="$dir/fuzz/logs/$t.time"
  mkdir -p "$work" "$found" "$dir/fuzz/logs"
  rm -rf "$dir/fuzz/tmp/$t" && mkdir -p "$dir/fuzz/tmp/$t" # the target's scratch folder
  local seeds=()
  [ -d "$dir/fuzz/seeds/$t" ] && seeds+=("$dir/fuzz/seeds/$t")
  [ -d "fuzz/corpus/$t" ] && seeds+=("fuzz/corpus/$t")
  local flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
               -artifact_prefix="$found/")
  [ -f "fuzz/dict/$t.dict" ] && flags+=(-dict="fuzz/dict/$t.dict")
  [ -f "fuzz/options/$t" ] && mapfile -t -O "${#flags[@]}" flags <"fuzz/options/$t"
  local before; before=$(ls "$found" | sort)
  local rc=0
  ( export TMPDIR="$dir/fuzz/tmp/$t"; TIMEFORMAT='%U %S'; time "$bin" "${flags[@]}" "$work" "${seeds[@]}" >"$log" 2>&1 ) 2>"$times" || rc=$?
  local execs cov cpu new=0
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2 || true)
  cpu=$(awk '{printf "%.0f", $1 + $2}' "$times" || true)
  for f in $(comm -13 <(echo "$before") <(ls "$found" | sort)); do
    mkdir -p "fuzz/regressions/$t"
    cp "$found/$f" "fuzz/regressions/$t/$f"
    echo "fuzz.sh: $t: FINDING $found/$f -> fuzz/regressions/$t/$f (log: $log)" >&2
    new=$((new + 1))
  done
  [ "$rc" != 0 ] && [ "$new" = 0 ] && echo "fuzz.sh: $t: the fuzzer exited $rc without an artifact (log: $log)" >&2 && new=1
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "${execs:-0}" "${cov:-0}" "${cpu:-0}" "$new" "$(date -u +%FT%TZ)" \
    | tee -a "$dir/fuzz/stats.tsv" >"$dir/fuzz/logs/$t.row"
}

running=0
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait
status=0
printf '%-16s %12s %8s %8s %9s\n' target executions cov cpu_s findings
for t in "${targets[@]}"; do
  name=$t execs=? cov=? cpu=? new=1
  [ -f "$dir/fuzz/logs/$t.row" ] && IFS=$'\t' read -r name execs cov cpu new _ <"$dir/fuzz/logs/$t.row"
  printf '%-16s %12s %8s %8s %9s\n' "$name" "$execs" "$cov" "$cpu" "$new"
  [ "$new" = 0 ] || status=1
done
exit $status
