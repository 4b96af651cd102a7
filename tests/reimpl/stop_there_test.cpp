// InvalidData::StopThere (valid.program.stop, valid.index.behind): the reimplementation's own
// decoder refuses each broken program, and the walk the hostile cases compare the original with
// stops where the stand-in's draw stops, or takes a vertex past the list as one behind.
#include "refcheck/reimpl/interpreter.hpp"
#include "refcheck/reimpl/shadow.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "archive_builder.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;

// Four vertices in front of a camera at z = -1000 looking along +z.
std::vector<RawVertex> square() {
    return {s16_vertex(-10, -10, 0), s16_vertex(10, -10, 0), s16_vertex(10, 10, 0), s16_vertex(-10, 10, 0)};
}

Camera front_camera() {
    Camera c;
    c.position = {0, 0, -1000};
    return c;
}

const std::vector<Bytes> kFace = {{0}, {1}, {2}};
const std::vector<Bytes> kOtherFace = {{0}, {2}, {3}};

struct Drawn {
    std::vector<events::Event> events;
    std::vector<ProgramStop> stops;
};

// Record 1 holds `program`; it is drawn once with StopThere.
Drawn draw_stop_there(const Bytes& program, std::uint32_t state = 1) {
    RecordSpec spec;
    spec.vertices = square();
    spec.program = program;
    const auto models = ModelArchive::parse(build_model_archive({std::nullopt, spec}).bytes);
    const auto textures = TextureArchive::parse(build_texture_archive({}));
    DrawOptions options;
    options.invalid_data = InvalidData::StopThere;
    Interpreter interpreter(models, textures, options);
    events::VectorSink sink;
    interpreter.draw(construct(models, 1, Transform{}),
                     DrawInput{front_camera(), Light{{0, 0, -kQ14One}}, state}, sink);
    return {sink.take(), interpreter.take_stops()};
}

// The same record decoded as the reimplementation itself does: a FormatError naming record 1.
std::string refusal(const Bytes& program) {
    RecordSpec spec;
    spec.vertices = square();
    spec.program = program;
    const auto models = ModelArchive::parse(build_model_archive({std::nullopt, spec}).bytes);
    const auto textures = TextureArchive::parse(build_texture_archive({}));
    Interpreter interpreter(models, textures);
    events::VectorSink sink;
    try {
        interpreter.draw(construct(models, 1, Transform{}),
                         DrawInput{front_camera(), Light{{0, 0, -kQ14One}}, 1}, sink);
    } catch (const FormatError& e) {
        EXPECT_EQ(e.where().record, 1u) << e.what();
        return e.what();
    }
    return "";
}

std::size_t faces(const std::vector<events::Event>& events) {
    return static_cast<std::size_t>(std::count_if(events.begin(), events.end(), [](const events::Event& e) {
        return std::holds_alternative<events::FaceDraw>(e);
    }));
}

TEST(StopThere, AnUnknownOpcodeEndsTheDrawAfterTheFacesBeforeIt) {
    const Bytes program =
        ProgramBuilder().primary(2, {5}, kFace).raw({8}).primary(2, {6}, kOtherFace).ret().build();
    EXPECT_NE(refusal(program).find("unknown opcode 8"), std::string::npos);
    const Drawn d = draw_stop_there(program);
    EXPECT_EQ(faces(d.events), 1u);
    ASSERT_EQ(d.stops.size(), 1u);
    EXPECT_EQ(d.stops[0].record, 1u);
    EXPECT_EQ(d.stops[0].offset, 7u); // after the 7-byte first face
    EXPECT_TRUE(d.stops[0].ends_draw);
}

TEST(StopThere, AVertexPastTheListIsBehindAndTheWalkGoesOn) {
    // The bad primary is not drawn and sets the last winding to -1, so the secondary after it is
    // not drawn either; the last face is.
    const Bytes program = ProgramBuilder()
                              .primary(2, {5}, {{0}, {1}, {200}})
                              .secondary(2, {6}, kFace)
                              .primary(2, {7}, kOtherFace)
                              .ret()
                              .build();
    EXPECT_NE(refusal(program).find("vertex index 200"), std::string::npos);
    const Drawn d = draw_stop_there(program);
    EXPECT_EQ(faces(d.events), 1u);
    EXPECT_EQ(std::get<events::FaceDraw>(d.events.back()).offset,
              7u + 8u); // after the face and the secondary
    ASSERT_EQ(d.stops.size(), 1u);
    EXPECT_FALSE(d.stops[0].ends_draw);
}

