#include "refcheck/harness/bench.hpp"

#include "refcheck/harness/ledger.hpp"

#include <fmt/format.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <stdexcept>

namespace refcheck::harness {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Part 1: every case in this process, serially, with a phase clock per case.
std::vector<BenchFamily> serial_pass(const std::vector<fs::path>& case_files, const RunOptions& options) {
    std::shared_ptr<const RuleIndex> rules;
    if (options.rules_document)
        rules = std::make_shared<const RuleIndex>(load_rule_index(*options.rules_document));
    std::map<std::string, BenchFamily> by_family;
    for (const Case& c : run_cases(case_files, options)) {
        Environment env = resolve_environment(c, options);
        env.rules = rules;
        const auto t0 = Clock::now();
        PhaseClock clock;
        const CaseResult r = run_case(c, env, options.injection);
        const auto phase = clock.seconds();
        BenchFamily& f = by_family[std::string(family_name(c.family))];
        f.family = family_name(c.family);
        ++f.cases;
        f.events += r.events;
        f.seconds += since(t0);
        for (std::size_t i = 0; i < kPhases; ++i) f.phase[i] += phase[i];
    }
    std::vector<BenchFamily> out;
    for (auto& [name, f] : by_family) out.push_back(std::move(f));
    return out;
}

// What a forked scaling run sends back through its pipe.
struct ScaleMessage {
    int exit_code;
    double seconds;
    std::uint64_t events;
    long self_kb, children_kb;
};

BenchScale scaled_run(const std::vector<fs::path>& case_files, RunOptions options, unsigned jobs,
                      const fs::path& out) {
    fs::remove_all(out);
    options.jobs = jobs;
    options.out = out;
    options.progress = nullptr;
    options.started = nullptr;
    options.tick = nullptr;
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("bench: pipe failed");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("bench: fork failed");
    if (pid == 0) {
        close(fds[0]);
        ScaleMessage m{2, 0, 0, 0, 0};
        try {
            const RunSummary s = run(case_files, options);
            m.exit_code = s.problems.empty() ? s.exit_code : 2;
            m.seconds = s.seconds;
            m.events = s.events;
        } catch (...) {}
        rusage self{}, children{};
        getrusage(RUSAGE_SELF, &self);
        getrusage(RUSAGE_CHILDREN, &children);
        m.self_kb = self.ru_maxrss;
        m.children_kb = children.ru_maxrss;
        const ssize_t n = write(fds[1], &m, sizeof m);
        _exit(n == static_cast<ssize_t>(sizeof m) ? 0 : 1);
    }
    close(fds[1]);
    ScaleMessage m{};
    const ssize_t n = read(fds[0], &m, sizeof m);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (n != static_cast<ssize_t>(sizeof m) || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error("bench: the run with " + std::to_string(jobs) + " worker(s) died");
    BenchScale s;
    s.jobs = jobs;
    s.exit_code = m.exit_code;
    s.seconds = m.seconds;
    s.events = m.events;
    s.coordinator_rss_kb = m.self_kb;
    s.worker_rss_kb = m.children_kb;
    return s;
}

// Every file under `dir` (relative name -> bytes), junit.xml with its time attributes blanked (they
// are wall times; the rest of it, the verdicts and counts, must match).
std::map<std::string, std::string> outputs(const fs::path& dir) {
    static const std::regex times(R"re(\btime="[^"]*")re");
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        std::ifstream in(e.path(), std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (e.path().filename() == "junit.xml") bytes = std::regex_replace(bytes, times, "time=\"\"");
        files[fs::relative(e.path(), dir).generic_string()] = std::move(bytes);
    }
    return files;
}

std::string rate(double events, double seconds) {
    return seconds > 0 ? fmt::format("{:.0f}", events / seconds) : std::string("-");
}

} // namespace

bool same_outputs(const fs::path& a, const fs::path& b) {
    return fs::is_directory(a) && fs::is_directory(b) && outputs(a) == outputs(b);
}

BenchResult bench(const std::vector<fs::path>& case_files, const RunOptions& options,
                  const BenchOptions& bench_options) {
    BenchResult r;
    if (bench_options.serial) {
        r.families = serial_pass(case_files, options);
        rusage self{};
        getrusage(RUSAGE_SELF, &self);
        r.in_process_rss_kb = self.ru_maxrss;
    }
    if (bench_options.scaling) {
        const fs::path first = bench_options.work / "jobs-1";
        for (unsigned jobs = 1; jobs <= std::max(1u, bench_options.max_jobs); ++jobs) {
            const fs::path out = bench_options.work / ("jobs-" + std::to_string(jobs));
            BenchScale s = scaled_run(case_files, options, jobs, out);
            s.identical = same_outputs(first, out);
            r.scaling.push_back(s);
        }
    }
    return r;
}

std::string bench_text(const BenchResult& r) {
    std::string t;
    if (!r.families.empty()) {
        t += "Per family, every case once in one process, one after another (wall time):\n";
        t += fmt::format("  {:<10} {:>5} {:>11} {:>8} {:>10} {:>7} {:>7} {:>7} {:>9} {:>10}\n", "family",
                         "cases", "events", "seconds", "events/s", "emu %", "reimpl", "harness", "harn/emu",
                         "harn ns/ev");
        BenchFamily all;
        all.family = "all";
        for (const BenchFamily* f : [&] {
                 std::vector<const BenchFamily*> rows;
                 for (const auto& x : r.families) rows.push_back(&x);
                 return rows;
             }()) {
            all.cases += f->cases;
            all.events += f->events;
            all.seconds += f->seconds;
            for (std::size_t i = 0; i < kPhases; ++i) all.phase[i] += f->phase[i];
        }
        auto row = [&](const BenchFamily& f) {
            const double total = f.phase[0] + f.phase[1] + f.phase[2];
            auto share = [&](Phase p) {
                return total > 0 ? 100.0 * f.phase[static_cast<std::size_t>(p)] / total : 0.0;
            };
            const double emu = f.phase[static_cast<std::size_t>(Phase::emulation)];
            const double harness = f.phase[static_cast<std::size_t>(Phase::harness)];
            // The harness's own time per compared event (both sides' events counted, as `events`).
            t += fmt::format(
                "  {:<10} {:>5} {:>11} {:>8.2f} {:>10} {:>6.1f}% {:>6.1f}% {:>6.1f}% {:>9} {:>10}\n",
                f.family, f.cases, f.events, f.seconds, rate(static_cast<double>(f.events), f.seconds),
                share(Phase::emulation), share(Phase::reimpl), share(Phase::harness),
                emu > 0 ? fmt::format("{:.2f}x", harness / emu) : std::string("-"),
                f.events ? fmt::format("{:.0f}", 1e9 * harness / static_cast<double>(f.events))
                         : std::string("-"));
        };
        for (const auto& f : r.families) row(f);
        row(all);
        const double emu = all.phase[static_cast<std::size_t>(Phase::emulation)];
        const double harness = all.phase[static_cast<std::size_t>(Phase::harness)];
        t += fmt::format(
            "  harness overhead {:.2f}x the emulation time (goal <= 0.30x); peak RSS of this process "
            "{:.0f} MB\n",
            emu > 0 ? harness / emu : 0.0, static_cast<double>(r.in_process_rss_kb) / 1024);
        t += "  emulation: inside the original's calls, less the harness's hook callbacks run from inside "
             "them;\n"
             "  reimpl: inside the reimplementation's construct/draw/palette/relocate/queue/render calls;\n"
             "  harness: the rest (boot, events converted, aligned and compared, frames, reports).\n";
    }
    if (!r.scaling.empty()) {
        t += "The whole run (refcheck run, reports and all) by workers:\n";
        t += fmt::format("  {:>4} {:>8} {:>10} {:>8} {:>15} {:>13} {:>9} {:>5}\n", "jobs", "seconds",
                         "events/s", "speed-up", "coordinator MB", "worker MB", "identical", "exit");
        const double one = r.scaling.front().seconds;
        for (const auto& s : r.scaling)
            t += fmt::format(
                "  {:>4} {:>8.2f} {:>10} {:>7.2f}x {:>15.0f} {:>13.0f} {:>9} {:>5}\n", s.jobs, s.seconds,
                rate(static_cast<double>(s.events), s.seconds), s.seconds > 0 ? one / s.seconds : 0.0,
                static_cast<double>(s.coordinator_rss_kb) / 1024, static_cast<double>(s.worker_rss_kb) / 1024,
                s.identical ? "yes" : "NO", s.exit_code);
        t += "  goals: --jobs 2 >= 1.85x --jobs 1; peak RSS <= 1 GiB at any --jobs (the coordinator plus "
             "jobs x the\n"
             "  largest worker bounds the run's total); outputs byte-identical at every --jobs.\n";
    }
    return t;
}

} // namespace refcheck::harness
