// Bisect: narrowing a case to one input (Case::only), the drill-down's pieces (listing around a
// packet, per-field diff, reproduce line, FileCheck-style text) and a drill-down computed on the
// stand-in with a seeded fault in the reimplementation's input.
#include "refcheck/harness/bisect.hpp"

#include "bisect/bisect_probe.hpp" // harness/src: the window folding
#include "json_schema.hpp"

#include "refcheck/harness/compare.hpp"
#include "refcheck/harness/run.hpp"

#include <gtest/gtest.h>

#include <fstream>

using namespace refcheck::harness;
namespace fs = std::filesystem;

namespace {

EventRecord face(std::int64_t record, std::int64_t offset, std::int64_t level) {
    EventRecord e;
    e.kind = "face_draw";
    e.fields = {
        {"record", record}, {"path", std::vector<std::int64_t>{}}, {"offset", offset}, {"face_level", level}};
    e.key_fields = 3;
    return e;
}

// Three lines of a draw-program listing, as reimpl::disassemble writes them, and a comment line.
const char* kListing = " 0000  00 04 03 01 02 03 00 01  primary   type=4 ...\n"
                       ">0008  01 09 04 03 01 02 03 00  secondary len=9 type=4 ...\n"
                       "; 2 unreachable bytes at +0x0012\n"
                       " 0014  07                       return\n";

// The small program case of the CLI tests: two inputs differ in their light only.
fs::path small_case(const std::string& name) {
    const fs::path dir = fs::path(testing::TempDir()) / "bisect-cases";
    fs::create_directories(dir);
    fs::path file = dir / (name + ".json");
    std::ofstream(file) << R"({"schema": "refcheck-case/1", "family": "program",
      "selection": {"records": {"list": [1, 5]}, "views": [{"yaw": 35, "pitch": 25, "distance": 4}],
                    "lights": [[6689, 13377, 6689], [16384, 0, 0]], "states": [0]},
      "hooks": {"replace": ["draw_completely_visible_primary_face_", "draw_partially_visible_primary_face_",
                            "draw_completely_visible_secondary_face_", "draw_partially_visible_secondary_face_"]}})";
    return file;
}

RunOptions stand_in() {
    RunOptions o;
    o.defaults.image = REFCHECK_STANDIN_EXE;
    o.defaults.profile = REFCHECK_STANDIN_PROFILE;
    o.defaults.data = REFCHECK_SMALL_DATA;
    return o;
}

} // namespace

TEST(Bisect, ComparatorWithOnlyComparesJustThatInput) {
    Comparator c(CompareOptions{});
    c.only("record 1 view 0 light 1 state 0");
    c.compare("record 1 view 0 light 0 state 0", {face(1, 0, 3)}, {face(1, 0, 4)}); // not compared
    EXPECT_FALSE(c.saw_only());
    c.compare("record 1 view 0 light 1 state 0", {face(1, 0, 5), face(1, 8, 6)},
              {face(1, 0, 5), face(1, 8, 7)});
    EXPECT_TRUE(c.saw_only());
    EXPECT_EQ(c.counts().compared, 2u);
    EXPECT_EQ(c.counts().unexplained, 1u);
    ASSERT_TRUE(c.first_unexplained());
    EXPECT_EQ(c.first_unexplained()->input, "record 1 view 0 light 1 state 0");
    EXPECT_EQ(c.first_unexplained()->original_index, 1u);
}

TEST(Bisect, ListingMarksTheInstructionAtTheOffset) {
    const auto lines = listing_around(kListing, 0x8, 1);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "    0000  00 04 03 01 02 03 00 01  primary   type=4 ...");
    EXPECT_EQ(lines[1], "-> >0008  01 09 04 03 01 02 03 00  secondary len=9 type=4 ...");
    EXPECT_EQ(lines[2], "   ; 2 unreachable bytes at +0x0012");
    // No instruction at +0x10: the mark says so, before the next instruction.
    const auto between = listing_around(kListing, 0x10, 1);
    ASSERT_EQ(between.size(), 3u);
    EXPECT_EQ(between[0], "   ; 2 unreachable bytes at +0x0012");
    EXPECT_EQ(between[1], "-> +0x0010: no instruction starts here");
    EXPECT_EQ(between[2], "    0014  07                       return");
}

// A loop body executed back to back is kept once, then one item counts the repeats; a body that
// changes from one pass to the next is not folded.
TEST(Bisect, WindowFoldsLoopsRepeatedBackToBack) {
    const std::vector<std::uint32_t> window = {1, 2, 3, 4, 2, 3, 4, 2, 3, 4, 5, 5, 6, 7, 6, 8};
    const auto items = fold_repeats(window);
    ASSERT_EQ(items.size(), 11u);
    EXPECT_EQ(items[0].address, 1u);
    EXPECT_EQ(items[3].address, 4u);
    EXPECT_EQ(items[4].body, 3u); // 2 3 4 once more, then again: 2 more times
    EXPECT_EQ(items[4].repeats, 2u);
    EXPECT_EQ(items[5].address, 5u);
    EXPECT_EQ(items[6].body, 1u);
    EXPECT_EQ(items[6].repeats, 1u);
    for (std::size_t k = 7; k < items.size(); ++k) EXPECT_EQ(items[k].body, 0u) << k; // 6 7 6 8: no repeat
    EXPECT_EQ(items[10].address, 8u);
}