TEST(StopThere, ASwitchOneLevelTooDeepReportsThatItStops) {
    ProgramBuilder b;
    for (int k = 0; k < 32; ++k) {
        const std::string next = k < 31 ? "p" + std::to_string(k + 1) : "switch";
        b.plane(0, 1, 2, next, next, "end");
        if (k < 31) b.label("p" + std::to_string(k + 1));
    }
    b.label("switch").choose(1, "face", "face", "end");
    b.label("face").primary(2, {5}, kFace).ret();
    b.label("end").ret();
    const Bytes program = b.build();
    EXPECT_EQ(refusal(program).find("unknown"), std::string::npos); // decodes; the walk refuses
    EXPECT_NE(refusal(program).find("nesting deeper than 32"), std::string::npos);
    const Drawn d = draw_stop_there(program);
    EXPECT_EQ(faces(d.events), 0u);
    ASSERT_FALSE(d.events.empty());
    const auto* last = std::get_if<events::ControlFlow>(&d.events.back());
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(last->next, events::ControlFlow::kStops);
    EXPECT_EQ(last->offset, b.offset("switch"));
}

TEST(StopThere, ALoopEndsAtTheStepBudget) {
    const Bytes program = ProgramBuilder().label("loop").if_mask(0, "end", "loop").label("end").ret().build();
    EXPECT_NE(refusal(program).find("cycle"), std::string::npos);
    const Drawn d = draw_stop_there(program);
    EXPECT_EQ(d.events.size(), kMaxSteps); // one control-flow event per executed op 3
    ASSERT_EQ(d.stops.size(), 1u);
    EXPECT_NE(d.stops[0].why.find("instructions executed"), std::string::npos);
}

TEST(StopThere, AProgramCutShortByTheRecordsEndStopsThere) {
    // The record is the archive's last block: its program ends inside an op 3.
    const Bytes program = ProgramBuilder().primary(2, {5}, kFace).raw({3, 0xff, 0xff}).build();
    EXPECT_NE(refusal(program).find("runs past the end"), std::string::npos);
    const Drawn d = draw_stop_there(program);
    EXPECT_EQ(faces(d.events), 1u);
    const auto* last = std::get_if<events::ControlFlow>(&d.events.back());
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(last->next, events::ControlFlow::kStops);
}

TEST(StopThere, AContinuationToTheRecordsEndIsFollowedAndTheWalkStopsThere) {
    // An op 3 with mask 0 continues at the byte after it, which is the end of the record (the
    // archive's last block): the switch reports where it goes, and the walk stops there, as the
    // stand-in's does at the archive's end.
    const Bytes program =
        ProgramBuilder().primary(2, {5}, kFace).if_mask(0, "end", "end").label("end").build();
    EXPECT_NE(refusal(program).find("leaves the program"), std::string::npos);
    const Drawn d = draw_stop_there(program);
    ASSERT_EQ(d.events.size(), 3u); // winding, face, the switch
    const auto& flow = std::get<events::ControlFlow>(d.events.back());
    EXPECT_EQ(flow.next, 16); // 7 bytes of face, 9 of op 3
    ASSERT_EQ(d.stops.size(), 1u);
    EXPECT_EQ(d.stops[0].offset, 16u);
    EXPECT_TRUE(d.stops[0].ends_draw);
}

TEST(StopThere, RefuseIsStillTheDefault) {
    const Bytes program = ProgramBuilder().primary(2, {5}, kFace).raw({8}).build();
    RecordSpec spec;
    spec.vertices = square();
    spec.program = program;
    const auto models = ModelArchive::parse(build_model_archive({std::nullopt, spec}).bytes);
    EXPECT_THROW(decode_program(models, 1), FormatError);
    const Program p = decode_program(models, 1, nullptr, InvalidData::StopThere);
    ASSERT_TRUE(p.at(7).invalid.has_value());
    EXPECT_NE(p.at(7).invalid->find("unknown opcode 8"), std::string::npos);
    EXPECT_FALSE(p.at(0).invalid.has_value());
    EXPECT_THROW(ShadowRenderer(models).program(1), FormatError);
    EXPECT_NO_THROW(ShadowRenderer(models, InvalidData::StopThere).program(1));
}

