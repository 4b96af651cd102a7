// Coverage reasons: block keys that name image addresses by symbol, the annotation of a case's
// coverage (unreached blocks with their causes, reasons whose block ran, reasons naming no block),
// their union over a run (stale reasons, tallies per group), and the reasons file's checks.
#include "refcheck/harness/coverage_reasons.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

using namespace refcheck;
using namespace refcheck::harness;
namespace fs = std::filesystem;

namespace {

const RoutineBlocks& find(const std::vector<RoutineBlocks>& rs, const std::string& name) {
    const auto it =
        std::find_if(rs.begin(), rs.end(), [&](const RoutineBlocks& r) { return r.name == name; });
    if (it == rs.end()) throw std::runtime_error("no routine " + name);
    return *it;
}

fs::path write(const std::string& name, const std::string& text) {
    fs::path p = fs::path(testing::TempDir()) / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

std::string load_error(const std::string& text) {
    try {
        load_coverage_reasons(write("reasons-bad.json", text));
    } catch (const CoverageReasonsError& e) {
        return e.what();
    }
    return "";
}

// read_file of the emu test image, run down its failure path (no data root: CreateFileA fails),
// with the coverage annotated for a group {"files": [read_file]} and `reasons`.
struct ReadFileRun {
    emu::Machine m;
    std::vector<RoutineBlocks> routines;
    std::vector<KeyedBlock> keyed;
    ojson coverage;

    explicit ReadFileRun(CoverageReasons reasons = {}) {
        m.load(EMU_TEST_IMAGE);
        routines = discover_routines(m, {{"read_file", *m.image().address_of("read_file")}});
        reasons.groups = {{"files", {"read_file"}}};
        keyed = keyed_blocks(m, routines, reasons);
        enable_coverage(m, routines);
        const emu::Address path = m.heap().allocate(16, "test", emu::AllocationKind::heap);
        m.write(path, std::vector<std::uint8_t>{'x', 0});
        if (!m.call("read_file", emu::Convention::cdecl, {path, 0, 0}).ok())
            throw std::runtime_error("read_file faulted");
        coverage = coverage_json(routines, m.coverage(), "emu_test_image.exe");
    }
    const KeyedBlock& block(bool reached) const {
        const ojson& missed = coverage["routines"]["read_file"]["missed"];
        for (const auto& k : keyed)
            if (k.key.routine == "read_file" &&
                (std::find(missed.begin(), missed.end(), emu::hex(k.address)) == missed.end()) == reached)
                return k;
        throw std::runtime_error("no such block");
    }
};

} // namespace

TEST(CoverageReasons, BlockCodeNamesImageAddressesBySymbol) {
    emu::Machine m;
    m.load(EMU_TEST_IMAGE);
    const auto routines = discover_routines(m, {{"call_add3", *m.image().address_of("call_add3")}});
    const auto names = emu::address_names(m.image());
    std::string all;
    for (const auto& b : find(routines, "call_add3").blocks) all += block_code(m, b, names) + "\n";
    EXPECT_NE(all.find("call add3_cdecl"), std::string::npos) << all;
    EXPECT_EQ(all.find("0x004"), std::string::npos) << "no raw image address: " << all;
}

TEST(CoverageReasons, KeysAreTheRoutineTheCodeAndWhichOccurrence) {
    const ReadFileRun run;
    ASSERT_FALSE(run.keyed.empty());
    std::map<std::pair<std::string, std::string>, std::uint32_t> seen;
    for (const auto& k : run.keyed) {
        EXPECT_EQ(k.groups, std::vector<std::string>{"files"});
        const std::uint32_t nth = ++seen[std::make_pair(k.key.routine, k.key.code)];
        EXPECT_EQ(k.key.occurrence, nth);
        EXPECT_FALSE(k.key.code.empty());
    }
    EXPECT_TRUE(std::any_of(run.keyed.begin(), run.keyed.end(),
                            [](const KeyedBlock& k) { return k.key.routine == "read_file"; }));
}

TEST(CoverageReasons, CaseCoverageShowsCausesAndStaleReasons) {
    const ReadFileRun probe; // to learn the keys
    CoverageReasons reasons;
    reasons.file = "reasons.json";
    reasons.sha256 = std::string(64, 'a');
    reasons.causes = {{"no-data", "no data root"}};
    reasons.blocks = {{probe.block(false).key, "no-data", "the read path"},
                      {probe.block(true).key, "no-data", "wrongly claimed"},
                      {{"read_file", "nop; nop", 1}, "no-data", ""}};
    const ReadFileRun run(reasons);
    ojson c = run.coverage;
    annotate_coverage(c, run.keyed, reasons);
    const ojson& rf = c["routines"]["read_file"];
    EXPECT_EQ(rf["groups"], ojson({"files"}));
    ASSERT_EQ(rf["unreached"].size(), rf["missed"].size());
    const auto with_cause = std::count_if(rf["unreached"].begin(), rf["unreached"].end(),
                                          [](const ojson& e) { return e.contains("cause"); });
    EXPECT_EQ(with_cause, 1);
    ASSERT_EQ(rf["reached_with_reason"].size(), 1u);
    EXPECT_EQ(rf["reached_with_reason"][0]["note"], "wrongly claimed");
    ASSERT_EQ(c["reasons"]["unmatched"].size(), 1u);
    EXPECT_EQ(c["reasons"]["unmatched"][0]["code"], "nop; nop");

    // The run: a second case that reached every block the first one missed leaves nothing unreached.
    ojson a, b;
    a["case"] = "a", b["case"] = "b";
    a["inputs"] =
        b["inputs"] = {{"image", {{"file", "emu_test_image.exe"}, {"sha256", std::string(64, 'b')}}}};
    a["coverage"] = c;
    b["coverage"] = c;
    ojson& brf = b["coverage"]["routines"]["read_file"];
    brf["missed"] = ojson::array();
    brf["executed"] = brf["blocks"];
    brf["unreached"] = ojson::array();
    const ojson one = merge_coverage({a})[0]["reasons"];
    EXPECT_EQ(one["groups"]["files"]["without_reason"], rf["missed"].size() - 1);
    EXPECT_EQ(one["groups"]["files"]["with_reason"], 1);
    EXPECT_EQ(one["stale"].size(), 2u); // the reached block and the one naming no block
    const ojson both = merge_coverage({a, b})[0];
    EXPECT_EQ(both["reasons"]["groups"]["files"]["unreached"], 0);
    EXPECT_EQ(both["reasons"]["without_reason"], 0);
    EXPECT_EQ(both["routines"]["read_file"]["unreached"], ojson::array());
    const std::string html = coverage_html(merge_coverage({a}));
    EXPECT_NE(html.find("no reason given"), std::string::npos);
    EXPECT_NE(html.find("Stale reasons"), std::string::npos);
    EXPECT_NE(html.find("the read path"), std::string::npos);
    EXPECT_NE(html.find("no data root"), std::string::npos); // the cause's explanation
}

TEST(CoverageReasons, ABadFileIsAnErrorNamingTheEntry) {
    const std::string head = R"({"schema":"refcheck-coverage-reasons/1","image":"x.exe","image_sha256":")" +
                             std::string(64, 'a') +
                             R"(","groups":{"g":["f"]},"causes":{"c":"why"},"blocks":)";
    EXPECT_NE(load_error(R"({"schema":"other"})").find("\"schema\" must be"), std::string::npos);
    // The reasons are scoped to one image's hash: a file without one (or with a bad one) is refused.
    EXPECT_NE(load_error(R"({"schema":"refcheck-coverage-reasons/1","image":"x.exe","groups":{"g":["f"]},)"
                         R"("causes":{"c":"why"},"blocks":[]})")
                  .find("image_sha256"),
              std::string::npos);
    EXPECT_NE(load_error(R"({"schema":"refcheck-coverage-reasons/1","image":"x.exe","image_sha256":"abc",)"
                         R"("groups":{"g":["f"]},"causes":{"c":"why"},"blocks":[]})")
                  .find("64 lower-case hex digits"),
              std::string::npos);
    EXPECT_NE(load_error(head + R"([{"routine":"f","code":"ret","cause":"d"}]})")
                  .find("blocks[0]: cause \"d\" is not in"),
              std::string::npos);
    EXPECT_NE(
        load_error(head +
                   R"([{"routine":"f","code":"ret","cause":"c"},{"routine":"f","code":"ret","cause":"c"}]})")
            .find("blocks[1] repeats the key"),
        std::string::npos);
    EXPECT_NE(load_error(head + R"([{"routine":"f","code":"ret","cause":"c","occurrence":1}]})")
                  .find("\"occurrence\" is 2 or more"),
              std::string::npos);
    EXPECT_NE(load_error(head + R"([{"routine":"f","code":"ret","cause":"c","address":"0x1"}]})")
                  .find("unknown key \"address\""),
              std::string::npos);
    const CoverageReasons ok = load_coverage_reasons(
        write("reasons-ok.json", head + R"([{"routine":"f","code":"ret","cause":"c"}]})"));
    EXPECT_EQ(ok.file, "reasons-ok.json");
    EXPECT_EQ(ok.blocks.size(), 1u);
    EXPECT_EQ(ok.sha256.size(), 64u);
}

TEST(CoverageReasons, TheShippedFileLoads) {
    const CoverageReasons r =
        load_coverage_reasons(fs::path(REFCHECK_SOURCE_DIR) / "cases/coverage/reasons.json");
    EXPECT_EQ(r.image, "standin.exe");
    EXPECT_EQ(r.image_sha256.size(), 64u);
    ASSERT_EQ(r.groups.size(), 3u);
    EXPECT_EQ(r.groups[0].first, "draw");
    EXPECT_FALSE(r.blocks.empty());
}
