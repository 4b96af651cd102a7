// Determinism: the same run gives byte-identical outputs (every file in --out), whatever the
// number of jobs and the output folder, and no output names a host path. The one exception is
// junit.xml's `time` attributes (the wall times CI tools read): they are compared blanked, and only
// they (tree_without_junit_times blanks nothing else).
#include "cli_support.hpp"

#include <fstream>

namespace refcheck::cli_test {
namespace {

class DeterminismTest : public CliTest {
protected:
    void expect_same_outputs(const std::string& args, int expected_code) {
        for (const std::string out : {"first", "second", "parallel"}) {
            const Result r =
                refcheck(args + " --out " + out + (out == "parallel" ? " --jobs 4" : " --jobs 1"));
            ASSERT_EQ(r.code, expected_code) << r.out << r.err;
        }
        const auto first = tree_without_junit_times(path("first"));
        ASSERT_GE(first.size(), 4u);
        for (const std::string other : {"second", "parallel"}) {
            const auto files = tree_without_junit_times(path(other));
            EXPECT_EQ(files.size(), first.size()) << other;
            for (const auto& [file, bytes] : first) {
                ASSERT_TRUE(files.count(file)) << file << " missing in " << other;
                EXPECT_TRUE(files.at(file) == bytes) << file << " differs in " << other;
            }
        }
        for (const auto& [file, bytes] : first) {
            EXPECT_EQ(bytes.find(dir_.string()), std::string::npos) << file << " names the output folder";
            EXPECT_EQ(bytes.find(kSmallData.string()), std::string::npos) << file << " names the data root";
            EXPECT_EQ(bytes.find(kImage.parent_path().string()), std::string::npos)
                << file << " names the image's folder";
        }
    }
};

TEST_F(DeterminismTest, SameRunTwiceGivesByteIdenticalOutputs) {
    const std::string files =
        join({shipped_case("loader"), shipped_case("construct"), write_case("small-palette", small_palette()),
              write_case("small-program", small_program().to_json()),
              write_case("small-frames", small_frames().to_json())});
    expect_same_outputs("run " + files + " --data " + quote(kSmallData), 0);
    EXPECT_TRUE(tree(path("first")).count("small-frames/frame-1-diff.png"));
}

TEST_F(DeterminismTest, SameDivergentRunTwiceGivesByteIdenticalOutputs) {
    const std::string files =
        join({shipped_case("loader"), write_case("small-program", small_program().to_json())});
    expect_same_outputs("run " + files + " --data " + quote(kSmallData) + " --inject-reimpl-light-swap", 1);
    EXPECT_TRUE(read_json(path("first/small-program.json")).contains("first_unexplained"));
}

// Cases go to the workers longest first by the output folder's previous junit.xml (hand_order): a
// folder whose junit.xml times the cases in reverse name order makes the run hand them out in that
// order, and every output but junit.xml's times is still a fresh run's.
TEST_F(DeterminismTest, TheOrderCasesAreHandedOutInChangesNoOutput) {
    const std::string files =
        join({shipped_case("loader"), shipped_case("construct"), write_case("small-palette", small_palette()),
              write_case("small-program", small_program().to_json()),
              write_case("small-frames", small_frames().to_json())});
    const std::string args = "run " + files + " --data " + quote(kSmallData);
    ASSERT_EQ(refcheck(args + " --out fresh --jobs 1").code, 0);
    fs::create_directories(path("timed"));
    std::string junit = "<testsuites><testsuite>\n";
    double seconds = 1;
    for (const auto& n :
         {"construct", "loader", "small-frames", "small-palette", "small-program"}) // name order
        junit += "<testcase classname=\"x\" name=\"" + std::string(n) + "\" time=\"" +
                 std::to_string(seconds++) + "\"/>\n";
    junit += "</testsuite></testsuites>\n";
    std::ofstream(path("timed/junit.xml")) << junit;
    const Result r = refcheck(args + " --out timed --jobs 1");
    ASSERT_EQ(r.code, 0) << r.err;
    // Handed out longest first: small-program (5 s) first, construct (1 s) last.
    EXPECT_LT(r.err.find("case small-program started"), r.err.find("case small-palette started")) << r.err;
    EXPECT_LT(r.err.find("case loader started"), r.err.find("case construct started")) << r.err;
    const auto fresh = tree_without_junit_times(path("fresh"));
    const auto timed = tree_without_junit_times(path("timed"));
    EXPECT_EQ(timed.size(), fresh.size());
    for (const auto& [file, bytes] : fresh) {
        ASSERT_TRUE(timed.count(file)) << file;
        EXPECT_TRUE(timed.at(file) == bytes) << file << " differs";
    }
}

} // namespace
} // namespace refcheck::cli_test
