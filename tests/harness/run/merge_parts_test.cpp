// refcheck merge reads the parts a shard wrote (run.json "parts", each file in the workers' wire
// format) before it finishes anything: a part naming a file outside the merged folder, or bytes that
// are not one whole result, are refused by name, and nothing boots (no environment is given here).
#include "run/workers.hpp"

#include "refcheck/harness/report.hpp"
#include "refcheck/harness/run.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace refcheck::harness {
namespace {

namespace fs = std::filesystem;

class MergeParts : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("refcheck-merge-parts-" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_ / "shard" / "parts");
    }
    void TearDown() override { fs::remove_all(dir_); }
    // A shard holding one part (0 of 2) of case "c", written as `bytes`.
    void shard_with_part(const std::string& bytes) {
        std::ofstream(dir_ / "shard" / "parts" / "c.part-0-of-2", std::ios::binary) << bytes;
        // Written by this build, as a shard's run.json says (merge refuses another build's).
        const ojson index = {{"cases", ojson::array()},
                             {"reimpl_source_sha256", reimpl_source_sha256()},
                             {"refcheck_version", refcheck_version()},
                             {"parts",
                              {{{"case", "c"},
                                {"case_sha256", std::string(64, '0')},
                                {"part", 0},
                                {"of", 2},
                                {"file", "parts/c.part-0-of-2"},
                                {"status", "equivalent"}}}}};
        std::ofstream(dir_ / "shard" / "run.json") << index.dump();
    }
    std::string refusal() {
        try {
            merge({dir_ / "shard"}, dir_ / "out");
        } catch (const std::exception& e) {
            return e.what();
        }
        return "(merged)";
    }
    fs::path dir_;
};

CaseResult part_of_c() {
    CaseResult r;
    r.name = "c";
    r.status = Status::Equivalent;
    r.report = {{"case", "c"}};
    return r;
}

TEST_F(MergeParts, APartNamingAFileOutsideTheFolderIsRefused) {
    CaseResult r = part_of_c();
    r.files.emplace_back("../../escaped.png", std::vector<std::uint8_t>{1, 2, 3});
    shard_with_part(encode_result(0, r));
    const std::string why = refusal();
    EXPECT_NE(why.find("../../escaped.png"), std::string::npos) << why;
    EXPECT_FALSE(fs::exists(dir_ / "escaped.png"));
}

TEST_F(MergeParts, BytesThatAreNotOneWholeResultAreRefused) {
    const std::string whole = encode_result(0, part_of_c());
    for (const std::string& bad : {whole.substr(0, whole.size() - 1), whole + "x", std::string("short")}) {
        shard_with_part(bad);
        EXPECT_NE(refusal().find("is not a part a shard wrote"), std::string::npos) << refusal();
    }
    // The whole message is read; only the missing environment stops the merge (a part 1 missing
    // first: the finish needs every part).
    shard_with_part(whole);
    EXPECT_NE(refusal().find("case c: part 1 of 2 is in no shard output"), std::string::npos) << refusal();
}

} // namespace
} // namespace refcheck::harness
