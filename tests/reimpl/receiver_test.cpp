// reimpl/shadow: the receiver query shadow_plane_height (shadow.plane.rule, shadow.receiver.*).
#include <stdexcept>

#include <gtest/gtest.h>

#include "archive_builder.hpp"
#include "refcheck/reimpl/shadow.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;

constexpr std::uint32_t kAircraft = 1;
constexpr std::uint32_t kDeck = 2;  // receiver: bounds x -1000..3000, z -200..400, height 120
constexpr std::uint32_t kPlain = 3; // the same bounds, no receiver bit
constexpr std::int32_t kSector = 1 << 16;

ModelArchive receiver_archive() {
    RecordSpec r;
    r.has_vertices = false;
    r.program = Bytes{7};
    RecordSpec deck = r;
    deck.properties = 2;
    BuiltArchive built = build_model_archive({r, r, deck, r});
    for (std::uint32_t record : {kDeck, kPlain}) {
        const std::uint32_t at = built.records[record].offset;
        const std::int32_t bounds[6] = {-1000, 3000, -50, 50, -200, 400};
        for (int k = 0; k < 6; ++k)
            set_u32(built.bytes, at + 0x0c + 4 * k, static_cast<std::uint32_t>(bounds[k]));
        set_u32(built.bytes, at + 0x28, 120);
    }
    return ModelArchive::parse(built.bytes);
}

ShadowParams straight_down() {
    ShadowParams p;
    p.sun = {0, -kQ14One, 0};
    p.terrain_height = 0;
    p.cloud_altitude = 100000;
    return p;
}

// Q31 rotation of 90 degrees about y: local x runs along world -z, local z along world +x
// (world = Q * local; columns are the local axes in world).
constexpr Mat3 kTurned{0, 0, kQ31One, 0, kQ31One, 0, -kQ31One, 0, 0};

class ReceiverTest : public ::testing::Test {
protected:
    void SetUp() override {
        map.add(Mobile{1, kAircraft, {500, 3000, 100}, kIdentityQ31});
        map.add(Mobile{2, kDeck, {0, -30, 0}, kIdentityQ31});
    }
    ModelArchive archive = receiver_archive();
    MobileMap map;
    ShadowParams params = straight_down();
};

// abi.null: a null caster or parameters finds nothing and returns 0.
TEST_F(ReceiverTest, ANullCasterOrParametersFindsNoReceiver) {
    const Mobile& caster = map.mobile(1);
    EXPECT_EQ(shadow_plane_height(archive, map, nullptr, &params), (ReceiverQuery{0, 0, 0}));
    EXPECT_EQ(shadow_plane_height(archive, map, &caster, nullptr), (ReceiverQuery{1, 0, 0}));
    EXPECT_EQ(shadow_plane_height(archive, map, &caster, &params),
              shadow_plane_height(archive, map, 1, params));
}

TEST_F(ReceiverTest, AHitRaisesThePlaneToTheReceiversHeight) {
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params), (ReceiverQuery{1, 2, -30 + 120}));
}

TEST_F(ReceiverTest, AMissKeepsTheTerrainHeight) {
    // The Q31 identity floors: an offset of 402 is local 401, just past max z; -1001 stays -1001.
    map.move(1, {500, 3000, 402});
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params), (ReceiverQuery{1, 0, 0}));
    map.move(1, {3001, 3000, 401}); // local (3000, 400): the max x, max z corner is inside
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params).receiver, 2u);
    map.move(1, {-1000, 3000, -200}); // the min corner is inside
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params).receiver, 2u);
    map.move(1, {-1001, 3000, 0});
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params).receiver, 0u);
}

TEST_F(ReceiverTest, TheProjectedPositionIsTested) {
    // The caster hovers past the deck's end (x 3600) but the sun carries its shadow back onto it:
    // q.x = 3600 - (-8192 * 3000) / -16384 = 2100.
    map.move(1, {3600, 3000, 100});
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params).receiver, 0u);
    params.sun = {-8192, -kQ14One, 0};
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params).receiver, 2u);
}

TEST_F(ReceiverTest, TheBoundsTurnWithTheReceiver) {
    map.remove(2);
    map.add(Mobile{2, kDeck, {0, -30, 0}, kTurned});
    // World (100, -, -2500): local x = -(-2500) ~ 2500 (inside -1000..3000), local z ~ 100: a hit.
    map.move(1, {100, 3000, -2500});
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params).receiver, 2u);
    // World (2500, -, 100): local z ~ 2500, past 400: a miss, though it was a hit unturned.
    map.move(1, {2500, 3000, 100});
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params).receiver, 0u);
}

TEST_F(ReceiverTest, AboveTheCloudsThePlaneIsTheCloudLayer) {
    params.cloud_altitude = 3000; // the caster is at the layer: above
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params), (ReceiverQuery{1, 0, 3000}));
    params.cloud_altitude = 3001;
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params).receiver, 2u);
}

TEST_F(ReceiverTest, ReceiversAreSearchedOnlyAtSeaLevel) {
    params.terrain_height = 40;
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params), (ReceiverQuery{1, 0, 40}));
    params.terrain_height = 0;
    params.sun = {0, 0, kQ14One}; // not falling: no projection, no search
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params), (ReceiverQuery{1, 0, 0}));
}

TEST_F(ReceiverTest, OnlyModelsWithTheReceiverBitOtherThanTheCasterReceive) {
    map.remove(2);
    map.add(Mobile{3, kPlain, {0, -30, 0}, kIdentityQ31});
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params).receiver, 0u);
    // A receiver casting onto itself is not a hit.
    map.add(Mobile{4, kDeck, {500, 3000, 100}, kIdentityQ31});
    EXPECT_EQ(shadow_plane_height(archive, map, 4, params), (ReceiverQuery{4, 0, 0}));
}

TEST_F(ReceiverTest, TheFirstHitInScanOrderWins) {
    // Two decks of sector (0, 0) hold the point; the later arrival is at the front of the list.
    map.add(Mobile{5, kDeck, {200, 500, 0}, kIdentityQ31});
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params), (ReceiverQuery{1, 5, 620}));
    // A deck in sector (0, 63), scanned before the centre sector, holds it too (local z 249).
    map.add(Mobile{6, kDeck, {0, 7000, -150}, kIdentityQ31});
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params), (ReceiverQuery{1, 6, 7120}));
}

TEST_F(ReceiverTest, TheScanIsAroundTheProjectedPositionsSector) {
    map.remove(2);
    map.add(Mobile{2, kDeck, {5 * kSector, -30, 0}, kIdentityQ31});
    map.move(1, {2 * kSector + 500, 3000, 100});
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params).receiver, 0u);
    // A sun carrying the shadow 3 sectors along +x, onto the deck 3 sectors away from the caster.
    params.sun = {kQ14One, -kQ14One / 64, 0}; // q.x = p.x + 64 * 3000
    map.move(1, {5 * kSector + 500 - 64 * 3000, 3000, 100});
    EXPECT_EQ(shadow_plane_height(archive, map, 1, params).receiver, 2u);
}

TEST_F(ReceiverTest, UnknownCastersAndRecordlessMobilesAreRefused) {
    EXPECT_THROW(shadow_plane_height(archive, map, 9, params), std::invalid_argument);
    map.add(Mobile{7, 40, {0, 0, 0}, kIdentityQ31});
    EXPECT_THROW(shadow_plane_height(archive, map, 1, params), std::invalid_argument);
}

} // namespace
} // namespace refcheck::reimpl
