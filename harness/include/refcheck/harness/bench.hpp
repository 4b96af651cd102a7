// refcheck bench: where a run's time goes and how it scales with workers (issue 17). Figures only:
// nothing here is written into a report, and nothing here is a test.
//  1. Every case once in this process, one after another, with a PhaseClock (phase.hpp): per family
//     the events compared, wall seconds, events/s, and the split into emulation, reimplementation
//     and harness time.
//  2. The whole run (harness::run, reports and all) with 1, 2, ... N workers, each in a forked
//     process of its own: wall seconds, events/s, the speed-up over 1 worker, peak RSS, and whether
//     its outputs are byte-identical to the 1-worker run's (junit.xml's times aside).
#pragma once

#include "refcheck/harness/phase.hpp"
#include "refcheck/harness/run.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace refcheck::harness {

struct BenchFamily {
    std::string family;
    std::size_t cases = 0;
    std::uint64_t events = 0;
    double seconds = 0;
    std::array<double, kPhases> phase{}; // seconds, indexed by Phase
};

struct BenchScale {
    unsigned jobs = 1;
    int exit_code = 2; // harness::run's
    double seconds = 0;
    std::uint64_t events = 0;
    long coordinator_rss_kb = 0; // the process that hands out cases and writes the reports
    long worker_rss_kb = 0;      // the largest worker's peak
    bool identical = false;      // outputs byte-identical to the 1-worker run's (junit.xml's times aside)
};

struct BenchResult {
    std::vector<BenchFamily> families; // by family name
    std::vector<BenchScale> scaling;   // jobs 1..N
    long in_process_rss_kb = 0;        // this process's peak after part 1
};

struct BenchOptions {
    unsigned max_jobs = 2;      // scaling from 1 to this many workers
    std::filesystem::path work; // the scaling runs' output folders (work/jobs-N), replaced
    bool scaling = true;        // part 2
    bool serial = true;         // part 1
};

BenchResult bench(const std::vector<std::filesystem::path>& case_files, const RunOptions& options,
                  const BenchOptions& bench_options);
// Whether two run folders hold the same files with the same bytes, junit.xml left out (its `time`
// attributes are wall times): the scaling runs' "identical" column.
bool same_outputs(const std::filesystem::path& a, const std::filesystem::path& b);
// The tables, with the goals beside the figures they are about.
std::string bench_text(const BenchResult& r);

} // namespace refcheck::harness
