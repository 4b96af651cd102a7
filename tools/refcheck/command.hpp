// One file per subcommand, each a {name, synopsis, setup, run} record (as apitrace's CLI does).
// Exit codes everywhere: 0 equivalent, 1 divergent, 2 error.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace refcheck::cli {

inline constexpr int kEquivalent = 0;
inline constexpr int kDivergent = 1;
inline constexpr int kError = 2;

struct Command {
    const char* name;
    const char* synopsis;
    // Adds the subcommand's options to `app` and returns the function that runs it.
    std::function<std::function<int()>(CLI::App& app)> setup;
};

const Command& run_command();
const Command& merge_command();
const Command& show_command();
const Command& dump_command();
const Command& diff_command();
const Command& call_command();
const Command& bisect_command();
const Command& mutate_command();
const Command& profile_command();
const Command& workbench_command();
const Command& chaos_command();

} // namespace refcheck::cli
