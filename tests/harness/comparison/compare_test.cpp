// Stream comparison: alignment, field diffs, and classification by the known-divergence registry.
#include "refcheck/harness/compare.hpp"
#include "refcheck/harness/divergences.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/reimpl/rasteriser.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <string>

using namespace refcheck::harness;

namespace {
EventRecord face(std::int64_t offset, std::int64_t level, std::vector<std::int64_t> screen = {10, 20},
                 std::uint32_t flags = 0) {
    EventRecord e;
    e.kind = "face";
    e.fields = {{"record", std::int64_t{7}},
                {"offset", offset},
                {"vertex_levels", std::vector<std::int64_t>{level}},
                {"screen_x", std::move(screen)}};
    e.key_fields = 2;
    e.flags = flags;
    return e;
}
} // namespace

TEST(Compare, IdenticalStreamsMatch) {
    Comparator c({});
    std::vector<EventRecord> s = {face(0, 3), face(10, 4), face(20, 5)};
    c.compare("r7", s, s);
    EXPECT_EQ(c.counts().compared, 3u);
    EXPECT_EQ(c.counts().matched, 3u);
    EXPECT_EQ(c.counts().unexplained, 0u);
    EXPECT_FALSE(c.first_unexplained());
}

// Every kind of value is compared by its alternative and its contents: an integer 1 is not the
// boolean true (the recorder's `secondary` holds the flags word when it disagrees with the routine
// called), a list held in place equals the same list on the heap, and each alternative's difference
// is found.
TEST(Compare, EachKindOfValueDiffersByAlternativeAndByContent) {
    const auto event = [](Value v) {
        EventRecord e;
        e.kind = "face";
        e.fields = {{"offset", std::int64_t{4}}, {"secondary", std::move(v)}};
        e.key_fields = 1;
        return e;
    };
    const auto differs = [&](Value a, Value b) {
        Comparator c({});
        c.compare("r", {event(std::move(a))}, {event(std::move(b))});
        return c.counts().unexplained == 1 && c.counts().changed == 1;
    };
    EXPECT_TRUE(differs(std::int64_t{1}, true));
    EXPECT_TRUE(differs(true, std::int64_t{1}));
    EXPECT_TRUE(differs(true, false));
    EXPECT_TRUE(differs(std::int64_t{1}, std::int64_t{3}));
    EXPECT_TRUE(differs(std::string("a"), std::string("b")));
    EXPECT_TRUE(differs(IntList{1, 2}, IntList{1, 3}));
    EXPECT_TRUE(differs(IntList{1, 2}, std::string("[1,2]")));
    EXPECT_FALSE(differs(true, true));
    EXPECT_FALSE(differs(std::int64_t{-5}, std::int64_t{-5}));
    EXPECT_FALSE(differs(std::string("a"), std::string("a")));
    const std::vector<std::int64_t> seven = {1, 2, 3, 4, 5, 6, 7}; // on the heap (more than 6)
    EXPECT_FALSE(differs(IntList(seven.begin(), seven.end()), IntList(seven.begin(), seven.end())));
    EXPECT_TRUE(differs(IntList{1, 2}, IntList{std::int64_t{1} << 40, 2}));
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

// Both sides' own evidence of a missing normal for the one vertex level concerned.
EventRecord excused(EventRecord e, std::uint32_t flag, std::string_view field, std::int32_t element) {
    e.excuses.push_back({flag, field, element});
    return e;
}

TEST(Compare, FlaggedMismatchIsKnownOnlyWhenAllowedAndOnlyForItsFields) {
    std::vector<EventRecord> a = {
        excused(face(0, 3, {1, 1}, kMissingNormal), kMissingNormal, "vertex_levels", 0)};
    std::vector<EventRecord> b = {
        excused(face(0, 31, {1, 1}, kMissingNormal), kMissingNormal, "vertex_levels", 0)};
    Comparator allowed({{"missing_normal"}, 0, 5, 64});
    allowed.compare("x", a, b);
    EXPECT_EQ(allowed.counts().known, 1u);
    EXPECT_EQ(allowed.counts().known_by_cause.at("missing_normal"), 1u);
    Comparator not_allowed({});
    not_allowed.compare("x", a, b);
    EXPECT_EQ(not_allowed.counts().unexplained, 1u);
    // The missing-normal entry may not explain a screen difference.
    std::vector<EventRecord> c2 = {
        excused(face(0, 31, {1, 2}, kMissingNormal), kMissingNormal, "vertex_levels", 0)};
    Comparator screen({{"missing_normal"}, 0, 5, 64});
    screen.compare("x", a, c2);
    EXPECT_EQ(screen.counts().unexplained, 1u);
}

// Issue 11: a known divergence needs evidence from both sides; the reimplementation's flag alone
// (the old rule: original.flags | reimpl.flags) excuses nothing.
TEST(Compare, AnExcuseOnOneSideOnlyIsUnexplained) {
    const EventRecord original = face(0, 3, {10, 20}, kMissingNormal);
    const EventRecord reimpl =
        excused(face(0, 31, {10, 20}, kMissingNormal), kMissingNormal, "vertex_levels", -1);
    Comparator reimpl_only({{"missing_normal"}, 0, 5, 64});
    reimpl_only.compare("x", {original}, {reimpl});
    EXPECT_EQ(reimpl_only.counts().unexplained, 1u);
    EXPECT_EQ(reimpl_only.counts().known, 0u);
    Comparator original_only({{"missing_normal"}, 0, 5, 64});
    original_only.compare("x", {excused(original, kMissingNormal, "vertex_levels", -1)}, {face(0, 31)});
    EXPECT_EQ(original_only.counts().unexplained, 1u);
    Comparator both({{"missing_normal"}, 0, 5, 64});
    both.compare("x", {excused(original, kMissingNormal, "vertex_levels", -1)}, {reimpl});
    EXPECT_EQ(both.counts().known, 1u);
}

// Only the elements both sides excuse: a vertex whose normal is present must still match.
TEST(Compare, OnlyTheConcernedVerticesAreExcused) {
    auto levels = [](std::vector<std::int64_t> v) {
        EventRecord e = face(0, 0);
        e.fields[2].value = std::move(v);
        return e;
    };
    // Vertex 1's normal is missing on both sides; vertex 0 differs too, and nothing excuses it.
    const EventRecord a = excused(levels({5, 7}), kMissingNormal, "vertex_levels", 1);
    const EventRecord wrong = excused(levels({6, 31}), kMissingNormal, "vertex_levels", 1);
    const EventRecord right = excused(levels({5, 31}), kMissingNormal, "vertex_levels", 1);
    Comparator c({{"missing_normal"}, 0, 5, 64});
    c.compare("wrong", {a}, {wrong});
    EXPECT_EQ(c.counts().unexplained, 1u);
    c.compare("right", {a}, {right});
    EXPECT_EQ(c.counts().known, 1u);
    // The sides excuse different vertices: unexplained.
    Comparator d({{"missing_normal"}, 0, 5, 64});
    d.compare("x", {excused(levels({5, 7}), kMissingNormal, "vertex_levels", 0)}, {right});
    EXPECT_EQ(d.counts().unexplained, 1u);
}

// A correct face next to a flagged one is compared as usual: it matches when equal, and a
// difference in it is unexplained although its neighbour's cause is witnessed on both sides.
TEST(Compare, AFaceNextToAnExcusedOneMustStillMatch) {
    const EventRecord flagged_o =
        excused(face(0, 3, {10, 20}, kMissingNormal), kMissingNormal, "vertex_levels", -1);
    const EventRecord flagged_r =
        excused(face(0, 31, {10, 20}, kMissingNormal), kMissingNormal, "vertex_levels", -1);
    Comparator c({{"missing_normal"}, 0, 5, 64});
    c.compare("x", {flagged_o, face(10, 4)}, {flagged_r, face(10, 4)});
    EXPECT_EQ(c.counts().known, 1u);
    EXPECT_EQ(c.counts().matched, 1u);
    c.compare("y", {flagged_o, face(10, 4)}, {flagged_r, face(10, 9)});
    EXPECT_EQ(c.counts().unexplained, 1u);
    EXPECT_EQ(c.first_unexplained()->original_index, 1u);
}

// A pair whose differing field both sides excuse, but whose flags disagree, is unexplained: the
// sides disagree on which documented fault the event shows, as with equal fields. The flags
// difference was dropped once another field differed, and the element excuses made the pair known.
TEST(Compare, FlagsThatDisagreeBesideAnExcusedFieldAreUnexplained) {
    const EventRecord original = excused(face(0, 3, {10, 20}, kMissingNormal | kTextureRightEdge),
                                         kMissingNormal, "vertex_levels", -1);
    const EventRecord reimpl =
        excused(face(0, 31, {10, 20}, kMissingNormal), kMissingNormal, "vertex_levels", -1);
    Comparator c({{"missing_normal", "texture_right_edge"}, 0, 5, 64});
    c.compare("x", {original}, {reimpl});
    EXPECT_EQ(c.counts().known, 0u);
    EXPECT_EQ(c.counts().unexplained, 1u);
    ASSERT_TRUE(c.first_unexplained());
    const Divergence& d = *c.first_unexplained();
    ASSERT_EQ(d.fields.size(), 2u);
    EXPECT_EQ(d.fields[0].name, "vertex_levels");
    EXPECT_EQ(d.fields[1].name, "flags");
    EXPECT_EQ(d.fields[1].original, "missing_normal, texture_right_edge");
    EXPECT_EQ(d.fields[1].reimpl, "missing_normal");
    EXPECT_EQ(c.counts().flag_original_only,
              (std::map<std::string, std::uint64_t>{{"texture_right_edge", 1}}));
    // The same pair with agreeing flags is the known divergence.
    Comparator agree({{"missing_normal", "texture_right_edge"}, 0, 5, 64});
    EventRecord same = reimpl;
    same.flags = original.flags;
    agree.compare("x", {original}, {same});
    EXPECT_EQ(agree.counts().known, 1u);
    EXPECT_EQ(agree.counts().unexplained, 0u);
}

// div.grid_tolerance: a grid face's screen coordinate may differ only within the projection of a
// box of the case's half-size around the reimplementation's camera-space point, never when a
// corner of the box is nearer than z = 64. It was a flat +-N on the screen value: far from the
// camera, where the box projects to under a pixel, a 3-pixel difference passed.
TEST(Compare, GridToleranceIsTheProjectedBoxAroundTheReimplementationsCameraPoint) {
    // The original's face: a grid model, screen_x of one vertex.
    auto original = [](std::int64_t sx) {
        return excused(face(0, 3, {sx}, kGridModel), kGridModel, "screen_x", -1);
    };
    // The reimplementation's: the vertex at camera point (0, 0, z), projected to sx = 160.
    auto reimpl = [](std::int32_t z, bool with_camera = true) {
        EventRecord e = excused(face(0, 3, {160}, kGridModel), kGridModel, "screen_x", -1);
        if (with_camera)
            e.excuses.push_back({kGridModel, "screen_x", 0, std::array<std::int32_t, 3>{0, 0, z}});
        return e;
    };
    auto known = [](std::int64_t tolerance, const EventRecord& a, const EventRecord& b) {
        Comparator c({{"grid_rounding"}, tolerance, 5, 64});
        c.compare("r", {a}, {b});
        return c.counts().known == 1 && c.counts().unexplained == 0;
    };
    // z = 200: the box (x +-5 at z 195..205) projects to sx 154..166.
    EXPECT_TRUE(known(5, original(163), reimpl(200)));
    EXPECT_TRUE(known(5, original(154), reimpl(200)));
    EXPECT_FALSE(known(5, original(167), reimpl(200)));
    // z = 5000: the box projects within sx 160; 3 pixels off is not rounding.
    EXPECT_FALSE(known(5, original(163), reimpl(5000)));
    // z = 66: a corner at z 61, nearer than geo.near.
    EXPECT_FALSE(known(5, original(161), reimpl(66)));
    // No tolerance stated, or no camera point from the reimplementation: nothing is explained.
    EXPECT_FALSE(known(0, original(161), reimpl(200)));
    EXPECT_FALSE(known(5, original(161), reimpl(200, false)));
    // The original's record is not grid-encoded: unexplained however close.
    EXPECT_FALSE(known(5, face(0, 3, {161}), reimpl(200)));
}

// div.grid_tolerance's z: the original's within [z - half, z + half] of the reimplementation's.
TEST(Compare, GridToleranceOfDepthIsTheCameraZPlusOrMinusTheHalfSize) {
    const std::array<std::int32_t, 3> camera{10, -20, 300};
    EXPECT_TRUE(within_grid_tolerance("screen_z", camera, 5, 305));
    EXPECT_TRUE(within_grid_tolerance("screen_z", camera, 5, 295));
    EXPECT_FALSE(within_grid_tolerance("screen_z", camera, 5, 306));
    EXPECT_FALSE(within_grid_tolerance("screen_z", camera, 5, 294));
    EXPECT_FALSE(within_grid_tolerance("vertex_levels", camera, 5, 300)) << "not a screen coordinate";
    // sy = 100 - qy: y -20 +- 5 at z 295..305 gives qy -21..-12 (truncated), sy 112..121.
    EXPECT_TRUE(within_grid_tolerance("screen_y", camera, 5, 121));
    EXPECT_TRUE(within_grid_tolerance("screen_y", camera, 5, 112));
    EXPECT_FALSE(within_grid_tolerance("screen_y", camera, 5, 122));
    EXPECT_FALSE(within_grid_tolerance("screen_y", camera, 5, 111));
    // No box: a half-size past 32 bits (the arithmetic would overflow), and corners whose projection
    // does not fit 32 bits (geo.project wraps the quotient before clamping, so the box would span
    // the screen).
    EXPECT_FALSE(within_grid_tolerance("screen_x", camera, std::numeric_limits<std::int64_t>::max(), 170));
    const std::array<std::int32_t, 3> wide{1 << 29, 0, 69}; // 2^29 * 256 / 64 = 2^31
    EXPECT_FALSE(within_grid_tolerance("screen_x", wide, 5, 32767));
}

// A field name one side repeats is compared by occurrence: [x=1] against [x=1, x=2] differs in the
// second x (looked up by name once, the two compared equal). Fields in another order still match.
TEST(Compare, ARepeatedFieldNameIsComparedByOccurrence) {
    const auto event = [](std::vector<Field> fields) {
        EventRecord e;
        e.kind = "queue_entry";
        e.fields = std::move(fields);
        e.key_fields = 0;
        return e;
    };
    const std::int64_t one = 1, two = 2, three = 3;
    Comparator c({});
    c.compare("once", {event({{"x", one}})}, {event({{"x", one}, {"x", two}})});
    EXPECT_EQ(c.counts().unexplained, 1u);
    ASSERT_TRUE(c.first_unexplained());
    ASSERT_EQ(c.first_unexplained()->fields.size(), 1u);
    EXPECT_EQ(c.first_unexplained()->fields[0].name, "x (occurrence 2)");
    EXPECT_EQ(c.first_unexplained()->fields[0].original, "(absent)");
    c.compare("swapped", {event({{"x", one}, {"y", two}})}, {event({{"y", two}, {"x", one}})});
    c.compare("twice", {event({{"x", one}, {"x", two}})}, {event({{"x", one}, {"x", three}})});
    EXPECT_EQ(c.counts().unexplained, 2u); // "swapped" matched, "twice" did not
    EXPECT_EQ(c.counts().matched, 1u);
}

// counts.inputs counts inputs, not comparisons: an input whose stream and frame are both compared
// (the program family with frames, the shadow and scene families) counted twice.
TEST(Compare, AnInputWhoseStreamAndFrameAreComparedCountsOnce) {
    const std::vector<std::uint8_t> pixels = {1, 2, 3, 4}, none(4, 0);
    Comparator c({{}, 0, 5, 64});
    c.compare("one", {face(0, 1)}, {face(0, 1)});
    c.compare_frame("one", {}, pixels, pixels, none, none, 2);
    EXPECT_EQ(c.counts().inputs, 1u);
    c.compare_frame("two", {}, pixels, pixels, none, none, 2);
    c.compare("three", {face(0, 1)}, {face(0, 1)});
    EXPECT_EQ(c.counts().inputs, 3u);
    EXPECT_EQ(c.counts().unexplained, 0u);
}

// Frames: a pixel is excused only where both sides' taints carry an allowed cause.
TEST(Compare, FramePixelsNeedBothSidesTaint) {
    const std::vector<std::uint8_t> original = {1, 2, 3, 4}, reimpl = {1, 9, 3, 9};
    const std::vector<std::uint8_t> reimpl_taint = {0, kMissingNormal, 0, kMissingNormal};
    const std::vector<std::uint8_t> both = {0, kMissingNormal, 0, kMissingNormal},
                                    one = {0, kMissingNormal, 0, 0};
    Comparator c({{"missing_normal"}, 0, 5, 64});
    EXPECT_EQ(c.compare_frame("a", {}, original, reimpl, reimpl_taint, both, 2).unexplained, 0u);
    EXPECT_EQ(c.counts().known, 1u);
    EXPECT_EQ(c.compare_frame("b", {}, original, reimpl, reimpl_taint, one, 2).unexplained, 1u);
    EXPECT_EQ(c.compare_frame("c", {}, original, reimpl, reimpl_taint, {}, 2).unexplained, 2u);
    EXPECT_EQ(c.counts().unexplained, 2u);
}

// A frame's divergence shows each side's frame by its own facts (its size and the pixels it drew),
// the count of differing pixels only in the field diff: that count, the comparison's, was a field of
// both sides' events, equal, as if each side had produced it.
TEST(Compare, AFramesDivergenceShowsEachSidesOwnFrame) {
    const std::uint8_t clear = refcheck::reimpl::kClearColour;
    const std::vector<std::uint8_t> original = {clear, 5, 5, clear}, reimpl = {clear, 5, clear, clear};
    Comparator c({});
    EXPECT_EQ(c.compare_frame("f", {}, original, reimpl, {}, {}, 2).unexplained, 1u);
    ASSERT_TRUE(c.first_unexplained());
    const Divergence& d = *c.first_unexplained();
    ASSERT_TRUE(d.original && d.reimpl);
    EXPECT_EQ(d.original->find("drawn_pixels") ? to_string(*d.original->find("drawn_pixels")) : "", "2");
    EXPECT_EQ(d.reimpl->find("drawn_pixels") ? to_string(*d.reimpl->find("drawn_pixels")) : "", "1");
    EXPECT_EQ(d.original->find("differing_pixels"), nullptr);
    EXPECT_EQ(d.reimpl->find("differing_pixels"), nullptr);
    ASSERT_EQ(d.fields.size(), 1u);
    EXPECT_EQ(d.fields[0].original.rfind("1 pixels differ; first at (0,1): 5", 0), 0u)
        << d.fields[0].original;
}

// A frame follows its input's events: a divergent frame stands after them on each side, with them
// as the events before it. It stood at event #0 with nothing before it, though faces came first.
TEST(Compare, AFramesDivergenceStandsAfterItsInputsEvents) {
    const std::vector<EventRecord> a = {face(0, 3), face(10, 4), face(20, 5)};
    const std::vector<EventRecord> b = {face(0, 3), face(10, 4), face(20, 5)};
    const std::vector<std::uint8_t> original = {1, 2, 3, 4}, reimpl = {1, 9, 3, 4};
    CompareOptions options;
    options.context = 2;
    Comparator c(options);
    c.compare("in", a, b);
    ASSERT_EQ(c.compare_frame("in", {&a, &b}, original, reimpl, {}, {}, 2).unexplained, 1u);
    ASSERT_TRUE(c.first_unexplained());
    const Divergence& d = *c.first_unexplained();
    EXPECT_EQ(d.original_index, 3u);
    EXPECT_EQ(d.reimpl_index, 3u);
    ASSERT_EQ(d.original_before.size(), 2u);
    const auto offset = [](const EventRecord& e) {
        return e.find("offset") ? to_string(*e.find("offset")) : "";
    };
    EXPECT_EQ(offset(d.original_before[0]), "10");
    EXPECT_EQ(offset(d.original_before[1]), "20");
    ASSERT_EQ(d.reimpl_before.size(), 2u);
    EXPECT_EQ(offset(d.reimpl_before[1]), "20");
    EXPECT_TRUE(d.original_after.empty());
    EXPECT_TRUE(d.reimpl_after.empty());
}

// An unexplained frame names its first unexplained pixel, not an explained one before it: pixel 1,
// at (1,0), is excused by both taints; pixel 3, at (1,1), is not. All explained, it names the first.
TEST(Compare, AFramesDivergenceNamesItsFirstUnexplainedPixel) {
    const std::vector<std::uint8_t> original = {1, 2, 3, 4}, reimpl = {1, 9, 3, 8};
    const std::vector<std::uint8_t> taint = {0, kMissingNormal, 0, kMissingNormal};
    const std::vector<std::uint8_t> one = {0, kMissingNormal, 0, 0};
    Comparator c({{"missing_normal"}, 0, 5, 64});
    ASSERT_EQ(c.compare_frame("partly", {}, original, reimpl, taint, one, 2).unexplained, 1u);
    ASSERT_TRUE(c.first_unexplained());
    ASSERT_EQ(c.first_unexplained()->fields.size(), 1u);
    EXPECT_EQ(c.first_unexplained()->fields[0].original, "2 pixels differ; first at (1,1): 4");
    EXPECT_EQ(c.first_unexplained()->fields[0].reimpl, "8");
    ASSERT_EQ(c.compare_frame("excused", {}, original, reimpl, taint, taint, 2).unexplained, 0u);
    ASSERT_TRUE(c.first_known());
    EXPECT_EQ(c.first_known()->fields[0].original, "2 pixels differ; first at (1,0): 2");
}

// Blank frames on both sides are set aside unless the case says they are what it tests.
TEST(Compare, BlankFramesCountOnlyWhenTheCaseSaysSo) {
    const std::vector<std::uint8_t> blank(6, 224);
    CompareOptions o;
    o.clear_colour = 224;
    Comparator aside(o);
    aside.compare_frame("a", {}, blank, blank, {}, {}, 3);
    EXPECT_EQ(aside.counts().compared, 0u);
    EXPECT_EQ(aside.counts().blank_frames, 1u);
    o.blank_frames_count = true;
    Comparator counted(o);
    counted.compare_frame("a", {}, blank, blank, {}, {}, 3);
    EXPECT_EQ(counted.counts().compared, 1u);
    EXPECT_EQ(counted.counts().matched, 1u);
}

// A fault of the original is an unexplained divergence of its own, labelled with the input that
// ran, and it is the first divergence when it comes before the first event difference.
TEST(Compare, AFaultIsTheFirstDivergenceWhenItComesFirst) {
    Comparator c({});
    EventRecord fault;
    fault.kind = "fault";
    fault.fields = {{"routine", std::string("draw_3d_object_")},
                    {"fault", std::string("invalid_instruction")}};
    c.fault(fault);
    c.compare("record 3", {face(0, 1)}, {face(0, 2)});
    EXPECT_EQ(c.counts().faults, 1u);
    EXPECT_EQ(c.counts().unexplained, 2u);
    ASSERT_TRUE(c.first_unexplained());
    EXPECT_EQ(c.first_unexplained()->kind, DivergenceKind::OriginalFault);
    EXPECT_EQ(c.first_unexplained()->input, "record 3");
    Comparator later({});
    later.compare("record 3", {face(0, 1)}, {face(0, 2)});
    later.fault(fault);
    EXPECT_EQ(later.first_unexplained()->kind, DivergenceKind::FieldMismatch);
}

// A fault stands after the events the original recorded before it in the call it ended, with them
// as its context: it was put at event #0, with no events before it, and bisect centred its listing
// on the program's first packet. A fault in work an input needed but never compared (a record's
// construction) is labelled with that input, at event #0: it took the next record's input, or none.
TEST(Compare, AFaultStandsAfterTheOriginalsEventsOfItsInput) {
    EventRecord fault;
    fault.kind = "fault";
    fault.fields = {{"routine", std::string("draw_3d_object_")},
                    {"fault", std::string("invalid_instruction")}};
    Comparator c({});
    c.fault(fault);
    c.compare("record 3", {face(0, 1), face(10, 1), face(20, 1)},
              {face(0, 1), face(10, 1), face(20, 1), face(30, 1)});
    ASSERT_TRUE(c.first_unexplained());
    const Divergence& d = *c.first_unexplained();
    EXPECT_EQ(d.kind, DivergenceKind::OriginalFault);
    EXPECT_EQ(d.original_index, 3u);
    EXPECT_EQ(d.reimpl_index, 3u);
    ASSERT_EQ(d.original_before.size(), 3u);
    EXPECT_EQ(std::get<std::int64_t>(*d.original_before[2].find("offset")), 20);
    EXPECT_EQ(d.reimpl_before.size(), 3u);
    // The reimplementation's event at the fault's index has no counterpart: it is the first after.
    ASSERT_EQ(d.reimpl_after.size(), 1u);
    EXPECT_EQ(std::get<std::int64_t>(*d.reimpl_after[0].find("offset")), 30);

    Comparator construct({});
    construct.fault(fault);
    construct.label_faults("record 2 view 0 light 0 state 0");
    construct.compare("record 3", {face(0, 1)}, {face(0, 1)});
    ASSERT_TRUE(construct.first_unexplained());
    EXPECT_EQ(construct.first_unexplained()->input, "record 2 view 0 light 0 state 0");
    EXPECT_EQ(construct.first_unexplained()->original_index, 0u);
    EXPECT_TRUE(construct.first_unexplained()->original_before.empty());
}

TEST(Compare, MissingAndExtraEventsRealign) {
    std::vector<EventRecord> a = {face(0, 1), face(10, 1), face(20, 1), face(30, 1)};
    std::vector<EventRecord> b = {face(0, 1), face(20, 1), face(30, 1), face(40, 1)};
    Comparator c({});
    c.compare("x", a, b);
    EXPECT_EQ(c.counts().matched, 3u);
    EXPECT_EQ(c.counts().unexplained, 2u); // offset 10 missing in reimpl, offset 40 extra
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

// Equal events whose documented-fault flags differ do not match: the sides disagree on which
// documented fault the event shows, an unexplained difference of "flags" (they were counted beside a
// match, and an original's witness reading a texture by a wrong profile layout, flagging 1,378
// faces past their images, left frames-texture-faults green). The disagreement is also counted per
// registry id and side, survives the report's JSON and adds up across parts.
TEST(Compare, PairsWhoseFlagsDifferAreUnexplainedAndCountedPerCauseAndSide) {
    Comparator c({});
    c.compare("x",
              {face(0, 3, {10, 20}, kMissingNormal), face(10, 4, {10, 20}, kGridModel),
               face(20, 5, {10, 20}, kGridModel | kTextureRightEdge)},
              {face(0, 3), face(10, 4, {10, 20}, kGridModel),
               face(20, 5, {10, 20}, kGridModel | kTexturePastImage)});
    const Counts& n = c.counts();
    // Equal fields with different flags are no match: each is an unexplained difference of "flags".
    EXPECT_EQ(n.matched, 1u);
    EXPECT_EQ(n.unexplained, 2u);
    ASSERT_TRUE(c.first_unexplained());
    const Divergence& d = *c.first_unexplained();
    EXPECT_EQ(d.kind, DivergenceKind::FieldMismatch);
    EXPECT_EQ(d.original_index, 0u);
    ASSERT_EQ(d.fields.size(), 1u);
    EXPECT_EQ(d.fields[0].name, "flags");
    EXPECT_EQ(d.fields[0].original, "missing_normal");
    EXPECT_EQ(d.fields[0].reimpl, "(none)");
    EXPECT_TRUE(d.explained_by.empty());
    EXPECT_EQ(n.flag_original_only,
              (std::map<std::string, std::uint64_t>{{"missing_normal", 1}, {"texture_right_edge", 1}}));
    EXPECT_EQ(n.flag_reimpl_only, (std::map<std::string, std::uint64_t>{{"texture_past_allocation", 1}}));

    const ojson j = to_json(n);
    EXPECT_EQ(j.at("flags_disagree").at("original_only").at("missing_normal"), 1);
    EXPECT_EQ(j.at("flags_disagree").at("reimpl_only").at("texture_past_allocation"), 1);
    Counts twice = counts_from_json(j);
    twice.add(n);
    EXPECT_EQ(twice.flag_original_only.at("texture_right_edge"), 2u);
    EXPECT_EQ(twice.flag_reimpl_only.at("texture_past_allocation"), 2u);

    // Agreeing flags: nothing counted, and the report has no such member.
    Comparator agree({});
    agree.compare("x", {face(0, 3, {10, 20}, kGridModel)}, {face(0, 3, {10, 20}, kGridModel)});
    EXPECT_TRUE(agree.counts().flag_original_only.empty());
    EXPECT_TRUE(agree.counts().flag_reimpl_only.empty());
    EXPECT_FALSE(to_json(agree.counts()).contains("flags_disagree"));
}
