// refcheck chaos --patches N --seed S [CASES...]: N random byte patches of the original's code, one
// whole run each; exit 0 when every run ended as equivalent, divergent or error with complete
// reports, 1 when one did not (a harness failure), 2 on an error.
#include "command.hpp"

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/chaos.hpp"

#include <filesystem>
#include <iostream>
#include <thread>

namespace refcheck::cli {

namespace fs = std::filesystem;

namespace {
struct ChaosArgs {
    std::vector<std::string> cases;
    std::string image, profile, data;
    std::string out = "out/chaos";
    unsigned jobs = 1;
    std::size_t patches = 0;
    std::uint64_t seed = 0;
    bool keep = false;
};
} // namespace

const Command& chaos_command() {
    static const Command command{
        "chaos",
        "Run the cases on N originals, each with a random byte patch; every run must end with complete "
        "reports",
        [](CLI::App& app) -> std::function<int()> {
            auto a = std::make_shared<ChaosArgs>();
            app.add_option("cases", a->cases, "Case files or folders (default: the project's cases/)");
            app.add_option("--patches", a->patches, "Runs, one random patch each")->required();
            app.add_option("--seed", a->seed, "Seed of the patches")->capture_default_str();
            app.add_option("--image", a->image, "The original PE32 image (default: the stand-in)");
            app.add_option("--profile", a->profile, "The image's profile JSON (default: the stand-in's)");
            app.add_option("--data", a->data, "Data root holding 3DDATA/ (default: the synthetic archives)");
            app.add_option("--out", a->out, "Output folder for chaos.json (and runs/ with --keep)")
                ->capture_default_str();
            a->jobs = std::max(1u, std::thread::hardware_concurrency());
            app.add_option("--jobs,-j", a->jobs, "Worker processes per run")->capture_default_str();
            app.add_flag("--keep", a->keep, "Keep every run's reports in runs/NNNN/");
            return [a] {
                harness::ChaosOptions o;
                set_stand_ins(o.run);
                if (!a->image.empty()) o.run.image = a->image;
                if (!a->profile.empty()) o.run.profile = a->profile;
                if (!a->data.empty()) o.run.data = a->data;
                o.run.out = a->out;
                o.run.jobs = std::max(1u, a->jobs);
                o.patches = a->patches;
                o.seed = a->seed;
                o.keep = a->keep;
                o.progress = [](std::string_view line) { std::cout << line << std::endl; };
                const std::vector<fs::path> files = case_files(a->cases);
                claim_out_folder("--out", a->out, files, &o.run); // before any work
                const auto s = harness::chaos(files, o);
                std::cout << s.text;
                std::cout << "JSON report: "
                          << fs::absolute(fs::path(a->out) / "chaos.json").lexically_normal().string()
                          << "\n";
                return s.exit_code;
            };
        }};
    return command;
}

} // namespace refcheck::cli
