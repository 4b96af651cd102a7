// --patch's text: WHERE:NEW or WHERE:OLD->NEW, and its round trip through Patch::text (the reproduce
// line of a divergent case repeats the patch as given).
#include "refcheck/harness/run.hpp"

#include <gtest/gtest.h>

namespace refcheck::harness {
namespace {

TEST(PatchTest, BytesAloneStateNothingTheyReplace) {
    const Patch p = parse_patch("op_secondary+0x70:78");
    EXPECT_EQ(p.where, "op_secondary+0x70");
    EXPECT_EQ(p.bytes, (std::vector<std::uint8_t>{0x78}));
    EXPECT_TRUE(p.expected.empty());
    EXPECT_EQ(p.text(), "op_secondary+0x70:78");
}

TEST(PatchTest, OldArrowNewStatesTheBytesReplaced) {
    const Patch p = parse_patch("0x00401234:0F85->9090");
    EXPECT_EQ(p.where, "0x00401234");
    EXPECT_EQ(p.expected, (std::vector<std::uint8_t>{0x0f, 0x85}));
    EXPECT_EQ(p.bytes, (std::vector<std::uint8_t>{0x90, 0x90}));
    EXPECT_EQ(p.text(), "0x00401234:0f85->9090");
    EXPECT_EQ(parse_patch(p.text()).text(), p.text());
}

TEST(PatchTest, MalformedPatchesAreRefused) {
    for (const char* bad :
         {"op_secondary", ":78", "x:", "x:7", "x:zz", "x:79->", "x:->78", "x:7900->78", "x:79->7800"})
        EXPECT_THROW(parse_patch(bad), std::invalid_argument) << bad;
}

TEST(PatchTest, TheBannerSaysWhatIsModified) {
    EXPECT_TRUE(seeded_fault_banner({}).empty());
    Injection i;
    i.patches.push_back(parse_patch("f+0x2:79->78"));
    i.reimpl_light_swapped = true;
    const auto lines = seeded_fault_banner(i);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].rfind("refcheck: SEEDED FAULTS", 0), 0u);
    EXPECT_EQ(lines[1],
              "  the original is modified: 1 byte(s) at f+0x2 overwritten with 78 (stated to replace 79)");
    EXPECT_EQ(lines[2], "  the reimplementation's input is modified: its light has x and z swapped");
}

} // namespace
} // namespace refcheck::harness
