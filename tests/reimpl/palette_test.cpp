// reimpl/palette: palette layout, warzone colours, ramps, intensity, glass and haze tables.
#include "refcheck/reimpl/palette.hpp"

#include <gtest/gtest.h>

#include "archive_builder.hpp"
#include "refcheck/reimpl/format_error.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;

// Colour 0 black, 1 mid grey, 2 white, 3 the glass tint of black, 4 the haze of black,
// 5 and 9 the same dark blue, everything else pure red.
std::array<Rgb, kFileColours> test_colours() {
    std::array<Rgb, kFileColours> c{};
    c.fill({255, 0, 0});
    c[0] = {0, 0, 0};
    c[1] = {128, 128, 128};
    c[2] = {255, 255, 255};
    c[3] = {16, 24, 32};
    c[4] = {31, 31, 31};
    c[5] = {0, 0, 90};
    c[9] = {0, 0, 90};
    return c;
}

TEST(Palette, LayoutIsFileThenSkyFogTerrainOfTheWarzone) {
    const Bytes file = palette_file();
    const PaletteTables fort = build_palette(file, 0);
    EXPECT_EQ(fort.rgb[0], (Rgb{0, 255, 0}));
    EXPECT_EQ(fort.rgb[223], (Rgb{223, 32, (223 * 7) & 0xff}));
    EXPECT_EQ(fort.rgb[224], (Rgb{0x18, 0x34, 0x70}));
    EXPECT_EQ(fort.rgb[232], (Rgb{0x54, 0x5c, 0x68}));
    EXPECT_EQ(fort.rgb[255], (Rgb{0x96, 0x82, 0x64}));
    const PaletteTables island = build_palette(file, 3);
    EXPECT_EQ(island.rgb[231], (Rgb{0x78, 0xbe, 0xf0}));
    EXPECT_EQ(island.rgb[240], (Rgb{0x10, 0x34, 0x18}));
    EXPECT_EQ(build_palette(file, 1).rgb[239], (Rgb{0xe0, 0xd2, 0xb8}));
    EXPECT_EQ(build_palette(file, 2).rgb[247], (Rgb{0xf8, 0xfa, 0xfc}));
    EXPECT_THROW(build_palette(file, 4), std::invalid_argument);
}

TEST(Palette, BytesAfter672AreIgnoredAndShortFilesFail) {
    Bytes file = palette_file();
    Bytes longer = file;
    longer.resize(800, 0x55);
    EXPECT_EQ(build_palette(file, 0).rgb, build_palette(longer, 0).rgb);
    file.pop_back();
    try {
        build_palette(file, 0);
        FAIL() << "no error";
    } catch (const FormatError& e) {
        EXPECT_STREQ(e.what(),
                     "3DPAL.RGB: offset 0x29f: the palette needs 672 bytes (224 colours), the file has 671");
        EXPECT_EQ(check_name(e.where().check), "open");
    }
}

TEST(Palette, RampsAreSixteenColourRunsOfTheFileColours) {
    const PaletteTables t = build_palette(palette_file(), 0);
    EXPECT_EQ(t.ramp[0], 0);
    EXPECT_EQ(t.ramp[15], 0);
    EXPECT_EQ(t.ramp[16], 1);
    EXPECT_EQ(t.ramp[223], 13);
    EXPECT_EQ(t.ramp[224], kNoRamp);
    EXPECT_EQ(t.ramp[255], kNoRamp);
}

TEST(Palette, IntensityPicksTheNearestFileColourLowestIndexOnTies) {
    const PaletteTables t = build_palette(test_colours(), 0);
    EXPECT_EQ(t.shade(31, 2), 2);   // (255 * 32) >> 5 = 255: white
    EXPECT_EQ(t.shade(15, 2), 1);   // (255 * 16) >> 5 = 127: grey
    EXPECT_EQ(t.shade(0, 2), 0);    // 7: black
    EXPECT_EQ(t.shade(31, 9), 5);   // colour 9 equals colour 5: the lower index wins
    EXPECT_EQ(t.shade(31, 50), 6);  // red: the first red entry
    EXPECT_EQ(t.shade(31, 224), 5); // Fort sky 0 (0x18, 0x34, 0x70) is nearest the dark blue
    EXPECT_EQ(t.intensity.size(), 32u * 256u);
    EXPECT_EQ(t.intensity[15 * 256 + 2], 1); // level-major
}

TEST(Palette, GlassAndHazeRemapTowardTheirTargets) {
    const PaletteTables t = build_palette(test_colours(), 0);
    EXPECT_EQ(t.glass[0], 3); // ((3*0 + 64) / 4, (3*0 + 96) / 4, (3*0 + 128) / 4) = (16, 24, 32)
    EXPECT_EQ(t.haze[0], 4);  // 0 + (255 >> 3) = 31
    EXPECT_EQ(t.haze[2], 2);  // white stays white
    EXPECT_EQ(t.glass[2], 2); // (207, 215, 223): white is nearest
}

} // namespace
} // namespace refcheck::reimpl
