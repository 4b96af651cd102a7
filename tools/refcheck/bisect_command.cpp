// refcheck bisect CASE: runs a case, takes its first unexplained divergence, re-runs the case
// narrowed to that input with a probe on the original, and prints the drill-down FileCheck-style.
// Exit 1 when a divergence is found, 0 when the case is equivalent, 2 on an error.
#include "command.hpp"

#include "refcheck/harness/bisect.hpp"
#include "refcheck/harness/run.hpp"

#include <iostream>

namespace refcheck::cli {

namespace fs = std::filesystem;

namespace {

struct BisectArgs {
    std::string file;
    std::string image, profile, data;
    std::vector<std::string> patches;
    bool swap_light = false;
    std::string only;
    harness::DrillDownOptions dd;
};

int bisect(const BisectArgs& a) {
    harness::RunOptions o;
    set_stand_ins(o);
    if (!a.image.empty()) o.image = a.image;
    if (!a.profile.empty()) o.profile = a.profile;
    if (!a.data.empty()) o.data = a.data;
    for (const auto& p : a.patches) o.injection.patches.push_back(parse_patch_option(p));
    o.injection.reimpl_light_swapped = a.swap_light;
    for (const auto& line : harness::seeded_fault_banner(o.injection)) std::cout << line << "\n";
    std::cout << std::flush;
    harness::Case c = harness::load_case(a.file);
    if (const auto problems = harness::preflight({c}, o); !problems.empty()) {
        for (const auto& p : problems) std::cerr << "refcheck: " << p << "\n";
        return kError;
    }
    harness::Case searched = c;
    searched.only = a.only;
    std::cerr << "refcheck: bisect: running case " << c.name
              << (a.only.empty() ? "" : " narrowed to " + a.only) << "\n";
    const harness::CaseResult r =
        harness::run_case(searched, harness::resolve_environment(c, o), o.injection);
    if (r.status == harness::Status::Error) {
        std::cerr << "refcheck: " << c.name << ": " << r.report.value("error", std::string("error")) << "\n";
        return kError;
    }
    const harness::ojson& counts = harness::member(r.report, "counts");
    if (r.status == harness::Status::Equivalent) {
        std::cout << "case " << c.name << (a.only.empty() ? "" : ", input " + a.only) << ": equivalent ("
                  << counts.value("compared", 0ull) << " events compared, " << counts.value("known", 0ull)
                  << " known divergences): nothing to bisect\n";
        return kEquivalent;
    }
    std::cerr << "refcheck: bisect: re-running input "
              << r.report.at("first_unexplained").at("input").get<std::string>() << " alone with the probe\n";
    const harness::ojson dd = harness::drill_down(c, o, r.report.at("first_unexplained"), a.dd);
    std::cout << harness::format_drill_down(c.name, dd);
    return kDivergent;
}

} // namespace

const Command& bisect_command() {
    static const Command command{
        "bisect",
        "Narrow a case's first unexplained divergence to its input and event, and drill down into it",
        [](CLI::App& app) -> std::function<int()> {
            auto a = std::make_shared<BisectArgs>();
            app.add_option("case", a->file, "The case file")->required();
            app.add_option("--image", a->image, "The original PE32 image (default: the stand-in)");
            app.add_option("--profile", a->profile, "The image's profile JSON (default: the stand-in's)");
            app.add_option("--data", a->data, "Data root holding 3DDATA/ (default: the synthetic archives)");
            // One value per --patch, as for run: a list option would take the case that follows it
            // (`bisect --patch X CASE` said "case is required").
            app.add_option(
                   "--patch", a->patches,
                   "Seed a fault in the original: WHERE:NEWHEX or WHERE:OLDHEX->NEWHEX (as for run). One "
                   "patch per --patch; repeat it for more")
                ->expected(1)
                ->allow_extra_args(false)
                ->take_all();
            app.add_flag("--inject-reimpl-light-swap", a->swap_light,
                         "Seed a fault in the reimplementation's input: its light has x and z swapped");
            app.add_option("--only", a->only,
                           "Start from this input of the case instead of running all of it");
            app.add_option(
                   "--instructions", a->dd.instructions_tail,
                   "Window lines kept from its end (before the divergent event's hook), after its first 40 "
                   "lines; loops folded")
                ->capture_default_str();
            app.add_option("--listing-context", a->dd.listing_context,
                           "Draw-program instructions shown each side of the packet")
                ->capture_default_str();
            return [a] { return bisect(*a); };
        }};
    return command;
}

} // namespace refcheck::cli
