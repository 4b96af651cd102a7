// reimpl/interpreter and face_event: event streams of hand-built models.
#include "refcheck/reimpl/interpreter.hpp"
#include "refcheck/reimpl/geometry.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "test_models.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;
using events::FaceFlag;

// One line per event: kind, record, path, offset and the fields that matter for order.
std::string summary(const events::Event& e) {
    struct Visitor {
        std::string operator()(const events::FaceDraw& f) const {
            return fmt::format("face r{} {} +{} op{} type{} {}", f.record, f.path, f.offset, f.opcode, f.type,
                               f.vertices);
        }
        std::string operator()(const events::AttachedDraw& a) const {
            return fmt::format("attach r{} {} +{} slot{} model{}", a.record, a.path, a.offset, a.slot,
                               a.model);
        }
        std::string operator()(const events::WindingDecision& w) const {
            return fmt::format("wind r{} {} +{} op{} {}", w.record, w.path, w.offset, w.opcode,
                               w.winding < 0 ? "neg" : "pos");
        }
        std::string operator()(const events::ControlFlow& c) const {
            return fmt::format("flow r{} {} +{} op{} value{} taken{}", c.record, c.path, c.offset, c.opcode,
                               c.value, c.taken);
        }
    };
    return std::visit(Visitor{}, e);
}

std::vector<std::string> summaries(const std::vector<events::Event>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) out.push_back(summary(e));
    return out;
}

// Looking along +z from z = -distance.
Camera front_camera(std::int32_t distance) {
    Camera c;
    c.position = {0, 0, -distance};
    return c;
}
// Looking along -z from z = +distance (right axis flipped, so windings flip).
Camera back_camera(std::int32_t distance) {
    Camera c;
    c.position = {0, 0, distance};
    c.rotation = {-kQ14One, 0, 0, 0, kQ14One, 0, 0, 0, -kQ14One};
    return c;
}

class InterpreterTest : public ::testing::Test {
protected:
    std::vector<events::Event> draw(std::uint32_t model, const Camera& camera, std::uint32_t state = 0,
                                    DrawOptions options = {}) {
        Interpreter interpreter(archive, textures, options);
        const Instance root = construct(archive, model, Transform{});
        events::VectorSink sink;
        interpreter.draw(root, DrawInput{camera, Light{{0, 0, -kQ14One}}, state}, sink);
        return sink.take();
    }
    BuiltArchive built = models_archive();
    ModelArchive archive = ModelArchive::parse(built.bytes);
    TextureArchive textures = TextureArchive::parse(textures_archive());
};

TEST_F(InterpreterTest, PrimaryEmitsWindingThenFaceAndANegativeWindingSkipsTheSecondary) {
    const auto events = draw(kTriangleModel, front_camera(1000));
    ASSERT_EQ(summaries(events),
              (std::vector<std::string>{"wind r2 [] +0 op0 neg", "face r2 [] +0 op0 type2 [0, 1, 2]"}));
    EXPECT_EQ(std::get<events::WindingDecision>(events[0]).winding, -1); // (80 * -80) >> 16
    const auto& f = std::get<events::FaceDraw>(events[1]);
    // x: (16383 * -160) >> 14 = -160, (16383 * 160) >> 14 = 159; sx = 160 + (x * 256) / 1000.
    const std::vector<events::ScreenVertex> screen{{120, 140, 1000}, {200, 140, 1000}, {160, 60, 1000}};
    EXPECT_EQ(f.screen, screen);
    EXPECT_FALSE(f.secondary);
    EXPECT_FALSE(f.clipped);
    EXPECT_EQ(f.material, (std::vector<std::uint8_t>{7}));
    EXPECT_EQ(f.texture, -1);
    EXPECT_EQ(f.u, (std::vector<std::int32_t>{0, 0, 0}));
    EXPECT_EQ(f.face_normal, -1);
    EXPECT_TRUE(f.vertex_normals.empty());
    EXPECT_EQ(f.face_level, 31);
    EXPECT_EQ(f.vertex_levels, (std::vector<std::int32_t>{31, 31, 31}));
    EXPECT_TRUE(f.flags.empty());
}

