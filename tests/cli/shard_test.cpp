// Sharding: `--shard K/N` (and the GoogleTest variables GTEST_TOTAL_SHARDS/GTEST_SHARD_INDEX when
// --shard is absent) split the cases; `refcheck merge` joins shard outputs into exactly the bytes
// of an unsharded run.
#include "cli_support.hpp"
#include "code_site.hpp"

#include "refcheck/harness/hash.hpp"
#include "json_schema.hpp"

#include <fstream>
#include <set>
#include <sstream>

namespace refcheck::cli_test {
namespace {

// op_secondary's jns negated (seeded_fault_test's fault): its site and the bytes that negate it.
std::pair<CodeSite, std::vector<std::uint8_t>> negated_winding_branch() {
    CodeSite branch = find_instruction(
        "op_secondary", [](const emu::Instruction& in) { return in.text.rfind("jns ", 0) == 0; });
    std::vector<std::uint8_t> negated = branch.bytes;
    negated.at(0) ^= 1;
    return {std::move(branch), std::move(negated)};
}

class ShardTest : public CliTest {
protected:
    void SetUp() override {
        CliTest::SetUp();
        files_ = join({shipped_case("loader"), shipped_case("construct"),
                       write_case("small-palette", small_palette()),
                       write_case("small-program", small_program().to_json()),
                       write_case("small-frames", small_frames().to_json())});
        common_ = " --data " + quote(kSmallData);
    }
    std::set<std::string> cases_of(const std::string& out) {
        std::set<std::string> names;
        const ojson index = read_json(path(out + "/run.json"));
        for (const auto& row : index.at("cases")) names.insert(row.at("case").get<std::string>());
        return names;
    }
    // Runs the cases unsharded and in two shards, merges the shards both ways round, and expects
    // every merged file to be byte for byte the unsharded run's.
    void expect_merge_identical(const std::string& extra, int expected_code) {
        const Result all = refcheck("run " + files_ + common_ + extra + " --out all");
        ASSERT_EQ(all.code, expected_code) << all.out << all.err;
        const auto unsharded = tree_without_junit_times(path("all"));
        ASSERT_TRUE(unsharded.count("run.json") && unsharded.count("junit.xml") &&
                    unsharded.count("index.html"));
        ASSERT_TRUE(unsharded.count("small-frames/frame-1-original.png")) << "the frames case saves pictures";

        for (int k = 0; k < 2; ++k) {
            const Result shard = refcheck("run " + files_ + common_ + extra + " --shard " +
                                          std::to_string(k) + "/2 --out s" + std::to_string(k));
            EXPECT_LE(shard.code, expected_code) << shard.out << shard.err;
            ASSERT_TRUE(fs::exists(path("s" + std::to_string(k) + "/run.json"))) << shard.err;
        }
        const auto s0 = cases_of("s0"), s1 = cases_of("s1");
        EXPECT_EQ(s0, (std::set<std::string>{"loader", "small-palette", "small-frames"})); // files 0, 2, 4
        EXPECT_EQ(s1, (std::set<std::string>{"construct", "small-program"}));              // files 1, 3

        for (const std::string order : {"s0 s1", "s1 s0"}) {
            const std::string out = order == "s0 s1" ? "merged" : "merged-reversed";
            const Result merge =
                refcheck("merge --out " + out + " " + order + " --cases " + files_ + common_);
            EXPECT_EQ(merge.code, expected_code) << merge.out << merge.err;
            const auto merged = tree_without_junit_times(path(out));
            EXPECT_EQ(merged.size(), unsharded.size()) << order;
            for (const auto& [file, bytes] : unsharded) {
                ASSERT_TRUE(merged.count(file)) << file << " missing from the merge of " << order;
                EXPECT_TRUE(merged.at(file) == bytes) << file << " differs after merging " << order;
            }
            // The merged JUnit keeps each shard's times: every shard's testcase line, time included.
            const std::string junit = read_text(path(out + "/junit.xml"));
            for (const std::string shard : {"s0", "s1"}) {
                std::istringstream lines(read_text(path(shard + "/junit.xml")));
                for (std::string line; std::getline(lines, line);) {
                    if (line.rfind("  <testcase ", 0) == 0) {
                        EXPECT_NE(junit.find(line), std::string::npos) << line << " of " << shard;
                    }
                }
            }
        }
    }
    std::string files_, common_;
};

TEST_F(ShardTest, MergedShardsAreByteIdenticalToAnUnshardedRun) { expect_merge_identical("", 0); }

TEST_F(ShardTest, MergedShardsOfADivergentRunAreByteIdenticalToIt) {
    expect_merge_identical(" --inject-reimpl-light-swap", 1);
    EXPECT_EQ(read_json(path("merged/run.json")).at("status"), "divergent");
}

// A split case of a run narrowed by --filter (one that selects every input of the split case, so it
// still splits) finishes in merge with the run's filter, which its report names as the unsharded
// run's does: merge took its own options, which have none, and the bytes differed.
TEST_F(ShardTest, ASplitCaseOfAFilteredRunMergesIntoTheUnshardedBytes) {
    const std::string files = join({shipped_case("program-lights"), shipped_case("loader")});
    const std::string filter = " --filter 'program-lights:loader'";
    ASSERT_EQ(refcheck("run " + files + common_ + filter + " --jobs 1 --out all").code, 0);
    for (const std::string k : {"0", "1"}) {
        const Result shard =
            refcheck("run " + files + common_ + filter + " --jobs 1 --shard " + k + "/2 --out s" + k);
        ASSERT_EQ(shard.code, 0) << shard.out << shard.err;
        EXPECT_NE(shard.err.find("program-lights: this shard ran part"), std::string::npos) << shard.err;
    }
    const Result merge = refcheck("merge --out merged s0 s1 --cases " + files + common_ + " --jobs 1");
    ASSERT_EQ(merge.code, 0) << merge.out << merge.err;
    const ojson merged = read_json(path("merged/program-lights.json"));
    EXPECT_EQ(merged.at("selection").at("filter"), "program-lights:loader") << merged.at("selection").dump();
    EXPECT_EQ(merged.dump(2), read_json(path("all/program-lights.json")).dump(2));
}

// Shards run on different archives (shard 1's palette one byte apart) merge into no single verdict:
// the whole cases of the shard whose inputs are not the merge's (by SHA-256) become errors naming
// both, and the others keep theirs. (Unchecked, the merge called the mixed run equivalent.)
TEST_F(ShardTest, ShardsRunOnOtherArchivesThanTheMergesMakeTheirCasesErrors) {
    fs::copy(kSmallData, path("other-data"), fs::copy_options::recursive);
    std::string palette = read_text(path("other-data/3DPAL.RGB"));
    palette[100] = static_cast<char>(palette[100] ^ 0x01);
    std::ofstream(path("other-data/3DPAL.RGB"), std::ios::binary | std::ios::trunc) << palette;
    const Result s0 = refcheck("run " + files_ + common_ + " --shard 0/2 --out s0");
    ASSERT_EQ(s0.code, 0) << s0.out << s0.err;
    const Result s1 =
        refcheck("run " + files_ + " --data " + quote(path("other-data")) + " --shard 1/2 --out s1");
    ASSERT_EQ(s1.code, 0) << s1.out << s1.err;
    const Result merge = refcheck("merge --out merged s0 s1 --cases " + files_ + common_);
    EXPECT_EQ(merge.code, 2) << merge.out << merge.err;
    for (const char* name : {"construct", "small-program"}) { // shard 1's
        const ojson r = read_json(path("merged/" + std::string(name) + ".json"));
        EXPECT_EQ(r.at("status"), "error") << name;
        const std::string error = r.value("error", std::string());
        EXPECT_NE(error.find("the shard ran this case on other inputs than the merge's"), std::string::npos)
            << name << ": " << error;
        EXPECT_NE(error.find(harness::sha256_file(path("other-data/3DPAL.RGB"))), std::string::npos) << error;
        EXPECT_NE(error.find(harness::sha256_file(fs::path(kSmallData) / "3DPAL.RGB")), std::string::npos)
            << error;
    }
    for (const char* name : {"loader", "small-palette", "small-frames"}) // shard 0's
        EXPECT_EQ(read_json(path("merged/" + std::string(name) + ".json")).at("status"), "equivalent")
            << name;
}

// Parts that cannot be merged (here: divergent) make the merge run their case again whole, on the
// merge's image, profile and archives. Parts run on another image must make that case an error, as
// whole cases and mergeable parts of another environment do. Unchecked, two shards that each exited 1
// on an image with a seeded branch merged, without that --image, into "equivalent", exit 0.
TEST_F(ShardTest, PartsThatCannotMergeRunWholeOnlyOnTheInputsTheyRanOn) {
    const auto [branch, negated] = negated_winding_branch();
    const auto [image, profile] = patched_original(path(""), {{branch.instruction.address, negated}});
    const std::string cases = " --cases " + quote(shipped_case("program-lights")) + common_;
    const std::string on = " --image " + quote(image) + " --profile " + quote(profile);
    for (const char* k : {"0", "1"}) {
        const Result r = refcheck("run " + quote(shipped_case("program-lights")) + common_ + on +
                                  " --shard " + k + "/2 --jobs 1 --out s" + k);
        ASSERT_EQ(r.code, 1) << r.out << r.err;
    }
    const Result elsewhere = refcheck("merge --out m-other s0 s1" + cases);
    EXPECT_EQ(elsewhere.code, 2) << elsewhere.out << elsewhere.err;
    const ojson r = read_json(path("m-other/program-lights.json"));
    EXPECT_EQ(r.at("status"), "error");
    const std::string error = r.value("error", std::string());
    EXPECT_NE(error.find("ran on other inputs than the case run whole here"), std::string::npos) << error;
    EXPECT_NE(error.find(sha256_of(image)), std::string::npos) << error;
    EXPECT_EQ(read_json(path("m-other/run.json")).at("status"), "error");
    // Given the shards' image, the same merge runs the case whole there: divergent, as they were.
    const Result same = refcheck("merge --out m-same s0 s1" + cases + on);
    EXPECT_EQ(same.code, 1) << same.out << same.err;
    EXPECT_EQ(read_json(path("m-same/program-lights.json")).at("status"), "divergent");
}

// A large case is split across the shards below the case (its records shared out as across workers,
// harness/src/run/case_part.hpp): each shard compares its part and writes it, and merge finishes the
// case from every part, so the merged outputs are the unsharded run's, byte for byte.
TEST_F(ShardTest, CasesSplitAcrossTheShardsMergeIntoTheUnshardedOutputs) {
    const std::string files =
        join({shipped_case("program-lights"), shipped_case("frames"), shipped_case("loader")});
    ASSERT_EQ(refcheck("run " + files + common_ + " --jobs 1 --out all").code, 0);
    for (int k = 0; k < 2; ++k) {
        const std::string n = std::to_string(k);
        const Result shard = refcheck("run " + files + common_ + " --jobs 1 --shard " + n + "/2 --out s" + n);
        ASSERT_EQ(shard.code, 0) << shard.out << shard.err;
        EXPECT_NE(shard.err.find("program-lights: this shard ran part " + std::to_string(k + 1) + " of 2"),
                  std::string::npos)
            << shard.err;
    }
    // Part p of case file i is shard (i + p) mod 2's; the loader (file 2) runs whole in shard 0.
    const ojson s0 = read_json(path("s0/run.json")), s1 = read_json(path("s1/run.json"));
    EXPECT_EQ(cases_of("s0"), (std::set<std::string>{"loader"}));
    EXPECT_TRUE(cases_of("s1").empty());
    ASSERT_EQ(s0.at("parts").size(), 2u);
    EXPECT_EQ(s0.at("parts").at(0).at("case"), "frames");
    EXPECT_EQ(s0.at("parts").at(0).at("part"), 1);
    EXPECT_EQ(s0.at("parts").at(1).at("case"), "program-lights");
    EXPECT_EQ(s0.at("parts").at(1).at("part"), 0);
    EXPECT_EQ(s1.at("parts").at(0).at("part"), 0); // frames
    EXPECT_EQ(s1.at("status"), "equivalent");
    // Each part a shard holds is a testcase of its junit.xml (s1 holds no whole case).
    const std::string junit1 = read_text(path("s1/junit.xml"));
    EXPECT_NE(junit1.find("<testsuite name=\"refcheck\" tests=\"2\" failures=\"0\" errors=\"0\""),
              std::string::npos)
        << junit1;
    EXPECT_NE(junit1.find("name=\"frames (part 1 of 2)\""), std::string::npos) << junit1;
    test::SchemaSet schemas; // a shard's index with parts is valid (the schema lists every property)
    for (const char* f : {"case-report.schema.json", "run-index.schema.json"})
        schemas.add_file(fs::path(REFCHECK_CLI_SCHEMAS) / f);
    for (const ojson* index : {&s0, &s1})
        for (const auto& e : schemas.validate(*index, "run-index.schema.json"))
            ADD_FAILURE() << "run.json " << e;

    const std::string env = " --data " + quote(kSmallData) + " --jobs 1", cases = " --cases " + files + env;
    const Result merge = refcheck("merge --out merged s1 s0" + cases);
    ASSERT_EQ(merge.code, 0) << merge.out << merge.err;
    EXPECT_NE(merge.err.find("refcheck: frames ran as 2 parts over its records, merged"), std::string::npos)
        << merge.err;
    EXPECT_NE(merge.err.find("refcheck: program-lights ran as 2 parts over its records, merged"),
              std::string::npos)
        << merge.err;
    const auto unsharded = tree_without_junit_times(path("all"));
    const auto merged = tree_without_junit_times(path("merged"));
    EXPECT_EQ(merged.size(), unsharded.size());
    for (const auto& [file, bytes] : unsharded) {
        ASSERT_TRUE(merged.count(file)) << file << " missing from the merge";
        EXPECT_TRUE(merged.at(file) == bytes) << file << " differs after the merge";
    }
    std::size_t pictures = 0;
    for (const auto& [file, bytes] : unsharded) pictures += file.rfind("frames/frame-", 0) == 0;
    EXPECT_GT(pictures, 1u);
    EXPECT_TRUE(unsharded.count("program-lights/coverage.drcov"));

    // What would make the merge wrong is refused: the parts need the environment to finish, the
    // case file the shards ran, their data root, every part once and bytes a shard wrote.
    const Result bare = refcheck("merge --out m-bare s0 s1 --cases " + files);
    EXPECT_EQ(bare.code, 2) << bare.out << bare.err; // the default archives: other records, an error
    EXPECT_EQ(read_json(path("m-bare/frames.json")).at("status"), "error");
    // The loader ran whole in shard 0 on the small archives: not the merge's either.
    const ojson loader = read_json(path("m-bare/loader.json"));
    EXPECT_EQ(loader.at("status"), "error");
    EXPECT_NE(
        loader.value("error", std::string()).find("the shard ran this case on other inputs than the merge's"),
        std::string::npos)
        << loader.value("error", std::string());
    // The shards' archives with one palette byte changed: the same records, other inputs.
    fs::copy(kSmallData, path("other-data"), fs::copy_options::recursive);
    std::string palette = read_text(path("other-data/3DPAL.RGB"));
    palette[100] = static_cast<char>(palette[100] ^ 0x01);
    std::ofstream(path("other-data/3DPAL.RGB"), std::ios::binary | std::ios::trunc) << palette;
    const Result elsewhere = refcheck("merge --out m-other s0 s1 --cases " + files + " --data " +
                                      quote(path("other-data")) + " --jobs 1");
    EXPECT_EQ(elsewhere.code, 2) << elsewhere.out << elsewhere.err;
    for (const char* name : {"m-other/frames.json", "m-other/program-lights.json"}) {
        const ojson r = read_json(path(name));
        EXPECT_EQ(r.at("status"), "error") << name;
        EXPECT_NE(r.value("error", std::string()).find("ran on other inputs than this finish"),
                  std::string::npos)
            << name << ": " << r.value("error", std::string());
    }
    ojson edited = read_json(shipped_case("frames"));
    edited["description"] = edited.value("description", std::string()) + " (edited)";
    const fs::path other = write_case("frames", edited);
    const Result changed = refcheck("merge --out m-changed s0 s1 --cases " +
                                    join({other, shipped_case("program-lights")}) + env);
    EXPECT_EQ(changed.code, 2) << changed.out << changed.err;
    EXPECT_NE(changed.err.find("is not the file the shards ran"), std::string::npos) << changed.err;
    ojson dropped = s1;
    dropped.erase("parts");
    fs::create_directories(path("s1-dropped"));
    std::ofstream(path("s1-dropped/run.json")) << dropped.dump(2);
    const Result missing = refcheck("merge --out m-missing s0 s1-dropped" + cases);
    EXPECT_EQ(missing.code, 2) << missing.out << missing.err;
    EXPECT_NE(missing.err.find("case frames: part 0 of 2 is in no shard output"), std::string::npos)
        << missing.err;
    ojson twice = s1;
    twice["parts"].push_back(s1.at("parts").at(0));
    fs::create_directories(path("s1-twice/parts"));
    fs::copy(path("s1/parts"), path("s1-twice/parts"));
    std::ofstream(path("s1-twice/run.json")) << twice.dump(2);
    const Result repeated = refcheck("merge --out m-twice s0 s1-twice" + cases);
    EXPECT_EQ(repeated.code, 2) << repeated.out << repeated.err;
    EXPECT_NE(repeated.err.find("is in more than one shard output"), std::string::npos) << repeated.err;
    const std::string part = s1.at("parts").at(0).at("file").get<std::string>();
    fs::resize_file(path("s1-twice/" + part), fs::file_size(path("s1-twice/" + part)) / 2);
    std::ofstream(path("s1-twice/run.json")) << s1.dump(2);
    const Result cut = refcheck("merge --out m-cut s0 s1-twice" + cases);
    EXPECT_EQ(cut.code, 2) << cut.out << cut.err;
    EXPECT_NE(cut.err.find("is not a part a shard wrote"), std::string::npos) << cut.err;
    for (const char* m : {"m-changed", "m-missing", "m-twice", "m-cut"})
        EXPECT_FALSE(fs::exists(path(std::string(m) + "/run.json"))) << m;
}

// A shard's junit.xml counts the parts it holds: a part that diverged fails there, as run.json's
// status says, and not only after the merge. Before, a shard holding only a divergent part wrote
// tests="0" failures="0", which a CI matrix reading JUnit shows as passed.
TEST_F(ShardTest, AShardsJunitFailsForAPartThatDiverged) {
    ojson strict = read_json(shipped_case("program-lights"));
    strict["allow"] = ojson::array(); // its known divergences become unexplained
    const std::string file = quote(write_case("lights-strict", strict));
    std::size_t failed = 0;
    for (int k = 0; k < 2; ++k) {
        const std::string n = std::to_string(k), out = "d" + n;
        const Result shard = refcheck("run " + file + common_ + " --jobs 1 --shard " + n + "/2 --out " + out);
        const ojson index = read_json(path(out + "/run.json"));
        ASSERT_EQ(index.at("parts").size(), 1u) << index.dump(1);
        const std::string status = index.at("parts").at(0).at("status").get<std::string>();
        EXPECT_EQ(shard.code, status == "divergent" ? 1 : 0) << shard.out << shard.err;
        const std::string junit = read_text(path(out + "/junit.xml"));
        const bool diverged = status == "divergent";
        failed += diverged;
        EXPECT_NE(junit.find("tests=\"1\" failures=\"" + std::string(diverged ? "1" : "0") + "\""),
                  std::string::npos)
            << junit;
        EXPECT_EQ(junit.find("<failure type=\"divergence\" message=\"the part diverged") != std::string::npos,
                  diverged)
            << junit;
        EXPECT_NE(junit.find("name=\"lights-strict (part " + std::to_string(k + 1) + " of 2)\""),
                  std::string::npos)
            << junit;
        // The HTML page lists the part, with its status.
        const std::string html = read_text(path(out + "/index.html"));
        EXPECT_NE(html.find("<td>lights-strict</td><td>" + std::to_string(k + 1) +
                            " of 2</td><td class=" + status + ">" + status + "</td>"),
                  std::string::npos)
            << html.substr(0, 3000);
    }
    EXPECT_GE(failed, 1u) << "no part of program-lights diverged without its allowances";
}

// Shards that hold only parts write no ledger; the merge takes the rule index from its own finish.
// Before, it stopped with "key 'rules' not found".
TEST_F(ShardTest, ShardsHoldingOnlyPartsMergeIntoTheUnshardedOutputs) {
    const std::string file = shipped_case("program-lights"), env = common_ + " --jobs 1";
    ASSERT_EQ(refcheck("run " + file + env + " --out all").code, 0);
    for (const char* k : {"0", "1"}) {
        const Result shard = refcheck("run " + file + env + " --shard " + k + "/2 --out o" + k);
        ASSERT_EQ(shard.code, 0) << shard.out << shard.err;
        ASSERT_TRUE(cases_of(std::string("o") + k).empty()) << k << " holds a whole case";
        // Its exit status is its parts': the case's own checks run at the merge, and it says so.
        EXPECT_NE(shard.out.find("provisional: 1 part(s) of 1 split case(s) (program-lights): refcheck merge "
                                 "decides those cases"),
                  std::string::npos)
            << shard.out;
    }
    const Result merge = refcheck("merge --out merged o0 o1 --cases " + file + env);
    ASSERT_EQ(merge.code, 0) << merge.out << merge.err;
    EXPECT_TRUE(tree_without_junit_times(path("merged")) == tree_without_junit_times(path("all")));
}

TEST_F(ShardTest, GoogleTestShardingVariablesSelectTheSameCasesAsShard) {
    for (int k = 0; k < 2; ++k) {
        const std::string n = std::to_string(k);
        const Result flag = refcheck("run " + files_ + common_ + " --shard " + n + "/2 --out flag" + n);
        ASSERT_EQ(flag.code, 0) << flag.out << flag.err;
        const fs::path status = path("shard-status-" + n);
        const Result vars = refcheck("run " + files_ + common_ + " --out vars" + n,
                                     "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=" + n +
                                         " GTEST_SHARD_STATUS_FILE=" + quote(status));
        ASSERT_EQ(vars.code, 0) << vars.out << vars.err;
        EXPECT_TRUE(fs::exists(status)) << "the sharding protocol's status file is not created";
        EXPECT_EQ(cases_of("vars" + n).size(), k == 0 ? 3u : 2u);
        EXPECT_TRUE(tree_without_junit_times(path("vars" + n)) == tree_without_junit_times(path("flag" + n)))
            << "shard " << n;
    }
    // --shard wins over the variables.
    const Result both = refcheck("run " + files_ + common_ + " --shard 0/2 --out both",
                                 "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=1");
    ASSERT_EQ(both.code, 0) << both.out << both.err;
    EXPECT_TRUE(tree_without_junit_times(path("both")) == tree_without_junit_times(path("flag0")));
}

// GTEST_SHARD_STATUS_FILE naming a file that cannot be created is an error naming the variable and
// the path, before anything runs. fclose of the null FILE* fopen gave killed refcheck (exit 139).
TEST_F(ShardTest, AShardStatusFileThatCannotBeCreatedIsAnErrorNamingIt) {
    const fs::path status = path("no-such-folder/status");
    const Result r = refcheck("run " + quote(shipped_case("loader")) + common_ + " --out out",
                              "GTEST_TOTAL_SHARDS=1 GTEST_SHARD_STATUS_FILE=" + quote(status));
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_NE(
        r.err.find("refcheck: run: GTEST_SHARD_STATUS_FILE=" + status.string() + ": cannot create the file"),
        std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(path("out/run.json")));
}

// More shards than cases: a shard that gets none succeeds (exit 0), and its run.json and summary
// say it selected nothing; merge counts its output as that shard's, and still refuses a shard
// missing. Before, such a shard exited 2 ("no case to run") and failed a CI matrix sized for a
// larger run. A run that selects no case at all, sharded or not, stays an error.
TEST_F(ShardTest, AShardThatGetsNoCaseSucceedsAndMergesAsTheShardsOutput) {
    const std::string one = quote(shipped_case("loader")) + common_;
    ASSERT_EQ(refcheck("run " + one + " --out all").code, 0);
    ASSERT_EQ(refcheck("run " + one + " --shard 0/3 --out e0").code, 0);
    test::SchemaSet schemas;
    for (const char* f : {"case-report.schema.json", "run-index.schema.json"})
        schemas.add_file(fs::path(REFCHECK_CLI_SCHEMAS) / f);
    for (const char* k : {"1", "2"}) {
        const std::string out = std::string("e") + k;
        const Result r = refcheck("run " + one + " --shard " + k + "/3 --out " + out);
        EXPECT_EQ(r.code, 0) << r.out << r.err;
        EXPECT_NE(r.out.find("shard " + std::string(k) + "/3 selected none of the run's 1 case(s)"),
                  std::string::npos)
            << r.out;
        const ojson index = read_json(path(out + "/run.json"));
        EXPECT_EQ(index.at("shard").at("empty"), true) << index.dump();
        EXPECT_TRUE(index.at("cases").empty());
        for (const auto& e : schemas.validate(index, "run-index.schema.json"))
            ADD_FAILURE() << out << ": " << e;
    }
    EXPECT_FALSE(read_json(path("e0/run.json")).at("shard").contains("empty"));
    const Result vars = refcheck("run " + one + " --out vars", "GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=2");
    EXPECT_EQ(vars.code, 0) << vars.out << vars.err;
    EXPECT_TRUE(tree_without_junit_times(path("vars")) == tree_without_junit_times(path("e2")));

    const Result merge = refcheck("merge --out merged e2 e0 e1 --cases " + one);
    EXPECT_EQ(merge.code, 0) << merge.out << merge.err;
    EXPECT_TRUE(tree_without_junit_times(path("merged")) == tree_without_junit_times(path("all")));
    const Result lacking = refcheck("merge --out m2 e1 e2 --cases " + one);
    EXPECT_EQ(lacking.code, 2) << lacking.out << lacking.err;
    EXPECT_NE(lacking.err.find("shard output missing: 0/3"), std::string::npos) << lacking.err;
    const Result lacking_empty = refcheck("merge --out m3 e0 e1 --cases " + one);
    EXPECT_EQ(lacking_empty.code, 2) << lacking_empty.out << lacking_empty.err;
    EXPECT_NE(lacking_empty.err.find("shard output missing: 2/3"), std::string::npos) << lacking_empty.err;

    for (const std::string shard : {" --shard 1/3", ""}) {
        const Result none = refcheck("run " + one + shard + " --filter 'nothing-*' --out none");
        EXPECT_EQ(none.code, 2) << shard << none.out << none.err;
        EXPECT_NE(none.err.find("--filter 'nothing-*' selects no case"), std::string::npos) << none.err;
        EXPECT_FALSE(fs::exists(path("none/run.json")));
    }
}

// A seeded run's shards each resolve the patches on the images of their own cases: a shard that got
// no case resolved none. Its run.json "seeded_faults" lacks "patches", and merge refused the shards
// as "run with different seeded faults" (exit 2) though one run made them all.
TEST_F(ShardTest, SeededShardsMergeThoughOneGotNoCase) {
    const auto [branch, negated] = negated_winding_branch();
    const std::string seeded =
        " --patch " + quote(branch.where() + ":" + hex_bytes(branch.bytes) + "->" + hex_bytes(negated));
    const std::string one = quote(shipped_case("loader")) + common_ + seeded;
    ASSERT_EQ(refcheck("run " + one + " --out all").code, 0);
    for (const char* k : {"0", "1", "2"})
        ASSERT_EQ(refcheck("run " + one + " --shard " + std::string(k) + "/3 --out s" + k).code, 0) << k;
    EXPECT_FALSE(read_json(path("s1/run.json")).at("seeded_faults").contains("patches"));
    const Result merge =
        refcheck("merge --out merged s1 s0 s2 --cases " + quote(shipped_case("loader")) + common_);
    EXPECT_EQ(merge.code, 0) << merge.out << merge.err;
    EXPECT_TRUE(tree_without_junit_times(path("merged")) == tree_without_junit_times(path("all")));
}

// A merge into a folder an earlier merge wrote leaves none of the earlier case files: the red
// merge's diff pictures stayed beside the green reports, so the folder was not the unsharded run's.
TEST_F(ShardTest, AMergeOverAnEarlierOneKeepsNoneOfItsPictures) {
    const auto [branch, negated] = negated_winding_branch();
    const auto [image, profile] = patched_original(path(""), {{branch.instruction.address, negated}});
    const std::string on = " --image " + quote(image) + " --profile " + quote(profile);
    const std::string files =
        join({shipped_case("frames"), write_case("small-frames", small_frames().to_json())});
    ASSERT_EQ(refcheck("run " + files + common_ + " --out all").code, 0);
    for (const std::string& env : {on, std::string()}) {
        for (const char* k : {"0", "1"})
            ASSERT_NE(refcheck("run " + files + common_ + env + " --shard " + k + "/2 --out s" + k).code, 2);
        const Result merge = refcheck("merge --out merged s0 s1 --cases " + files + common_ + env);
        EXPECT_EQ(merge.code, env.empty() ? 0 : 1) << merge.out << merge.err;
    }
    const auto all = tree_without_junit_times(path("all")), merged = tree_without_junit_times(path("merged"));
    for (const auto& [file, bytes] : merged)
        EXPECT_TRUE(all.count(file)) << file << " is left from the red merge";
    EXPECT_TRUE(all == merged);
}

// A shard's case report is merged only with the verdict its shard counted, and only when its counts
// bear the verdict out: a report edited to "equivalent" (run.json's row still divergent, 1,572
// unexplained in its counts) merged into an equivalent run, exit 0.
TEST_F(ShardTest, AShardsReportChangedAfterItsRunIsNotMerged) {
    const auto [branch, negated] = negated_winding_branch();
    const std::string seeded =
        " --patch " + quote(branch.where() + ":" + hex_bytes(branch.bytes) + "->" + hex_bytes(negated));
    const std::string cases = " --cases " + files_ + common_;
    for (const char* k : {"0", "1"})
        ASSERT_EQ(refcheck("run " + files_ + common_ + seeded + " --shard " + k + "/2 --out s" + k).code, 1)
            << k;
    std::string shard, name; // a divergent case and its shard
    for (const char* k : {"s0", "s1"}) {
        const ojson index = read_json(path(std::string(k) + "/run.json"));
        for (const auto& row : index.at("cases"))
            if (row.at("status") == "divergent") {
                shard = k;
                name = row.at("case").get<std::string>();
            }
    }
    ASSERT_FALSE(name.empty());
    const fs::path file = path(shard + "/" + name + ".json");
    const ojson original = read_json(file);
    ASSERT_GT(original.at("counts").at("unexplained").get<std::uint64_t>(), 0u);
    EXPECT_EQ(refcheck("merge --out m s0 s1" + cases).code, 1);
    // Its counts edited (its verdict kept): the merged run said what the edit said.
    ojson fewer = original;
    fewer["counts"]["compared"] = 5;
    std::ofstream(file) << fewer.dump(2);
    const Result compared = refcheck("merge --out m-compared s0 s1" + cases);
    EXPECT_EQ(compared.code, 2) << compared.out << compared.err;
    EXPECT_NE(compared.err.find("its counts are not those its shard's run.json gives it"), std::string::npos)
        << compared.err;
    EXPECT_FALSE(fs::exists(path("m-compared/run.json")));
    ojson edited = original;
    edited["status"] = "equivalent";
    std::ofstream(file) << edited.dump(2);
    const Result status = refcheck("merge --out m-status s0 s1" + cases);
    EXPECT_EQ(status.code, 2) << status.out << status.err;
    EXPECT_NE(status.err.find("a report changed after its run is not merged"), std::string::npos)
        << status.err;
    // The row edited too: the counts still say divergent.
    ojson index = read_json(path(shard + "/run.json"));
    for (auto& row : index.at("cases"))
        if (row.at("case") == name) row["status"] = "equivalent";
    std::ofstream(path(shard + "/run.json")) << index.dump(2);
    const Result counts = refcheck("merge --out m-counts s0 s1" + cases);
    EXPECT_EQ(counts.code, 2) << counts.out << counts.err;
    EXPECT_NE(counts.err.find("unexplained divergence(s)"), std::string::npos) << counts.err;
    EXPECT_FALSE(fs::exists(path("m-status/run.json")));
    EXPECT_FALSE(fs::exists(path("m-counts/run.json")));
}

TEST_F(ShardTest, BadShardsAreErrors) {
    const Result r = refcheck("run " + files_ + common_ + " --shard 2/2 --out out");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_FALSE(fs::exists(path("out/run.json")));
    const Result vars =
        refcheck("run " + files_ + common_ + " --out vars", "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=5");
    EXPECT_EQ(vars.code, 2) << vars.out << vars.err;
    EXPECT_FALSE(fs::exists(path("vars/run.json")));
    // A split's outputs merge only when complete: a shard missing, given twice, or of another split.
    for (const char* k : {"0", "1"})
        ASSERT_EQ(refcheck("run " + files_ + common_ + " --shard " + k + "/2 --out half" + k).code, 0);
    ASSERT_EQ(refcheck("run " + files_ + common_ + " --shard 0/3 --out third0").code, 0);
    const ojson shard = read_json(path("half1/run.json")).at("shard");
    EXPECT_EQ(shard.at("index"), 1);
    EXPECT_EQ(shard.at("count"), 2);
    EXPECT_EQ(shard.at("plan").at("cases").size(), 5u) << shard.dump();
    EXPECT_EQ(read_json(path("half0/run.json")).at("shard").at("plan"), shard.at("plan"));
    const Result one = refcheck("merge --out m1 half0");
    EXPECT_EQ(one.code, 2) << one.out << one.err;
    EXPECT_NE(one.err.find("shard output missing: 1/2"), std::string::npos) << one.err;
    const Result twice = refcheck("merge --out m2 half0 half0");
    EXPECT_EQ(twice.code, 2) << twice.out << twice.err;
    EXPECT_NE(twice.err.find("are both shard 0/2"), std::string::npos) << twice.err;
    const Result mixed = refcheck("merge --out m3 half0 third0");
    EXPECT_EQ(mixed.code, 2) << mixed.out << mixed.err;
    EXPECT_NE(mixed.err.find("a shard of 2"), std::string::npos) << mixed.err;
    for (const char* m : {"m1", "m2", "m3"})
        EXPECT_FALSE(fs::exists(path(std::string(m) + "/run.json"))) << m;
    const Result both = refcheck("merge --out m4 half1 half0 --cases " + files_ + common_);
    EXPECT_EQ(both.code, 0) << both.out << both.err;
    EXPECT_FALSE(read_json(path("m4/run.json")).contains("shard"));
    // A shard folder without a run index cannot be merged.
    fs::create_directories(path("empty-shard"));
    const Result merge = refcheck("merge --out merged empty-shard");
    EXPECT_EQ(merge.code, 2) << merge.out << merge.err;
    EXPECT_FALSE(fs::exists(path("merged/run.json")));
}

// The shards of one run compare one plan: a shard run with another filter (or other cases) is of
// another run, and merge refuses it rather than drop the cases it left out. Before, shard 1 run
// with --filter '*:-small-program' merged with shard 0 into an equivalent run of four cases.
TEST_F(ShardTest, ShardsOfDifferentPlansOrMissingACaseAreRefused) {
    ASSERT_EQ(refcheck("run " + files_ + common_ + " --shard 0/2 --out p0").code, 0);
    const Result narrowed =
        refcheck("run " + files_ + common_ + " --shard 1/2 --out p1 --filter '*:-small-program'");
    ASSERT_EQ(narrowed.code, 0) << narrowed.out << narrowed.err;
    EXPECT_EQ(cases_of("p1"), (std::set<std::string>{"construct"}));
    const Result other = refcheck("merge --out m p0 p1");
    EXPECT_EQ(other.code, 2) << other.out << other.err;
    EXPECT_NE(other.err.find("are shards of different runs"), std::string::npos) << other.err;
    EXPECT_FALSE(fs::exists(path("m/run.json")));

    // The same plan, but a case report gone from a shard's index: the merge names the case.
    ASSERT_EQ(refcheck("run " + files_ + common_ + " --shard 1/2 --out q1").code, 0);
    ojson index = read_json(path("q1/run.json"));
    ojson kept = ojson::array();
    for (const auto& row : index.at("cases"))
        if (row.at("case") != "small-program") kept.push_back(row);
    ASSERT_EQ(kept.size() + 1, index.at("cases").size());
    index["cases"] = kept;
    std::ofstream(path("q1/run.json")) << index.dump(2);
    const Result dropped = refcheck("merge --out m2 p0 q1");
    EXPECT_EQ(dropped.code, 2) << dropped.out << dropped.err;
    EXPECT_NE(dropped.err.find("no shard output holds, whole or in parts: small-program"), std::string::npos)
        << dropped.err;
    EXPECT_FALSE(fs::exists(path("m2/run.json")));
}

// The shards' verdicts are their reimplementation's: a shard run by another build (its run.json's
// reimpl_source_sha256 or refcheck_version not this build's) is refused. Before, merge checked the
// image, profile and archives of each shard but stamped its own build's reimplementation hash on
// verdicts another build earned.
TEST_F(ShardTest, ShardsRunByAnotherBuildAreRefused) {
    for (const char* k : {"0", "1"})
        ASSERT_EQ(refcheck("run " + files_ + common_ + " --shard " + std::string(k) + "/2 --out b" + k).code,
                  0);
    ASSERT_EQ(refcheck("merge --out same b0 b1 --cases " + files_ + common_).code, 0);
    for (const char* key : {"reimpl_source_sha256", "refcheck_version"}) {
        const ojson original = read_json(path("b1/run.json"));
        ojson index = original;
        index[key] = "0000000000000000000000000000000000000000000000000000000000000000";
        std::ofstream(path("b1/run.json")) << index.dump(2);
        const std::string out = std::string("other-") + key;
        const Result r = refcheck("merge --out " + out + " b0 b1 --cases " + files_ + common_);
        EXPECT_EQ(r.code, 2) << key << r.out << r.err;
        EXPECT_NE(r.err.find("was run by another build of refcheck (run.json \"" + std::string(key) + "\""),
                  std::string::npos)
            << r.err;
        EXPECT_FALSE(fs::exists(path(out + "/run.json"))) << key;
        std::ofstream(path("b1/run.json")) << original.dump(2);
    }
}

} // namespace
} // namespace refcheck::cli_test
