// refcheck mutate [CASES...]: how many small changes of the original would the cases miss? Writes
// mutate.json (reports/mutate-report.schema.json), mutate.html and mutate.txt to --out and prints
// the text summary. Exit 0, or 1 when --min-score is not met; 2 on an error.
#include "command.hpp"

#include "refcheck/harness/mutate.hpp"

#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>
#include <thread>

namespace refcheck::cli {

namespace fs = std::filesystem;

namespace {
struct MutateArgs {
    std::vector<std::string> cases;
    std::string image, profile, data;
    std::string out = "out/mutate";
    unsigned jobs = 1;
    std::string routines;
    std::string operators;
    std::size_t sample = 0;
    std::uint64_t seed = 0;
    double min_score = -1;
    std::string equivalents;
    std::size_t inputs_per_mutant = 32;
    double case_timeout = harness::RunOptions{}.case_timeout;
};
} // namespace

const Command& mutate_command() {
    static const Command command{
        "mutate", "Mutate the original's routines and report which mutants the cases kill (score, survivors)",
        [](CLI::App& app) -> std::function<int()> {
            auto a = std::make_shared<MutateArgs>();
            app.add_option("cases", a->cases, "Case files or folders (default: the project's cases/)");
            app.add_option("--image", a->image, "The original PE32 image (default: the stand-in)");
            app.add_option("--profile", a->profile, "The image's profile JSON (default: the stand-in's)");
            app.add_option("--data", a->data, "Data root holding 3DDATA/ (default: the synthetic archives)");
            app.add_option("--out", a->out, "Output folder for mutate.json, mutate.html, mutate.txt")
                ->capture_default_str();
            a->jobs = std::max(1u, std::thread::hardware_concurrency());
            app.add_option("--jobs,-j", a->jobs, "Worker processes (at least 1; default: the cores)")
                ->capture_default_str()
                ->check(at_least_one());
            app.add_option("--case-timeout", a->case_timeout,
                           "Wall-clock seconds a worker has for one baseline case or one mutant from a fresh "
                           "boot; past it the worker is killed and the run goes on: the case is unusable, "
                           "the mutant undecided (\"timeout\": no kill, it stays in the score's denominator; "
                           "0: no limit)")
                ->capture_default_str()
                ->check(finite_number(0, std::numeric_limits<double>::max()));
            app.add_option("--routines", a->routines,
                           "Only mutants of routines whose name matches this regex");
            app.add_option(
                "--operators", a->operators,
                "Comma-separated operators: negate_jcc, negate_setcc, negate_cmovcc, imm_plus_one, "
                "imm_minus_one, add_to_sub, sub_to_add, and_to_or, or_to_and, store_nop (default: all)");
            app.add_option("--sample", a->sample,
                           "Run a deterministic sample of N mutants (with --seed; 0: all)")
                ->check(whole_number(0));
            CLI::Option* seed = app.add_option("--seed", a->seed, "Seed of --sample (only with --sample)")
                                    ->capture_default_str()
                                    ->check(whole_number(0));
            CLI::Option* per_mutant =
                app.add_option(
                       "--inputs-per-mutant", a->inputs_per_mutant,
                       "Per case, run a mutant on at most N of the inputs that reach it, spread evenly "
                       "(0: all; else at least " +
                           std::to_string(harness::kMinInputsPerMutant) +
                           ", the fewest a mutant runs on where that many reach it; default: 32, and all in "
                           "cases whose inputs together cost at most 5e7 instructions; in a case whose state "
                           "carries from input to input, the first N of its inputs, every reaching one run, "
                           "and by default as many as 4e8 instructions allow)")
                    ->capture_default_str()
                    ->check(whole_number(harness::kMinInputsPerMutant, "every input"));
            app.add_option("--min-score", a->min_score,
                           "Exit 1 when killed / (total - equivalent) is below this (0..1)")
                ->check(finite_number(0, 1));
            app.add_option("--equivalents", a->equivalents,
                           "Registry of argued-equivalent mutants (default: cases/mutants/equivalent.json)");
            return [a, per_mutant, seed] {
                harness::MutateOptions o;
                set_stand_ins(o.run);
                if (!a->image.empty()) o.run.image = a->image;
                if (!a->profile.empty()) o.run.profile = a->profile;
                if (!a->data.empty()) o.run.data = a->data;
                o.run.out = a->out;
                // Survivors that no input reaches get their block's cause from the coverage reasons.
                o.coverage_reasons = fs::path(REFCHECK_SOURCE_DIR) / "cases" / "coverage" / "reasons.json";
                o.run.jobs = a->jobs;
                o.run.case_timeout = a->case_timeout;
                o.routines = a->routines;
                std::stringstream ops(a->operators);
                for (std::string op; std::getline(ops, op, ',');)
                    if (!op.empty()) o.operators.push_back(op);
                if (a->sample) o.sample = a->sample;
                // A seed without a sample would change nothing, silently.
                if (seed->count() != 0 && !a->sample)
                    throw std::runtime_error("--seed: it seeds --sample's choice, and no --sample is given");
                o.seed = a->seed;
                o.inputs_per_mutant = a->inputs_per_mutant;
                o.whole_cheap_cases = per_mutant->count() == 0;
                if (a->min_score >= 0) o.min_score = a->min_score;
                o.equivalents = a->equivalents.empty()
                                    ? fs::path(REFCHECK_SOURCE_DIR) / "cases" / "mutants" / "equivalent.json"
                                    : fs::path(a->equivalents);
                if (!a->equivalents.empty() && !fs::exists(*o.equivalents))
                    throw std::runtime_error("--equivalents: no such file " + a->equivalents);
                o.progress = [](std::string_view line) { std::cout << line << std::endl; };
                const std::vector<fs::path> files = case_files(a->cases);
                claim_out_folder("--out", a->out, files, &o.run); // before any work
                const auto s = harness::mutate(files, o);
                std::cout << "\n" << s.text;
                std::cout << "JSON report: " << fs::absolute(s.json).lexically_normal().string() << "\n";
                std::cout << "HTML report: " << fs::absolute(s.html).lexically_normal().string() << "\n";
                if (s.exit_code == 1)
                    std::cout
                        << (s.report["totals"]["score"].is_null()
                                ? "refcheck: mutate: nothing was scored (no mutant, or every one argued "
                                  "equivalent), so --min-score "
                                : "refcheck: mutate: the score is below --min-score ")
                        << a->min_score << (s.report["totals"]["score"].is_null() ? " is not met" : "")
                        << "\n";
                return s.exit_code;
            };
        }};
    return command;
}

} // namespace refcheck::cli