// abi.draw, abi.null: draw_3d_object_ as called with pointers: a null instance, camera or light draws
// nothing; with all three it draws what the reference form draws.
TEST_F(InterpreterTest, ANullInstanceCameraOrLightDrawsNothing) {
    Interpreter interpreter(archive, textures);
    const Instance root = construct(archive, kTriangleModel, Transform{});
    const Camera camera = front_camera(1000);
    const Light light{{0, 0, -kQ14One}};
    auto events_of = [&](const Instance* i, const Camera* c, const Light* l) {
        events::VectorSink sink;
        interpreter.draw(i, c, l, 0, sink);
        return summaries(sink.take());
    };
    EXPECT_TRUE(events_of(nullptr, &camera, &light).empty());
    EXPECT_TRUE(events_of(&root, nullptr, &light).empty());
    EXPECT_TRUE(events_of(&root, &camera, nullptr).empty());
    EXPECT_EQ(events_of(&root, &camera, &light), summaries(draw(kTriangleModel, camera)));
    EXPECT_FALSE(events_of(&root, &camera, &light).empty());
}

TEST_F(InterpreterTest, SecondaryIsDrawnAfterANonNegativeWindingWithItsShadedLevel) {
    const auto events = draw(kTriangleModel, back_camera(1000));
    ASSERT_EQ(summaries(events),
              (std::vector<std::string>{"wind r2 [] +0 op0 pos", "face r2 [] +0 op0 type2 [0, 1, 2]",
                                        "face r2 [] +7 op1 type11 [0, 2, 1]"}));
    const auto& s = std::get<events::FaceDraw>(events[2]);
    EXPECT_TRUE(s.secondary);
    EXPECT_EQ(s.material, (std::vector<std::uint8_t>{9, 1}));
    EXPECT_EQ(s.face_normal, 1);
    // Light (0, 0, -16384) in model space: (0x7fffffff * -16384) >> 31 floors to -16384;
    // normal 1 (0, 0, -64): (-64 * -16384) >> 14 = 64; 64 >> 2 = 16.
    EXPECT_EQ(s.face_level, 16);
    EXPECT_EQ(s.vertex_levels, (std::vector<std::int32_t>{16, 16, 16}));
}

TEST_F(InterpreterTest, AVertexBehindTheCameraDrawsNothingAndCullsTheSecondary) {
    EXPECT_TRUE(draw(kTriangleModel, front_camera(10)).empty());
    EXPECT_TRUE(draw(kTriangleModel, back_camera(63)).empty());
}

TEST_F(InterpreterTest, ControlOpcodesWithStateZero) {
    const ProgramBuilder b = control_program();
    const auto events = draw(kControlModel, front_camera(2000), 0);
    const auto at = [&b](const char* label) { return b.offset(label); };
    const std::vector<std::string> expected{
        "wind r1 [] +0 op0 neg",
        "face r1 [] +0 op0 type2 [0, 1, 2]",
        fmt::format("wind r1 [] +{} op2 neg", at("plane")),
        fmt::format("wind r1 [] +{} op0 neg", at("front")), // front first for a negative plane
        fmt::format("face r1 [] +{} op0 type11 [1, 2, 3]", at("front")),
        // back: a secondary after a negative last winding draws nothing
        fmt::format("flow r1 [] +{} op3 value0 taken0", at("after_plane")),
        fmt::format("flow r1 [] +{} op4 value0 taken0", at("after_if")),
        fmt::format("flow r1 [] +{} op5 value0 taken0", at("after_choose")),
        fmt::format("wind r1 [] +{} op0 neg", at("case0")),
        fmt::format("face r1 [] +{} op0 type4 [0, 1, 2]", at("case0")),
        fmt::format("attach r1 [] +{} slot0 model2", at("after_select")),
        "wind r2 [0] +0 op0 neg",
        "face r2 [0] +0 op0 type2 [0, 1, 2]",
    };
    EXPECT_EQ(summaries(events), expected);
    const auto& flow = std::get<events::ControlFlow>(events[7]);
    EXPECT_EQ(flow.target, at("case0"));
    const auto& attach = std::get<events::AttachedDraw>(events[10]);
    EXPECT_EQ(attach.position, (Vec3{0, 0, 99})); // (0x7fffffff * 100) >> 31
    EXPECT_EQ(attach.rotation[0], 0x7ffffffe);
}

