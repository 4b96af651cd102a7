// One file per subcommand, each a {name, synopsis, setup, run} record (as apitrace's CLI does).
// Exit codes everywhere: 0 equivalent, 1 divergent, 2 error.
#pragma once

#include "refcheck/harness/out_folder.hpp"
#include "refcheck/harness/run.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
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

// Every message refcheck prints about an error starts with this.
inline constexpr const char* kPrefix = "refcheck: ";

// --jobs N: at least 1 (the default is the number of cores); 0 is refused with a message.
CLI::Validator at_least_one();
// A whole number of at least `least` (digits only: CLI11 reads "-1" into an unsigned option as its
// largest value); with `zero_means` (what 0 stands for, e.g. "every input") 0 is accepted too.
CLI::Validator whole_number(std::uint64_t least, const std::string& zero_means = "");
// A finite number from `lo` to `hi`: CLI11's ranges let "nan" through (every comparison with it is
// false), and a time limit or score of nan meant no check at all.
CLI::Validator finite_number(double lo, double hi);
// --out DIR (bench's --work), checked and claimed before any work by the one rule every command
// that writes a folder follows (harness::claim_output_folder): DIR is a new folder, an empty one or
// one refcheck wrote, and neither is nor holds the folder of a case file of `case_files`, the data
// root a case runs on (resolved with `options`, when given) or one of `more`. Throws
// std::runtime_error naming the option, DIR and why.
void claim_out_folder(const std::string& option, const std::string& dir,
                      const std::vector<std::filesystem::path>& case_files = {},
                      const harness::RunOptions* options = nullptr,
                      std::vector<harness::GuardedInput> more = {});
// --patch TEXT parsed (harness::parse_patch); a bad one is an error naming --patch and the text.
harness::Patch parse_patch_option(const std::string& text);
// The case files CASES... name (files, or folders of *.json); none given: the project's cases/,
// and with `second_stand_in` also cases/retail/ (the cases of the second stand-in: refcheck run's
// default when no --image is given).
std::vector<std::filesystem::path> case_files(const std::vector<std::string>& given,
                                              bool second_stand_in = false);
// The environments of the build: the stand-in, its profile and the default archives as defaults,
// and the second stand-in ("retail": standin_retail.exe and the profile imported from its map).
void set_stand_ins(harness::RunOptions& options);
// refcheck run's options before its own flags: the stand-ins, the format specification as the rule
// index, the coverage reasons file, and --image/--profile/--data where given (not empty).
harness::RunOptions run_options(const std::string& image, const std::string& profile,
                                const std::string& data);
// The nearest of `names` to `word` when it is near enough to be a likely typo (else empty).
std::string nearest(const std::string& word, const std::vector<std::string>& names);

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
const Command& bench_command();

} // namespace refcheck::cli
