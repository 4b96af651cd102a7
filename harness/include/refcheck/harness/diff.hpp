// Differences between two runs (their run.json): for regressions between versions of the
// reimplementation. Cases new and removed, fixed (divergent/error -> equivalent), newly divergent,
// every status change, counts changed (compared/matched/known/unexplained, per case and in total),
// metrics changed, ledger statuses changed and coverage changed. A case got worse (a regression)
// when its status moved down (equivalent -> divergent -> error) or its unexplained count rose.
#pragma once

#include "refcheck/harness/report.hpp"

#include <filesystem>
#include <stdexcept>
#include <string>

namespace refcheck::harness {

// A run output that cannot be read or is not a refcheck run index (exit code 2).
struct DiffError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A run folder (holding run.json) or a run.json file. Throws DiffError.
ojson load_run_index(const std::filesystem::path& folder_or_file);

// The differences as JSON (schema "refcheck-run-diff/1"); every list is sorted by case name (rules
// and routines in their run's order). "regressions" lists the cases that got worse.
ojson diff_runs(const ojson& old_index, const ojson& new_index);

// True when some case got worse.
bool regressed(const ojson& diff);

// The differences for people, one section per kind, ending with the verdict line.
std::string diff_text(const ojson& diff);

} // namespace refcheck::harness
