// Coverage of the original: basic blocks from a linear sweep (split at branch targets, after
// branches and calls, jump tables followed, alignment padding dropped), routines reached by direct
// calls, executed blocks from emu's block hook, the run-level union, and the sharding property of
// a run that carries coverage, drcov files and the evidence ledger.
#include "refcheck/harness/coverage.hpp"
#include "refcheck/harness/coverage_reasons.hpp"
#include "refcheck/harness/run.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

using namespace refcheck;
using namespace refcheck::harness;
namespace fs = std::filesystem;

namespace {

std::vector<std::uint32_t> starts(const SweptCode& s) {
    std::vector<std::uint32_t> out;
    for (const auto& b : s.blocks) out.push_back(b.address);
    return out;
}

const RoutineBlocks* find(const std::vector<RoutineBlocks>& rs, const std::string& name) {
    for (const auto& r : rs)
        if (r.name == name) return &r;
    return nullptr;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST(Coverage, SweepSplitsAtTargetsAfterBranchesAndDropsPadding) {
    // 0x1000 push ebp; test eax,eax; je 0x1008 | 0x1005 inc eax; jmp 0x1009 | 0x1008 dec eax |
    // 0x1009 call 0x3000 | 0x100e pop ebp; ret | 0x1010 nop; lea esi,[esi+0] (padding, no branch to it)
    const std::vector<std::uint8_t> code = {0x55, 0x85, 0xc0, 0x74, 0x03, 0x40, 0xeb, 0x01, 0x48, 0xe8,
                                            0xf2, 0x1f, 0x00, 0x00, 0x5d, 0xc3, 0x90, 0x8d, 0x76, 0x00};
    const SweptCode s = sweep(code, 0x1000);
    EXPECT_EQ(starts(s), (std::vector<std::uint32_t>{0x1000, 0x1005, 0x1008, 0x1009, 0x100e}));
    EXPECT_EQ(s.blocks[0].size, 5u);
    EXPECT_EQ(s.blocks[4].size, 2u);
    EXPECT_EQ(s.outgoing, std::vector<std::uint32_t>{0x3000});
}

TEST(Coverage, PaddingThatIsABranchTargetIsABlock) {
    // 0x1000 jmp 0x1003 | 0x1002 nop (padding) | 0x1003 nop (target); ret
    const std::vector<std::uint8_t> code = {0xeb, 0x01, 0x90, 0x90, 0xc3};
    EXPECT_EQ(starts(sweep(code, 0x1000)), (std::vector<std::uint32_t>{0x1000, 0x1003}));
}

TEST(Coverage, JumpTablesLeadBlocks) {
    // 0x1000 jmp [eax*4 + 0x2000] | 0x1007 inc eax | 0x1008 inc eax | 0x1009 ret
    const std::vector<std::uint8_t> code = {0xff, 0x24, 0x85, 0x00, 0x20, 0x00, 0x00, 0x40, 0x40, 0xc3};
    const std::map<std::uint32_t, std::uint32_t> table = {
        {0x2000, 0x1008}, {0x2004, 0x1007}, {0x2008, 0x5555}};
    const ReadU32 read = [&](std::uint32_t a) -> std::optional<std::uint32_t> {
        auto it = table.find(a);
        return it == table.end() ? std::nullopt : std::optional<std::uint32_t>(it->second);
    };
    EXPECT_EQ(starts(sweep(code, 0x1000, read)), (std::vector<std::uint32_t>{0x1000, 0x1007, 0x1008}));
    // Without the table the cases after the jump are one block.
    EXPECT_EQ(starts(sweep(code, 0x1000)), (std::vector<std::uint32_t>{0x1000, 0x1007}));
}

TEST(Coverage, RoutinesReachedByDirectCallsAreCovered) {
    emu::Machine m;
    m.load(EMU_TEST_IMAGE);
    const auto routines = discover_routines(m, {{"call_add3", *m.image().address_of("call_add3")}});
    const RoutineBlocks* entry = find(routines, "call_add3");
    const RoutineBlocks* callee = find(routines, "add3_cdecl");
    ASSERT_NE(entry, nullptr);
    ASSERT_NE(callee, nullptr);
    EXPECT_TRUE(entry->in_profile);
    EXPECT_FALSE(callee->in_profile);
    EXPECT_EQ(callee->range.begin, *m.image().address_of("add3_cdecl"));
    enable_coverage(m, routines);
    const auto r = m.call("call_add3", emu::Convention::cdecl, {2});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.eax, 2u + 4 + 6 + 1);
    const ojson c = coverage_json(routines, m.coverage(), "emu_test_image.exe");
    EXPECT_EQ(c["routines"]["call_add3"]["executed"], c["routines"]["call_add3"]["blocks"]);
    EXPECT_EQ(c["routines"]["add3_cdecl"]["missed"], ojson::array());
    EXPECT_GT(c["executed"].get<std::uint64_t>(), 1u);
    const std::vector<std::uint8_t> drcov = drcov_bytes(m);
    const std::string text(drcov.begin(), drcov.end());
    EXPECT_EQ(text.rfind("DRCOV VERSION: 2\n", 0), 0u);
    EXPECT_NE(text.find("BB Table: " + std::to_string(m.coverage().blocks().size()) + " bbs\n"),
              std::string::npos);
}

TEST(Coverage, AnUntakenPathIsMissed) {
    // read_file's failure path (no data root: CreateFileA fails) leaves the ReadFile path unexecuted.
    emu::Machine m;
    m.load(EMU_TEST_IMAGE);
    const auto routines = discover_routines(m, {{"read_file", *m.image().address_of("read_file")}});
    enable_coverage(m, routines);
    const emu::Address path = m.heap().allocate(16, "test", emu::AllocationKind::heap);
    m.write(path, std::vector<std::uint8_t>{'x', 0});
    ASSERT_TRUE(m.call("read_file", emu::Convention::cdecl, {path, 0, 0}).ok());
    const ojson c = coverage_json(routines, m.coverage(), "emu_test_image.exe");
    const ojson& rf = c["routines"]["read_file"];
    EXPECT_GT(rf["executed"].get<int>(), 0);
    EXPECT_LT(rf["executed"].get<int>(), rf["blocks"].get<int>());
    EXPECT_EQ(rf["missed"].size(), rf["blocks"].get<std::size_t>() - rf["executed"].get<std::size_t>());
}

TEST(Coverage, TheRunUnionKeepsOnlyBlocksNoCaseExecuted) {
    auto report = [](const std::string& name, std::vector<std::string> missed) {
        ojson r;
        r["case"] = name;
        r["inputs"] = {{"image", {{"file", "x.exe"}, {"sha256", "ab"}}}};
        r["coverage"] = {{"image", "x.exe"},
                         {"routines",
                          {{"later",
                            {{"address", "0x00401100"},
                             {"profile", false},
                             {"blocks", 2},
                             {"executed", 2},
                             {"missed", ojson::array()}}},
                           {"first",
                            {{"address", "0x00401000"},
                             {"profile", true},
                             {"blocks", 4},
                             {"executed", 4 - missed.size()},
                             {"missed", missed}}}}}};
        return r;
    };
    const ojson merged = merge_coverage(
        {report("a", {"0x00401000", "0x00401004"}), report("b", {"0x00401004", "0x00401008"})});
    ASSERT_EQ(merged.size(), 1u);
    EXPECT_EQ(merged[0]["sha256"], "ab");
    EXPECT_EQ(merged[0]["routines"].begin().key(), "first"); // address order
    EXPECT_EQ(merged[0]["routines"]["first"]["missed"], ojson({"0x00401004"}));
    EXPECT_EQ(merged[0]["routines"]["first"]["executed"], 3);
    EXPECT_EQ(merged[0]["blocks"], 6);
    EXPECT_EQ(merged[0]["executed"], 5);
    EXPECT_NE(coverage_html(merged).find("0x00401004"), std::string::npos);
}

// A run of two cases on the small archives carries coverage (and a drcov file per case, and the
// coverage reasons' groups) and the ledger, and two shards merged give the same bytes as the
// unsharded run.
TEST(Coverage, ShardedRunsMergeIntoTheUnshardedRunByteForByte) {
    const fs::path cases = fs::path(REFCHECK_SOURCE_DIR) / "cases";
    const std::vector<fs::path> files = {cases / "loader.json", cases / "palette.json"};
    const fs::path root = fs::path(testing::TempDir()) / "coverage-shards";
    fs::remove_all(root);
    RunOptions o;
    o.defaults = {REFCHECK_STANDIN_EXE, REFCHECK_STANDIN_PROFILE, REFCHECK_SMALL_DATA, std::nullopt, nullptr};
    o.rules_document = fs::path(REFCHECK_SOURCE_DIR) / "docs/formats/apache-3d.md";
    o.coverage_reasons = fs::path(REFCHECK_SOURCE_DIR) / "cases/coverage/reasons.json";
    o.jobs = 2;
    o.out = root / "whole";
    const RunSummary whole = run(files, o);
    ASSERT_TRUE(whole.problems.empty());
    ASSERT_EQ(whole.exit_code, 0) << whole.index.dump(1);
    for (unsigned k = 0; k < 2; ++k) {
        o.shard = {k, 2};
        o.out = root / ("shard" + std::to_string(k));
        ASSERT_TRUE(run(files, o).problems.empty());
    }
    ASSERT_EQ(merge({root / "shard1", root / "shard0"}, root / "merged"), 0);
    for (const char* f : {"run.json", "index.html", "junit.xml", "loader.json", "palette.json",
                          "loader/coverage.drcov", "palette/coverage.drcov"}) {
        ASSERT_TRUE(fs::exists(root / "whole" / f)) << f;
        // junit.xml's time attributes are wall times (the merge keeps the shards'): compared blanked.
        auto bytes = [&](const fs::path& file) {
            static const std::regex time(R"re( time="[0-9]+\.[0-9]{3}")re");
            const std::string text = slurp(file);
            return std::string(f) == "junit.xml" ? std::regex_replace(text, time, " time=\"\"") : text;
        };
        EXPECT_EQ(bytes(root / "whole" / f), bytes(root / "merged" / f)) << f;
    }
    const ojson index = read_json(root / "whole" / "run.json");
    ASSERT_TRUE(index.contains("ledger"));
    EXPECT_EQ(index["ledger"]["document"], "apache-3d.md");
    ASSERT_TRUE(index.contains("coverage"));
    // The reasons' groups travel through the merge too (neither case draws: their blocks are unreached).
    ASSERT_TRUE(index["coverage"][0].contains("reasons"));
    const ojson& draw = index["coverage"][0]["reasons"]["groups"]["draw"];
    EXPECT_LT(draw["executed"].get<std::uint64_t>(), draw["blocks"].get<std::uint64_t>());
    EXPECT_EQ(index["coverage"][0]["routines"]["draw_3d_object_"]["groups"], ojson({"draw"}));
    const ojson& init = index["coverage"][0]["routines"]["initialise_3d_objects_"];
    EXPECT_TRUE(init["profile"].get<bool>());
    EXPECT_EQ(init["executed"], init["blocks"]);
    const ojson loader = read_json(root / "whole" / "loader.json");
    EXPECT_EQ(loader["coverage"]["drcov"], "loader/coverage.drcov");
    EXPECT_GT(loader["coverage"]["executed"].get<std::uint64_t>(), 0u);
    // A case that never draws leaves the draw routine unexecuted: it is not in the case's report
    // but once in run.json's image_coverage (issue 15).
    EXPECT_FALSE(loader["coverage"]["routines"].contains("draw_3d_object_"));
    EXPECT_GT(loader["coverage"]["not_entered"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(index["image_coverage"][0]["routines"]["draw_3d_object_"]["executed"], 0);
    const std::string html = slurp(root / "whole" / "index.html");
    EXPECT_NE(html.find("Evidence ledger"), std::string::npos);
    EXPECT_NE(html.find("Coverage of the original"), std::string::npos);
}

// The coverage reasons are scoped to one image's SHA-256: the shipped file with another hash (as
// for a stand-in rebuilt with other flags) applies none of its reasons, and every report says the
// file is for another image, naming it and its hash, instead of passing silently.
TEST(Coverage, ReasonsForAnotherImageAreReportedAsSuch) {
    const fs::path root = fs::path(testing::TempDir()) / "coverage-other-image";
    fs::remove_all(root);
    fs::create_directories(root);
    ojson reasons = read_json(fs::path(REFCHECK_SOURCE_DIR) / "cases/coverage/reasons.json");
    const std::string other(64, 'e');
    ASSERT_NE(reasons.at("image_sha256"), other);
    reasons["image_sha256"] = other;
    std::ofstream(root / "reasons.json") << reasons.dump(1) << "\n";
    RunOptions o;
    o.defaults = {REFCHECK_STANDIN_EXE, REFCHECK_STANDIN_PROFILE, REFCHECK_SMALL_DATA, std::nullopt, nullptr};
    o.coverage_reasons = root / "reasons.json";
    o.out = root / "out";
    const RunSummary r = run({fs::path(REFCHECK_SOURCE_DIR) / "cases" / "loader.json"}, o);
    ASSERT_TRUE(r.problems.empty());
    ASSERT_EQ(r.exit_code, 0);
    const ojson coverage = read_json(root / "out" / "run.json").at("coverage").at(0);
    EXPECT_FALSE(coverage.contains("reasons")) << "none of its reasons apply";
    ASSERT_TRUE(coverage.contains("reasons_for_another_image"));
    EXPECT_EQ(coverage["reasons_for_another_image"]["image"], "standin.exe");
    EXPECT_EQ(coverage["reasons_for_another_image"]["image_sha256"], other);
    EXPECT_NE(coverage["sha256"], other);
    EXPECT_TRUE(read_json(root / "out" / "loader.json")["coverage"].contains("reasons_for_another_image"));
    EXPECT_NE(slurp(root / "out" / "index.html").find("No coverage reasons apply to this image"),
              std::string::npos);
}

namespace {
// Everything discover_routines answers, as text: names, extents, blocks, calls.
std::string spelled(const std::vector<RoutineBlocks>& routines) {
    std::ostringstream s;
    for (const auto& r : routines) {
        s << r.name << ' ' << r.range.begin << '-' << r.range.end << ' ' << r.in_profile << " blocks";
        for (const auto& b : r.blocks) s << ' ' << b.address << '+' << b.size;
        s << " calls";
        for (const auto c : r.calls) s << ' ' << c;
        s << '\n';
    }
    return s.str();
}
} // namespace

// The memo of the static disassembly (run_case's, across a worker's cases) answers from an earlier
// discovery only when the image, the entries and every byte it read are the same: a code byte
// changed since makes it discover again (seeded: a ret written over call_add3's first byte).
TEST(Coverage, TheDiscoveryMemoReusesOnlyWhatTheMemoryStillSays) {
    DiscoveryMemo memo;
    emu::Machine first;
    first.load(EMU_TEST_IMAGE);
    const std::uint32_t entry = *first.image().address_of("call_add3");
    const std::vector<std::pair<std::string, std::uint32_t>> entries{{"call_add3", entry}};
    bool reused = true;
    const std::string fresh = spelled(discover_routines(first, entries));
    EXPECT_EQ(spelled(memo.routines(first, "image-a", entries, &reused)), fresh);
    EXPECT_FALSE(reused);

    emu::Machine again;
    again.load(EMU_TEST_IMAGE);
    EXPECT_EQ(spelled(memo.routines(again, "image-a", entries, &reused)), fresh);
    EXPECT_TRUE(reused);
    memo.routines(again, "image-b", entries, &reused); // another image's hash
    EXPECT_FALSE(reused);
    memo.routines(again, "image-a",
                  {{"call_add3", entry}, {"add3_cdecl", *again.image().address_of("add3_cdecl")}},
                  &reused); // other entries
    EXPECT_FALSE(reused);

    emu::Machine patched;
    patched.load(EMU_TEST_IMAGE);
    patched.write_u8(entry, 0xc3); // ret
    const std::string changed = spelled(discover_routines(patched, entries));
    ASSERT_NE(changed, fresh) << "the seeded byte must change what is discovered";
    EXPECT_EQ(spelled(memo.routines(patched, "image-a", entries, &reused)), changed);
    EXPECT_FALSE(reused);
    EXPECT_EQ(spelled(memo.routines(first, "image-a", entries, &reused)), fresh); // the first one kept
    EXPECT_TRUE(reused);
}
