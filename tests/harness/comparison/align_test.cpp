// Alignment of two streams by Myers' edit script over event keys (harness/src/comparison/align.cpp).
#include "comparison/align.hpp"
#include "refcheck/harness/compare.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace refcheck::harness;

namespace {

EventRecord keyed(std::int64_t key, std::int64_t value = 0) {
    EventRecord e;
    e.kind = "face_draw";
    e.fields = {{"offset", key}, {"level", value}};
    e.key_fields = 1;
    return e;
}

std::vector<EventRecord> stream(const std::vector<std::int64_t>& keys) {
    std::vector<EventRecord> out;
    for (auto k : keys) out.push_back(keyed(k));
    return out;
}

std::vector<std::int64_t> range(std::int64_t from, std::int64_t to) {
    std::vector<std::int64_t> out;
    for (auto k = from; k < to; ++k) out.push_back(k);
    return out;
}

std::vector<std::int64_t> join(std::initializer_list<std::vector<std::int64_t>> parts) {
    std::vector<std::int64_t> out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

// Every event of each side exactly once, in order; pairs only of equal keys.
void expect_valid(const std::vector<AlignStep>& steps, const std::vector<EventRecord>& a,
                  const std::vector<EventRecord>& b) {
    std::size_t i = 0, j = 0;
    for (const auto& s : steps) {
        if (s.kind != AlignStep::Extra) {
            ASSERT_EQ(s.original, i);
            ++i;
        }
        if (s.kind != AlignStep::Missing) {
            ASSERT_EQ(s.reimpl, j);
            ++j;
        }
        if (s.kind == AlignStep::Pair) {
            ASSERT_TRUE(same_key(a[s.original], b[s.reimpl]));
        }
    }
    EXPECT_EQ(i, a.size());
    EXPECT_EQ(j, b.size());
}

std::size_t edits(const std::vector<AlignStep>& steps) {
    std::size_t n = 0;
    for (const auto& s : steps) n += s.kind != AlignStep::Pair;
    return n;
}

} // namespace

// The case: a run of extra events longer than the greedy look-ahead (64) used to turn every
// later event of the input into a missing and an extra one; aligned by edit script, only the run
// itself is unexplained.
TEST(Align, ARunOfExtraEventsLongerThanTheWindowIsOnlyThatRun) {
    // The last events differ too, so that no common suffix hides the run from the look-ahead.
    const auto a = stream(join({range(0, 200), {9999}}));
    const auto b = stream(join({range(0, 10), range(1000, 1100), range(10, 200), {8888}}));
    const auto steps = align_streams(a, b, 1024, 64);
    expect_valid(steps, a, b);
    EXPECT_EQ(edits(steps), 102u);
    // The greedy look-ahead alone (no edit script) does far worse: the test is of the alignment.
    EXPECT_GT(edits(align_streams(a, b, 0, 64)), 300u);

    Comparator c({});
    c.compare("x", a, b);
    EXPECT_EQ(c.counts().matched, 200u);
    EXPECT_EQ(c.counts().extra, 101u);
    EXPECT_EQ(c.counts().missing, 1u);
    EXPECT_EQ(c.counts().unexplained, 102u);
    ASSERT_TRUE(c.first_unexplained());
    EXPECT_EQ(c.first_unexplained()->kind, DivergenceKind::ExtraInReimpl);
    EXPECT_EQ(c.first_unexplained()->original_index, 10u);
    EXPECT_EQ(c.first_unexplained()->reimpl_index, 10u);
}

// Repeated keys (windings of one instance share theirs): one missing event is one edit, and a
// changed pair is one changed event, counted apart from missing and extra ones.
TEST(Align, MissingExtraAndChangedAreCountedApart) {
    std::vector<std::int64_t> keys;
    for (int r = 0; r < 50; ++r) keys.insert(keys.end(), {7, 7, 100 + r});
    auto a = stream(keys);
    auto b = a;
    b.erase(b.begin() + 31);                 // one of the 7s of round 10: missing
    b.insert(b.begin() + 60, keyed(5000));   // extra
    b[90].fields[1].value = std::int64_t{9}; // changed
    Comparator c({});
    c.compare("x", a, b);
    EXPECT_EQ(c.counts().missing, 1u);
    EXPECT_EQ(c.counts().extra, 1u);
    EXPECT_EQ(c.counts().changed, 1u);
    EXPECT_EQ(c.counts().unexplained, 3u);
    EXPECT_EQ(c.counts().matched, a.size() - 2);
}

// Random edits of random streams with few distinct keys: the alignment is always valid, and never
// needs more edits than the greedy look-ahead or than the edits made.
TEST(Align, EditScriptIsValidAndNoLongerThanTheEditsMade) {
    std::mt19937 rng(15);
    for (int round = 0; round < 200; ++round) {
        std::vector<std::int64_t> keys;
        const int n = static_cast<int>(rng() % 300);
        for (int i = 0; i < n; ++i) keys.push_back(rng() % 6);
        auto other = keys;
        const int changes = static_cast<int>(rng() % 8);
        for (int k = 0; k < changes; ++k) {
            if (rng() % 2 && !other.empty())
                other.erase(other.begin() + static_cast<long>(rng() % other.size()));
            else
                other.insert(other.begin() + static_cast<long>(rng() % (other.size() + 1)),
                             static_cast<std::int64_t>(rng() % 6));
        }
        const auto a = stream(keys), b = stream(other);
        const auto steps = align_streams(a, b, 1024, 64);
        expect_valid(steps, a, b);
        EXPECT_LE(edits(steps), static_cast<std::size_t>(changes));
        const auto greedy = align_streams(a, b, 0, 64);
        expect_valid(greedy, a, b);
        EXPECT_LE(edits(steps), edits(greedy));
    }
}