TEST_F(InterpreterTest, ControlOpcodesWithBitsSetAndASelectPastItsTable) {
    const ProgramBuilder b = control_program();
    const auto at = [&b](const char* label) { return b.offset(label); };
    auto events = summaries(draw(kControlModel, front_camera(2000), 0x13));
    // bit 0: ifmask runs "lit" (two points: no winding); bit 1: choose runs "set"; (0x13 >> 4) & 3 = 1.
    std::vector<std::string> middle(events.begin() + 5, events.begin() + 12);
    EXPECT_EQ(middle, (std::vector<std::string>{
                          fmt::format("flow r1 [] +{} op3 value1 taken1", at("after_plane")),
                          fmt::format("face r1 [] +{} op0 type0 [0, 1]", at("lit")),
                          fmt::format("flow r1 [] +{} op4 value2 taken1", at("after_if")),
                          fmt::format("face r1 [] +{} op0 type1 [0, 3]", at("set")),
                          fmt::format("flow r1 [] +{} op5 value1 taken1", at("after_choose")),
                          fmt::format("wind r1 [] +{} op0 neg", at("case1")),
                          fmt::format("face r1 [] +{} op0 type5 [0, 1, 3]", at("case1")),
                      }));
    // (0x21 >> 4) & 3 = 2: past the two authored cases, nothing runs and execution continues.
    events = summaries(draw(kControlModel, front_camera(2000), 0x21));
    const auto it = std::find(events.begin(), events.end(),
                              fmt::format("flow r1 [] +{} op5 value2 taken-1", at("after_choose")));
    ASSERT_NE(it, events.end());
    EXPECT_EQ(*(it + 1), fmt::format("attach r1 [] +{} slot0 model2", at("after_select")));
}

TEST_F(InterpreterTest, PlaneRunsBackThenFrontForANonNegativeWinding) {
    const ProgramBuilder b = control_program();
    const auto events = summaries(draw(kControlModel, back_camera(2000), 0));
    EXPECT_EQ(events[2], fmt::format("wind r1 [] +{} op2 pos", b.offset("plane")));
    // back first: its secondary follows the positive winding of the primary at +0.
    EXPECT_EQ(events[3], fmt::format("face r1 [] +{} op1 type2 [3, 2, 1]", b.offset("back")));
    EXPECT_EQ(events[4], fmt::format("wind r1 [] +{} op0 pos", b.offset("front")));
}

TEST_F(InterpreterTest, GridFacesCarryTheirFaultFlags) {
    const auto events = draw(kMaterialsModel, back_camera(20000));
    std::map<int, events::FaceDraw> faces;
    for (const auto& e : events) {
        if (const auto* f = std::get_if<events::FaceDraw>(&e)) faces[f->type] = *f;
    }
    ASSERT_EQ(faces.size(), 16u);
    for (const auto& [type, f] : faces) EXPECT_TRUE(f.flags.has(FaceFlag::GridRounding)) << type;
    EXPECT_EQ(faces[7].flags, events::FaceFlags(FaceFlag::GridRounding)); // u, v <= 63: no texture flag
    EXPECT_EQ(faces[16].flags,
              FaceFlag::GridRounding | FaceFlag::TextureRightEdge | FaceFlag::TexturePastImage);
    EXPECT_EQ(faces[16].u, (std::vector<std::int32_t>{0, 64, 64, 0}));
    EXPECT_EQ(faces[16].texture, 1);
    // Missing normals: a vertex normal (18) or the face normal (14). Only the levels a missing normal
    // gives are reported as 31 (and marked in missing_levels); the lit ones keep their values.
    EXPECT_EQ(faces[18].flags, FaceFlag::GridRounding | FaceFlag::MissingNormal);
    EXPECT_EQ(faces[18].vertex_levels, (std::vector<std::int32_t>{31, 16, 31}));
    EXPECT_EQ(faces[18].missing_levels, (std::vector<std::uint8_t>{0, 0, 0, 1}));
    EXPECT_EQ(faces[18].vertex_normals, (std::vector<std::int32_t>{0, 1, 5}));
    EXPECT_EQ(faces[14].flags, FaceFlag::GridRounding | FaceFlag::MissingNormal);
    EXPECT_EQ(faces[14].face_level, 31);
    EXPECT_EQ(faces[14].missing_levels[0], 1);
    EXPECT_TRUE(faces[17].missing_levels.empty());
    // Gouraud 17: face normal 0 -> 31; vertex normals 0, 1, 2 -> 31, 16, 0 (normal 2 is (127, 0, 0)).
    EXPECT_EQ(faces[17].face_level, 31);
    EXPECT_EQ(faces[17].vertex_levels, (std::vector<std::int32_t>{31, 16, 0}));
    EXPECT_TRUE(faces[17].flags == events::FaceFlags(FaceFlag::GridRounding));
    // Shaded 9 (face normal 2): level 0 at every vertex.
    EXPECT_EQ(faces[9].vertex_levels, (std::vector<std::int32_t>{0, 0}));
}

