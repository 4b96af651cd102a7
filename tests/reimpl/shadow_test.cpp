// reimpl/shadow: the shadow renderer on hand-built models (spec section 15), with screen positions
// worked by hand from the spec's formulas, and over every s16 model of the small synthetic archive.
#include "refcheck/reimpl/shadow.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include <gtest/gtest.h>

#include "archive_builder.hpp"
#ifdef REFCHECK_REIMPL_SYNTH_DIR
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "refcheck/reimpl/file_bytes.hpp"
#endif

namespace refcheck::reimpl {
namespace {

using namespace testing;
using Screen = std::vector<events::ScreenVertex>;

constexpr std::uint32_t kCaster = 1;

// A square of side 150 (s16), local +-1200, in the plane y = 0.
std::vector<RawVertex> square() {
    return {s16_vertex(-75, 0, -75), s16_vertex(75, 0, -75), s16_vertex(75, 0, 75), s16_vertex(-75, 0, 75)};
}
Bytes square_program(std::uint8_t type = 2) {
    const PrimitiveInfo& info = *primitive_info(type);
    const Bytes material(info.header_size - 2, 0);
    std::vector<Bytes> vertices;
    for (std::uint8_t k = 0; k < 4; ++k) {
        Bytes v(info.vertex_size, 0);
        v[0] = k;
        vertices.push_back(v);
    }
    return ProgramBuilder().primary(type, material, vertices).ret().build();
}
RecordSpec model(Bytes program, std::uint32_t properties = kCaster,
                 std::vector<RawVertex> vertices = square()) {
    RecordSpec r;
    r.vertices = std::move(vertices);
    r.program = std::move(program);
    r.properties = properties;
    return r;
}
RecordSpec null_model() {
    RecordSpec r;
    r.has_vertices = false;
    r.program = Bytes{7};
    return r;
}

// Looking straight down from y = 5000: cam = (x, z, 5000 - y).
Camera top_down() {
    Camera c;
    c.position = {0, 5000, 0};
    c.rotation = {kQ14One, 0, 0, 0, 0, kQ14One, 0, -kQ14One, 0};
    return c;
}
ShadowParams sun(std::int32_t dx, std::int32_t dy, std::int32_t dz, std::int32_t plane = 200) {
    ShadowParams p;
    p.sun = {dx, dy, dz};
    p.plane_height = plane;
    return p;
}
const Transform kAt1000{{0, 1000, 0}, kIdentityQ31};

// The expected frame: `pattern` pixels of [x0, x1) x [y0, y1) set to 0.
Frame rectangle(std::int32_t x0, std::int32_t y0, std::int32_t x1, std::int32_t y1, std::int32_t pattern) {
    Frame f;
    for (std::int32_t y = y0; y < y1; ++y) {
        for (std::int32_t x = x0; x < x1; ++x) {
            if (((x + y) & pattern) == 0) f.pixels[y * kFrameWidth + x] = 0;
        }
    }
    return f;
}

struct Drawn {
    std::vector<ShadowFace> faces;
    Frame frame;
};

Drawn draw(const ModelArchive& archive, std::uint32_t record, const ShadowParams& params,
           std::uint32_t state = 0, const Transform& at = kAt1000) {
    Drawn d;
    d.faces = draw_shadow(archive, construct(archive, record, at), top_down(), params, state, d.frame);
    return d;
}

ModelArchive archive_of(const std::vector<std::optional<RecordSpec>>& slots) {
    return ModelArchive::parse(build_model_archive(slots).bytes);
}

// Square vertex world positions are (-1200 or 1199, 1000, -1200 or 1199): Q31 identity floors.
TEST(ShadowProjection, StraightDownSunDrawsTheFootprintOnThePlane) {
    const ModelArchive archive = archive_of({null_model(), model(square_program())});
    const Drawn d = draw(archive, 1, sun(0, -kQ14One, 0));
    ASSERT_EQ(d.faces.size(), 1u);
    EXPECT_EQ(d.faces[0].screen,
              (Screen{{96, 164, 4800}, {223, 164, 4800}, {223, 37, 4800}, {96, 37, 4800}}));
    EXPECT_EQ(d.faces[0].mesh, ShadowMesh::Fine);
    EXPECT_EQ(d.faces[0].record, 1u);
    EXPECT_EQ(d.faces[0].offset, 0u);
    EXPECT_EQ(d.frame.pixels, rectangle(96, 37, 223, 164, 1).pixels);
}

// abi.shadow_draw, abi.null: a null instance, camera or parameters draws no face and no pixel.
TEST(ShadowProjection, ANullInstanceCameraOrParametersDrawsNothing) {
    const ModelArchive archive = archive_of({null_model(), model(square_program())});
    const Instance root = construct(archive, 1, kAt1000);
    const Camera camera = top_down();
    const ShadowParams params = sun(0, -kQ14One, 0);
    ShadowRenderer renderer(archive);
    Frame blank;
    for (int missing = 0; missing < 3; ++missing) {
        Frame frame;
        EXPECT_TRUE(renderer
                        .draw(missing == 0 ? nullptr : &root, missing == 1 ? nullptr : &camera,
                              missing == 2 ? nullptr : &params, 0, frame)
                        .empty())
            << missing;
        EXPECT_EQ(frame.pixels, blank.pixels) << missing;
    }
    Frame frame;
    EXPECT_EQ(renderer.draw(&root, &camera, &params, 0, frame).size(), 1u);
}

TEST(ShadowProjection, SlantedSunShiftsAlongItsDirectionByHeightAboveThePlane) {
    const ModelArchive archive = archive_of({null_model(), model(square_program())});
    // d = (1, -1, 0): x moves by +800 (the height 1000 - 200).
    EXPECT_EQ(draw(archive, 1, sun(kQ14One, -kQ14One, 0)).faces.at(0).screen,
              (Screen{{139, 164, 4800}, {266, 164, 4800}, {266, 37, 4800}, {139, 37, 4800}}));
    // d = (0.5, -1, -0.25): x + 400, z - 200; the quotients truncate toward zero (-42.67 -> -42).
    EXPECT_EQ(draw(archive, 1, sun(8192, -kQ14One, -4096)).faces.at(0).screen,
              (Screen{{118, 174, 4800}, {245, 174, 4800}, {245, 47, 4800}, {118, 47, 4800}}));
}

TEST(ShadowProjection, ThePlaneHeightSetsTheDepth) {
    const ModelArchive archive = archive_of({null_model(), model(square_program())});
    const Drawn d = draw(archive, 1, sun(0, -kQ14One, 0, 2600));
    EXPECT_EQ(d.faces.at(0).screen,
              (Screen{{32, 228, 2400}, {287, 228, 2400}, {287, -27, 2400}, {32, -27, 2400}}));
    EXPECT_EQ(d.frame.pixels, rectangle(32, 0, 287, 200, 1).pixels);
}

TEST(ShadowProjection, ArithmeticOfOneVertex) {
    EXPECT_EQ(project_to_plane({100, 1000, 50}, {8192, -kQ14One, 4096}, 200), (Vec3{500, 200, 250}));
    EXPECT_EQ(project_to_plane({10, 7, 10}, {3, -2, -3}, 2), (Vec3{17, 2, 3})); // 15 / -2 = -7, -15 / -2 = 7
    EXPECT_EQ(project_to_plane({0, -100, 0}, {kQ14One, -kQ14One, 0}, 0),
              (Vec3{-100, 0, 0})); // below the plane
    EXPECT_THROW(project_to_plane({0, 0, 0}, {0, 0, kQ14One}, 0), std::invalid_argument);
}

TEST(ShadowProjection, ASunThatIsNotFallingDrawsNothing) {
    const ModelArchive archive = archive_of({null_model(), model(square_program())});
    for (const ShadowParams& p : {sun(0, 0, kQ14One), sun(0, 1, 0), sun(kQ14One, kQ14One, 0)}) {
        const Drawn d = draw(archive, 1, p);
        EXPECT_TRUE(d.faces.empty());
        EXPECT_EQ(d.frame.pixels, Frame().pixels);
    }
}

TEST(ShadowProjection, GridVerticesAreDecodedExactly) {
    // (c - 32) * 4096 + (f - 32) * 64 = +-1216.
    const std::vector<RawVertex> grid{
        grid_vertex(32, 32, 32, 13, 32, 13), grid_vertex(32, 32, 32, 51, 32, 13),
        grid_vertex(32, 32, 32, 51, 32, 51), grid_vertex(32, 32, 32, 13, 32, 51)};
    RecordSpec spec = model(square_program(), kCaster, grid);
    spec.encoding = 1;
    const ModelArchive archive = archive_of({null_model(), spec});
    EXPECT_EQ(draw(archive, 1, sun(0, -kQ14One, 0)).faces.at(0).screen,
              (Screen{{96, 164, 4800}, {224, 164, 4800}, {224, 36, 4800}, {96, 36, 4800}}));
}

TEST(ShadowFaces, MeshByPrimitiveType) {
    for (std::uint8_t type = 0; type < kPrimitiveTypeCount; ++type) {
        const ModelArchive archive = archive_of({null_model(), model(square_program(type))});
        const Drawn d = draw(archive, 1, sun(0, -kQ14One, 0));
        const bool none = type == 0 || type == 1 || type == 9 || type == 10 || type == 21;
        SCOPED_TRACE(static_cast<int>(type));
        EXPECT_EQ(shadow_mesh(type).has_value(), !none);
        if (none) {
            EXPECT_TRUE(d.faces.empty());
            EXPECT_EQ(d.frame.pixels, Frame().pixels);
            continue;
        }
        ASSERT_EQ(d.faces.size(), 1u);
        EXPECT_EQ(d.faces[0].type, type);
        const bool glass = type == 6;
        EXPECT_EQ(d.faces[0].mesh, glass ? ShadowMesh::Medium : ShadowMesh::Fine);
        EXPECT_EQ(d.frame.pixels, rectangle(96, 37, 223, 164, glass ? 3 : 1).pixels);
    }
}

TEST(ShadowFaces, DrawShadowFaceWritesIndexZeroAndClearsTheTaint) {
    Frame frame;
    std::fill(frame.taint.begin(), frame.taint.end(), 0x5);
    draw_shadow_face(Screen{{10, 10, 100}, {14, 10, 100}, {14, 14, 100}, {10, 14, 100}}, ShadowMesh::Medium,
                     frame);
    for (std::int32_t y = 8; y < 16; ++y) {
        for (std::int32_t x = 8; x < 16; ++x) {
            const bool drawn = x >= 10 && x < 14 && y >= 10 && y < 14 && ((x + y) & 3) == 0;
            EXPECT_EQ(frame.at(x, y), drawn ? 0 : kClearColour) << x << "," << y;
            EXPECT_EQ(frame.flags_at(x, y).bits(), drawn ? 0u : 0x5u) << x << "," << y;
        }
    }
}

// Screen of the square: (96,164) (223,164) (223,37) (96,37); w(0,1,2) = -1, w(0,3,2) = 0.
TEST(ShadowFaces, SecondaryFacesAndPlanesFollowTheWindingOnThePlane) {
    const auto program = [](bool reversed) {
        ProgramBuilder p;
        if (reversed) {
            p.primary(2, {1}, {{0}, {3}, {2}, {1}});
        } else {
            p.primary(2, {1}, {{0}, {1}, {2}, {3}});
        }
        p.secondary(4, {1}, {{0}, {1}, {2}});
        p.plane(0, reversed ? 3 : 1, 2, "front", "back", "cont");
        p.label("cont").ret();
        p.label("front").primary(5, {1}, {{0}, {1}, {2}}).ret();
        p.label("back").primary(6, {}, {{0}, {1}, {2}}).ret();
        return p.build();
    };
    const auto types = [](const std::vector<ShadowFace>& faces) {
        std::vector<int> out;
        for (const auto& f : faces) out.push_back(f.type);
        return out;
    };
    const ModelArchive archive = archive_of({null_model(), model(program(false)), model(program(true))});
    EXPECT_EQ(types(draw(archive, 1, sun(0, -kQ14One, 0)).faces), (std::vector<int>{2, 5, 6}));
    EXPECT_EQ(types(draw(archive, 2, sun(0, -kQ14One, 0)).faces), (std::vector<int>{2, 4, 6, 5}));
}

TEST(ShadowFaces, TheAnimationStateSelectsAsInTheDrawProgram) {
    ProgramBuilder p;
    p.select(1, 0x3, {"c0", "c1"}, "next");
    p.label("next").if_mask(0x10, "lit", "end");
    p.label("end").ret();
    p.label("c0").primary(2, {1}, {{0}, {1}, {2}}).ret();
    p.label("c1").primary(3, {1, 2}, {{0}, {1}, {2}}).ret();
    p.label("lit").primary(4, {1}, {{0}, {1}, {2}}).ret();
    const ModelArchive archive = archive_of({null_model(), model(p.build())});
    const auto types = [&](std::uint32_t state) {
        std::vector<int> out;
        for (const auto& f : draw(archive, 1, sun(0, -kQ14One, 0), state).faces) out.push_back(f.type);
        return out;
    };
    EXPECT_EQ(types(0x0), (std::vector<int>{2}));
    EXPECT_EQ(types(0x2), (std::vector<int>{3}));
    EXPECT_EQ(types(0x16), (std::vector<int>{4})); // value 3: past the table, no case
}

TEST(ShadowFaces, NestingBeyondTheLimitIsInvalidData) {
    ProgramBuilder p;
    for (int i = 0; i <= 33; ++i)
        p.label("n" + std::to_string(i)).if_mask(1, "n" + std::to_string(i + 1), "end");
    p.label("n34").ret();
    p.label("end").ret();
    const ModelArchive archive = archive_of({null_model(), model(p.build())});
    EXPECT_NO_THROW(draw(archive, 1, sun(0, -kQ14One, 0), 0));
    EXPECT_THROW(draw(archive, 1, sun(0, -kQ14One, 0), 1), FormatError);
}

TEST(ShadowCaster, OnlyTheRootsCasterBitCounts) {
    RecordSpec root = model(ProgramBuilder().primary(2, {1}, {{0}, {1}, {2}}).attach(0).ret().build(), 0);
    root.attachments = std::vector<Attachment>{attachment(2, {0, 0, 0})};
    const ModelArchive archive = archive_of({null_model(), root, model(square_program(), kCaster)});
    const Drawn d = draw(archive, 1, sun(0, -kQ14One, 0));
    EXPECT_TRUE(d.faces.empty()); // a casting child does not make its parent cast
    EXPECT_EQ(d.frame.pixels, Frame().pixels);
    EXPECT_EQ(draw(archive, 2, sun(0, -kQ14One, 0)).faces.size(), 1u);
}

// The child triangle (0,0,0) (1200,0,0) (0,0,1200) sits 2400 along x: position x 2399, rotation
// diagonal 0x7ffffffe, so its world vertices are (2399, 0) (3598, 0) (2399, 1199) in x, z.
TEST(ShadowAttachments, FilledSlotsRecurseWithTheChildsTransform) {
    RecordSpec child = model(ProgramBuilder().primary(2, {1}, {{0}, {1}, {2}}).ret().build(), 0,
                             {s16_vertex(0, 0, 0), s16_vertex(75, 0, 0), s16_vertex(0, 0, 75)});
    RecordSpec root =
        model(ProgramBuilder().primary(2, {1}, {{0}, {1}, {2}, {3}}).attach(1).attach(0).ret().build());
    root.attachments = std::vector<Attachment>{attachment(2, {2400, 0, 0}), attachment(0, {0, 0, 0})};
    const ModelArchive archive = archive_of({null_model(), root, child});
    const Drawn d = draw(archive, 1, sun(0, -kQ14One, 0));
    ASSERT_EQ(d.faces.size(), 2u);
    EXPECT_EQ(d.faces[1].record, 2u);
    EXPECT_EQ(d.faces[1].path, (std::vector<std::int32_t>{0}));
    EXPECT_EQ(d.faces[1].screen, (Screen{{287, 100, 4800}, {351, 100, 4800}, {287, 37, 4800}}));
}

TEST(ShadowGeometry, TheShadowDataNamesTheRecordWhoseGeometryIsDrawn) {
    RecordSpec uses_3 = model(square_program());
    uses_3.shadow = 3;
    RecordSpec self = model(square_program());
    self.shadow = -1;
    const RecordSpec triangle = model(ProgramBuilder().primary(11, {1, 0}, {{0}, {1}, {2}}).ret().build(), 0,
                                      {s16_vertex(0, 0, 0), s16_vertex(75, 0, 0), s16_vertex(0, 0, 75)});
    RecordSpec names_empty = model(square_program());
    names_empty.shadow = 5;
    RecordSpec negative = model(square_program());
    negative.shadow = -2;
    RecordSpec past = model(square_program());
    past.shadow = 99;
    const ModelArchive archive =
        archive_of({null_model(), uses_3, self, triangle, names_empty, std::nullopt, negative, past});
    EXPECT_EQ(shadow_geometry(archive, 1), 3u);
    EXPECT_EQ(shadow_geometry(archive, 2), 2u);
    EXPECT_EQ(shadow_geometry(archive, 3), 3u); // absent block: itself
    const Drawn d = draw(archive, 1, sun(0, -kQ14One, 0));
    ASSERT_EQ(d.faces.size(), 1u);
    EXPECT_EQ(d.faces[0].record, 3u);
    EXPECT_EQ(d.faces[0].type, 11);
    EXPECT_EQ(d.faces[0].screen, (Screen{{160, 100, 4800}, {223, 100, 4800}, {160, 37, 4800}}));
    EXPECT_EQ(draw(archive, 2, sun(0, -kQ14One, 0)).faces.at(0).record, 2u);
    EXPECT_TRUE(draw(archive, 3, sun(0, -kQ14One, 0)).faces.empty()); // record 3 itself does not cast
    EXPECT_THROW(shadow_geometry(archive, 4), FormatError);
    EXPECT_THROW(shadow_geometry(archive, 6), FormatError);
    EXPECT_THROW(shadow_geometry(archive, 7), FormatError);
    EXPECT_THROW(draw(archive, 4, sun(0, -kQ14One, 0)), FormatError);
}

// Op 6 of a borrowed program addresses the drawn instance's slots.
TEST(ShadowGeometry, BorrowedProgramsAttachTheDrawnInstancesChildren) {
    RecordSpec geometry = model(ProgramBuilder().attach(1).ret().build(), 0);
    geometry.attachments = std::vector<Attachment>{attachment(0, {0, 0, 0}), attachment(0, {0, 0, 0})};
    RecordSpec drawn = model(square_program());
    drawn.shadow = 2;
    drawn.attachments = std::vector<Attachment>{attachment(0, {0, 0, 0}), attachment(4, {0, 0, 0})};
    RecordSpec too_few = model(square_program());
    too_few.shadow = 2;
    RecordSpec child = model(square_program(5), 0);
    child.shadow = 5; // the child applies the rule to its own model
    const RecordSpec child_geometry = model(square_program(13), 0);
    const ModelArchive archive = archive_of({null_model(), drawn, geometry, too_few, child, child_geometry});
    const Drawn d = draw(archive, 1, sun(0, -kQ14One, 0));
    ASSERT_EQ(d.faces.size(), 1u);
    EXPECT_EQ(d.faces[0].record, 5u);
    EXPECT_EQ(d.faces[0].type, 13);
    EXPECT_EQ(d.faces[0].path, (std::vector<std::int32_t>{1}));
    EXPECT_THROW(draw(archive, 3, sun(0, -kQ14One, 0)), FormatError);
}

// 0x4ba and 0x4bb draw with 0x40a's vertices and program, even over their own shadow data.
TEST(ShadowGeometry, ApacheModelsTakeTheirShadowFromModel0x40a) {
    std::vector<std::optional<RecordSpec>> slots(0x4bc);
    slots[0] = null_model();
    slots[0x409] = model(square_program());
    slots[0x40a] = model(ProgramBuilder().primary(2, {1}, {{0}, {1}, {2}}).ret().build(), 0,
                         {s16_vertex(0, 0, 0), s16_vertex(75, 0, 0), s16_vertex(0, 0, 75)});
    slots[0x4ba] = model(square_program());
    slots[0x4bb] = model(square_program());
    slots[0x4bb]->shadow = 0x409;
    const ModelArchive archive = archive_of(slots);
    for (std::uint32_t apache : {0x4bau, 0x4bbu}) {
        EXPECT_EQ(shadow_geometry(archive, apache), 0x40au);
        const Drawn d = draw(archive, apache, sun(0, -kQ14One, 0));
        ASSERT_EQ(d.faces.size(), 1u);
        EXPECT_EQ(d.faces[0].record, 0x40au);
        EXPECT_EQ(d.faces[0].screen, (Screen{{160, 100, 4800}, {223, 100, 4800}, {160, 37, 4800}}));
    }
    EXPECT_EQ(draw(archive, 0x409, sun(0, -kQ14One, 0)).faces.at(0).record, 0x409u);
    slots[0x40a].reset();
    const ModelArchive without = archive_of(slots);
    EXPECT_THROW(shadow_geometry(without, 0x4ba), FormatError);
}

#ifdef REFCHECK_REIMPL_SYNTH_DIR
class ShadowSynth : public ::testing::Test {
protected:
    static std::filesystem::path root() { return REFCHECK_REIMPL_SYNTH_DIR; }
    ModelArchive archive = ModelArchive::parse(read_file_bytes(root() / "3DDATA" / "3DOBJS.BIN"));
    nlohmann::json census = nlohmann::json::parse(std::ifstream(root() / "census.json"));
};

// Every s16 model of the small synthetic archive, seen from above with a slanted sun, draws its
// shadow without error; the casters draw faces.
TEST_F(ShadowSynth, EveryS16ModelDrawsItsShadow) {
    ShadowRenderer renderer(archive);
    std::size_t models = 0, casters = 0, faces = 0;
    for (std::uint32_t i = 0; i < archive.count(); ++i) {
        if (!archive.populated(i) || archive.record(i).encoding != Encoding::S16) continue;
        ++models;
        const std::int32_t radius = std::clamp(archive.record(i).header.radius, 256, 1 << 20);
        Camera camera = top_down();
        camera.position = {0, 8 * radius, 0};
        const Instance instance = construct(archive, i, Transform{{0, 3 * radius, 0}, kIdentityQ31});
        Frame frame;
        std::size_t drawn = 0;
        ASSERT_NO_THROW(drawn =
                            renderer.draw(instance, camera, sun(4096, -kQ14One, 2048, 0), 0, frame).size())
            << "record " << i;
        faces += drawn;
        if ((archive.record(i).header.properties & kShadowCasterBit) == 0) {
            EXPECT_EQ(drawn, 0u) << "record " << i;
        } else {
            ++casters;
        }
    }
    EXPECT_EQ(models, census["records"]["s16"].get<std::size_t>());
    EXPECT_GT(casters, 0u);
    EXPECT_GT(faces, casters);
}

// The generator's census of casters, receivers and shadow-geometry substitutions agrees.
TEST_F(ShadowSynth, AgreesWithTheGeneratorsShadowCensus) {
    std::int64_t casters = 0;
    std::vector<std::uint32_t> receivers;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> borrowed;
    for (std::uint32_t i = 0; i < archive.count(); ++i) {
        if (!archive.populated(i)) continue;
        const std::uint32_t properties = archive.record(i).header.properties;
        casters += (properties & kShadowCasterBit) != 0 ? 1 : 0;
        if ((properties & kShadowReceiverBit) != 0) receivers.push_back(i);
        if (const std::uint32_t g = shadow_geometry(archive, i); g != i) borrowed.emplace_back(i, g);
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> expected;
    for (const auto& s : census["shadows"]["substitutions"]) {
        expected.emplace_back(s["record"].get<std::uint32_t>(), s["geometry"].get<std::uint32_t>());
    }
    EXPECT_EQ(casters, census["shadows"]["casters"].get<std::int64_t>());
    EXPECT_EQ(receivers, census["shadows"]["receivers"].get<std::vector<std::uint32_t>>());
    EXPECT_EQ(borrowed, expected);
}

// A caster over the middle of each receiver's bounds lands on its deck.
TEST_F(ShadowSynth, ACasterOverAReceiverLandsOnItsDeck) {
    for (const auto& id : census["shadows"]["receivers"]) {
        const std::uint32_t receiver = id.get<std::uint32_t>();
        const ModelHeader& h = archive.record(receiver).header;
        MobileMap map;
        map.add(Mobile{1, receiver, {0, -40, 0}, kIdentityQ31});
        const Vec3 over{(h.bounds[0] + h.bounds[1]) / 2, 5000, (h.bounds[4] + h.bounds[5]) / 2};
        map.add(Mobile{2, receiver, over, kIdentityQ31});
        ShadowParams params = sun(0, -kQ14One, 0);
        params.cloud_altitude = 100000;
        EXPECT_EQ(shadow_plane_height(archive, map, 2, params), (ReceiverQuery{2, 1, -40 + h.height}))
            << receiver;
    }
}
#endif

} // namespace
} // namespace refcheck::reimpl
