// reimpl/mobile: the sector map's list order and the drawing queue (spec section 14).
#include "refcheck/reimpl/mobile.hpp"

#include <algorithm>
#include <stdexcept>

#include <gtest/gtest.h>

#include "archive_builder.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;
using Ids = std::vector<std::uint32_t>;

constexpr std::int32_t kSector = 1 << 16;
constexpr std::uint32_t kSmall = 1; // radius 100
constexpr std::uint32_t kLarge = 2; // radius 5000

// A position in the middle of sector (x, z).
Vec3 in_sector(std::int32_t x, std::int32_t z, std::int32_t y = 0) {
    return {x * kSector + 100, y, z * kSector + 100};
}

Mobile mobile(std::uint32_t id, const Vec3& position, std::uint32_t model = kSmall) {
    return Mobile{id, model, position, kIdentityQ31};
}

ModelArchive radius_archive() {
    RecordSpec null_model;
    null_model.has_vertices = false;
    null_model.program = Bytes{7};
    BuiltArchive built = build_model_archive({null_model, null_model, null_model});
    set_u32(built.bytes, built.records[kSmall].offset + 0x24, 100);
    set_u32(built.bytes, built.records[kLarge].offset + 0x24, 5000);
    return ModelArchive::parse(built.bytes);
}

TEST(MobileMap, SectorIsTheHighWordOfXAndZModulo64) {
    EXPECT_EQ(sector_of({3 * kSector + 5, 123456, 7 * kSector}), (Sector{3, 7}));
    EXPECT_EQ(sector_of({-1, 0, 64 * kSector + kSector - 1}), (Sector{63, 0})); // arithmetic shift, then & 63
    EXPECT_EQ(sector_of({70 * kSector, 0, -kSector}), (Sector{6, 63}));
    EXPECT_EQ((Sector{5, 2}).index(), 2u * 64 + 5);
}

TEST(MobileMap, ArrivalsGoToTheFrontAndSameSectorMovesKeepTheOrder) {
    MobileMap map;
    map.add(mobile(1, in_sector(4, 4)));
    map.add(mobile(2, in_sector(4, 4)));
    map.add(mobile(3, in_sector(4, 4)));
    EXPECT_EQ(map.sector_list(4, 4), (Ids{3, 2, 1}));
    map.move(2, {4 * kSector + 9000, 77, 4 * kSector + 60000});
    map.move(1, {4 * kSector, -5, 4 * kSector});
    EXPECT_EQ(map.sector_list(4, 4), (Ids{3, 2, 1}));
    EXPECT_EQ(map.mobile(2).position, (Vec3{4 * kSector + 9000, 77, 4 * kSector + 60000}));
}

TEST(MobileMap, CrossingASectorBoundaryReinsertsAtTheFront) {
    MobileMap map;
    for (std::uint32_t id : {1u, 2u, 3u}) map.add(mobile(id, in_sector(4, 4)));
    map.add(mobile(4, in_sector(5, 4)));
    map.move(2, in_sector(5, 4));
    EXPECT_EQ(map.sector_list(4, 4), (Ids{3, 1}));
    EXPECT_EQ(map.sector_list(5, 4), (Ids{2, 4}));
    map.move(2, in_sector(4, 4)); // back again: the front, not its old place
    EXPECT_EQ(map.sector_list(4, 4), (Ids{2, 3, 1}));
    EXPECT_EQ(map.sector_list(5, 4), (Ids{4}));
}

TEST(MobileMap, RemovalUnlinksAndKeepsTheOthersInOrder) {
    MobileMap map;
    for (std::uint32_t id : {1u, 2u, 3u, 4u}) map.add(mobile(id, in_sector(0, 9)));
    map.remove(3);
    EXPECT_EQ(map.sector_list(0, 9), (Ids{4, 2, 1}));
    EXPECT_FALSE(map.contains(3));
    EXPECT_EQ(map.size(), 3u);
    map.add(mobile(3, in_sector(0, 9))); // the id may come back
    EXPECT_EQ(map.sector_list(0, 9), (Ids{3, 4, 2, 1}));
}

