// refcheck diff OLD NEW: what changed between two runs (folders holding run.json, or run.json files):
// cases new, removed, fixed, newly divergent, status, count, metric, ledger and coverage changes.
// Exit 0 when no case got worse, 1 when some case regressed, 2 on an error.
#include "command.hpp"

#include "refcheck/harness/diff.hpp"

#include <iostream>

namespace refcheck::cli {

const Command& diff_command() {
    static const Command command{
        "diff", "Compare two runs (run folders or run.json files): exit 1 when some case got worse",
        [](CLI::App& app) -> std::function<int()> {
            auto old_run = std::make_shared<std::string>();
            auto new_run = std::make_shared<std::string>();
            auto json = std::make_shared<bool>(false);
            app.add_option("old", *old_run, "The earlier run (folder with run.json, or a run.json)")
                ->required();
            app.add_option("new", *new_run, "The later run (folder with run.json, or a run.json)")
                ->required();
            app.add_flag("--json", *json, "Print the differences as JSON (refcheck-run-diff/1)");
            return [old_run, new_run, json] {
                harness::ojson d;
                try {
                    d = harness::diff_runs(harness::load_run_index(*old_run),
                                           harness::load_run_index(*new_run));
                } catch (const harness::DiffError& e) {
                    std::cerr << "refcheck: diff: " << e.what() << "\n";
                    return kError;
                } catch (const nlohmann::json::exception& e) {
                    // What load_run_index does not check; still named by both files, never bare.
                    std::string what = e.what(); // without nlohmann's "[json.exception.type_error.302] "
                    if (const auto end = what.find("] ");
                        what.rfind("[json.exception.", 0) == 0 && end != std::string::npos)
                        what = what.substr(end + 2);
                    std::cerr << "refcheck: diff: " << *old_run << " and " << *new_run
                              << ": a member of the run indexes has an unexpected shape (" << what << ")\n";
                    return kError;
                }
                if (*json)
                    std::cout << d.dump(1) << "\n";
                else
                    std::cout << harness::diff_text(d);
                return harness::regressed(d) ? kDivergent : kEquivalent;
            };
        }};
    return command;
}

} // namespace refcheck::cli