// valid.extent.clamp: a vertex list whose count runs past its record's end is refused by the
// reimplementation's own reading (naming the record), and cut to the vertices that fit under
// CutLists::Clamp, where a face on a vertex past the cut is behind and the draw notes the cut.
TEST(StopThere, AVertexListCutByTheRecordsEndIsRefusedOrCutToWhatFits) {
    RecordSpec spec;
    spec.vertices = square();
    spec.program = ProgramBuilder().primary(2, {5}, kFace).primary(2, {6}, {{0}, {1}, {9}}).ret().build();
    Bytes bytes = build_model_archive({std::nullopt, spec}).bytes;
    const auto parsed = ModelArchive::parse(bytes);
    const ModelRecord& whole = parsed.record(1);
    const std::uint64_t list = whole.absolute(whole.header.vertices);
    bytes[list] = 0xe8; // 1000 vertices
    bytes[list + 1] = 0x03;
    try {
        (void)ModelArchive::parse(bytes);
        FAIL() << "a vertex list past its record's end was accepted";
    } catch (const FormatError& e) {
        EXPECT_EQ(e.where().record, 1u) << e.what();
    }
    const auto models = ModelArchive::parse(bytes, CutLists::Clamp);
    const ModelRecord& cut = models.record(1);
    EXPECT_EQ(cut.vertices.size(), (whole.extent.end - (list + 2)) / kVertexSize);
    EXPECT_GE(cut.vertices.size(), 4u); // the square's, and what follows the list in the record
    EXPECT_LT(cut.vertices.size(), 10u);
    ASSERT_EQ(cut.cut.size(), 1u);
    EXPECT_NE(cut.cut[0].find("vertex list"), std::string::npos) << cut.cut[0];

    const auto textures = TextureArchive::parse(build_texture_archive({}));
    DrawOptions options;
    options.invalid_data = InvalidData::StopThere;
    Interpreter interpreter(models, textures, options);
    events::VectorSink sink;
    interpreter.draw(construct(models, 1, Transform{}), DrawInput{front_camera(), Light{{0, 0, -kQ14One}}, 1},
                     sink);
    const auto stops = interpreter.take_stops();
    ASSERT_FALSE(stops.empty());
    EXPECT_EQ(stops.front().offset, 0u);
    EXPECT_FALSE(stops.front().ends_draw);
    EXPECT_EQ(stops.front().why, cut.cut[0]);
    ASSERT_EQ(stops.size(), 2u); // and the face on vertex 9, past the cut: behind
    EXPECT_FALSE(stops[1].ends_draw);
    EXPECT_EQ(faces(sink.events()), 1u);
}

// valid.shadow.none: shadow data naming no populated record is refused by the reimplementation's
// own shadow, and under StopThere casts no shadow (a stop that does not end anything else).
TEST(StopThere, ShadowDataNamingNoRecordCastsNoShadow) {
    RecordSpec spec;
    spec.vertices = square();
    spec.program = ProgramBuilder().primary(2, {5}, kFace).ret().build();
    spec.shadow = 7; // the archive has 2 slots
    spec.properties = kShadowCasterBit;
    const auto models = ModelArchive::parse(build_model_archive({std::nullopt, spec}).bytes);
    EXPECT_THROW((void)ShadowRenderer(models).geometry(1), FormatError);
    ShadowRenderer renderer(models, InvalidData::StopThere);
    EXPECT_FALSE(renderer.geometry(1));
    Frame frame;
    ShadowParams params;
    params.sun = {0, -kQ14One, 0};
    EXPECT_TRUE(renderer.draw(construct(models, 1, Transform{}), front_camera(), params, 0, frame).empty());
    const auto stops = renderer.take_stops();
    ASSERT_EQ(stops.size(), 2u); // geometry() above, and the draw
    EXPECT_NE(stops[1].why.find("names record 7"), std::string::npos) << stops[1].why;
    EXPECT_FALSE(stops[1].ends_draw);
}

} // namespace
} // namespace refcheck::reimpl
