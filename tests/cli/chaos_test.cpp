// refcheck chaos: random byte patches of the stand-in's code, one whole run each. Every run ends as
// equivalent, divergent or error with complete reports; the same seed gives the same patches; and
// the completeness check finds a half-written report.
#include "cli_support.hpp"

#include "refcheck/harness/chaos.hpp"

#include <fstream>

namespace refcheck::cli_test {
namespace {

class ChaosTest : public CliTest {};

TEST_F(ChaosTest, EveryPatchedRunEndsWithCompleteReports) {
    const fs::path file = write_case("small-program", small_program().to_json());
    const Result r = refcheck("chaos " + quote(file) + " --data " + quote(kSmallData) +
                              " --patches 6 --seed 7 --jobs 1 --out chaos");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    const ojson j = read_json(path("chaos/chaos.json"));
    EXPECT_EQ(j.at("patches"), 6);
    const ojson& o = j.at("outcomes");
    EXPECT_EQ(o.at("harness_failure"), 0) << j.dump(1);
    EXPECT_EQ(o.at("equivalent").get<int>() + o.at("divergent").get<int>() + o.at("error").get<int>(), 6);
    ASSERT_EQ(j.at("runs").size(), 6u);
    for (const auto& run : j.at("runs")) {
        const std::string outcome = run.at("outcome");
        EXPECT_TRUE(outcome == "equivalent" || outcome == "divergent" || outcome == "error") << run.dump();
    }
    EXPECT_FALSE(fs::exists(path("chaos/runs"))) << "only a harness failure's reports are kept";
    // The same seed, the same patches.
    const auto a = harness::chaos_patches(kImage, kProfile, 6, 7);
    const auto b = harness::chaos_patches(kImage, kProfile, 6, 7);
    ASSERT_EQ(a.size(), 6u);
    for (std::size_t k = 0; k < a.size(); ++k) {
        EXPECT_EQ(a[k].text(), b[k].text());
        EXPECT_EQ(j.at("runs").at(k).at("patch"), a[k].text());
        EXPECT_NE(a[k].bytes, a[k].expected) << "a patch must change the code";
    }
    EXPECT_NE(harness::chaos_patches(kImage, kProfile, 6, 8).front().text(), a.front().text());
}

TEST_F(ChaosTest, TheCompletenessCheckFindsAHalfWrittenReport) {
    const fs::path file = write_case("small-program", small_program().to_json());
    const Result r =
        refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --jobs 1 --out whole");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(harness::incomplete_run_output(path("whole")), "");
    // Cut the case report in half, as a run killed mid-write without atomic writes would leave it.
    const fs::path report = path("whole/small-program.json");
    std::string text;
    {
        std::ifstream in(report);
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    {
        std::ofstream out(report, std::ios::trunc);
        out << text.substr(0, text.size() / 2);
    }
    EXPECT_NE(harness::incomplete_run_output(path("whole")), "");
    fs::remove(path("whole/run.json"));
    EXPECT_NE(harness::incomplete_run_output(path("whole")), "");
}

TEST_F(ChaosTest, AWorkerThatDiedIsAHarnessFailureNotAnError) {
    // The worker running the case dies (the crash test's hook): its report is complete, an error
    // naming the crash, and the completeness check calls it what it is.
    const fs::path file = write_case("small-program", small_program().to_json());
    const Result r = refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --jobs 1 --out died",
                              "REFCHECK_TEST_WORKER_CRASH=small-program:segv");
    ASSERT_EQ(r.code, 2) << r.out << r.err;
    const std::string what = harness::incomplete_run_output(path("died"));
    EXPECT_NE(what.find("died"), std::string::npos) << what;
}

} // namespace
} // namespace refcheck::cli_test
