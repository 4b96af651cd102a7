// Chaos runs of the original (`refcheck chaos`): N random byte patches written into the original's
// code, one per run, each run being a whole `refcheck run` of the cases with that patch seeded. A
// hostile original may fault, loop, return nonsense or corrupt its heap; every run must still end
// as equivalent, divergent or error with a complete report (run.json and every case report it
// lists whole and parseable), and within its cases' instruction budgets (Case limits).
#pragma once

#include "refcheck/harness/report.hpp"
#include "refcheck/harness/run.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace refcheck::harness {

struct ChaosOptions {
    RunOptions run;          // environment, out (chaos.json and runs/ go there), jobs
    std::size_t patches = 0; // runs, one patch each
    std::uint64_t seed = 0;
    bool keep = false; // keep every run's reports (runs/NNNN/); else only those of harness failures
    std::function<void(std::string_view)> progress; // one line per run (may be empty)
};

// One run's patch: 1 to 4 random bytes at a random address of the code of the profile's routines and
// those they reach (weighted by size), drawn from std::mt19937_64(seed), so the same seed gives the
// same patches on any machine.
std::vector<Patch> chaos_patches(const std::filesystem::path& image, const std::filesystem::path& profile,
                                 std::size_t n, std::uint64_t seed);

// What is wrong with a run's output folder: empty when run.json, every case report it lists (each
// whole JSON with a status, none from a worker that died), junit.xml and index.html are there.
std::string incomplete_run_output(const std::filesystem::path& out);

struct ChaosSummary {
    int exit_code = 2; // 0: every run ended as equivalent, divergent or error with complete reports
    ojson report;      // chaos.json
    std::string text;
};

// Throws std::runtime_error for an error before any run (bad case, image, profile).
ChaosSummary chaos(const std::vector<std::filesystem::path>& case_files, const ChaosOptions& options);

} // namespace refcheck::harness
