// refcheck chaos: random byte patches of the original's code, one whole run each; every run is
// checked to have ended as equivalent, divergent or error with complete reports.
#include "refcheck/harness/chaos.hpp"

#include "refcheck/emu/machine.hpp"
#include "refcheck/harness/case.hpp"
#include "refcheck/harness/coverage.hpp"
#include "refcheck/harness/profile.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace refcheck::harness {

namespace fs = std::filesystem;

std::vector<Patch> chaos_patches(const fs::path& image, const fs::path& profile_file, std::size_t n,
                                 std::uint64_t seed) {
    emu::Machine machine;
    machine.load(image);
    const Profile profile = load_profile(profile_file);
    std::vector<emu::Range> code;
    std::uint64_t total = 0;
    for (const RoutineBlocks& r : discover_routines(machine, profile_entries(profile))) {
        if (r.range.end <= r.range.begin) continue;
        code.push_back(r.range);
        total += r.range.size();
    }
    if (total == 0)
        throw std::runtime_error("chaos: the profile's routines have no code in " + image.string());
    std::mt19937_64 rng(seed);
    std::vector<Patch> out;
    for (std::size_t k = 0; k < n; ++k) {
        std::uint64_t at = rng() % total;
        std::size_t i = 0;
        while (at >= code[i].size()) at -= code[i++].size();
        const emu::Address address = code[i].begin + static_cast<emu::Address>(at);
        const std::size_t room = code[i].end - address;
        const std::size_t size = std::min<std::size_t>(1 + rng() % 4, room);
        Patch p;
        p.where = emu::hex(address);
        p.expected = machine.read_bytes(address, size);
        for (std::size_t b = 0; b < size; ++b) p.bytes.push_back(static_cast<std::uint8_t>(rng()));
        if (p.bytes == p.expected) p.bytes[0] ^= 0xff; // a patch always changes something
        out.push_back(std::move(p));
    }
    return out;
}

std::string incomplete_run_output(const fs::path& out) {
    try {
        const ojson index = read_json(out / "run.json");
        for (const auto& c : member(index, "cases")) {
            const std::string report = c.value("report", std::string());
            if (report.empty()) return "run.json lists a case without its report";
            const ojson r = read_json(out / report);
            if (!r.contains("status")) return report + " has no status";
            // A worker that died is an error report, complete, but a crash of the harness all the same.
            if (r.contains("crash"))
                return report + ": the worker running it died (" + r.value("error", std::string()) + ")";
        }
        if (!fs::exists(out / "junit.xml") || !fs::exists(out / "index.html"))
            return "junit.xml or index.html is missing";
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

ChaosSummary chaos(const std::vector<fs::path>& case_files, const ChaosOptions& options) {
    if (case_files.empty()) throw std::runtime_error("no cases to run");
    if (options.patches == 0) throw std::runtime_error("--patches: give at least 1");
    const Case first = load_case(case_files.front());
    const Environment env = resolve_environment(first, options.run);
    const std::vector<Patch> patches = chaos_patches(env.image, env.profile, options.patches, options.seed);
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    ojson runs = ojson::array();
    std::size_t counts[4] = {0, 0, 0, 0}; // equivalent, divergent, error, harness failure
    double slowest = 0;
    std::string slowest_patch;
    for (std::size_t k = 0; k < patches.size(); ++k) {
        char name[24]; // "%04zu" of a size_t: up to 20 digits
        std::snprintf(name, sizeof name, "%04zu", k);
        RunOptions ro = options.run;
        ro.out = options.run.out / "runs" / name;
        ro.injection = {};
        ro.injection.patches = {patches[k]};
        ro.progress = nullptr;
        const auto start = Clock::now();
        ojson row = {{"run", k}, {"patch", patches[k].text()}};
        std::string failure;
        int code = -1;
        try {
            const RunSummary s = run(case_files, ro);
            code = s.exit_code;
            if (!s.problems.empty()) {
                std::string all;
                for (const auto& p : s.problems) all += (all.empty() ? "" : "; ") + p;
                failure = "preflight refused the run: " + all;
            } else if (code < 0 || code > 2) {
                failure = "exit code " + std::to_string(code);
            } else if (const std::string bad = incomplete_run_output(ro.out); !bad.empty()) {
                failure = "incomplete reports: " + bad;
            }
        } catch (const std::exception& e) {
            failure = std::string("the harness threw: ") + e.what();
        }
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        row["seconds"] = seconds;
        if (!failure.empty()) {
            row["outcome"] = "harness_failure";
            row["failure"] = failure;
            ++counts[3];
        } else {
            row["outcome"] = code == 0 ? "equivalent" : code == 1 ? "divergent" : "error";
            ++counts[code];
        }
        if (seconds > slowest) slowest = seconds, slowest_patch = patches[k].text();
        if (failure.empty() && !options.keep) fs::remove_all(ro.out);
        runs.push_back(row);
        if (options.progress)
            options.progress("refcheck chaos: run " + std::to_string(k + 1) + "/" +
                             std::to_string(patches.size()) + " " + patches[k].text() + ": " +
                             row["outcome"].get<std::string>());
    }
    if (!options.keep && fs::exists(options.run.out / "runs") && fs::is_empty(options.run.out / "runs"))
        fs::remove(options.run.out / "runs");
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    ChaosSummary s;
    s.report = {{"schema", "refcheck-chaos/1"},
                {"image", env.image.filename().string()},
                {"seed", options.seed},
                {"patches", patches.size()},
                {"cases", case_files.size()},
                {"limits",
                 {{"instructions_per_call", first.instructions_per_call},
                  {"instructions_per_case", first.instructions_per_case},
                  {"events_per_call", first.events_per_call}}},
                {"outcomes",
                 {{"equivalent", counts[0]},
                  {"divergent", counts[1]},
                  {"error", counts[2]},
                  {"harness_failure", counts[3]}}},
                {"seconds", seconds},
                {"slowest", {{"patch", slowest_patch}, {"seconds", slowest}}},
                {"runs", runs}};
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "refcheck chaos: %zu patches of %s (seed %llu), %zu case(s) each: %zu equivalent, %zu "
                  "divergent, %zu error, %zu harness failures; %.1f s, slowest run %.1f s (%s)\n",
                  patches.size(), env.image.filename().string().c_str(),
                  static_cast<unsigned long long>(options.seed), case_files.size(), counts[0], counts[1],
                  counts[2], counts[3], seconds, slowest, slowest_patch.c_str());
    s.text = buf;
    write_json(options.run.out / "chaos.json", s.report);
    s.exit_code = counts[3] == 0 ? 0 : 1;
    return s;
}

} // namespace refcheck::harness
