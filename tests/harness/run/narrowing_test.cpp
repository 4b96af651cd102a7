// A narrowing (--only, an input --filter) that leaves inputs out says how many, once each: the
// report's selection.inputs_left_out, which run.json's basis repeats (refcheck diff calls a case
// fixed only on the same basis) and which keeps the ledger from calling a rule Proven on a part of
// a case. The palette family runs every warzone and only the Comparator drops the others' events:
// those left no trace before, so a narrowed palette run read as whole. The program family skips an
// input's work and counted each left-out input twice (narrowed_to and selected both counted it).
#include "refcheck/harness/case.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/harness/run.hpp"

#include "standin_env.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace refcheck::harness {
namespace {

namespace fs = std::filesystem;

const ojson& left_out(const CaseResult& r) {
    return member(member(r.report, "selection"), "inputs_left_out");
}

TEST(Narrowing, APaletteRunNarrowedToOneWarzoneSaysItLeftTheOthersOut) {
    Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "palette.json");
    ASSERT_EQ(c.warzones.size(), 5u); // 0..3, then 4, refused
    const CaseResult whole = run_case(c, test::small_standin());
    ASSERT_EQ(whole.status, Status::Equivalent) << whole.report.value("error", "");
    EXPECT_TRUE(left_out(whole).is_null()); // the control: nothing was left out

    // The palette's inputs are its warzones (each its refusal, if refused, and its five tables).
    c.only = "warzone 2";
    const CaseResult narrowed = run_case(c, test::small_standin());
    ASSERT_EQ(narrowed.status, Status::Equivalent) << narrowed.report.value("error", "");
    EXPECT_EQ(left_out(narrowed), 5 - 1);
    // The palette file's label, then the five tables.
    EXPECT_EQ(narrowed.report.at("counts").at("compared"), 6) << narrowed.report.at("counts").dump();
    // run.json's basis carries the narrowing, so refcheck diff does not take it for the whole case.
    const ojson index = make_run_index({narrowed.report}, ojson());
    EXPECT_EQ(index.at("cases").at(0).at("basis").at("narrowing").at("inputs_left_out"), 4) << index.dump();
}

TEST(Narrowing, AProgramInputLeftOutIsCountedOnce) {
    Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "program-lights.json");
    c.records.list = {3};
    const std::size_t inputs = c.views.size() * c.lights.size() * c.states.size();
    ASSERT_EQ(inputs, 12u);
    c.only = "record 3 view 0 light 0 state " + std::to_string(c.states.at(0));
    const CaseResult narrowed = run_case(c, test::small_standin());
    ASSERT_NE(narrowed.status, Status::Error) << narrowed.report.value("error", "");
    EXPECT_EQ(narrowed.report.at("counts").at("inputs"), 1) << narrowed.report.at("counts").dump();
    EXPECT_EQ(left_out(narrowed), inputs - 1);
}

} // namespace
} // namespace refcheck::harness
