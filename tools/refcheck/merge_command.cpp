// refcheck merge OUT SHARD_DIR...: joins shard outputs into one run, identical to an unsharded run's.
#include "command.hpp"

#include "refcheck/harness/run.hpp"

#include <iostream>

namespace refcheck::cli {

const Command& merge_command() {
    static const Command command{
        "merge", "Join the outputs of sharded runs into one run report (same bytes as an unsharded run)",
        [](CLI::App& app) -> std::function<int()> {
            auto out = std::make_shared<std::string>();
            auto dirs = std::make_shared<std::vector<std::string>>();
            app.add_option("--out", *out, "Folder for the merged run")->required();
            app.add_option("shards", *dirs, "Output folders of the shards (each has run.json)")->required();
            return [out, dirs] {
                check_out_folder("--out", *out); // before any work
                std::vector<std::filesystem::path> paths(dirs->begin(), dirs->end());
                const int code = harness::merge(paths, *out);
                std::cout << "merged " << paths.size() << " shard(s) into " << *out << "/run.json ("
                          << (code == 0   ? "equivalent"
                              : code == 1 ? "divergent"
                                          : "error")
                          << ")\n";
                const auto index = harness::read_json(std::filesystem::path(*out) / "run.json");
                if (index.contains("seeded_faults"))
                    std::cout << "refcheck: SEEDED FAULTS — the shards ran with the original or the "
                                 "reimplementation's input modified (run.json \"seeded_faults\")\n";
                return code;
            };
        }};
    return command;
}

} // namespace refcheck::cli
