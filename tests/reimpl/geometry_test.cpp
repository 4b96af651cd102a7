// reimpl/geometry: decoding, camera transform, grid tables and their bound, projection, winding,
// lighting. Expected values are worked by hand in the comments.
#include "refcheck/reimpl/geometry.hpp"

#include <gtest/gtest.h>

#include "archive_builder.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;

TEST(Geometry, DecodesBothEncodingsInModelSpace) {
    EXPECT_EQ(decode_vertex(Encoding::S16, s16_vertex(1, -2, 3)), (Vec3{16, -32, 48}));
    EXPECT_EQ(decode_vertex(Encoding::S16, s16_vertex(-32768, 32767, 0)), (Vec3{-524288, 524272, 0}));
    // x: (32-32)*4096 + (32-32)*64 = 0; y: 1*4096 - 32*64 = 2048; z: -32*4096 + 31*64 = -129088
    EXPECT_EQ(decode_vertex(Encoding::Grid, grid_vertex(32, 33, 0, 32, 0, 63)), (Vec3{0, 2048, -129088}));
}

TEST(Geometry, CameraTransformOfIdentities) {
    Camera camera;
    camera.position = {0, 0, -1000};
    const CameraTransform ct = camera_transform(camera, Transform{});
    // (16384 * 0x7fffffff) >> 31 = 16383 on the diagonal.
    EXPECT_EQ(ct.m, (Mat3{16383, 0, 0, 0, 16383, 0, 0, 0, 16383}));
    EXPECT_EQ(ct.t, (Vec3{0, 0, 1000})); // (16384 * 1000) >> 14
    // (16383 * 16) >> 14 = 15 (floored), so a scaled s16 unit lands one short.
    EXPECT_EQ(transform_exact(ct, {16, -16, 0}), (Vec3{15, -16, 1000}));
}

TEST(Geometry, CameraTranslationUsesSixtyFourBitDifferences) {
    Camera camera;
    camera.position = {-2000000000, 0, 0};
    Transform instance;
    instance.position = {2000000000, 0, 0};
    const CameraTransform ct = camera_transform(camera, instance);
    // (int64)P - C = 4e9; 16384 * 4e9 >> 14 = 4e9, wrapped to int32: 4e9 - 2^32.
    EXPECT_EQ(ct.t[0], static_cast<std::int32_t>(4000000000LL - 4294967296LL));
}

TEST(Geometry, ProjectionTruncatesClampsAndRejectsBehind) {
    EXPECT_EQ(project({100, 50, 256}).sx, 260);
    EXPECT_EQ(project({100, 50, 256}).sy, 50);
    EXPECT_EQ(project({-1, 1, 512}).sx, 160); // -256 / 512 truncates to 0
    EXPECT_EQ(project({-1, 1, 512}).sy, 100);
    EXPECT_EQ(project({1000000, -1000000, 64}).sx, 32767);
    EXPECT_EQ(project({1000000, 1000000, 64}).sy, -32768);
    // (2^31 - 1) * 256 / 64 = 8589934588 wraps to -4 in int32: sx = 156, not clamped (geo.project).
    EXPECT_EQ(project({2147483647, 0, 64}).sx, 156);
    EXPECT_FALSE(project({0, 0, 64}).behind);
    EXPECT_TRUE(project({0, 0, 63}).behind);
    EXPECT_TRUE(inside_frame(project({0, 0, 64})));
    EXPECT_FALSE(inside_frame(ScreenPoint{320, 0, 64, false}));
    EXPECT_FALSE(inside_frame(ScreenPoint{0, 200, 64, false}));
    EXPECT_TRUE(inside_frame(ScreenPoint{319, 199, 64, false}));
}

TEST(Geometry, WindingIsTheSignedHighWordOfTheWrappedCrossProduct) {
    const auto p = [](std::int32_t x, std::int32_t y) { return ScreenPoint{x, y, 100, false}; };
    EXPECT_EQ(winding(p(0, 0), p(10, 0), p(0, 10)), 0);       // 100 >> 16
    EXPECT_EQ(winding(p(0, 0), p(1000, 0), p(0, 1000)), 15);  // 1e6 >> 16
    EXPECT_EQ(winding(p(0, 0), p(0, 1000), p(1000, 0)), -16); // -1e6 >> 16 floors
    // 65535 * 65535 wraps to -131071 as int32; >> 16 = -2.
    EXPECT_EQ(winding(p(-32768, -32768), p(32767, -32768), p(-32768, 32767)), -2);
}