TEST(Bisect, FieldDiffMarksDifferingFieldsAndAMissingSide) {
    const ojson a = to_json(face(1, 8, 6)), b = to_json(face(1, 8, 7));
    const auto lines = field_diff_lines(a, b);
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0], "  record: 1");
    EXPECT_EQ(lines[3], "! face_level: 6 -> 7");
    const auto one_sided = field_diff_lines(a, ojson());
    EXPECT_EQ(one_sided[2], "! offset: 8 -> (none)");
}

TEST(Bisect, ReproduceLineQuotesWhatTheShellWouldSplit) {
    EXPECT_EQ(shell_quote("cases/a.json"), "cases/a.json");
    EXPECT_EQ(shell_quote("record 1 view 0"), "'record 1 view 0'");
    EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
    EXPECT_EQ(shell_quote(""), "''");
    Case c;
    c.file = "my cases/prog.json";
    RunOptions o;
    o.data = "build/data/small";
    o.injection.patches.push_back(parse_patch("op_secondary+0x70:78"));
    o.injection.reimpl_light_swapped = true;
    EXPECT_EQ(
        reproduce_command(c, o, "record 5 view 0 light 1 state 0"),
        "refcheck run 'my cases/prog.json' --only 'record 5 view 0 light 1 state 0' --data build/data/small "
        "--patch op_secondary+0x70:78 --inject-reimpl-light-swap --out out/bisect");
    EXPECT_EQ(reproduce_command(c, RunOptions{}, ""), "refcheck run 'my cases/prog.json' --out out/bisect");
}

