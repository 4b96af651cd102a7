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
    // Why blocks of the original stay unreached (coverage_reasons.hpp); used when it names the image.
    std::optional<std::filesystem::path> coverage_reasons;
};

// Seeded faults, to show that a comparison finds a difference (tests, experiments). Every injection
// is written into the case report ("injected"), so a report can never hide one.
struct Patch {
    std::string where;                // "symbol+0x1c" (export or COFF symbol of the image) or "0x00401234"
    std::vector<std::uint8_t> bytes;  // written over the original's code or data after loading
};
struct Injection {
    std::vector<Patch> patches;       // bytes of the original changed under emulation
    bool reimpl_light_swapped = false;  // the reimplementation gets the light with x and z swapped
    bool empty() const { return patches.empty() && !reimpl_light_swapped; }
};
Patch parse_patch(const std::string& text);  // "WHERE:HEXBYTES"; throws std::invalid_argument

struct Shard {
    unsigned index = 0;
    unsigned count = 1;
};

struct RunOptions {
    Environment defaults;                 // the stand-in, its profile, the default archives
    std::optional<std::filesystem::path> image, profile, data;  // --image/--profile/--data overrides
    std::filesystem::path out = "out";
    unsigned jobs = 1;                    // worker processes (workers.hpp); a worker's crash is its case's error
    Shard shard;
    std::function<void(std::string_view)> progress;  // one call per finished case (may be empty)
    Injection injection;
    // The format specification whose rule index becomes the evidence ledger (docs/formats/apache-3d.md).
    // When set, a case naming a rule id the document lacks is a preflight problem (exit 2), and every
    // case report carries the index ("evidence") so that run.json holds the ledger.
    std::optional<std::filesystem::path> rules_document;
    // The coverage reasons file (cases/coverage/reasons.json); a bad file is a preflight problem.
    std::optional<std::filesystem::path> coverage_reasons;
    // Narrows every case to the input of this name (Case::only): `refcheck run --only`.
    std::string only;
};

struct RunSummary {
    int exit_code = 2;
    std::vector<std::string> problems;  // from preflight(); nothing ran when not empty
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
CaseResult run_case(const Case& c, const Environment& env, const Injection& injection = {});

// The cases of a shard: case i (in sorted order) belongs to shard i % count.
std::vector<std::filesystem::path> select_shard(const std::vector<std::filesystem::path>& cases, Shard shard);

// Checks before anything runs: every case's image, data root and profile exist, and its profile has
// an address for every routine and global the case's family needs; with a rules document, the
// document's index parses and lists every rule id the cases name. One line per problem; a
// profile's missing names are listed together.
std::vector<std::string> preflight(const std::vector<Case>& cases, const RunOptions& options);

// Loads, runs and reports. Case files that don't parse give exit code 2 before anything runs. A
// case with an unexplained divergence gets its drill-down (bisect.hpp) in its report ("bisect").
// Cases run in forked worker processes (harness/src/workers.hpp): a case whose worker dies (a
// signal, an abort, an exit without a result) is an error report naming the crash ("crash"), and
// the other cases run and report as usual.
RunSummary run(const std::vector<std::filesystem::path>& case_files, const RunOptions& options);

// Joins shard outputs (each a folder with run.json and case reports) into `out`, producing the same
// run index, JUnit XML and HTML an unsharded run would. Throws std::runtime_error when a shard of
// the split is missing, given twice, or from another split.
int merge(const std::vector<std::filesystem::path>& shard_dirs, const std::filesystem::path& out);

// Writes index, JUnit and HTML for reports already in `out`.
// A shard of a split run (count > 1) says which it is in run.json ("shard"), so that merge can
// refuse an incomplete or mixed set of shard outputs.
ojson write_run_outputs(const std::filesystem::path& out, const std::vector<ojson>& reports, const Shard& shard = {});

}  // namespace refcheck::harness
