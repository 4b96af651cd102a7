// The output folder (--out, bench's --work) is refcheck's to rewrite only when it is new, empty or
// one refcheck wrote (harness/include/refcheck/harness/out_folder.hpp), and never one that is or
// holds the run's inputs; in it, refcheck removes only files it writes. Before, a run wrote each
// report to OUT/<case>.json and removed OUT/<case>/ and OUT/parts/ whole, whatever they held.
#include "cli_support.hpp"

#include "refcheck/harness/out_folder.hpp"

#include <fstream>

namespace refcheck::cli_test {
namespace {

class OutFolderTest : public CliTest {
protected:
    // Expects exit 2 with every needle in the message.
    void refused(const Result& r, const std::vector<std::string>& needles) {
        EXPECT_EQ(r.code, 2) << r.out << r.err;
        EXPECT_EQ(r.err.rfind("refcheck: ", 0), 0u) << r.err;
        for (const auto& n : needles) EXPECT_NE(r.err.find(n), std::string::npos) << n << "\n" << r.err;
    }
    std::string data() const { return " --data " + quote(kSmallData); }
};

// `run cases-copy/loader.json --out cases-copy` wrote the loader's report over its case file.
TEST_F(OutFolderTest, TheFolderOfACaseFileIsNeverTheOutputFolder) {
    fs::create_directories(path("cases-copy"));
    fs::copy_file(shipped_case("loader"), path("cases-copy/loader.json"));
    const std::string case_bytes = read_text(path("cases-copy/loader.json"));
    refused(
        refcheck("run cases-copy/loader.json" + data() + " --out cases-copy"),
        {"--out cases-copy: is the folder of case file cases-copy/loader.json", "name a folder outside it"});
    // Nor a folder above it.
    refused(refcheck("run cases-copy/loader.json" + data() + " --out ."),
            {"--out .: holds the folder of case file cases-copy/loader.json"});
    EXPECT_EQ(read_text(path("cases-copy/loader.json")), case_bytes);
    EXPECT_FALSE(fs::exists(path("cases-copy/") / harness::kOutputMarker));
    // mutate takes its --out by the same rule, before any work.
    refused(refcheck("mutate cases-copy/loader.json" + data() + " --out cases-copy"),
            {"--out cases-copy: is the folder of case file"});
    EXPECT_EQ(read_text(path("cases-copy/loader.json")), case_bytes);
}

// A case named ".." (the file "...json") is refused before it runs: it ran whole, wrote its report,
// then failed writing ../coverage.drcov and left the output folder half-written.
TEST_F(OutFolderTest, ACaseNamedAsAFolderIsRefusedBeforeItRuns) {
    fs::create_directories(path("odd"));
    fs::copy_file(shipped_case("loader"), path("odd/...json"));
    refused(refcheck("run odd/...json" + data() + " --out dots"), {"is named \"..\"", "rename the file"});
    EXPECT_FALSE(fs::exists(path("dots")));
}

// Nor the data root, nor a shard output merge reads.
TEST_F(OutFolderTest, TheDataRootAndAMergesShardsAreNeverTheOutputFolder) {
    fs::copy(kSmallData, path("data"), fs::copy_options::recursive);
    refused(refcheck("run " + quote(shipped_case("loader")) + " --data data --out data"),
            {"--out data: is the data root"});
    EXPECT_FALSE(fs::exists(path("data/loader.json")));
    // Nor a folder inside it, where the reports would join what the guest lists and reads; the
    // workbench's --out by the same rule.
    refused(refcheck("run " + quote(shipped_case("loader")) + " --data data --out data/3DDATA/sub"),
            {"--out data/3DDATA/sub: lies inside the data root", "name a folder outside it"});
    EXPECT_FALSE(fs::exists(path("data/3DDATA/sub")));
    refused(refcheck("workbench --data data --out data/wb"), {"--out data/wb: lies inside the data root"});
    const Result shard = refcheck("run " + quote(shipped_case("loader")) + data() + " --shard 0/1 --out s0");
    ASSERT_EQ(shard.code, 0) << shard.out << shard.err;
    refused(refcheck("merge --out s0 s0 --cases " + quote(shipped_case("loader")) + data()),
            {"--out s0: is the shard output s0"});
}

// An --out folder holding someone's files (here a folder named as a case is) is not written into:
// `important/keep.txt` was deleted with the folder of the case named "important".
TEST_F(OutFolderTest, AFolderThatRefcheckDidNotWriteIsNotWrittenInto) {
    const fs::path file = write_case("important", read_json(shipped_case("loader")));
    fs::create_directories(path("o/important"));
    std::ofstream(path("o/important/keep.txt")) << "mine\n";
    refused(refcheck("run " + quote(file) + data() + " --out o"),
            {"--out o: the folder is not empty and is not a refcheck output folder"});
    EXPECT_EQ(read_text(path("o/important/keep.txt")), "mine\n");
    EXPECT_FALSE(fs::exists(path("o/important.json")));
    // An empty folder is taken.
    fs::create_directories(path("empty"));
    const Result r = refcheck("run " + quote(file) + data() + " --out empty");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_TRUE(fs::exists(path("empty/") / harness::kOutputMarker));
}

// A folder refcheck wrote is rewritten, run after run, and only refcheck's files in it are
// replaced or removed: a file someone put in a case's folder stays.
TEST_F(OutFolderTest, RerunsIntoTheSameFolderRemoveOnlyRefchecksFiles) {
    const fs::path file = write_case("important", read_json(shipped_case("loader")));
    const std::string run = "run " + quote(file) + data() + " --out o";
    const Result first = refcheck(run);
    ASSERT_EQ(first.code, 0) << first.out << first.err;
    ASSERT_TRUE(fs::exists(path("o/important/coverage.drcov")));
    EXPECT_TRUE(fs::exists(path("o/") / harness::kOutputMarker));
    std::ofstream(path("o/important/keep.txt")) << "mine\n";
    fs::create_directories(path("o/parts"));
    std::ofstream(path("o/parts/notes.txt")) << "mine too\n";
    const Result second = refcheck(run);
    EXPECT_EQ(second.code, 0) << second.out << second.err;
    EXPECT_EQ(read_text(path("o/important/keep.txt")), "mine\n");
    EXPECT_EQ(read_text(path("o/parts/notes.txt")), "mine too\n");
    EXPECT_TRUE(fs::exists(path("o/important/coverage.drcov")));
    // The output of an earlier refcheck, which left no marker, is recognised by its run.json.
    fs::remove(path("o/") / harness::kOutputMarker);
    const Result third = refcheck(run);
    EXPECT_EQ(third.code, 0) << third.out << third.err;
    EXPECT_TRUE(fs::exists(path("o/") / harness::kOutputMarker));
}

// A case's folder in the output made a link to another folder: the rerun wrote the case's
// coverage through it, outside the output folder. The link is now removed and a folder made in
// its place; what it named is left as it was.
TEST_F(OutFolderTest, ALinkedCaseFolderIsReplacedNotWrittenThrough) {
    const fs::path file = write_case("linked", read_json(shipped_case("loader")));
    const std::string run = "run " + quote(file) + data() + " --out o";
    ASSERT_EQ(refcheck(run).code, 0);
    fs::create_directories(path("elsewhere"));
    fs::remove_all(path("o/linked"));
    fs::create_directory_symlink(path("elsewhere"), path("o/linked"));
    const Result r = refcheck(run);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_TRUE(fs::is_empty(path("elsewhere"))) << "written through the link";
    EXPECT_FALSE(fs::is_symlink(path("o/linked")));
    EXPECT_TRUE(fs::exists(path("o/linked/coverage.drcov")));
}

} // namespace
} // namespace refcheck::cli_test
