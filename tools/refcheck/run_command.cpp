// refcheck run [CASES...]: the main job. Runs cases (default: every case in cases/), writes one
// report per case, the run index, JUnit XML and the HTML page, and exits 0/1/2.
#include "command.hpp"
#include "progress.hpp"

#include "refcheck/harness/filter.hpp"

#include "refcheck/harness/bisect.hpp"
#include "refcheck/harness/ledger.hpp"
#include "refcheck/harness/run.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <set>
#include <sstream>
#include <thread>

namespace refcheck::cli {

namespace fs = std::filesystem;

namespace {

struct RunArgs {
    std::vector<std::string> cases;
    std::string image, profile, data;
    std::string out = "out/run";
    unsigned jobs = 1;
    double case_timeout = harness::RunOptions{}.case_timeout;
    std::string shard;
    std::vector<std::string> patches;
    bool swap_light = false;
    std::string only;
    std::string filter;
    bool list = false;
};

// A whole number written in decimal digits alone, else an error naming `what` and the text (stoul
// took " 1", "+1" and "1 " in "1/ 3" too).
unsigned parse_count(const std::string& text, const std::string& what) {
    std::size_t used = 0;
    unsigned long v = 0;
    try {
        v = std::stoul(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || used != text.size() ||
        v > 0xffffffffu)
        throw std::runtime_error(what + ": '" + text + "' is not a whole number");
    return static_cast<unsigned>(v);
}

harness::Shard parse_shard(const std::string& text) {
    harness::Shard s;
    if (!text.empty()) {
        const auto slash = text.find('/');
        if (slash == std::string::npos)
            throw std::runtime_error("--shard " + text + ": wants K/N, shard K of N, e.g. 0/4");
        s.index = parse_count(text.substr(0, slash), "--shard " + text + ": K");
        s.count = parse_count(text.substr(slash + 1), "--shard " + text + ": N");
        if (s.count == 0 || s.index >= s.count)
            throw std::runtime_error("--shard " + text + ": K must be below N (shards 0 to N-1)");
    } else if (const char* total = std::getenv("GTEST_TOTAL_SHARDS")) {
        // The GoogleTest sharding protocol, so runners that shard test binaries can shard a run.
        const char* index = std::getenv("GTEST_SHARD_INDEX");
        s.count = parse_count(total, "GTEST_TOTAL_SHARDS");
        s.index = index ? parse_count(index, "GTEST_SHARD_INDEX") : 0;
        // The protocol's "I understand sharding" file: one that cannot be created is an error naming
        // the variable and the path (fclose of the null FILE* fopen gave killed the process).
        if (const char* status = std::getenv("GTEST_SHARD_STATUS_FILE")) {
            std::FILE* f = std::fopen(status, "w");
            if (!f)
                throw std::runtime_error(std::string("GTEST_SHARD_STATUS_FILE=") + status +
                                         ": cannot create the file (" + std::strerror(errno) + ")");
            std::fclose(f);
        }
        if (s.count == 0 || s.index >= s.count)
            throw std::runtime_error("GTEST_SHARD_INDEX=" + std::to_string(s.index) +
                                     " must be below GTEST_TOTAL_SHARDS=" + std::to_string(s.count));
    }
    return s;
}

std::string with_commas(std::uint64_t v) {
    std::string s = std::to_string(v);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
    return s;
}

// A divergent case's reproduce line with the files as this run was given them (the report names
// them by file name only).
std::string reproduce_line(const std::vector<fs::path>& files, const harness::RunOptions& o,
                           const std::string& name, const harness::ojson& bisect) {
    for (const auto& f : files)
        if (f.stem().string() == name)
            return harness::reproduce_command(harness::load_case(f), o,
                                              bisect.value("reproduced_alone", false)
                                                  ? bisect.at("input").get<std::string>()
                                                  : std::string());
    return bisect.at("reproduce").get<std::string>();
}

void print_summary(const harness::RunSummary& s, const std::vector<fs::path>& files,
                   const harness::RunOptions& o) {
    const auto& t = s.index.at("totals");
    const auto& c = t.at("counts");
    std::cout << "\n";
    for (const auto& r : s.results) {
        const auto& counts = r.report.value("counts", harness::ojson::object());
        std::printf("  %-34s %-11s %12s compared %12s matched %9s known %6s unexplained  %7.1fs\n",
                    r.name.c_str(), std::string(harness::status_name(r.status)).c_str(),
                    with_commas(counts.value("compared", 0ull)).c_str(),
                    with_commas(counts.value("matched", 0ull)).c_str(),
                    with_commas(counts.value("known", 0ull)).c_str(),
                    with_commas(counts.value("unexplained", 0ull)).c_str(), r.seconds);
        if (r.report.contains("error"))
            std::printf("      error: %s\n", r.report.at("error").get<std::string>().c_str());
        if (const auto& b = harness::member(r.report, "bisect"); b.contains("reproduce"))
            std::printf("      first divergence in input %s; reproduce: %s\n",
                        b.at("input").get<std::string>().c_str(),
                        reproduce_line(files, o, r.name, b).c_str());
    }
    std::cout << "\nrefcheck: " << s.index.at("status").get<std::string>() << " — " << t.at("cases")
              << " cases (" << t.at("equivalent") << " equivalent, " << t.at("divergent") << " divergent, "
              << t.at("error") << " error); events compared " << with_commas(c.value("compared", 0ull))
              << ", matched " << with_commas(c.value("matched", 0ull)) << ", known divergences "
              << with_commas(c.value("known", 0ull)) << ", unexplained "
              << with_commas(c.value("unexplained", 0ull)) << "\n";
    if (const auto& shard = harness::member(s.index, "shard"); harness::member(shard, "empty") == true)
        std::cout << "  shard " << shard.at("index") << "/" << shard.at("count")
                  << " selected none of the run's " << shard.at("plan").at("cases").size()
                  << " case(s) (more shards than cases): nothing compared here; refcheck merge counts this "
                     "output as the shard's\n";
    // A shard holding parts of split cases: their cases are decided only when refcheck merge
    // finishes them (the whole case's checks: something compared, its "compares"), so this run's
    // status covers the parts' comparisons, not those cases' verdicts.
    if (const auto& parts = harness::member(s.index, "parts"); parts.is_array() && !parts.empty()) {
        std::set<std::string> split;
        for (const auto& p : parts) split.insert(p.at("case").get<std::string>());
        std::string names;
        for (const auto& n : split) names += (names.empty() ? "" : ", ") + n;
        std::cout << "  provisional: " << parts.size() << " part(s) of " << split.size() << " split case(s) ("
                  << names
                  << "): refcheck merge decides those cases; this shard's status covers the parts' "
                     "comparisons only\n";
    }
    for (const auto& [cause, n] : harness::member(c, "known_by_cause").items())
        std::cout << "  known divergence " << cause << ": " << with_commas(n.get<std::uint64_t>())
                  << " (the cause witnessed on both sides)\n";
    // Matched pairs whose documented-fault flags the sides gave differently (counts.flags_disagree).
    for (const char* side : {"original_only", "reimpl_only"})
        for (const auto& [cause, n] : harness::member(harness::member(c, "flags_disagree"), side).items())
            std::cout << "  flags disagree on " << cause << ": " << with_commas(n.get<std::uint64_t>())
                      << " matched event(s) flagged by the "
                      << (side[0] == 'o' ? "original only" : "reimplementation only") << "\n";
    if (s.index.contains("ledger")) std::cout << harness::ledger_summary(s.index.at("ledger")) << "\n";
    // What the seeded faults changed, by the case reports (run.json's seeded_effect, one row per patch
    // given): a patch no case ran, or a swap that gave no case another light, left every comparison
    // unmodified.
    const harness::ojson& effect = harness::member(s.index, "seeded_effect");
    const std::uint64_t cases = effect.contains("cases") ? effect.at("cases").get<std::uint64_t>() : 0;
    for (const auto& p : harness::member(effect, "patches")) {
        const auto ran = p.at("ran").get<std::uint64_t>(), unknown = p.at("cannot_tell").get<std::uint64_t>(),
                   stopped = p.value("stopped", std::uint64_t{0});
        std::cout << "seeded patch " << p.at("where").get<std::string>() << ": its bytes ran in " << ran
                  << " of " << cases << " case(s)"
                  << (ran == 0 && unknown == 0 && stopped == 0
                          ? "; in none, so no case ran the modified original"
                          : "");
        if (unknown)
            std::cout
                << "; " << unknown
                << " case(s) cannot tell (the bytes lie outside the covered routines, or after a fault in "
                   "their block)";
        if (stopped)
            std::cout
                << "; " << stopped
                << " case(s) stopped before their coverage could tell (a crash, a time-out or an error)";
        std::cout << "\n";
    }
    if (effect.contains("reimpl_light_changed_in")) {
        const auto changed = effect.at("reimpl_light_changed_in").get<std::uint64_t>();
        std::cout << "seeded light swap: the reimplementation got another light in " << changed << " of "
                  << cases << " case(s)"
                  << (changed == 0 ? "; in none, so its input was not modified in this run" : "") << "\n";
    }
    std::printf(
        "wall time %.1f s, %s events/s (both sides' events)\n", s.seconds,
        with_commas(static_cast<std::uint64_t>(s.seconds > 0 ? double(s.events) / s.seconds : 0)).c_str());
    std::cout << "HTML report: " << fs::absolute(s.html).lexically_normal().string() << "\n";
}

} // namespace

const Command& run_command() {
    static const Command command{
        "run", "Run cases (default: all of cases/) and report what is equivalent",
        [](CLI::App& app) -> std::function<int()> {
            auto a = std::make_shared<RunArgs>();
            app.add_option("cases", a->cases, "Case files or folders (default: the project's cases/)");
            app.add_option("--image", a->image, "The original PE32 image (default: the stand-in)");
            app.add_option("--profile", a->profile, "The image's profile JSON (default: the stand-in's)");
            app.add_option("--data", a->data, "Data root holding 3DDATA/ (default: the synthetic archives)");
            app.add_option("--out", a->out, "Output folder for reports")->capture_default_str();
            a->jobs = std::max(1u, std::thread::hardware_concurrency());
            app.add_option("--jobs,-j", a->jobs, "Cases run in parallel (at least 1; default: the cores)")
                ->capture_default_str()
                ->check(at_least_one());
            app.add_option("--case-timeout", a->case_timeout,
                           "Wall-clock seconds a worker has for one case; past it the worker is killed, "
                           "the case is an error naming the limit and the run goes on (0: no limit)")
                ->capture_default_str()
                ->check(finite_number(0, std::numeric_limits<double>::max()));
            app.add_option(
                   "--patch", a->patches,
                   "Seed a fault in the original: WHERE:NEWHEX or WHERE:OLDHEX->NEWHEX (OLD: the bytes it "
                   "must "
                   "replace, else exit 2), WHERE a symbol+offset or 0xADDRESS (announced first on stdout, "
                   "recorded in run.json, JUnit, HTML and every report). One patch per --patch; repeat it "
                   "for more")
                ->expected(1)
                ->allow_extra_args(false)
                ->take_all();
            app.add_flag(
                "--inject-reimpl-light-swap", a->swap_light,
                "Seed a fault in the reimplementation's input: its light has x and z swapped (recorded)");
            app.add_option(
                "--only", a->only,
                "Compare just the input of this name in each case, e.g. 'record 12 view 0 light 1 state 0' "
                "(the reproduce line of refcheck bisect)");
            app.add_option(
                "--filter", a->filter,
                "Run only the cases and inputs PATTERN selects, gtest-style: POSITIVE[:-NEGATIVE], "
                "':'-separated globs (* and ?) over CASE/INPUT, a glob without '/' naming whole "
                "cases: 'program-*', 'loader:palette', 'program-matrix/record 12 *', "
                "'program-*:-*/* state 0'");
            app.add_flag("--list", a->list,
                         "List the cases and their inputs (after --shard and --filter), one case a line and "
                         "its inputs indented below it, and exit without comparing anything");
            app.add_option("--shard", a->shard,
                           "Run shard K of N (K/N); GTEST_TOTAL_SHARDS/GTEST_SHARD_INDEX also work");
            return [a] {
                harness::RunOptions o = run_options(a->image, a->profile, a->data);
                o.out = a->out;
                o.jobs = a->jobs;
                o.case_timeout = a->case_timeout;
                o.shard = parse_shard(a->shard);
                for (const auto& p : a->patches) o.injection.patches.push_back(parse_patch_option(p));
                o.injection.reimpl_light_swapped = a->swap_light;
                o.only = a->only;
                if (!a->filter.empty()) o.filter = std::make_shared<const harness::InputFilter>(a->filter);
                // Before anything runs: a run with seeded faults does not test the unmodified sides.
                for (const auto& line : harness::seeded_fault_banner(o.injection)) std::cout << line << "\n";
                std::cout << std::flush;
                // The default cases run on both stand-ins; on an image given with --image, once.
                const auto files = case_files(a->cases, a->image.empty() && a->profile.empty());
                const auto names = harness::run_case_names(files, o);
                // A shard that gets none of the run's cases (more shards than cases, as a CI matrix
                // sized for a larger run has) has done its share: it writes a run.json that says so,
                // which refcheck merge counts as that shard's output. A run that selects no case at
                // all, sharded or not, is an error.
                if (names.empty()) {
                    harness::RunOptions whole = o;
                    whole.shard = {};
                    if (o.shard.count <= 1 || harness::run_case_names(files, whole).empty())
                        throw std::runtime_error(a->filter.empty()
                                                     ? "no case to run"
                                                     : "--filter '" + a->filter + "' selects no case");
                }
                // --list after that check: a selection of no case listed nothing and exited 0.
                if (a->list) {
                    for (const auto& [name, inputs] : harness::list_inputs(files, o)) {
                        std::cout << name << "\n";
                        for (const auto& input : inputs) std::cout << "  " << input << "\n";
                    }
                    return kEquivalent;
                }
                claim_out_folder("--out", a->out, files, &o); // before any work
                // Progress on stderr; the results (and the banner above) on stdout.
                Progress progress(stderr, isatty(STDERR_FILENO) != 0, names, o.jobs,
                                  harness::read_junit_times(fs::path(a->out) / "junit.xml"));
                o.started = [&](std::size_t, std::string_view name) { progress.started(name); };
                o.progress = [&](std::string_view name) { progress.done(name); };
                o.tick = [&] { progress.tick(); };
                const auto summary = harness::run(files, o);
                progress.finish();
                if (!summary.problems.empty()) {
                    for (const auto& p : summary.problems) std::cerr << "refcheck: " << p << "\n";
                    return kError;
                }
                if (!summary.interrupted.empty()) {
                    std::cerr << "\nrefcheck: interrupted by " << summary.interrupted << "\n";
                    return summary.exit_code;
                }
                for (const auto& line : summary.splits) std::cerr << "refcheck: " << line << "\n";
                print_summary(summary, files, o);
                return summary.exit_code;
            };
        }};
    return command;
}

} // namespace refcheck::cli