// div.grid_tolerance's box is drawn around each grid vertex's camera-space point: every grid face
// carries one per vertex, the point its screen vertex is the projection of (geo.project); an s16
// face carries none.
TEST_F(InterpreterTest, GridFacesCarryTheCameraPointsTheirScreenVerticesProjectFrom) {
    std::size_t grid_faces = 0;
    for (const auto& e : draw(kMaterialsModel, back_camera(20000))) {
        const auto* f = std::get_if<events::FaceDraw>(&e);
        if (!f) continue;
        ++grid_faces;
        ASSERT_EQ(f->camera.size(), f->screen.size()) << int{f->type};
        for (std::size_t k = 0; k < f->camera.size(); ++k) {
            const ScreenPoint p = project(f->camera[k]);
            EXPECT_EQ((events::ScreenVertex{p.sx, p.sy, p.z}), f->screen[k])
                << int{f->type} << " vertex " << k;
        }
    }
    EXPECT_EQ(grid_faces, 16u);
    for (const auto& e : draw(kControlModel, front_camera(2000), 0)) {
        if (const auto* f = std::get_if<events::FaceDraw>(&e)) {
            EXPECT_TRUE(f->camera.empty());
        }
    }
}

TEST_F(InterpreterTest, GouraudOffUsesTheFaceLevelAndTheFlatCount) {
    RecordSpec r;
    r.vertices = {s16_vertex(-10, -10, 0), s16_vertex(10, -10, 0), s16_vertex(0, 10, 0)};
    r.normals = std::vector<std::array<std::int8_t, 3>>{{0, 0, -127}, {0, 0, -64}, {0, 0, 0}};
    r.count_flat = 1;
    r.program = ProgramBuilder()
                    .primary(17, {3, 0}, {{0, 1}, {1, 2}, {2, 9}})
                    .primary(11, {3, 1}, {{0}, {1}, {2}})
                    .ret()
                    .build();
    const ModelArchive a = ModelArchive::parse(build_model_archive({r}).bytes);
    const auto faces_of = [&](bool gouraud) {
        Interpreter interpreter(a, textures, DrawOptions{gouraud});
        events::VectorSink sink;
        interpreter.draw(construct(a, 0, Transform{}),
                         DrawInput{front_camera(1000), Light{{0, 0, -kQ14One}}, 0}, sink);
        std::vector<events::FaceDraw> faces;
        for (const auto& e : sink.events()) {
            if (const auto* f = std::get_if<events::FaceDraw>(&e)) faces.push_back(*f);
        }
        return faces;
    };
    const auto on = faces_of(true);
    ASSERT_EQ(on.size(), 2u);
    EXPECT_TRUE(on[0].flags.has(FaceFlag::MissingNormal)); // vertex normal 9 >= 3
    EXPECT_EQ(on[1].face_level, 16);
    const auto off = faces_of(false);
    ASSERT_EQ(off.size(), 2u);
    EXPECT_TRUE(off[0].flags.empty()); // vertex normals are not read with Gouraud off
    EXPECT_EQ(off[0].vertex_levels, (std::vector<std::int32_t>{31, 31, 31}));
    EXPECT_TRUE(off[1].flags.has(FaceFlag::MissingNormal)); // normal 1 >= the flat count 1

    // light.missing.lit: a grid model computes any stored normal on demand, so with Gouraud off
    // normal 1 (not below count_all) is still lit.
    r.encoding = 1;
    r.vertices = {grid_vertex(31, 31, 32, 0, 0, 32), grid_vertex(33, 31, 32, 0, 0, 32),
                  grid_vertex(33, 33, 32, 0, 0, 32)};
    const ModelArchive g = ModelArchive::parse(build_model_archive({r}).bytes);
    Interpreter interpreter(g, textures, DrawOptions{false});
    events::VectorSink sink;
    interpreter.draw(construct(g, 0, Transform{}), DrawInput{front_camera(20000), Light{{0, 0, -kQ14One}}, 0},
                     sink);
    ASSERT_EQ(sink.events().size(), 4u); // winding and face, twice
    const auto& lit = std::get<events::FaceDraw>(sink.events()[3]);
    EXPECT_EQ(lit.type, 11);
    EXPECT_EQ(lit.flags, events::FaceFlags(FaceFlag::GridRounding));
    EXPECT_EQ(lit.face_level, 16);
}

