// reimpl/construction: instance trees, composed transforms, variable slots, the depth limit.
#include "refcheck/reimpl/construction.hpp"

#include <gtest/gtest.h>

#include "archive_builder.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;

constexpr std::int32_t kOne = 0x7fffffff;

ModelArchive tree_archive() {
    RecordSpec root; // record 1
    root.attachments = std::vector<Attachment>{
        attachment(2, {100, 0, 0}), attachment(0, {5, 5, 5}),
        attachment(3, {0, 0, 0}, {0, 0, kOne, 0, kOne, 0, -kOne, 0, 0})}; // 90 degrees about y
    RecordSpec middle;                                                    // record 2
    middle.attachments = std::vector<Attachment>{attachment(3, {0, 50, 0})};
    RecordSpec leaf;    // record 3
    RecordSpec looping; // record 4 attaches itself
    looping.attachments = std::vector<Attachment>{attachment(4, {0, 0, 10})};
    return ModelArchive::parse(build_model_archive({RecordSpec{}, root, middle, leaf, looping}).bytes);
}

TEST(Construction, BuildsThePreorderTreeWithVariableSlotsEmpty) {
    const ModelArchive archive = tree_archive();
    const Instance root = construct(archive, 1, Transform{});
    EXPECT_EQ(root.depth, 0u);
    ASSERT_EQ(root.slots.size(), 3u);
    EXPECT_EQ(root.slot(1), nullptr); // att.zero_slot
    EXPECT_EQ(root.slot(7), nullptr);
    std::vector<std::pair<std::uint32_t, std::vector<std::int32_t>>> seen;
    for_each_instance(root, [&](const Instance& i, std::span<const std::int32_t> path) {
        seen.emplace_back(i.model, std::vector<std::int32_t>(path.begin(), path.end()));
    });
    const std::vector<std::pair<std::uint32_t, std::vector<std::int32_t>>> expected{
        {1, {}}, {2, {0}}, {3, {0, 0}}, {3, {2}}};
    EXPECT_EQ(seen, expected);
    EXPECT_EQ(count_instances(root), 4u);
    EXPECT_EQ(root.slot(0)->slot(0)->depth, 2u);
}

// abi.construct, abi.null: a null position is the origin, a null rotation the identity; given ones
// are used as they are.
TEST(Construction, NullPositionAndRotationAreTheOriginAndTheIdentity) {
    const ModelArchive archive = tree_archive();
    const Vec3 at{10, -20, 30};
    const Mat3 turned{0, 0, kQ31One, 0, kQ31One, 0, -kQ31One, 0, 0};
    EXPECT_EQ(construct(archive, 1, nullptr, nullptr).transform, Transform{});
    EXPECT_EQ(construct(archive, 1, &at, nullptr).transform, (Transform{at, kIdentityQ31}));
    EXPECT_EQ(construct(archive, 1, nullptr, &turned).transform, (Transform{{}, turned}));
    const Instance both = construct(archive, 1, &at, &turned);
    EXPECT_EQ(both.transform, (Transform{at, turned}));
    EXPECT_EQ(both.slot(0)->transform, construct(archive, 1, Transform{at, turned}).slot(0)->transform);
}

TEST(Construction, ComposesTransformsInQ31) {
    const ModelArchive archive = tree_archive();
    Transform placement;
    placement.position = {1000, 0, -7};
    const Instance root = construct(archive, 1, placement);
    const Instance& child = *root.slot(0);
    // 1000 + (0x7fffffff * 100) >> 31 = 1000 + 99
    EXPECT_EQ(child.transform.position, (Vec3{1099, 0, -7}));
    // (0x7fffffff * 0x7fffffff) >> 31 = 0x7ffffffe
    EXPECT_EQ(child.transform.rotation, (Mat3{0x7ffffffe, 0, 0, 0, 0x7ffffffe, 0, 0, 0, 0x7ffffffe}));
    const Instance& grandchild = *child.slot(0);
    EXPECT_EQ(grandchild.transform.position, (Vec3{1099, 49, -7})); // (0x7ffffffe * 50) >> 31 = 49
    const Instance& turned = *root.slot(2);
    // (0x7fffffff * -0x7fffffff) >> 31 floors to -0x7fffffff, one below the negated positive term.
    EXPECT_EQ(turned.transform.rotation, (Mat3{0, 0, 0x7ffffffe, 0, 0x7ffffffe, 0, -0x7fffffff, 0, 0}));
}

TEST(Construction, ComposeRotatesTheTranslationByTheParent) {
    Transform parent;
    parent.rotation = {0, 0, kOne, 0, kOne, 0, -kOne, 0, 0};
    parent.position = {10, 20, 30};
    // child pos[i] = parent pos[i] + (sum_k P[i][k] * t[k]) >> 31 with t = (1000, 0, 1000):
    // x: P[0][2] * t[2] = kOne * 1000 >> 31 = 999; y: 0; z: P[2][0] * t[0] = -kOne * 1000 >> 31
    // = floor(-999.9999995) = -1000.
    const Transform child = compose(parent, attachment(9, {1000, 0, 1000}));
    EXPECT_EQ(child.position, (Vec3{10 + 999, 20, 30 - 1000}));
}

TEST(Construction, StopsAtDepthEightWithoutError) {
    const ModelArchive archive = tree_archive();
    const Instance root = construct(archive, 4, Transform{});
    EXPECT_EQ(count_instances(root), 9u); // depths 0..8
    const Instance* deepest = &root;
    while (deepest->slot(0) != nullptr) deepest = deepest->slot(0);
    EXPECT_EQ(deepest->depth, kMaxInstanceDepth);
    EXPECT_EQ(deepest->slots.size(), 1u); // the slot exists and stays empty
    // Each level adds (diagonal * 10) >> 31 = 9 (the diagonal loses 1 per composition).
    EXPECT_EQ(deepest->transform.position[2], 8 * 9);
    EXPECT_EQ(deepest->transform.rotation[0], 0x7fffffff - 8);
}

TEST(Construction, CycleLintNamesTheAttachmentThatClosesIt) {
    const ModelArchive archive = tree_archive();
    try {
        check_attachment_cycles(archive);
        FAIL() << "no error";
    } catch (const FormatError& e) {
        EXPECT_EQ(e.where().record, 4u);
        EXPECT_EQ(e.detail(), "attachment slot 0 names model 4, which attaches this record again (a cycle)");
    }
    const ModelArchive acyclic = ModelArchive::parse(build_model_archive({RecordSpec{}, RecordSpec{}}).bytes);
    EXPECT_NO_THROW(check_attachment_cycles(acyclic));
}

TEST(Construction, RejectsAnEmptyRootModel) {
    const ModelArchive archive = ModelArchive::parse(build_model_archive({std::nullopt, RecordSpec{}}).bytes);
    EXPECT_THROW(construct(archive, 0, Transform{}), std::invalid_argument);
    EXPECT_THROW(construct(archive, 5, Transform{}), std::invalid_argument);
}

} // namespace
} // namespace refcheck::reimpl
