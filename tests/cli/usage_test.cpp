// How the CLI meets a person: a misspelt subcommand or option is named with the nearest valid one,
// every bad argument is named with what is wrong with it, --out and --jobs are checked before any
// work, `show` of a file that is not a case report says so, every message starts "refcheck: ",
// and --version prints the version run.json records.
#include "cli_support.hpp"

#include <fstream>

namespace refcheck::cli_test {
namespace {

class UsageTest : public CliTest {
protected:
    // Expects exit 2, a message starting "refcheck: " with every `needle` in it, and no run written.
    Result fails(const std::string& args, const std::vector<std::string>& needles) {
        Result r = refcheck(args);
        EXPECT_EQ(r.code, 2) << args << "\n" << r.out << r.err;
        EXPECT_EQ(r.err.rfind("refcheck: ", 0), 0u) << args << "\n" << r.err;
        for (const auto& n : needles) EXPECT_NE(r.err.find(n), std::string::npos) << args << "\n" << r.err;
        EXPECT_FALSE(fs::exists(path("out/run.json"))) << args << ": something ran\n" << r.out;
        return r;
    }
    std::string small() const { return quote(shipped_case("loader")) + " --data " + quote(kSmallData); }
};

TEST_F(UsageTest, AnUnknownSubcommandIsNamedWithTheNearestOne) {
    const Result r = fails("frobnicate", {"unknown subcommand 'frobnicate'", "run", "merge", "bisect"});
    EXPECT_EQ(r.err.find("A subcommand is required"), std::string::npos) << r.err;
    fails("rnu --out out", {"unknown subcommand 'rnu'", "did you mean 'run'?"});
    fails("bisekt x.json", {"unknown subcommand 'bisekt'", "did you mean 'bisect'?"});
    fails("", {"a subcommand is required", "run"});
}

TEST_F(UsageTest, AnUnknownOptionIsNamedWithTheNearestOne) {
    fails("run " + small() + " --out out --jbos 2",
          {"unknown option '--jbos' for 'refcheck run'", "did you mean '--jobs'?"});
    fails("run " + small() + " --out out --ptach x:90",
          {"unknown option '--ptach'", "did you mean '--patch'?"});
    fails("show --evnt 0 out/x.json", {"unknown option '--evnt' for 'refcheck show'", "'--event'"});
    fails("profile import --mpa a.map", {"unknown option '--mpa' for 'refcheck profile import'", "'--map'"});
}

TEST_F(UsageTest, EveryBadArgumentIsNamedWithWhatIsWrong) {
    // The bytes of a patch, its place and its offset: each named, never a bare "stoul".
    for (const auto& [patch, what] :
         std::vector<std::pair<std::string, std::string>>{{"op_secondary+0x70:zz", "pairs of hex digits"},
                                                          {"op_secondary+0xzz:70", "not a number"},
                                                          {"op_secondary+:70", "not a number"},
                                                          {"0xfoo:70", "hex digits after 0x"},
                                                          {"op_secondary", "WHERE:HEXBYTES"}}) {
        const Result r =
            fails("run " + small() + " --out out --patch '" + patch + "'", {"--patch '" + patch + "'", what});
        EXPECT_EQ(r.err.find("stoul"), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("SEEDED"), std::string::npos) << "a bad patch is refused before the banner";
    }
    fails("bisect " + quote(shipped_case("loader")) + " --patch 'op_secondary+0x70:zz'",
          {"--patch 'op_secondary+0x70:zz'", "pairs of hex digits"});
    const Result shard =
        fails("run " + small() + " --out out --shard a/2", {"--shard a/2", "'a' is not a whole number"});
    EXPECT_EQ(shard.err.find("stoul"), std::string::npos) << shard.err;
    fails("run " + small() + " --out out --shard 3", {"--shard 3", "K/N"});
    // Digits alone: " 1/3", "+1/3" and "1/ 3" were taken, "-1/3" refused.
    for (const std::string text : {" 1/3", "+1/3", "1/ 3", "-1/3"})
        fails("run " + small() + " --out out --shard '" + text + "'",
              {"--shard " + text, "is not a whole number"});
}

// A patch's place fits the 32-bit address space: op_secondary+4294967296 wrapped round and patched
// op_secondary itself, and a place whose bytes run past 0xffffffff wrapped too. A decimal offset is
// decimal: "010" was read as octal 8.
TEST_F(UsageTest, APatchPlaceOutsideTheAddressSpaceIsRefused) {
    fails("run " + small() + " --out out --patch 'op_secondary+4294967296:90'",
          {"--patch 'op_secondary+4294967296:90'", "offset 4294967296 that does not fit 32 bits"});
    fails("run " + small() + " --out out --patch 'op_secondary+0xffffffff:90'",
          {"the patch at op_secondary+0xffffffff does not fit the 32-bit address space"});
    fails("run " + small() + " --out out --patch '0xffffffff:9090'",
          {"the patch at 0xffffffff does not fit the 32-bit address space", "end at 0x100000001"});
    for (const std::string offset : {"010", "0xa"}) {
        const Result r =
            refcheck("run " + small() + " --out o" + offset + " --patch 'op_secondary+" + offset + ":90'");
        ASSERT_EQ(r.code, 0) << r.out << r.err;
    }
    EXPECT_EQ(read_json(path("o010/run.json")).at("seeded_faults").at("patches").at(0).at("address"),
              read_json(path("o0xa/run.json")).at("seeded_faults").at("patches").at(0).at("address"));
}

// Numbers out of their range are refused naming the option: CLI11 read "-1" into an unsigned as
// 2^64 - 1, and let "nan" through its ranges; --inputs-per-mutant below the 4 inputs a mutant runs
// on at least made std::clamp(v, 4, 1) undefined. `show --event -1` acted as if no event was given.
TEST_F(UsageTest, NumbersOutOfTheirRangeAreRefusedNamingTheOption) {
    const std::string mutate = "mutate " + small() + " --out out ";
    // A report show reads (exit 0 as equivalent): --event -1 showed it as if no event was given.
    std::ofstream(path("report.json"))
        << R"({"schema": "refcheck-case-report/1", "case": "x", "family": "loader", "status": "equivalent"})";
    for (const auto& [args, needles] : std::vector<std::pair<std::string, std::vector<std::string>>>{
             {mutate + "--sample -1", {"--sample", "'-1' is not a whole number"}},
             {mutate + "--seed -5", {"--seed", "'-5' is not a whole number"}},
             // A seed without a sample changed nothing, silently.
             {mutate + "--seed 7", {"--seed", "no --sample is given"}},
             {mutate + "--inputs-per-mutant -3", {"--inputs-per-mutant", "'-3' is not a whole number"}},
             {mutate + "--inputs-per-mutant 1",
              {"--inputs-per-mutant", "'1' is below 4 (or 0: every input)"}},
             {mutate + "--min-score nan", {"--min-score", "'nan' is not a finite number"}},
             {mutate + "--min-score -1", {"--min-score", "'-1' is outside 0..1"}},
             {mutate + "--min-score 2", {"--min-score", "'2' is outside 0..1"}},
             {mutate + "--case-timeout nan", {"--case-timeout", "'nan' is not a finite number"}},
             {"run " + small() + " --out out --case-timeout nan",
              {"--case-timeout", "'nan' is not a finite number"}},
             {"show report.json --event -1", {"--event", "'-1' is not a whole number"}}}) {
        const Result r = fails(args, needles);
        EXPECT_EQ(r.out.find("baseline"), std::string::npos) << args << ": something ran\n" << r.out;
    }
    EXPECT_FALSE(fs::exists(path("out/mutate.json")));
}

TEST_F(UsageTest, JobsZeroIsRefused) {
    fails("run " + small() + " --out out --jobs 0", {"--jobs", "'0' worker processes", "at least 1"});
    fails("run " + small() + " --out out -j -3", {"-j", "at least 1"});
    fails("run " + small() + " --out out --jobs many", {"--jobs", "'many' is not a number"});
    fails("mutate " + small() + " --out out --jobs 0", {"--jobs", "at least 1"});
}

TEST_F(UsageTest, OutNamingAFileIsRefusedBeforeAnyWork) {
    std::ofstream(path("taken")) << "a file, not a folder\n";
    const Result r = fails("run " + small() + " --out taken", {"--out taken", "exists and is not a folder"});
    EXPECT_EQ(r.out.find("done"), std::string::npos) << "a case ran first:\n" << r.out;
    fails("run " + small() + " --out taken/run", {"--out taken/run", "exists and is not a folder"});
    fails("merge --out taken s0 s1", {"--out taken", "exists and is not a folder"});
    fails("mutate " + small() + " --out taken", {"--out taken", "exists and is not a folder"});
    EXPECT_EQ(read_text(path("taken")), "a file, not a folder\n");
}

TEST_F(UsageTest, ShowOfAFileThatIsNotACaseReportNamesItAndWhatIsWrong) {
    std::ofstream(path("junit.xml")) << "<?xml version=\"1.0\"?>\n<testsuites/>\n";
    const Result xml = fails("show junit.xml", {"junit.xml is not JSON", "line 1", "case report"});
    EXPECT_EQ(xml.err.find("[json.exception"), std::string::npos) << xml.err;
    std::ofstream(path("run.json")) << "{\"schema\": \"refcheck-run/1\"}\n";
    fails("show run.json", {"run.json is a refcheck-run/1 document, not a case report"});
    std::ofstream(path("list.json")) << "[1, 2]\n";
    fails("show list.json", {"list.json is JSON but has no \"schema\""});
    fails("show missing.json", {"missing.json"});
}

// A run index or case report of the right schema whose members are malformed is named with the
// file and the member that is wrong: diff and show printed nlohmann's bare
// "[json.exception.type_error.304] cannot use at() with string".
TEST_F(UsageTest, MalformedDiffAndShowInputsAreNamedWithTheMemberThatIsWrong) {
    const auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(path(name)) << text;
    };
    write("good.json", R"({"schema": "refcheck-run/1", "cases": []})");
    for (
        const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
            {R"({"schema": "refcheck-run/1", "cases": ["loader"]})", "/cases/0 is string, not a case row"},
            {R"({"schema": "refcheck-run/1", "cases": [{"case": "x", "status": 3}]})",
             "/cases/0/status is 3, not a string"},
            {R"({"schema": "refcheck-run/1", "cases": [{"case": "x", "status": "error", "counts": {"matched": -1}}]})",
             "/cases/0/counts has \"matched\": -1 is not a count"},
            {R"({"schema": "refcheck-run/1", "cases": [], "ledger": {"rules": [{"id": "a", "status": 1}]}})",
             "/ledger/rules/0/status is 1, not a string"},
            {R"({"schema": "refcheck-run/1", "cases": [], "coverage": [{"image": "x.exe", "routines": {"f": 1}}]})",
             "/coverage/0/routines/f is not an object"}}) {
        write("bad.json", text);
        for (const std::string order : {"good.json bad.json", "bad.json good.json"}) {
            const Result r = fails("diff " + order, {"refcheck: diff: bad.json: " + needle});
            EXPECT_EQ(r.err.find("[json.exception"), std::string::npos) << r.err;
        }
    }
    const std::string report =
        R"({"schema": "refcheck-case-report/1", "case": "x", "family": "loader", "status": "divergent")";
    for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
             {R"({"schema": "refcheck-case-report/1", "case": 5})", "/case is 5, not a string"},
             {report + R"(, "counts": [1]})", "/counts is [1], not an object"},
             {report + R"(, "first_unexplained": "x"})", "/first_unexplained is \"x\", not a divergence"},
             {report + R"(, "first_unexplained": {"context": {"original_before": [1]}}})",
              "/first_unexplained/context/original_before/0 is 1, not an event"},
             {report + R"(, "first_known": {"kind": 2}})", "/first_known/kind is 2, not a string"},
             {report + R"(, "first_unexplained": {}, "bisect": "text"})",
              "/bisect is \"text\", not an object"},
             {report + R"(, "first_unexplained": {}, "bisect": {"input": 1}})",
              "its drill-down (/bisect) is not one"}}) {
        write("report.json", text);
        const Result r = fails("show report.json", {"refcheck: show: report.json: "});
        EXPECT_NE(r.err.find(needle), std::string::npos) << text << "\n" << r.err;
        EXPECT_EQ(r.err.find("[json.exception"), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "") << "a malformed report is printed in part";
    }
}

TEST_F(UsageTest, VersionIsPrintedAndRecordedInRunJson) {
    const Result v = refcheck("--version");
    ASSERT_EQ(v.code, 0) << v.out << v.err;
    ASSERT_EQ(v.out.rfind("refcheck 0.", 0), 0u) << v.out;
    ASSERT_EQ(v.out.back(), '\n');
    const std::string version = v.out.substr(9, v.out.size() - 10);
    const Result run = refcheck("run " + small() + " --out out --jobs 1");
    ASSERT_EQ(run.code, 0) << run.out << run.err;
    const ojson index = read_json(path("out/run.json"));
    EXPECT_EQ(index.at("refcheck_version"), version);
    EXPECT_NE(read_text(path("out/junit.xml")).find("name=\"refcheck.version\" value=\"" + version + "\""),
              std::string::npos);
}

} // namespace
} // namespace refcheck::cli_test
