// refcheck merge OUT SHARD_DIR...: joins shard outputs into one run, identical to an unsharded run's.
// A case the shards split (each ran a share of its inputs) is finished here from its parts, which
// boots the original once more: --image/--profile/--data/--cases as the shards were run.
#include "command.hpp"

#include "refcheck/harness/run.hpp"

#include <iostream>
#include <thread>

namespace refcheck::cli {

namespace {
struct MergeArgs {
    std::string out;
    std::vector<std::string> dirs, cases;
    std::string image, profile, data;
    unsigned jobs = 1;
};
} // namespace

const Command& merge_command() {
    static const Command command{
        "merge", "Join the outputs of sharded runs into one run report (same bytes as an unsharded run)",
        [](CLI::App& app) -> std::function<int()> {
            auto a = std::make_shared<MergeArgs>();
            app.add_option("--out", a->out, "Folder for the merged run")->required();
            app.add_option("shards", a->dirs, "Output folders of the shards (each has run.json)")->required();
            app.add_option("--cases", a->cases,
                           "The case files or folders the shards ran (default: the project's cases/); "
                           "read only for cases the shards split, which merge finishes from their parts");
            app.add_option("--image", a->image,
                           "As the shards were run: the original (default: the stand-in)");
            app.add_option("--profile", a->profile, "As the shards were run: the image's profile");
            app.add_option("--data", a->data, "As the shards were run: the data root");
            a->jobs = std::max(1u, std::thread::hardware_concurrency());
            app.add_option("--jobs,-j", a->jobs, "Split cases finished in parallel (default: the cores)")
                ->capture_default_str()
                ->check(at_least_one());
            return [a] {
                std::vector<std::filesystem::path> paths(a->dirs.begin(), a->dirs.end());
                harness::RunOptions o = run_options(a->image, a->profile, a->data);
                o.jobs = a->jobs;
                const auto files = case_files(a->cases, a->image.empty() && a->profile.empty());
                std::vector<harness::GuardedInput> shards;
                for (const auto& dir : paths) shards.push_back({dir, "the shard output " + dir.string()});
                claim_out_folder("--out", a->out, files, &o, shards); // before any work
                std::vector<std::string> splits;
                const int code = harness::merge(paths, a->out, &o, files, &splits);
                for (const auto& line : splits) std::cerr << "refcheck: " << line << "\n";
                std::cout << "merged " << paths.size() << " shard(s) into " << a->out << "/run.json ("
                          << (code == 0   ? "equivalent"
                              : code == 1 ? "divergent"
                                          : "error")
                          << ")\n";
                const auto index = harness::read_json(std::filesystem::path(a->out) / "run.json");
                if (index.contains("seeded_faults"))
                    std::cout << "refcheck: SEEDED FAULTS — the shards ran with the original or the "
                                 "reimplementation's input modified (run.json \"seeded_faults\")\n";
                return code;
            };
        }};
    return command;
}

} // namespace refcheck::cli