// mobile.remove.again: a mobile removed before (and not added since) is removed again with no
// change; one added back is removed as any other.
TEST(MobileMap, RemovingAMobileAlreadyRemovedChangesNothing) {
    MobileMap map;
    for (std::uint32_t id : {1u, 2u, 3u}) map.add(mobile(id, in_sector(0, 9)));
    map.remove(2);
    map.remove(2);
    EXPECT_EQ(map.sector_list(0, 9), (Ids{3, 1}));
    EXPECT_EQ(map.size(), 2u);
    map.add(mobile(2, in_sector(0, 9)));
    map.remove(2);
    EXPECT_EQ(map.sector_list(0, 9), (Ids{3, 1}));
    EXPECT_THROW(map.remove(7), std::invalid_argument) << "never added";
}

TEST(MobileMap, BadIdsAreRefused) {
    MobileMap map;
    map.add(mobile(1, in_sector(0, 0)));
    EXPECT_THROW(map.add(mobile(0, in_sector(0, 0))), std::invalid_argument);
    EXPECT_THROW(map.add(mobile(1, in_sector(1, 1))), std::invalid_argument);
    EXPECT_THROW(map.move(2, in_sector(0, 0)), std::invalid_argument);
    EXPECT_THROW(map.remove(2), std::invalid_argument);
    EXPECT_THROW(map.sector_list(64, 0), std::out_of_range);
    EXPECT_EQ(map.sector_list(0, 0), (Ids{1}));
}

// Camera in sector (0, 0): the scan visits z = 63, 0, 1 and, within each, x = 63, 0, 1.
TEST(MobileMap, ScanVisitsTheNineSectorsInOrderWrappingAtTheEdge) {
    MobileMap map;
    const std::array<std::pair<std::int32_t, std::int32_t>, 9> order{
        {{63, 63}, {0, 63}, {1, 63}, {63, 0}, {0, 0}, {1, 0}, {63, 1}, {0, 1}, {1, 1}}};
    // Added in reverse so that no order of ids coincides with the scan order by accident.
    for (std::uint32_t k = 9; k-- > 0;) map.add(mobile(10 + k, in_sector(order[k].first, order[k].second)));
    map.add(mobile(100, in_sector(2, 0)));  // outside the 3 x 3
    map.add(mobile(101, in_sector(0, 62))); // outside
    map.add(mobile(102, in_sector(0, 0)));  // front of the centre list
    EXPECT_EQ(map.scan(in_sector(0, 0)), (Ids{10, 11, 12, 13, 102, 14, 15, 16, 17, 18}));
    EXPECT_EQ(map.scan({-1, 0, -1}), map.scan(in_sector(63, 63))); // -1 lies in sector 63
    // Centred on (63, 63): x = 62, 63, 0 and z = 62, 63, 0.
    EXPECT_EQ(map.scan(in_sector(63, 63)), (Ids{101, 10, 11, 13, 102, 14}));
}

class QueueTest : public ::testing::Test {
protected:
    ModelArchive archive = radius_archive();
    Camera camera; // at the origin, looking along +z (depth = z)
    Scene scene;
    MobileMap map;
};

TEST_F(QueueTest, SortsFarthestFirstWithTiesByIdAscending) {
    map.add(mobile(5, {0, 0, 1000}));
    map.add(mobile(3, {0, 0, 3000}));
    map.add(mobile(9, {600, 0, 800})); // the same distance as id 5
    map.add(mobile(4, {0, 0, 2000}));
    map.add(mobile(2, {-800, 0, 600})); // and again
    EXPECT_EQ(map.queue(archive, camera, scene), (Ids{3, 4, 2, 5, 9}));
}

TEST_F(QueueTest, CloudsSeparateTheCameraFromObjectsOnTheOtherSide) {
    scene.cloud_altitude = 5000;
    map.add(mobile(1, {0, 4999, 1000}));
    map.add(mobile(2, {0, 5000, 1000})); // at the layer counts as above
    map.add(mobile(3, {0, 90000, 2000}));
    EXPECT_EQ(map.queue(archive, camera, scene), (Ids{1}));
    camera.position[1] = 5000;
    EXPECT_EQ(map.queue(archive, camera, scene), (Ids{3, 2}));
}

TEST_F(QueueTest, DepthLimitsWidenedByTheModelRadius) {
    scene.near_limit = 64;
    scene.far_limit = 20000;
    map.add(mobile(1, {0, 0, -36}));           // z + 100 = 64: kept
    map.add(mobile(2, {0, 0, -37}));           // z + 100 = 63: dropped
    map.add(mobile(3, {0, 0, 20100}));         // z - 100 = far: kept
    map.add(mobile(4, {0, 0, 20101}));         // dropped
    map.add(mobile(5, {0, 0, -4936}, kLarge)); // z + 5000 = 64: kept
    map.add(mobile(6, {0, 0, 25001}, kLarge)); // z - 5000 = 20001: dropped
    EXPECT_EQ(map.queue(archive, camera, scene), (Ids{3, 5, 1}));
}