TEST(Bisect, FormatsTheDrillDownLikeFileCheck) {
    Comparator c(CompareOptions{});
    std::vector<EventRecord> a, b;
    for (std::int64_t k = 0; k < 7; ++k)
        a.push_back(face(1, 8 * k, 3)), b.push_back(face(1, 8 * k, k == 6 ? 4 : 3));
    c.compare("record 1 view 0 light 0 state 0", a, b);
    ojson dd = {{"input", "record 1 view 0 light 0 state 0"},
                {"confirmed", true},
                {"divergence", to_json(*c.first_unexplained())},
                {"unavailable", ojson::array()}};
    dd["listing"] = {{"record", 1},
                     {"offset", 48},
                     {"centred_on", "the divergent event's packet"},
                     {"lines", listing_around(kListing, 0x8, 0)}};
    dd["instructions"] = {
        {"from", "A"},
        {"to", "B"},
        {"executed", 2},
        {"recorded", 2},
        {"routines", {{{"routine", "op_primary"}, {"instructions", 2}}}},
        {"lines", {"0x00401000 <op_primary>: push ebx", "0x00401001 <op_primary+0x1>: ret"}}};
    dd["reproduce"] = "refcheck run c.json --only 'record 1 view 0 light 0 state 0' --out out/bisect";
    const std::string text = format_drill_down("c", dd);
    EXPECT_EQ(
        text.rfind("error: first divergence at event #6 (case c, input record 1 view 0 light 0 state 0): "
                   "the events differ (field_mismatch)\n",
                   0),
        0u)
        << text;
    EXPECT_NE(text.find("note: 5 events before it, original:\n  #1    face_draw record=1 path=[] offset=8"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("original #6    face_draw record=1 path=[] offset=48 face_level=3\n"
                        "reimpl   #6    face_draw record=1 path=[] offset=48 face_level=4\n"
                        "    record: 1\n    path: []\n    offset: 48\n  ! face_level: 3 -> 4\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  -> >0008  01 09"), std::string::npos) << text;
    EXPECT_NE(text.find("from A to B: 2 executed\n  0x00401000 <op_primary>: push ebx\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("\nreproduce: refcheck run c.json --only 'record 1 view 0 light 0 state 0'"),
              std::string::npos);
    const std::string html = drill_down_html(dd);
    EXPECT_EQ(html.rfind("<details class=bisect>", 0), 0u);
    EXPECT_NE(html.find("<b class=mark>-&gt; &gt;0008"), std::string::npos) << html;
}

TEST(Bisect, OnlyNarrowsARunToOneInputAndRejectsAnInputTheCaseLacks) {
    Case c = load_case(small_case("narrow"));
    c.only = "record 5 view 0 light 1 state 0";
    const CaseResult r = run_case(c, resolve_environment(c, stand_in()));
    ASSERT_EQ(r.status, Status::Equivalent) << r.report.dump(1);
    EXPECT_EQ(r.report["metrics"]["inputs"], 1);
    EXPECT_EQ(r.report["metrics"]["records"], 1);
    EXPECT_EQ(r.report["selection"]["only"], c.only);
    EXPECT_GT(r.report["counts"]["compared"].get<std::uint64_t>(), 0u);
    c.only = "record 5 view 3 light 1 state 0";
    const CaseResult bad = run_case(c, resolve_environment(c, stand_in()));
    EXPECT_EQ(bad.status, Status::Error);
    EXPECT_NE(
        bad.report.value("error", std::string()).find("no input named \"record 5 view 3 light 1 state 0\""),
        std::string::npos)
        << bad.report.dump(1);
}

// The light swap shows first in the asymmetric light (light 1): a level of a face differs. The
// drill-down re-runs that input alone, confirms it, and probes the original at the face's call.
TEST(Bisect, DrillDownOfASwappedLightProbesTheFaceRoutineCall) {
    const Case c = load_case(small_case("swap"));
    RunOptions o = stand_in();
    o.injection.reimpl_light_swapped = true;
    const CaseResult whole = run_case(c, resolve_environment(c, o), o.injection);
    ASSERT_EQ(whole.status, Status::Divergent) << whole.report.dump(1);
    const ojson& d = whole.report["first_unexplained"];
    ASSERT_EQ(d["kind"], "field_mismatch");
    const ojson dd = drill_down(c, o, d);
    EXPECT_EQ(dd["input"], d["input"]);
    EXPECT_TRUE(dd["confirmed"].get<bool>()) << dd.dump(1);
    EXPECT_EQ(dd["divergence"]["original"], d["original"]);
    // The listing is of the face's record, marked at its offset.
    const ojson& l = dd["listing"];
    EXPECT_EQ(l["record"], d["original"]["fields"]["record"]);
    EXPECT_EQ(l["offset"], d["original"]["fields"]["offset"]);
    std::size_t marked = 0;
    for (const auto& line : l["lines"]) marked += line.get<std::string>().rfind("-> ", 0) == 0;
    EXPECT_EQ(marked, 1u) << l.dump(1);
    // The window ends at the face routine's call; the registers are its arguments.
    const ojson& w = dd["instructions"];
    ASSERT_GT(w["executed"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(w["executed"], w["recorded"]);
    ASSERT_FALSE(w["lines"].empty());
    const std::string at = dd["registers"]["at"].get<std::string>();
    EXPECT_EQ(at.rfind("draw_", 0), 0u) << at;
    EXPECT_NE(at.find("_face_"), std::string::npos) << at;
    EXPECT_EQ(dd["registers"]["arguments"]["eax"], "packet") << dd["registers"].dump();
    const ojson& frames = dd["call_stack"]["frames"];
    ASSERT_GE(frames.size(), 2u);
    EXPECT_EQ(frames[0]["symbol"], at);
    EXPECT_EQ(frames[1]["found_by"], "entry"); // the face routine's return address, at its first instruction
    bool draw = false;
    for (const auto& f : frames)
        draw = draw || (f["symbol"].get<std::string>().rfind("draw_3d_object_+", 0) == 0 &&
                        f["found_by"] == "ebp chain");
    EXPECT_TRUE(draw) << frames.dump();
    EXPECT_EQ(dd["reproduce"], reproduce_command(c, o, d["input"].get<std::string>()));
}

// What run() keeps in a divergent case's report: the drill-down with files by name, valid by the
// report schema.
TEST(Bisect, ADivergentReportKeepsTheDrillDownValidByItsSchema) {
    const Case c = load_case(small_case("kept"));
    RunOptions o = stand_in();
    o.data = REFCHECK_SMALL_DATA;
    o.injection.reimpl_light_swapped = true;
    CaseResult r = run_case(c, resolve_environment(c, o), o.injection);
    ASSERT_EQ(r.status, Status::Divergent);
    attach_drill_down(r, c, o);
    const ojson& dd = r.report["bisect"];
    ASSERT_FALSE(dd.contains("error")) << dd.dump(1);
    EXPECT_EQ(dd["reproduce"], "refcheck run kept.json --only '" + dd["input"].get<std::string>() +
                                   "' --data small --inject-reimpl-light-swap --out out/bisect");
    EXPECT_EQ(dd.dump().find(fs::path(REFCHECK_SMALL_DATA).string()), std::string::npos);
    refcheck::test::SchemaSet schemas;
    schemas.add_file(fs::path(REFCHECK_SOURCE_DIR) / "reports" / "case-report.schema.json");
    const auto violations = schemas.validate(r.report, "case-report.schema.json");
    EXPECT_TRUE(violations.empty()) << violations.front();
}
