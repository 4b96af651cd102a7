// Determinism: the same run gives byte-identical outputs (every file in --out), whatever the
// number of jobs and the output folder, and no output names a host path. The one exception is
// junit.xml's `time` attributes (the wall times CI tools read): they are compared blanked, and only
// they (tree_without_junit_times blanks nothing else).
#include "cli_support.hpp"

#include "refcheck/harness/out_folder.hpp"

#include <fstream>

namespace refcheck::cli_test {
namespace {

class DeterminismTest : public CliTest {
protected:
    // Returns the parallel run's stderr.
    std::string expect_same_outputs(const std::string& args, int expected_code) {
        std::string parallel_err;
        for (const std::string out : {"first", "second", "parallel"}) {
            const Result r =
                refcheck(args + " --out " + out + (out == "parallel" ? " --jobs 4" : " --jobs 1"));
            EXPECT_EQ(r.code, expected_code) << r.out << r.err;
            if (out == "parallel") parallel_err = r.err;
        }
        const auto first = tree_without_junit_times(path("first"));
        EXPECT_GE(first.size(), 4u);
        for (const std::string other : {"second", "parallel"}) {
            const auto files = tree_without_junit_times(path(other));
            EXPECT_EQ(files.size(), first.size()) << other;
            for (const auto& [file, bytes] : first) {
                EXPECT_TRUE(files.count(file)) << file << " missing in " << other;
                EXPECT_TRUE(files.count(file) && files.at(file) == bytes) << file << " differs in " << other;
            }
        }
        for (const auto& [file, bytes] : first) {
            EXPECT_EQ(bytes.find(dir_.string()), std::string::npos) << file << " names the output folder";
            EXPECT_EQ(bytes.find(kSmallData.string()), std::string::npos) << file << " names the data root";
            EXPECT_EQ(bytes.find(kImage.parent_path().string()), std::string::npos)
                << file << " names the image's folder";
        }
        return parallel_err;
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
    // An earlier run's folder: refcheck's marker, and the junit.xml whose times order the cases.
    std::ofstream(path("timed") / harness::kOutputMarker) << "";
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

// Work below the case (harness/src/run/case_part.hpp): with more than one job, a large program case
// runs as parts over its records and is finished from their states. Its outputs are those of the
// unsplit run (--jobs 1), byte for byte, coverage (drcov) included.
TEST_F(DeterminismTest, CasesSplitBelowTheCaseGiveTheUnsplitOutputs) {
    const std::string files =
        join({shipped_case("program-lights"), shipped_case("program-grid-close"), shipped_case("frames")});
    const std::string err = expect_same_outputs("run " + files + " --data " + quote(kSmallData), 0);
    // The parallel run did split and merge (no fallback to whole runs), and the outputs compared
    // hold what a split must get right: coverage and the frames' pictures.
    EXPECT_NE(err.find("refcheck: program-lights ran as 4 parts over its records, merged"), std::string::npos)
        << err;
    EXPECT_NE(err.find("refcheck: frames ran as 4 parts over its records, merged"), std::string::npos) << err;
    EXPECT_EQ(err.find("program-grid-close ran as"), std::string::npos) << err; // not isolated: whole
    EXPECT_TRUE(tree(path("first")).count("program-lights/coverage.drcov"));
    std::size_t pictures = 0;
    for (const auto& [file, bytes] : tree(path("first"))) pictures += file.rfind("frames/frame-", 0) == 0;
    EXPECT_GT(pictures, 3u);
}

// A filter that leaves none of a case's inputs out (here it only drops another case) does not stop
// the case from splitting, and the split run's outputs are still the unsplit run's.
TEST_F(DeterminismTest, ACaseAFilterDoesNotNarrowStillSplitsWithTheUnsplitOutputs) {
    const std::string files = join({shipped_case("program-lights"), shipped_case("loader")});
    const std::string err =
        expect_same_outputs("run " + files + " --data " + quote(kSmallData) + " --filter '*:-loader'", 0);
    EXPECT_NE(err.find("refcheck: program-lights ran as 4 parts over its records, merged"), std::string::npos)
        << err;
    EXPECT_FALSE(tree(path("first")).count("loader.json"));
}

// A split case whose parts cannot be merged (here a part's worker dies) runs again whole: its report
// is the unsplit run's, naming the whole case's first input.
TEST_F(DeterminismTest, ASplitCaseWhosePartCrashedReportsAsTheUnsplitRun) {
    const std::string args =
        "run " + shipped_case("program-lights").string() + " --data " + quote(kSmallData);
    const std::string crash = "REFCHECK_TEST_WORKER_CRASH=program-lights:segv";
    for (const std::string jobs : {"1", "3"}) {
        const Result r = refcheck(args + " --out j" + jobs + " --jobs " + jobs, crash);
        ASSERT_EQ(r.code, 2) << r.out << r.err;
        if (jobs == "3") {
            EXPECT_NE(
                r.err.find("refcheck: program-lights ran as 3 parts over its records; they could not be "
                           "merged (part 1 of 3: status error): it ran again whole"),
                std::string::npos)
                << r.err;
        }
    }
    const ojson one = read_json(path("j1/program-lights.json"));
    EXPECT_EQ(one.at("status"), "error");
    EXPECT_EQ(read_json(path("j3/program-lights.json")).dump(2), one.dump(2));
}

// A part's worker dies (REFCHECK_TEST_WORKER_CRASH=CASE@2: only in part 2 of the split case) and
// the case run again whole does not: its verdict is the whole run's, and its report keeps the crash
// (part_died) instead of only the run's stderr saying so. Without it, the report is the unsplit one.
TEST_F(DeterminismTest, APartThatDiedIsKeptInTheReportWhenTheWholeRunDoesNotDie) {
    const std::string args =
        "run " + shipped_case("program-lights").string() + " --data " + quote(kSmallData);
    const Result one = refcheck(args + " --out j1 --jobs 1");
    ASSERT_EQ(one.code, 0) << one.out << one.err;
    const Result r =
        refcheck(args + " --out j3 --jobs 3", "REFCHECK_TEST_WORKER_CRASH=program-lights@2:segv");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(
        r.err.find("program-lights ran as 3 parts over its records; they could not be merged (part 2 of 3: "
                   "status error): it ran again whole"),
        std::string::npos)
        << r.err;
    EXPECT_NE(
        r.err.find("program-lights: the worker running part 2 of 3 died, and the case run whole did not"),
        std::string::npos)
        << r.err;
    ojson split = read_json(path("j3/program-lights.json"));
    ASSERT_TRUE(split.contains("part_died")) << split.dump(2);
    const ojson died = split.at("part_died");
    EXPECT_EQ(died.at("part"), 2);
    EXPECT_EQ(died.at("of"), 3);
    EXPECT_EQ(died.at("crash").at("signal"), 11);
    EXPECT_NE(died.at("error").get<std::string>().find("crash: the worker process running this case"),
              std::string::npos);
    split.erase("part_died");
    EXPECT_EQ(split.dump(2), read_json(path("j1/program-lights.json")).dump(2));
}

} // namespace
} // namespace refcheck::cli_test