// mobile.no_record: a model id naming an empty slot or past the table has radius 0: such a mobile
// is kept by its depth alone, where a radius would have widened the limits.
TEST_F(QueueTest, AMobileWithoutARecordHasRadiusZero) {
    scene.near_limit = 64;
    scene.far_limit = 20000;
    map.add(mobile(1, {0, 0, 64}, 7));    // past the table (3 records): depth 64, kept
    map.add(mobile(2, {0, 0, 63}, 7));    // depth 63: a radius of 100 would keep it
    map.add(mobile(3, {0, 0, 20000}, 0)); // slot 0 is empty: depth = far, kept
    map.add(mobile(4, {0, 0, 20001}, 0)); // dropped
    map.add(mobile(5, {0, 0, 20050}));    // radius 100 keeps it
    EXPECT_EQ(map.queue(archive, camera, scene), (Ids{5, 3, 1}));
}

TEST_F(QueueTest, DepthFollowsTheCameraForwardRow) {
    camera.rotation = {0, 0, -kQ14One, 0, kQ14One, 0, kQ14One, 0, 0}; // forward = +x
    camera.position = {1000, 0, 0};
    scene.far_limit = 10000;
    map.add(mobile(1, {1500, 0, 0}));     // depth 500
    map.add(mobile(2, {500, 0, 0}));      // depth -500: behind
    map.add(mobile(3, {12000, 0, 3000})); // depth 11000 - 100 > far
    EXPECT_EQ(map.queue(archive, camera, scene), (Ids{1}));
    EXPECT_EQ(camera_depth(camera, {1500, 7, -9}), 500);
}

TEST_F(QueueTest, OnlyTheNineSectorsAroundTheCameraAreQueued) {
    camera.position = {kSector / 2, 0, 0};
    map.add(mobile(1, {kSector / 2, 0, kSector + 5}));     // sector (0, 1)
    map.add(mobile(2, {kSector / 2, 0, 2 * kSector + 5})); // sector (0, 2): not scanned
    map.add(mobile(3, {-kSector + 10, 0, kSector / 2}));   // sector (63, 0): a neighbour across the edge
    map.add(mobile(4, {2 * kSector + 5, 0, kSector / 2})); // sector (2, 0): not scanned
    EXPECT_EQ(map.queue(archive, camera, scene), (Ids{3, 1}));
}

TEST_F(QueueTest, AtMost256AreCollectedInScanOrderBeforeSorting) {
    camera.position = {100, 0, 0};
    // Ids 1..300 into one sector: the list holds 300, 299, ..., 1; id k at depth k * 10.
    for (std::uint32_t id = 1; id <= 300; ++id)
        map.add(mobile(id, {100, 0, static_cast<std::int32_t>(id * 10)}));
    const Ids queue = map.queue(archive, camera, scene);
    ASSERT_EQ(queue.size(), kQueueCapacity);
    Ids expected;
    for (std::uint32_t id = 300; id > 300 - kQueueCapacity; --id)
        expected.push_back(id); // the first 256 scanned
    EXPECT_EQ(queue, expected);
    // A filtered entry does not use up capacity.
    map.move(300, {100, 90000000, 3000});
    const Ids after = map.queue(archive, camera, scene);
    ASSERT_EQ(after.size(), kQueueCapacity);
    EXPECT_EQ(after.front(), 299u);
    EXPECT_EQ(after.back(), 300u - kQueueCapacity);
}

TEST(MobileKeys, DistanceKeyIsTheSquaredOffsetInUnsigned64Bits) {
    Camera c;
    c.position = {-(1 << 30), 0, 5};
    const Vec3 p{(1 << 30) - 1, -(1 << 30), 5};
    const std::uint64_t dx = (std::uint64_t{1} << 31) - 1, dy = std::uint64_t{1} << 30;
    EXPECT_EQ(distance_key(c, p), dx * dx + dy * dy);
    EXPECT_TRUE(same_side_of_clouds(10, 20, 100));
    EXPECT_FALSE(same_side_of_clouds(10, 100, 100));
    EXPECT_TRUE(same_side_of_clouds(100, 200, 100));
}

} // namespace
} // namespace refcheck::reimpl
