// A run: cases executed (optionally sharded and in parallel), one report per case, then the run
// index, JUnit XML and the HTML page. Exit status: 0 nothing unexplained differs, 1 something does,
// 2 an error (bad case, missing image, a profile lacking a routine a case needs).
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/report.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace refcheck::harness {

// What a case runs on once "default" is resolved.
struct Environment {
    std::filesystem::path image;
    std::filesystem::path profile;
    std::filesystem::path data;
};

struct Shard {
    unsigned index = 0;
    unsigned count = 1;
};

struct RunOptions {
    Environment defaults;                 // the stand-in, its profile, the default archives
    std::optional<std::filesystem::path> image, profile, data;  // --image/--profile/--data overrides
    std::filesystem::path out = "out";
    unsigned jobs = 1;
    Shard shard;
    std::function<void(std::string_view)> progress;  // one call per finished case (may be empty)
};

struct RunSummary {
    int exit_code = 2;
    std::vector<CaseResult> results;
    ojson index;
    double seconds = 0;
    std::uint64_t events = 0;
    std::filesystem::path html;
};

// Resolves a case's image/profile/data: explicit overrides, then the case's own paths (relative to
// the case file), then the defaults.
Environment resolve_environment(const Case& c, const RunOptions& options);

// Runs one case; never throws: a bad environment or a failed boot is a report with status "error".
CaseResult run_case(const Case& c, const Environment& env);

// The cases of a shard: case i (in sorted order) belongs to shard i % count.
std::vector<std::filesystem::path> select_shard(const std::vector<std::filesystem::path>& cases, Shard shard);

// Loads, runs and reports. Case files that don't parse give exit code 2 before anything runs.
RunSummary run(const std::vector<std::filesystem::path>& case_files, const RunOptions& options);

// Joins shard outputs (each a folder with run.json and case reports) into `out`, producing the same
// run index, JUnit XML and HTML an unsharded run would.
int merge(const std::vector<std::filesystem::path>& shard_dirs, const std::filesystem::path& out);

// Writes index, JUnit and HTML for reports already in `out`.
ojson write_run_outputs(const std::filesystem::path& out, const std::vector<ojson>& reports);

}  // namespace refcheck::harness
