// refcheck bench on a small case: the per-family pass names the family and its split, and the
// scaling runs from 1 to 2 workers finish with the run's exit code and identical outputs. Only the
// command's behaviour is tested, never its figures (benchmarks stay out of the tests).
#include "cli_support.hpp"

#include <fstream>

namespace refcheck::cli_test {
namespace {

class BenchTest : public CliTest {};

TEST_F(BenchTest, PrintsTheSplitPerFamilyAndTheScalingWithIdenticalOutputs) {
    const fs::path file = write_case("small-program", small_program().to_json());
    const Result r = refcheck("bench " + quote(file) + " --data " + quote(kSmallData) + " --jobs 2 --work w");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("\n  program        1 "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("harness overhead "), std::string::npos) << r.out;
    for (const char* jobs : {"\n     1 ", "\n     2 "}) {
        const auto at = r.out.find(jobs);
        ASSERT_NE(at, std::string::npos) << jobs << "\n" << r.out;
        const std::string row = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
        EXPECT_NE(row.find(" yes "), std::string::npos) << row;
        EXPECT_EQ(row.substr(row.size() - 2), " 0") << row; // the run's exit code: equivalent
    }
    EXPECT_TRUE(fs::exists(path("w/jobs-2/run.json")));
}

TEST_F(BenchTest, AWorkFolderThatIsAFileStopsItBeforeAnyWork) {
    std::ofstream(path("w")) << "a file";
    const Result r = refcheck("bench --no-scaling --work w");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("--work"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("Per family"), std::string::npos) << r.out;
}

} // namespace
} // namespace refcheck::cli_test
