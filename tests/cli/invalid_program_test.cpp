// Hostile draw programs (tools/synth/hostile_program.cpp, cases/program-invalid-*.json and
// cases/shadow-invalid-*.json): each shipped case is equivalent because the reimplementation refuses
// the broken record and the original's draw stops (or takes a vertex as behind) exactly where the
// reimplementation's stop-there walk does; an original that goes on past the break diverges at the
// first event after it; a case whose inputs never reach the break is an error.
#include "cli_support.hpp"

#include <algorithm>

namespace refcheck::cli_test {
namespace {

class InvalidProgramTest : public CliTest {};

TEST_F(InvalidProgramTest, EveryShippedCaseReachesItsBreakAndIsEquivalent) {
    auto cases = shipped_cases_starting("program-invalid-");
    const auto shadows = shipped_cases_starting("shadow-invalid-");
    ASSERT_GE(cases.size(), 19u);
    // Each program break is also drawn in shadow mode (the shadow block's own breaks only there).
    ASSERT_GE(shadows.size(), cases.size());
    for (const auto& file : cases) {
        const std::string twin = "shadow-" + file.filename().string().substr(std::string("program-").size());
        EXPECT_TRUE(fs::exists(kCasesDir / twin)) << twin;
    }
    cases.insert(cases.end(), shadows.begin(), shadows.end());
    const Result r = refcheck("run " + join(cases) + " --jobs 2 --out o");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    for (const auto& file : cases) {
        const ojson j = read_json(path("o/" + file.stem().string() + ".json"));
        EXPECT_EQ(j.at("status"), "equivalent") << file;
        const ojson& ip = j.at("invalid_program");
        EXPECT_EQ(ip.at("record"), 47) << file;
        EXPECT_GE(ip.at("inputs_reaching_the_break").get<int>(), 1) << file;
        EXPECT_EQ(ip.at("reimpl_error").get<std::string>().rfind("3DOBJS.BIN: record 47", 0), 0u)
            << ip.dump();
    }
}

TEST_F(InvalidProgramTest, AnOriginalThatGoesOnPastTheBreakDivergesAfterIt) {
    // The stand-in's branch stack made one entry deeper (op_plane's push check, sp == 64, moved by
    // one) lets the 33rd nested plane through: the original goes on into its branch and draws the
    // face there (its winding first) where the reimplementation's walk has stopped. Both sides share
    // 35 events before it (the first face's winding and face, the 33 planes' windings), so the
    // divergence is an event of the original's at index 35 with nothing on the other side.
    const fs::path file = kCasesDir / "program-invalid-nesting-plane.json";
    const Result clean = refcheck("run " + quote(file) + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    EXPECT_EQ(read_json(path("clean/program-invalid-nesting-plane.json")).at("counts").at("matched"), 35);
    const Result r = refcheck("mutate " + quote(file) +
                              " --routines 'program.c:op_plane' --operators imm_plus_one --jobs 2 --out m");
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
    const ojson j = read_json(path("m/mutate.json"));
    const std::size_t past_the_break = killed_by_divergence(j, [](const ojson& k) {
        const ojson& e = k.at("event");
        return e.at("reimpl").is_null() && e.at("original") == "winding_decision" && e.at("index") == 35;
    });
    EXPECT_GE(past_the_break, 1u) << j.at("totals").dump();
}

TEST_F(InvalidProgramTest, ACaseWhoseInputsNeverReachTheBreakIsAnError) {
    // The same root, but the case draws record 46, whose program is whole: nothing reaches record
    // 47's break, so the case compares nothing of it.
    ojson c = read_json(kCasesDir / "program-invalid-opcode.json");
    c["selection"]["records"]["list"] = {46};
    const fs::path file = write_case("program-invalid-unreached", c);
    // A filter that leaves no input out does not excuse it (it did, whenever a filter was set).
    for (const std::string filter : {"", " --filter '*'", " --filter 'program-invalid-*'"}) {
        const Result r = refcheck("run " + quote(file) + " --out o" + filter);
        EXPECT_EQ(r.code, 2) << filter << r.out << r.err;
        const ojson j = read_json(path("o/program-invalid-unreached.json"));
        EXPECT_EQ(j.at("status"), "error") << filter;
        EXPECT_NE(j.value("error", std::string()).find("reaches the broken part of 3DOBJS.BIN record 47"),
                  std::string::npos)
            << filter << j.value("error", std::string());
    }
}

TEST_F(InvalidProgramTest, ACaseNamingAnotherRecordThanTheBrokenOneIsAnError) {
    ojson c = read_json(kCasesDir / "shadow-invalid-end-plane.json");
    c["invalid_program"]["record"] = 46;
    const fs::path file = write_case("shadow-invalid-wrong-record", c);
    const Result r = refcheck("run " + quote(file) + " --out o");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    const ojson j = read_json(path("o/shadow-invalid-wrong-record.json"));
    EXPECT_NE(j.at("error").get<std::string>().find("the case names 3DOBJS.BIN record 46"), std::string::npos)
        << j.at("error");
}

TEST_F(InvalidProgramTest, InvalidProgramIsOnlyForProgramAndShadowCasesOnGeneratedRoots) {
    ojson c = read_json(kCasesDir / "program-invalid-opcode.json");
    c["data"] = "default";
    const Result r = refcheck("run " + quote(write_case("not-generated", c)) + " --out o");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("needs a generated data root"), std::string::npos) << r.err;
}

} // namespace
} // namespace refcheck::cli_test