TEST(Geometry, LightLevelsClampAndSaturate) {
    const Vec3 lm = model_space_light(Transform{}, Light{{0, 0, 16384}});
    EXPECT_EQ(lm, (Vec3{0, 0, 16383}));
    EXPECT_EQ(light_level(lm, {0, 0, 127}), 31); // (127 * 16383) >> 14 = 126; 126 >> 2 = 31
    EXPECT_EQ(light_level(lm, {0, 0, 64}), 15);  // 63 >> 2
    EXPECT_EQ(light_level(lm, {0, 0, -64}), 0);  // negative clamps to 0
    EXPECT_EQ(light_level(lm, {127, 0, 0}), 0);
    // The transpose: a rotation taking model x to world z makes a world-z light hit model x.
    Transform turned;
    turned.rotation = {0, 0, 0, 0, kQ31One, 0, kQ31One, 0, 0};
    EXPECT_EQ(model_space_light(turned, Light{{0, 0, 16384}}), (Vec3{16383, 0, 0}));
}

// A small deterministic generator for matrices and vertices.
struct Lcg {
    std::uint32_t state;
    std::uint32_t next() { return state = state * 1664525u + 1013904223u; }
    std::int32_t range(std::int32_t lo, std::int32_t hi) {
        return lo + static_cast<std::int32_t>(next() >> 8) % (hi - lo + 1);
    }
};

TEST(Geometry, GridTablesStayWithinFiveBelowTheExactTransform) {
    Lcg rng{12345};
    std::int64_t below = 0, checked = 0;
    for (int trial = 0; trial < 40; ++trial) {
        CameraTransform ct;
        for (auto& m : ct.m) m = rng.range(-16384, 16384);
        for (auto& t : ct.t) t = rng.range(-100000, 100000);
        const GridTables tables(ct);
        for (int k = 0; k < 500; ++k) {
            RawVertex raw{};
            for (auto& b : raw) b = static_cast<std::uint8_t>(rng.range(0, 63));
            const Vec3 table = tables.transform(raw);
            const Vec3 exact = transform_exact(ct, decode_vertex(Encoding::Grid, raw));
            for (int i = 0; i < 3; ++i) {
                ASSERT_LE(table[i], exact[i]) << trial << " " << k;
                ASSERT_GE(table[i], exact[i] - kGridRoundingBound) << trial << " " << k;
                below += table[i] < exact[i];
                ++checked;
            }
        }
    }
    EXPECT_GT(below, checked / 4); // the tables really do round differently
}

TEST(Geometry, GridTablesAreExactWhenEveryTermIsWhole) {
    CameraTransform ct;
    ct.m = {16384, 0, 0, 0, 16384, 0, 0, 0, 16384};
    ct.t = {1, 2, 3};
    const RawVertex raw = grid_vertex(0, 63, 40, 1, 62, 33);
    EXPECT_EQ(GridTables(ct).transform(raw), transform_exact(ct, decode_vertex(Encoding::Grid, raw)));
    EXPECT_EQ(transform_vertex(Encoding::Grid, ct, nullptr, raw),
              transform_exact(ct, decode_vertex(Encoding::Grid, raw)));
}

TEST(Geometry, GridTableTermsFloorSeparately) {
    // M[0][0] = 1: coarse term (1 * -4096 * 32) >> 14 = -8; fine term (1 * 64 * -31) >> 14 = -1
    // (floor of -0.12); exact: (1 * (-131072 - 1984)) >> 14 = floor(-8.12) = -9. Equal here; with
    // fine 33 the fine term is (64 >> 14) = 0 and exact floor(-131008 / 16384) = -8.
    CameraTransform ct;
    ct.m = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    const GridTables tables(ct);
    EXPECT_EQ(tables.transform(grid_vertex(0, 32, 32, 1, 32, 32))[0], -9);
    EXPECT_EQ(tables.transform(grid_vertex(0, 32, 32, 33, 32, 32))[0], -8);
    // M row (3, 3, 3), every byte 33: each of the six terms (3 * 4096 and 3 * 64, >> 14) floors to
    // 0, while the exact sum is floor(3 * 3 * 4160 / 16384) = floor(2.29) = 2.
    ct.m = {3, 3, 3, 0, 0, 0, 0, 0, 0};
    const RawVertex ones = grid_vertex(33, 33, 33, 33, 33, 33);
    EXPECT_EQ(GridTables(ct).transform(ones)[0], 0);
    EXPECT_EQ(transform_exact(ct, decode_vertex(Encoding::Grid, ones))[0], 2);
}

} // namespace
} // namespace refcheck::reimpl
