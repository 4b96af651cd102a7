// reimpl/rasteriser: pixel rules of spec section 12 on hand-made face events.
#include "refcheck/reimpl/rasteriser.hpp"

#include <gtest/gtest.h>

#include "archive_builder.hpp"
#include "refcheck/reimpl/primitive.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;
using events::FaceFlag;

struct V {
    std::int32_t x, y, u = 0, v = 0, level = 31;
};

events::FaceDraw face(std::uint8_t type, std::vector<std::uint8_t> material, const std::vector<V>& vs,
                      events::FaceFlags flags = {}) {
    events::FaceDraw f;
    f.type = type;
    f.material = std::move(material);
    f.flags = flags;
    for (const V& v : vs) {
        f.screen.push_back({v.x, v.y, 100});
        f.u.push_back(v.u);
        f.v.push_back(v.v);
        f.vertex_levels.push_back(v.level);
    }
    if (primitive_info(type)->textured()) f.texture = 0;
    return f;
}

std::vector<V> square(std::int32_t x0, std::int32_t y0, std::int32_t x1, std::int32_t y1) {
    return {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
}

std::size_t count(const Frame& f, std::uint8_t value) {
    return static_cast<std::size_t>(std::count(f.pixels.begin(), f.pixels.end(), value));
}

class RasteriserTest : public ::testing::Test {
protected:
    Bytes texture_pixels() {
        Bytes p(64 * 64);
        for (int y = 0; y < 64; ++y) {
            for (int x = 0; x < 64; ++x) p[y * 64 + x] = static_cast<std::uint8_t>((x + 2 * y) % 200);
        }
        return p;
    }
    PaletteTables palette = build_palette(palette_file(), 0);
    TextureArchive textures =
        TextureArchive::parse(build_texture_archive({TextureSpec{2, 64, texture_pixels()}}));
    Rasteriser rasteriser{palette, textures};
    Frame frame;
};

TEST_F(RasteriserTest, FillCoversTopAndLeftButNotBottomOrRight) {
    rasteriser.draw(face(2, {7}, square(10, 10, 20, 20)), frame);
    EXPECT_EQ(count(frame, 7), 100u);
    EXPECT_EQ(frame.at(10, 10), 7);
    EXPECT_EQ(frame.at(19, 19), 7);
    EXPECT_EQ(frame.at(20, 15), kClearColour);
    EXPECT_EQ(frame.at(15, 20), kClearColour);
    EXPECT_EQ(frame.at(9, 15), kClearColour);
}

TEST_F(RasteriserTest, AnEdgeSharedInTheSameDirectionSplitsEveryRowWithoutOverlapOrGap) {
    Frame a, b;
    rasteriser.draw(face(2, {1}, {{3, 2}, {41, 9}, {17, 37}}), a);   // edge 1: (41,9) -> (17,37)
    rasteriser.draw(face(2, {2}, {{41, 9}, {17, 37}, {50, 40}}), b); // edge 0: the same edge
    for (int y = 9; y < 37; ++y) {
        int a_max = -1, b_min = 1000;
        for (int x = 0; x < kFrameWidth; ++x) {
            EXPECT_FALSE(a.at(x, y) == 1 && b.at(x, y) == 2) << x << "," << y;
            if (a.at(x, y) == 1) a_max = std::max(a_max, x);
            if (b.at(x, y) == 2) b_min = std::min(b_min, x);
        }
        if (a_max >= 0 && b_min < 1000) {
            EXPECT_EQ(a_max + 1, b_min) << "row " << y;
        }
    }
}

TEST_F(RasteriserTest, EdgesInterpolateFromTheirFirstVertexSoOppositeDirectionsMayOverlap) {
    // rast.edge: a = vertex i, b = vertex i+1. At row 10 the edge (41,9) -> (17,37) crosses at
    // 41 + (1 * -24) / 28 = 41, the edge (17,37) -> (41,9) at 17 + (-27 * 24) / -28 = 40.
    Frame a, b;
    rasteriser.draw(face(2, {1}, {{3, 2}, {41, 9}, {17, 37}}), a);
    rasteriser.draw(face(2, {2}, {{41, 9}, {50, 40}, {17, 37}}), b);
    EXPECT_EQ(a.at(40, 10), 1);
    EXPECT_EQ(b.at(40, 10), 2);
    EXPECT_EQ(a.at(41, 10), kClearColour);
}

TEST_F(RasteriserTest, EdgeCrossingsTruncateTowardZero) {
    // Edge (10,0) -> (0,7) at row 3: 10 + (3 * -10) / 7 = 10 - 4 = 6, so the span is x = 0..5.
    rasteriser.draw(face(2, {5}, {{0, 0}, {10, 0}, {0, 7}}), frame);
    EXPECT_EQ(frame.at(5, 3), 5);
    EXPECT_EQ(frame.at(6, 3), kClearColour);
    EXPECT_EQ(frame.at(9, 0), 5);
    EXPECT_EQ(frame.at(0, 6), 5); // row 6: 10 + (6 * -10) / 7 = 2: x = 0, 1
    EXPECT_EQ(frame.at(1, 6), 5);
    EXPECT_EQ(frame.at(2, 6), kClearColour);
    EXPECT_EQ(frame.at(0, 7), kClearColour); // the bottom row is never drawn
}

TEST_F(RasteriserTest, PolygonsAreClippedToTheFrame) {
    rasteriser.draw(face(2, {9}, square(-10, -10, 330, 210)), frame);
    EXPECT_EQ(count(frame, 9), 64000u);
    Frame huge;
    rasteriser.draw(face(2, {9}, square(-32768, -32768, 32767, 32767)), huge);
    EXPECT_EQ(count(huge, 9), 64000u);
}

TEST_F(RasteriserTest, MeshAndTwoColourPatternsFollowFramebufferParity) {
    rasteriser.draw(face(4, {11}, square(0, 0, 10, 10)), frame);
    EXPECT_EQ(count(frame, 11), 50u);
    EXPECT_EQ(frame.at(0, 0), 11);
    EXPECT_EQ(frame.at(1, 0), kClearColour);
    EXPECT_EQ(frame.at(1, 1), 11);
    Frame coarse;
    rasteriser.draw(face(5, {12}, square(0, 0, 10, 10)), coarse);
    EXPECT_EQ(count(coarse, 12), 25u);
    EXPECT_EQ(coarse.at(2, 4), 12);
    EXPECT_EQ(coarse.at(1, 1), kClearColour);
    Frame two;
    rasteriser.draw(face(3, {13, 14}, square(1, 0, 11, 10)), two);
    EXPECT_EQ(two.at(1, 1), 13);
    EXPECT_EQ(two.at(2, 1), 14);
    EXPECT_EQ(count(two, 13), 50u);
}

TEST_F(RasteriserTest, PointsAndPolylines) {
    rasteriser.draw(face(0, {20}, {{5, 5}, {400, 5}, {319, 199}}), frame);
    EXPECT_EQ(count(frame, 20), 2u);
    EXPECT_EQ(frame.at(319, 199), 20);
    Frame line;
    // n = 3: (0,0), (1, 1/3 -> 0), (2, 2/3 -> 0), (3, 1); then (3,1) -> (3,1): one pixel.
    rasteriser.draw(face(1, {21}, {{0, 0}, {3, 1}, {3, 1}}), line);
    EXPECT_EQ(count(line, 21), 4u);
    EXPECT_EQ(line.at(1, 0), 21);
    EXPECT_EQ(line.at(2, 0), 21);
    EXPECT_EQ(line.at(3, 1), 21);
    Frame open;
    rasteriser.draw(face(1, {22}, {{0, 10}, {4, 10}, {4, 14}}), open);
    EXPECT_EQ(count(open, 22), 9u); // not closed: no segment back to (0, 10)
}

TEST_F(RasteriserTest, TexturesMapOneToOne) {
    rasteriser.draw(face(7, {0, 0, 0}, {{0, 0, 0, 0}, {64, 0, 64, 0}, {64, 64, 64, 64}, {0, 64, 0, 64}}),
                    frame);
    EXPECT_EQ(frame.at(10, 20), (10 + 40) % 200);
    EXPECT_EQ(frame.at(63, 63), (63 + 126) % 200);
    EXPECT_EQ(frame.flags_at(63, 63), events::FaceFlags{});
}

TEST_F(RasteriserTest, MaskedTexelsAreSkippedBeforeShading) {
    frame.pixels.assign(frame.pixels.size(), 99);
    // u = x, v = 0 on a row: texel x % 200; mask 5 skips x = 5.
    rasteriser.draw(face(8, {0, 0, 5}, {{0, 0, 0, 0}, {10, 0, 10, 0}, {10, 2, 10, 0}, {0, 2, 0, 0}}), frame);
    EXPECT_EQ(frame.at(4, 0), 4);
    EXPECT_EQ(frame.at(5, 0), 99);
    Frame shaded;
    rasteriser.draw(
        face(16, {0, 0, 5, 0}, {{0, 0, 0, 0, 7}, {10, 0, 10, 0, 7}, {10, 2, 10, 0, 7}, {0, 2, 0, 0, 7}}),
        shaded);
    EXPECT_EQ(shaded.at(4, 0), palette.shade(7, 4));
    EXPECT_EQ(shaded.at(5, 0), kClearColour);
}

TEST_F(RasteriserTest, RightEdgeSamplesTheNextRowAndPastTheImageIsOmitted) {
    // u = 64 everywhere: v = 5 reads texel (0, 6); v = 63 reads index 4096, past the image.
    rasteriser.draw(face(7, {0, 0, 0}, {{0, 0, 64, 5}, {4, 0, 64, 5}, {4, 2, 64, 5}, {0, 2, 64, 5}}), frame);
    EXPECT_EQ(frame.at(1, 1), (0 + 2 * 6) % 200);
    EXPECT_EQ(frame.flags_at(1, 1), events::FaceFlags(FaceFlag::TextureRightEdge));
    rasteriser.draw(face(7, {0, 0, 0}, {{0, 0, 64, 63}, {4, 0, 64, 63}, {4, 2, 64, 63}, {0, 2, 64, 63}}),
                    frame);
    EXPECT_EQ(frame.at(1, 1), (0 + 2 * 6) % 200); // unchanged
    EXPECT_EQ(frame.flags_at(1, 1), FaceFlag::TextureRightEdge | FaceFlag::TexturePastImage);
    // An unflagged direct write clears the set.
    rasteriser.draw(face(2, {1}, square(0, 0, 4, 2)), frame);
    EXPECT_EQ(frame.flags_at(1, 1), events::FaceFlags{});
}

TEST_F(RasteriserTest, ShadedAndGouraudLevelsInterpolateAcrossTheSpan) {
    rasteriser.draw(face(11, {100, 0}, {{0, 0, 0, 0, 9}, {10, 0, 0, 0, 9}, {10, 4, 0, 0, 9}}), frame);
    EXPECT_EQ(frame.at(9, 1), palette.shade(9, 100));
    Frame g;
    // Levels 0 on the left edge, 31 on the right: a(x) = 0 + (x * 31) / 31 = x.
    rasteriser.draw(
        face(17, {100, 0}, {{0, 0, 0, 0, 0}, {31, 0, 0, 0, 31}, {31, 4, 0, 0, 31}, {0, 4, 0, 0, 0}}), g);
    for (int x : {0, 1, 15, 30})
        EXPECT_EQ(g.at(x, 2), palette.shade(static_cast<std::uint32_t>(x), 100)) << x;
    Frame gt;
    rasteriser.draw(
        face(19, {0, 0, 0, 0}, {{0, 0, 0, 0, 0}, {31, 0, 31, 0, 31}, {31, 4, 31, 0, 31}, {0, 4, 0, 0, 0}}),
        gt);
    EXPECT_EQ(gt.at(20, 1), palette.shade(20, 20));
}

TEST_F(RasteriserTest, MissingNormalDrawsTheUnshadedCounterpartAndTaintsItsPixels) {
    rasteriser.draw(face(11, {100, 7}, square(0, 0, 4, 4), FaceFlag::MissingNormal | FaceFlag::GridRounding),
                    frame);
    EXPECT_EQ(frame.at(1, 1), 100);
    EXPECT_EQ(frame.flags_at(1, 1), events::FaceFlags(FaceFlag::MissingNormal));
    rasteriser.draw(face(18, {100, 101, 7}, square(0, 0, 4, 4), FaceFlag::MissingNormal), frame);
    EXPECT_EQ(frame.at(0, 0), 100);
    EXPECT_EQ(frame.at(1, 0), 101);
}

TEST_F(RasteriserTest, GlassAndHazeRemapTheFramebufferAndKeepItsFlags) {
    rasteriser.draw(face(11, {100, 7}, square(0, 0, 4, 4), FaceFlag::MissingNormal), frame);
    rasteriser.draw(face(6, {}, square(0, 0, 2, 2)), frame);
    EXPECT_EQ(frame.at(1, 1), palette.glass[100]);
    EXPECT_EQ(frame.at(3, 3), 100);
    EXPECT_EQ(frame.flags_at(1, 1), events::FaceFlags(FaceFlag::MissingNormal));
    rasteriser.draw(face(21, {}, square(0, 0, 1, 1)), frame);
    EXPECT_EQ(frame.at(0, 0), palette.haze[palette.glass[100]]);
}

TEST_F(RasteriserTest, RejectsFacesItCannotDraw) {
    events::FaceDraw bad = face(7, {0, 0, 0}, square(0, 0, 4, 4));
    bad.texture = 3;
    EXPECT_THROW(rasteriser.draw(bad, frame), std::invalid_argument);
    events::FaceDraw short_material = face(3, {1}, square(0, 0, 4, 4));
    EXPECT_THROW(rasteriser.draw(short_material, frame), std::invalid_argument);
}

} // namespace
} // namespace refcheck::reimpl