TEST_F(InterpreterTest, NestingDeeperThan32IsInvalidWhenReached) {
    ProgramBuilder b;
    for (int k = 0; k < 33; ++k)
        b.label(fmt::format("n{}", k)).if_mask(1, fmt::format("n{}", k + 1), fmt::format("r{}", k));
    b.label("n33").ret();
    for (int k = 0; k < 33; ++k) b.label(fmt::format("r{}", k)).ret();
    RecordSpec r;
    r.program = b.build();
    const ModelArchive a = ModelArchive::parse(build_model_archive({r}).bytes);
    Interpreter interpreter(a, textures);
    events::VectorSink sink;
    const Instance root = construct(a, 0, Transform{});
    EXPECT_NO_THROW(interpreter.draw(root, DrawInput{front_camera(1000), Light{}, 0}, sink));
    try {
        interpreter.draw(root, DrawInput{front_camera(1000), Light{}, 1}, sink);
        FAIL() << "no error";
    } catch (const FormatError& e) {
        EXPECT_EQ(e.detail(), fmt::format("program +0x{:x}: branch nesting deeper than 32 (op.nesting)",
                                          b.offset("n32")));
        EXPECT_EQ(e.where().record, 0u);
    }
}

// Stage k runs stage k+1 twice (a plane whose branches coincide): 3 * 2^stages - 2 steps.
ModelArchive doubling_chain(int stages) {
    ProgramBuilder b;
    for (int k = 0; k < stages; ++k) {
        b.label(fmt::format("s{}", k))
            .plane(0, 1, 2, fmt::format("s{}", k + 1), fmt::format("s{}", k + 1), fmt::format("r{}", k));
        b.label(fmt::format("r{}", k)).ret();
    }
    b.label(fmt::format("s{}", stages)).ret();
    RecordSpec r;
    r.vertices = {s16_vertex(0, 0, 0), s16_vertex(1, 0, 0), s16_vertex(0, 1, 0)};
    r.program = b.build();
    return ModelArchive::parse(build_model_archive({r}).bytes);
}

TEST_F(InterpreterTest, MoreThan65536StepsIsInvalid) {
    const ModelArchive fits = doubling_chain(14); // 49,150 steps
    Interpreter ok(fits, textures);
    events::VectorSink sink;
    EXPECT_NO_THROW(
        ok.draw(construct(fits, 0, Transform{}), DrawInput{front_camera(1000), Light{}, 0}, sink));
    EXPECT_EQ(sink.events().size(), (1u << 14) - 1);  // one winding per plane run
    const ModelArchive too_long = doubling_chain(15); // 98,302 steps
    Interpreter bad(too_long, textures);
    try {
        bad.draw(construct(too_long, 0, Transform{}), DrawInput{front_camera(1000), Light{}, 0}, sink);
        FAIL() << "no error";
    } catch (const FormatError& e) {
        EXPECT_TRUE(e.detail().ends_with("more than 65536 instructions executed (op.steps)")) << e.detail();
    }
}

} // namespace
} // namespace refcheck::reimpl
