// Stream comparison: alignment, field diffs, and classification by the known-divergence registry.
#include "refcheck/harness/compare.hpp"
#include "refcheck/harness/divergences.hpp"

#include <gtest/gtest.h>

using namespace refcheck::harness;

namespace {
EventRecord face(std::int64_t offset, std::int64_t level, std::vector<std::int64_t> screen = {10, 20},
                 std::uint32_t flags = 0) {
    EventRecord e;
    e.kind = "face";
    e.fields = {{"record", std::int64_t{7}}, {"offset", offset}, {"vertex_levels", std::vector<std::int64_t>{level}},
                {"screen_x", std::move(screen)}};
    e.key_fields = 2;
    e.flags = flags;
    return e;
}
}  // namespace

TEST(Compare, IdenticalStreamsMatch) {
    Comparator c({});
    std::vector<EventRecord> s = {face(0, 3), face(10, 4), face(20, 5)};
    c.compare("r7", s, s);
    EXPECT_EQ(c.counts().compared, 3u);
    EXPECT_EQ(c.counts().matched, 3u);
    EXPECT_EQ(c.counts().unexplained, 0u);
    EXPECT_FALSE(c.first_unexplained());
}

TEST(Compare, FieldMismatchIsUnexplainedWithoutFlag) {
    Comparator c({{"missing_normal"}, 0, 5, 64});
    std::vector<EventRecord> a = {face(0, 3), face(10, 4), face(20, 5)};
    std::vector<EventRecord> b = {face(0, 3), face(10, 9), face(20, 5)};
    c.compare("r7", a, b);
    ASSERT_TRUE(c.first_unexplained());
    const auto& d = *c.first_unexplained();
    EXPECT_EQ(d.original_index, 1u);
    ASSERT_EQ(d.fields.size(), 1u);
    EXPECT_EQ(d.fields[0].name, "vertex_levels");
    EXPECT_EQ(d.fields[0].original, "[4]");
    EXPECT_EQ(d.fields[0].reimpl, "[9]");
    EXPECT_EQ(d.original_before.size(), 1u);
    EXPECT_EQ(d.original_after.size(), 1u);
}

TEST(Compare, FlaggedMismatchIsKnownOnlyWhenAllowedAndOnlyForItsFields) {
    std::vector<EventRecord> a = {face(0, 3, {1, 1}, kMissingNormal)};
    std::vector<EventRecord> b = {face(0, 31, {1, 1}, kMissingNormal)};
    Comparator allowed({{"missing_normal"}, 0, 5, 64});
    allowed.compare("x", a, b);
    EXPECT_EQ(allowed.counts().known, 1u);
    EXPECT_EQ(allowed.counts().known_by_cause.at("missing_normal"), 1u);
    Comparator not_allowed({});
    not_allowed.compare("x", a, b);
    EXPECT_EQ(not_allowed.counts().unexplained, 1u);
    // The missing-normal entry may not explain a screen difference.
    std::vector<EventRecord> c2 = {face(0, 31, {1, 2}, kMissingNormal)};
    Comparator screen({{"missing_normal"}, 0, 5, 64});
    screen.compare("x", a, c2);
    EXPECT_EQ(screen.counts().unexplained, 1u);
}

TEST(Compare, GridToleranceExplainsSmallScreenDifferencesOnly) {
    std::vector<EventRecord> a = {face(0, 3, {100, 50}, kGridModel)};
    std::vector<EventRecord> near = {face(0, 3, {101, 49}, kGridModel)};
    std::vector<EventRecord> far = {face(0, 3, {104, 50}, kGridModel)};
    Comparator c({{"grid_rounding"}, 2, 5, 64});
    c.compare("near", a, near);
    EXPECT_EQ(c.counts().known, 1u);
    c.compare("far", a, far);
    EXPECT_EQ(c.counts().unexplained, 1u);
}

TEST(Compare, MissingAndExtraEventsRealign) {
    std::vector<EventRecord> a = {face(0, 1), face(10, 1), face(20, 1), face(30, 1)};
    std::vector<EventRecord> b = {face(0, 1), face(20, 1), face(30, 1), face(40, 1)};
    Comparator c({});
    c.compare("x", a, b);
    EXPECT_EQ(c.counts().matched, 3u);
    EXPECT_EQ(c.counts().unexplained, 2u);  // offset 10 missing in reimpl, offset 40 extra
    ASSERT_TRUE(c.first_unexplained());
    EXPECT_EQ(c.first_unexplained()->kind, DivergenceKind::MissingInReimpl);
    EXPECT_EQ(c.first_unexplained()->original_index, 1u);
}

TEST(Registry, EveryEntryNamesARuleAFlagAndFields) {
    for (const auto& k : known_divergences()) {
        EXPECT_FALSE(k.rule.empty()) << k.id;
        EXPECT_NE(k.flag, 0u) << k.id;
        EXPECT_FALSE(k.fields.empty()) << k.id;
        EXPECT_EQ(find_known_divergence(k.id), &k);
    }
    EXPECT_EQ(find_known_divergence("made_up"), nullptr);
}
