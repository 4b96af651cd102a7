// refcheck/events.hpp: signature table, field visitor, flags, sinks.
#include "refcheck/events.hpp"

#include <gtest/gtest.h>

#include <map>

namespace refcheck::events {
namespace {

std::vector<std::string> visited_names(const Event& e) {
    std::vector<std::string> names;
    visit_fields(e, [&names](std::string_view name, const FieldValue&) { names.emplace_back(name); });
    return names;
}

TEST(Events, VisitorNamesFollowTheSignatureTableForEveryKind) {
    const std::vector<Event> events{FaceDraw{}, AttachedDraw{}, WindingDecision{}, ControlFlow{}};
    ASSERT_EQ(events.size(), kSignatures.size());
    for (const Event& e : events) {
        const Signature& sig = signature(e);
        const auto names = visited_names(e);
        ASSERT_EQ(names.size(), sig.fields.size()) << sig.kind;
        for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(names[i], sig.fields[i]) << sig.kind;
    }
    EXPECT_EQ(kind_name(events[0]), "face_draw");
    EXPECT_EQ(kind_name(events[1]), "attached_draw");
    EXPECT_EQ(kind_name(events[2]), "winding_decision");
    EXPECT_EQ(kind_name(events[3]), "control_flow");
}

TEST(Events, FaceDrawFieldValuesArePlainValues) {
    FaceDraw f;
    f.record = 12;
    f.path = {1, 0};
    f.offset = 0x2a;
    f.secondary = true;
    f.material = {7, 200};
    f.screen = {{10, 20, 300}, {-5, 7, 64}};
    f.flags = FaceFlag::MissingNormal | FaceFlag::TexturePastImage;
    std::map<std::string, FieldValue> fields;
    visit_fields(Event{f}, [&](std::string_view name, const FieldValue& v) { fields.emplace(name, v); });
    EXPECT_EQ(std::get<std::int64_t>(fields.at("record")), 12);
    EXPECT_EQ(std::get<std::vector<std::int64_t>>(fields.at("path")), (std::vector<std::int64_t>{1, 0}));
    EXPECT_EQ(std::get<std::int64_t>(fields.at("offset")), 0x2a);
    EXPECT_TRUE(std::get<bool>(fields.at("secondary")));
    EXPECT_FALSE(std::get<bool>(fields.at("clipped")));
    EXPECT_EQ(std::get<std::vector<std::int64_t>>(fields.at("material")),
              (std::vector<std::int64_t>{7, 200}));
    EXPECT_EQ(std::get<std::vector<std::int64_t>>(fields.at("screen_x")),
              (std::vector<std::int64_t>{10, -5}));
    EXPECT_EQ(std::get<std::vector<std::int64_t>>(fields.at("screen_y")), (std::vector<std::int64_t>{20, 7}));
    EXPECT_EQ(std::get<std::vector<std::int64_t>>(fields.at("screen_z")),
              (std::vector<std::int64_t>{300, 64}));
    EXPECT_EQ(std::get<std::string>(fields.at("flags")), "missing_normal|tex_past_alloc");
}

TEST(Events, FlagsUseTheSpecNames) {
    EXPECT_EQ(flag_names(FaceFlags{}), "");
    EXPECT_EQ(flag_names(FaceFlag::TextureRightEdge), "tex_right_edge");
    EXPECT_EQ(flag_names(FaceFlag::GridRounding | FaceFlag::MissingNormal), "missing_normal|grid_rounding");
    FaceFlags f;
    EXPECT_TRUE(f.empty());
    f.set(FaceFlag::TexturePastImage);
    EXPECT_TRUE(f.has(FaceFlag::TexturePastImage));
    EXPECT_FALSE(f.has(FaceFlag::MissingNormal));
    EXPECT_EQ(f.bits(), 4u);
}

TEST(Events, VectorSinkKeepsOrderAndTakeEmptiesIt) {
    VectorSink sink;
    sink.emit(WindingDecision{1, {}, 3, 0, -2});
    sink.emit(ControlFlow{1, {}, 9, 3, 4, 1, 20});
    ASSERT_EQ(sink.events().size(), 2u);
    EXPECT_EQ(std::get<WindingDecision>(sink.events()[0]).winding, -2);
    const auto taken = sink.take();
    EXPECT_EQ(taken.size(), 2u);
    EXPECT_TRUE(sink.events().empty());
    EXPECT_EQ(std::get<ControlFlow>(taken[1]).target, 20);
}

} // namespace
} // namespace refcheck::events
