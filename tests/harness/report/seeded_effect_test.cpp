// run.json's seeded_effect and the one-line summary (harness/src/report/report_json.cpp) over
// synthetic case reports: one row per patch as given, even when no case applied it; the patch count
// is of patches given, not of patch × image entries; a report whose patches are not the ones given
// is refused.
#include "refcheck/harness/report.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace refcheck::harness {
namespace {

// seeded_faults as refcheck run writes it: `where` given once each, one site per patch and image.
ojson seeded(const std::vector<std::string>& where, std::size_t images, bool light = false) {
    ojson given = ojson::array(), sites = ojson::array();
    for (std::size_t i = 0; i < images; ++i)
        for (const auto& w : where)
            sites.push_back({{"where", w},
                             {"image", "image" + std::to_string(i) + ".exe"},
                             {"address", "0x00401000"},
                             {"bytes", "90"},
                             {"replaced", "cc"}});
    for (const auto& w : where) given.push_back({{"where", w}, {"bytes", "90"}});
    ojson j = {{"original_modified", !where.empty()}, {"reimpl_input_modified", light}};
    if (!where.empty()) {
        j["given"] = given;
        j["patches"] = sites;
    }
    if (light) j["reimpl_light"] = "x and z swapped";
    return j;
}

// A case report; `executed` per patch: true, false, null (cannot tell) or absent ("-": stopped
// before its coverage). No "injected" at all when `executed` is empty and `lights_changed` < 0.
ojson report(const std::string& name, const std::vector<std::string>& where,
             const std::vector<std::string>& executed, int lights_changed = -1) {
    ojson r = {{"case", name}, {"family", "program"}, {"status", "equivalent"}};
    if (executed.empty() && lights_changed < 0) return r;
    ojson injected = ojson::object();
    if (!executed.empty()) {
        ojson patches = ojson::array();
        for (std::size_t k = 0; k < where.size(); ++k) {
            ojson p = {{"where", where[k]}, {"bytes", "90"}, {"replaced", "cc"}};
            if (executed[k] != "-") p["executed"] = ojson::parse(executed[k]);
            patches.push_back(p);
        }
        injected["patches"] = patches;
    }
    if (lights_changed >= 0) injected["reimpl_lights_changed"] = lights_changed;
    r["injected"] = injected;
    return r;
}

const std::vector<std::string> kTwo = {"op_secondary+0x70", "draw_3d_object_+0x10"};

TEST(SeededEffect, EveryPatchGivenHasARowEvenWhenNoCaseAppliedIt) {
    // Both cases stopped (an error at boot) before their patches were applied: no "injected".
    const std::vector<ojson> reports = {report("a", kTwo, {}), report("b", kTwo, {})};
    const ojson s = seeded(kTwo, 1, true);
    const ojson effect = seeded_effect(reports, s);
    EXPECT_EQ(effect, ojson::parse(R"({"cases": 2, "patches": [
        {"where": "op_secondary+0x70", "ran": 0, "not_run": 0, "cannot_tell": 0, "stopped": 2},
        {"where": "draw_3d_object_+0x10", "ran": 0, "not_run": 0, "cannot_tell": 0, "stopped": 2}],
        "reimpl_light_changed_in": 0})"));
    // Stopped cases cannot say whether a patch ran: the summary says so (it said "ran in 0" alone).
    EXPECT_EQ(
        seeded_fault_summary(s, effect),
        "the original is modified (2 patches; op_secondary+0x70 ran in 0 of 2 case(s), 2 stopped before "
        "their coverage could tell; draw_3d_object_+0x10 ran in 0 of 2 case(s), 2 stopped before their "
        "coverage could tell); the reimplementation's input is modified (light x and z swapped; another "
        "light in 0 of 2 case(s))");
    // The run index carries the same object right after seeded_faults.
    EXPECT_EQ(make_run_index(reports, s).at("seeded_effect"), effect);
}

TEST(SeededEffect, CountsEachCaseByItsOwnCoverage) {
    const std::vector<ojson> reports = {report("a", kTwo, {"true", "false"}, 1),
                                        report("b", kTwo, {"false", "null"}, 0),
                                        report("c", kTwo, {"true", "-"}, 3), report("d", kTwo, {})};
    const ojson effect = seeded_effect(reports, seeded(kTwo, 1, true));
    EXPECT_EQ(effect, ojson::parse(R"({"cases": 4, "patches": [
        {"where": "op_secondary+0x70", "ran": 2, "not_run": 1, "cannot_tell": 0, "stopped": 1},
        {"where": "draw_3d_object_+0x10", "ran": 0, "not_run": 1, "cannot_tell": 1, "stopped": 2}],
        "reimpl_light_changed_in": 2})"));
    // Every case is counted once per patch, in one of the four.
    for (const ojson& row : effect.at("patches"))
        EXPECT_EQ(row.at("ran").get<int>() + row.at("not_run").get<int>() + row.at("cannot_tell").get<int>() +
                      row.at("stopped").get<int>(),
                  4)
            << row;
}

TEST(SeededEffect, OnePatchOnTwoImagesIsOnePatch) {
    const std::vector<std::string> one = {"op_secondary+0x70"};
    const ojson s = seeded(one, 2);
    ASSERT_EQ(s.at("patches").size(), 2u); // one site per image
    const ojson effect = seeded_effect({report("a", one, {"true"}), report("b", one, {"false"})}, s);
    EXPECT_EQ(seeded_fault_summary(s, effect),
              "the original is modified (1 patch; op_secondary+0x70 ran in 1 of 2 case(s))");
    EXPECT_FALSE(effect.contains("reimpl_light_changed_in")); // no swap seeded, none reported
}

TEST(SeededEffect, AReportWhosePatchesAreNotTheOnesGivenIsRefused) {
    const ojson s = seeded(kTwo, 1);
    try {
        seeded_effect({report("short", {kTwo[0]}, {"true"})}, s);
        ADD_FAILURE() << "a report with one patch of two was counted";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "case short: its report's injected lists 1 patch(es), the run's seeded_faults gives 2");
    }
    try {
        seeded_effect({report("swapped", {kTwo[1], kTwo[0]}, {"true", "true"})}, s);
        ADD_FAILURE() << "a report with its patches in another order was counted";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "case swapped: its report's injected patch 0 is at "
                                         "\"draw_3d_object_+0x10\", the run's seeded_faults at "
                                         "\"op_secondary+0x70\"");
    }
}

} // namespace
} // namespace refcheck::harness
