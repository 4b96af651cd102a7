// Streams whose storage is kept from input to input (harness/src/family/event_stream.hpp): a reused
// event must come back blank, and a stream filled again must hold exactly what a new one would.
#include "family/event_stream.hpp"
#include "family/recorder.hpp"

#include <gtest/gtest.h>

using namespace refcheck;
using namespace refcheck::harness;

namespace {

events::FaceDraw face(std::int32_t record, std::size_t vertices, bool grid, bool missing_normal) {
    events::FaceDraw f;
    f.record = record;
    f.path = {0, 1};
    f.offset = 12;
    f.type = 3;
    f.material = {7, 8};
    for (std::size_t k = 0; k < vertices; ++k) {
        f.vertices.push_back(static_cast<std::uint8_t>(k));
        f.u.push_back(static_cast<std::int32_t>(k));
        f.v.push_back(static_cast<std::int32_t>(2 * k));
        f.vertex_levels.push_back(static_cast<std::int32_t>(k + 1));
        f.screen.push_back({static_cast<std::int32_t>(10 * k), static_cast<std::int32_t>(20 * k),
                            static_cast<std::int32_t>(30 * k)});
    }
    if (grid) f.flags.set(events::FaceFlag::GridRounding);
    if (missing_normal) {
        f.flags.set(events::FaceFlag::MissingNormal);
        f.missing_levels.assign(vertices + 1, 1);
    }
    return f;
}

std::vector<EventRecord> converted_fresh(const std::vector<events::Event>& in) {
    EventStream s;
    std::vector<const events::Event*> control_flow;
    convert_reimpl(in, s, control_flow);
    return s.events();
}

} // namespace

TEST(EventStream, AReusedEventComesBackBlankWithItsStorage) {
    EventStream s;
    EventRecord& e = s.append();
    e.kind = "face_draw";
    for (int k = 0; k < 19; ++k) e.fields.emplace_back("record", std::int64_t{k});
    e.key_fields = 3;
    e.flags = 5;
    e.excuses.push_back({1, "face_level", -1});
    const Field* storage = e.fields.data();
    s.clear();
    EXPECT_EQ(s.size(), 0u);

    const EventRecord& again = s.append();
    EXPECT_EQ(again.kind, Name{});
    EXPECT_TRUE(again.fields.empty());
    EXPECT_EQ(again.key_fields, 0u);
    EXPECT_EQ(again.flags, 0u);
    EXPECT_TRUE(again.excuses.empty());
    // The same field vector, not a new one: refilling it allocates nothing.
    EXPECT_EQ(again.fields.data(), storage);
    EXPECT_GE(again.fields.capacity(), 19u);
    // Past the spares, events are new.
    EXPECT_TRUE(s.append().fields.empty());
    EXPECT_EQ(s.size(), 2u);
}

// The reimplementation's events of several inputs converted one after another into one stream are,
// input by input, those a new stream would hold: excuses, flags and lists of a longer earlier event
// never leak into a later one.
TEST(EventStream, EachInputConvertedIntoAReusedStreamIsWhatANewStreamHolds) {
    const std::vector<std::vector<events::Event>> inputs = {
        {face(1, 8, true, true), events::WindingDecision{}, face(1, 3, false, false)},
        {face(2, 3, false, false), face(2, 4, false, false), face(2, 7, false, true)},
        {events::WindingDecision{}},
        {face(3, 2, false, false), face(3, 9, true, false), face(3, 5, false, false),
         face(3, 1, false, false)},
    };
    EventStream reused;
    std::vector<const events::Event*> control_flow;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        reused.clear();
        convert_reimpl(inputs[i], reused, control_flow);
        const std::vector<EventRecord> fresh = converted_fresh(inputs[i]);
        ASSERT_EQ(reused.size(), fresh.size()) << "input " << i;
        for (std::size_t k = 0; k < fresh.size(); ++k) {
            const EventRecord& a = reused.events()[k];
            const EventRecord& b = fresh[k];
            EXPECT_EQ(a.kind, b.kind) << i << "/" << k;
            EXPECT_EQ(a.fields, b.fields) << i << "/" << k;
            EXPECT_EQ(a.key_fields, b.key_fields) << i << "/" << k;
            EXPECT_EQ(a.flags, b.flags) << i << "/" << k;
            EXPECT_EQ(a.excuses, b.excuses) << i << "/" << k;
        }
    }
    // The test sees what it claims to: the first input's first face carries excuses, the second
    // input's first face (converted into that same event) none.
    EXPECT_FALSE(converted_fresh(inputs[0]).front().excuses.empty());
    EXPECT_TRUE(converted_fresh(inputs[1]).front().excuses.empty());
}
