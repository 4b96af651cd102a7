// A run stopped by SIGINT or SIGTERM (issue 14, atomic reports): the output folder keeps the
// previous complete run, byte for byte, no half-written or temporary file is left, and stderr says
// what did not finish. The interruption comes at a known point, not a timed one: the test-only
// REFCHECK_TEST_WORKER_CRASH=CASE:term-parent makes the worker running CASE send SIGTERM to the
// parent when that case's first input begins (harness/src/run/workers.hpp).
#include "cli_support.hpp"

#include <algorithm>
#include <regex>

namespace refcheck::cli_test {
namespace {

class InterruptTest : public CliTest {};

std::map<std::string, std::string> folder(const fs::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read_text(e.path());
    return files;
}

TEST_F(InterruptTest, AnInterruptedRunLeavesThePreviousCompleteOutput) {
    const std::string cases = quote(write_case("a-palette", small_palette())) + " " +
                              quote(write_case("b-program", small_program().to_json())) + " " +
                              quote(write_case("c-frames", small_frames().to_json()));
    const std::string common = cases + " --data " + quote(kSmallData) + " --out o --jobs 1";
    const Result first = refcheck("run " + common);
    ASSERT_EQ(first.code, 0) << first.out << first.err;
    const auto before = folder(path("o"));
    ASSERT_TRUE(before.count("run.json"));

    const Result stopped = refcheck("run " + common, "REFCHECK_TEST_WORKER_CRASH=b-program:term-parent");
    EXPECT_EQ(stopped.code, 128 + 15) << stopped.out << stopped.err;
    // The cases go to the worker longest first by the folder's previous times (hand_order), so which
    // of the others finished first depends on those times: the message names b-program unfinished,
    // and the finished and unfinished add up to the three cases.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        stopped.err, m,
        std::regex("interrupted by SIGTERM after ([0-9]) of 3 cases; not finished: ([a-z, -]+);")))
        << stopped.err;
    const std::string unfinished = m[2].str();
    EXPECT_NE(unfinished.find("b-program"), std::string::npos) << stopped.err;
    const auto listed = static_cast<int>(std::count(unfinished.begin(), unfinished.end(), ',')) + 1;
    EXPECT_EQ(std::stoi(m[1].str()) + listed, 3) << stopped.err;
    EXPECT_EQ(folder(path("o")), before); // the previous run, byte for byte, and nothing else

    // Into a fresh folder: nothing at all (no half run).
    const Result fresh = refcheck("run " + cases + " --data " + quote(kSmallData) + " --out fresh --jobs 2",
                                  "REFCHECK_TEST_WORKER_CRASH=b-program:term-parent");
    EXPECT_EQ(fresh.code, 128 + 15) << fresh.out << fresh.err;
    EXPECT_FALSE(fs::exists(path("fresh/run.json")));
    if (fs::exists(path("fresh"))) {
        for (const auto& e : fs::recursive_directory_iterator(path("fresh"))) {
            EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << e.path();
        }
    }
}

} // namespace
} // namespace refcheck::cli_test
