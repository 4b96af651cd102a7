// refcheck bench [CASES...]: where the run's time goes (emulation, reimplementation, harness, per
// family) and how it scales from 1 to --jobs workers, with peak RSS and a byte-for-byte check that
// every worker count gives the same outputs (harness/include/refcheck/harness/bench.hpp). Prints
// figures; exit 0, or 2 on an error. A benchmark, not a test: nothing checks the figures.
#include "command.hpp"

#include "refcheck/harness/bench.hpp"

#include <iostream>
#include <thread>

namespace refcheck::cli {

namespace {
struct BenchArgs {
    std::vector<std::string> cases;
    std::string image, profile, data;
    std::string work = "out/bench";
    unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
    bool no_scaling = false, no_serial = false;
};
} // namespace

const Command& bench_command() {
    static const Command command{
        "bench", "Print where a run's time goes (emulation, reimplementation, harness) and how it scales",
        [](CLI::App& app) -> std::function<int()> {
            auto a = std::make_shared<BenchArgs>();
            app.add_option(
                "cases", a->cases,
                "Case files or folders (default: what refcheck run runs: cases/ and cases/retail/)");
            app.add_option("--image", a->image, "The original PE32 image (default: the stand-in)");
            app.add_option("--profile", a->profile, "The image's profile JSON (default: the stand-in's)");
            app.add_option("--data", a->data, "The data root (default: the reference-scale archives)");
            app.add_option("--jobs", a->jobs,
                           "Scale from 1 to this many workers (default: the number of cores)")
                ->check(at_least_one());
            app.add_option("--work", a->work, "Where the scaling runs write their outputs (work/jobs-N)");
            app.add_flag("--no-scaling", a->no_scaling, "Only the per-family pass in this process");
            app.add_flag("--no-serial", a->no_serial, "Only the scaling runs");
            return [a] {
                harness::RunOptions o = run_options(a->image, a->profile, a->data);
                harness::BenchOptions b;
                b.max_jobs = a->jobs;
                b.work = a->work;
                b.scaling = !a->no_scaling;
                b.serial = !a->no_serial;
                const auto files = case_files(a->cases, a->image.empty() && a->profile.empty());
                claim_out_folder("--work", a->work, files, &o); // before any work
                std::cout << harness::bench_text(harness::bench(files, o, b)) << std::flush;
                return kEquivalent;
            };
        }};
    return command;
}

} // namespace refcheck::cli
