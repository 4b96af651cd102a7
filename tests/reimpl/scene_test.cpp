// reimpl/scene: assembled scenes (scene.*): the terrain grid (samples, order, colours, near clip)
// with values worked by hand from the spec, and the order of a frame's calls over hand-built
// casters and a deck receiver.
#include "refcheck/reimpl/scene.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include <gtest/gtest.h>

#include "archive_builder.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;

// Looking straight down from `height` above (x, z): cam = (wx - x, wz - z, height - wy).
Camera top_down(std::int32_t x, std::int32_t height, std::int32_t z) {
    Camera c;
    c.position = {x, height, z};
    c.rotation = {kQ14One, 0, 0, 0, 0, kQ14One, 0, -kQ14One, 0};
    return c;
}

SceneInput input_at(const Camera& camera, std::uint32_t shift = 10, std::uint32_t reach = 1) {
    SceneInput in;
    in.camera = camera;
    in.light.direction = {0, kQ14One, 0}; // the sun straight down
    in.params.cell_shift = shift;
    in.params.cell_reach = reach;
    in.params.sea_colour = 250;
    in.params.band_shift = 8;
    return in;
}

struct Samples {
    std::vector<TerrainSample> calls;
    std::function<std::int32_t(std::int32_t, std::int32_t)> height = [](std::int32_t, std::int32_t) {
        return 0;
    };
    TerrainSampler sampler() {
        return [this](std::int32_t x, std::int32_t z) {
            const std::int32_t h = height(x, z);
            calls.push_back({x, z, h});
            return h;
        };
    }
};

std::vector<TerrainSample> samples_of(const std::vector<SceneStep>& steps) {
    std::vector<TerrainSample> out;
    for (const auto& s : steps)
        if (const auto* t = std::get_if<TerrainSample>(&s)) out.push_back(*t);
    return out;
}

// scene.sampler.standin: one height per sector, index ((z >> 16) & 63) * 64 + ((x >> 16) & 63).
TEST(SceneTerrain, TheStandInsSectorTerrainReadsOneHeightPerSector) {
    SectorTerrain t;
    for (std::size_t i = 0; i < t.heights.size(); ++i) t.heights[i] = static_cast<std::int32_t>(i);
    EXPECT_EQ(t(0, 0), 0);
    EXPECT_EQ(t(0xffff, 0xffff), 0);
    EXPECT_EQ(t(0x10000, 0), 1);
    EXPECT_EQ(t(0, 0x10000), 64);
    EXPECT_EQ(t(-1, -1), 63 * 64 + 63);   // -1 lies in sector 63
    EXPECT_EQ(t(64 << 16, 65 << 16), 64); // wraps at 64
}

// scene.abi, abi.null: 1 for a null camera, parameters or light, or invalid parameters; else 0.
TEST(SceneTerrain, TheResultIsOneForANullArgumentOrInvalidParameters) {
    const Camera camera;
    const Light light;
    SceneParams params;
    EXPECT_EQ(scene_result(&camera, &params, &light), 0u);
    EXPECT_EQ(scene_result(nullptr, &params, &light), 1u);
    EXPECT_EQ(scene_result(&camera, nullptr, &light), 1u);
    EXPECT_EQ(scene_result(&camera, &params, nullptr), 1u);
    params.cell_shift = 25;
    EXPECT_EQ(scene_result(&camera, &params, &light), 1u);
}

TEST(SceneTerrain, EveryCornerIsSampledOnceRowByRowFromTheCameraCellOutwards) {
    Samples s;
    std::vector<SceneStep> steps;
    terrain_faces(input_at(top_down(1500, 3000, 2600)), s.sampler(), steps); // camera cell (1, 2)
    std::vector<TerrainSample> expected;
    for (std::int32_t gz = 1; gz <= 4; ++gz)
        for (std::int32_t gx = 0; gx <= 3; ++gx) expected.push_back({gx * 1024, gz * 1024, 0});
    EXPECT_EQ(s.calls, expected); // (2R + 2)² = 16 calls
    EXPECT_EQ(samples_of(steps), expected);
}

TEST(SceneTerrain, NegativeCellsShiftArithmetically) {
    Samples s;
    std::vector<SceneStep> steps;
    terrain_faces(input_at(top_down(-1, 3000, -1025), 10, 0), s.sampler(), steps); // cell (-1, -2)
    EXPECT_EQ(s.calls, (std::vector<TerrainSample>{
                           {-1024, -2048, 0}, {0, -2048, 0}, {-1024, -1024, 0}, {0, -1024, 0}}));
}

TEST(SceneTerrain, CellsAreDrawnFarthestFirstAndEqualDistancesInRowOrder) {
    Samples s;
    std::vector<SceneStep> steps;
    const SceneInput in = input_at(top_down(1536, 5000, 1536)); // the centre of cell (1, 1)
    const std::vector<TerrainFace> faces = terrain_faces(in, s.sampler(), steps);
    ASSERT_EQ(faces.size(), 18u);
    // Corners (key 2 * 1024²) in row order, then edges (1024²), then the camera's own cell.
    const std::vector<std::pair<std::int32_t, std::int32_t>> cells = {{0, 0}, {2, 0}, {0, 2}, {2, 2}, {1, 0},
                                                                      {0, 1}, {2, 1}, {1, 2}, {1, 1}};
    for (std::size_t k = 0; k < cells.size(); ++k) {
        const auto [gx, gz] = cells[k];
        const ScreenPoint a = project({gx * 1024 - 1536, gz * 1024 - 1536, 5000});
        const ScreenPoint c = project({gx * 1024 + 1024 - 1536, gz * 1024 + 1024 - 1536, 5000});
        const ScreenPoint d = project({gx * 1024 - 1536, gz * 1024 + 1024 - 1536, 5000});
        EXPECT_EQ(faces[2 * k].screen.at(0).sx, a.sx) << k; // (a, b, c)
        EXPECT_EQ(faces[2 * k].screen.at(0).sy, a.sy) << k;
        EXPECT_EQ(faces[2 * k].screen.at(2).sy, c.sy) << k;
        EXPECT_EQ(faces[2 * k + 1].screen.at(1).sx, a.sx) << k; // then (c, a, d)
        EXPECT_EQ(faces[2 * k + 1].screen.at(2).sx, d.sx) << k;
        EXPECT_EQ(faces[2 * k + 1].screen.at(2).sy, d.sy) << k;
        EXPECT_FALSE(faces[2 * k].clipped);
    }
}

TEST(SceneTerrain, SeaColourAtSeaLevelElseBandsOfTheGreatestCornerHeight) {
    Samples s;
    s.height = [](std::int32_t x, std::int32_t z) {
        if (x == 1024 && z == 1024) return 700;  // band 700 >> 8 = 2
        if (x == 2048 && z == 2048) return 5000; // band 19, at most 7
        return x == 0 && z == 0 ? -50 : 0;       // below sea level is sea
    };
    std::vector<SceneStep> steps;
    const auto faces = terrain_faces(input_at(top_down(1536, 9000, 1536)), s.sampler(), steps);
    std::vector<int> colours;
    for (const auto& f : faces) colours.push_back(f.colour);
    // Cells (0,0) (2,0) (0,2) (2,2) (1,0) (0,1) (2,1) (1,2) (1,1), triangles (a, b, c) then (c, a, d).
    EXPECT_EQ(colours, (std::vector<int>{242, 242, 250, 250, 250, 250, 247, 247, 250, 242, 242, 250, 250, 247,
                                         247, 250, 247, 247}));
}

TEST(SceneTerrain, TrianglesAreClippedToTheNearPlaneMeasuringEachCrossingFromItsFirstVertex) {
    const Vec3 a{1000, 500, 200}, b{-1000, -500, 0}, c{0, 0, 300};
    // a -> b leaves: a, then the crossing from a; b -> c enters: the crossing from b; c -> a: c.
    const auto four = clip_and_project(a, b, c);
    ASSERT_EQ(four.size(), 4u);
    EXPECT_EQ(four[0].sx, project(a).sx);
    EXPECT_EQ(four[1].sx, project({-360, -180, 64}).sx); // 1000 + (-2000 * -136) / -200
    EXPECT_EQ(four[1].sy, project({-360, -180, 64}).sy);
    EXPECT_EQ(four[2].sx, project({-787, -394, 64}).sx); // -1000 + (1000 * 64) / 300 = -786.67 -> -787
    EXPECT_EQ(four[2].sy, project({-787, -394, 64}).sy); // (from c it would be -786)
    EXPECT_EQ(four[3].sx, project(c).sx);
    // Two vertices behind: a triangle of a and two crossings.
    const auto three = clip_and_project(a, b, {0, 0, 10});
    ASSERT_EQ(three.size(), 3u);
    EXPECT_EQ(three[2].sx, project({0 + (1000 * 54) / 190, 0 + (500 * 54) / 190, 64}).sx);
    EXPECT_TRUE(clip_and_project(b, b, {5, 5, 63}).empty());
    const auto front = clip_and_project({0, 0, 64}, {100, 0, 64}, {0, 100, 64});
    ASSERT_EQ(front.size(), 3u);
    EXPECT_EQ(front[1].sx, project({100, 0, 64}).sx);
}

TEST(SceneTerrain, AFaceIsAFlatPolygonOfFullLevelThroughThePartiallyVisibleRoutineWhenOffScreen) {
    Samples s;
    std::vector<SceneStep> steps;
    const auto faces = terrain_faces(input_at(top_down(1536, 300, 1536)), s.sampler(), steps);
    ASSERT_FALSE(faces.empty());
    EXPECT_TRUE(faces.front().clipped); // far corners lie outside the frame
    const events::FaceDraw f = terrain_face_event(faces.front());
    EXPECT_EQ(f.type, 2);
    EXPECT_EQ(f.material, (std::vector<std::uint8_t>{250}));
    EXPECT_EQ(f.vertices, (std::vector<std::uint8_t>{0, 1, 2}));
    EXPECT_EQ(f.vertex_levels, (std::vector<std::int32_t>{31, 31, 31}));
    EXPECT_EQ(f.face_level, 31);
    EXPECT_TRUE(f.clipped);
}

TEST(SceneTerrain, InvalidParametersAreRefusedBeforeAnySample) {
    for (const auto& change : std::vector<std::function<void(SceneParams&)>>{
             [](SceneParams& p) { p.cell_shift = 7; }, [](SceneParams& p) { p.cell_shift = 25; },
             [](SceneParams& p) { p.cell_reach = 16; }, [](SceneParams& p) { p.sea_colour = 256; },
             [](SceneParams& p) { p.band_shift = 32; }}) {
        SceneInput in = input_at(top_down(0, 100, 0));
        change(in.params);
        EXPECT_FALSE(in.params.valid());
        Samples s;
        std::vector<SceneStep> steps;
        EXPECT_THROW(terrain_faces(in, s.sampler(), steps), std::invalid_argument);
        EXPECT_TRUE(s.calls.empty());
    }
}

// ---- whole frames: record 1 a casting square, 2 a deck receiver (height 120), 3 a plain square ----

constexpr std::uint32_t kAircraft = 1, kDeck = 2, kPlain = 3;

struct World {
    ModelArchive models;
    TextureArchive textures = TextureArchive::parse(build_texture_archive({std::nullopt}));
    PaletteTables palette = build_palette(palette_file(), 3);
    MobileMap map;
    std::map<std::uint32_t, Instance> instances;

    World() : models(ModelArchive::parse(archive())) {}
    static Bytes archive() {
        RecordSpec null;
        null.has_vertices = false;
        null.program = Bytes{7};
        RecordSpec square;
        square.vertices = {s16_vertex(-75, 0, -75), s16_vertex(75, 0, -75), s16_vertex(75, 0, 75),
                           s16_vertex(-75, 0, 75)};
        square.program = ProgramBuilder().primary(2, {5}, {{0}, {1}, {2}, {3}}).ret().build();
        RecordSpec aircraft = square, deck = square, plain = square;
        aircraft.properties = 1;
        deck.properties = 2;
        BuiltArchive built = build_model_archive({null, aircraft, deck, plain});
        const std::uint32_t at = built.records[kDeck].offset;
        const std::int32_t bounds[6] = {-1200, 1200, 0, 120, -1200, 1200};
        for (int k = 0; k < 6; ++k)
            set_u32(built.bytes, at + 0x0c + 4 * k, static_cast<std::uint32_t>(bounds[k]));
        set_u32(built.bytes, at + 0x28, 120);
        return built.bytes;
    }
    void add(std::uint32_t id, std::uint32_t model, const Vec3& at) {
        map.add(Mobile{id, model, at, kIdentityQ31});
        instances.insert_or_assign(id, construct(models, model, Transform{at, kIdentityQ31}));
    }
    std::vector<SceneStep> render(const SceneInput& in, Frame& frame, std::uint32_t hidden = 0) {
        SceneRenderer renderer(models, textures, palette);
        Samples s;
        return renderer.render(
            in, map, [&](std::uint32_t id) { return id == hidden ? nullptr : &instances.at(id); },
            s.sampler(), frame);
    }
};

constexpr std::int32_t kX = 20 * 65536, kZ = 20 * 65536;

template <class T>
std::vector<T> all_of_kind(const std::vector<SceneStep>& steps) {
    std::vector<T> out;
    for (const auto& s : steps)
        if (const auto* t = std::get_if<T>(&s)) out.push_back(*t);
    return out;
}

// A step in words (shadow pixels left out), for comparing whole sequences.
std::string describe(const SceneStep& step) {
    if (const auto* t = std::get_if<TerrainSample>(&step))
        return "sample " + std::to_string(t->x) + " " + std::to_string(t->z) + " " +
               std::to_string(t->height);
    if (const auto* q = std::get_if<QueueBuilt>(&step)) {
        std::string out = "queue";
        for (std::uint32_t id : q->ids) out += " " + std::to_string(id);
        return out;
    }
    if (const auto* p = std::get_if<PlaneQuery>(&step))
        return "plane " + std::to_string(p->caster) + " terrain " + std::to_string(p->terrain_height) +
               " height " + std::to_string(p->height) + " receiver " + std::to_string(p->receiver);
    if (const auto* d = std::get_if<ShadowDrawn>(&step))
        return "shadow " + std::to_string(d->caster) + " on " + std::to_string(d->plane_height) +
               " receiver " + std::to_string(d->receiver);
    return "object " + std::to_string(std::get<ObjectDrawn>(step).id);
}

// draw_scene as called: a null argument or invalid parameters give 1, no step and a frame as it was
// (the harness compares both sides' frames of a refused call); valid ones draw, as render() does.
TEST(SceneFrame, ARefusedCallDrawsNothingAndAnAcceptedOneDrawsAsRender) {
    World w;
    w.add(10, kDeck, {kX, 0, kZ});
    SceneRenderer renderer(w.models, w.textures, w.palette);
    Samples s;
    const InstanceOf instance_of = [&](std::uint32_t id) { return &w.instances.at(id); };
    const SceneInput in = input_at(top_down(kX, 20000, kZ), 12, 2);
    SceneParams invalid = in.params;
    invalid.cell_shift = 25;
    const std::vector<std::tuple<const Camera*, const SceneParams*, const Light*>> refused = {
        {nullptr, &in.params, &in.light},
        {&in.camera, nullptr, &in.light},
        {&in.camera, &in.params, nullptr},
        {&in.camera, &invalid, &in.light}};
    for (const auto& [camera, params, light] : refused) {
        Frame frame(7);
        const auto call =
            renderer.draw_scene(camera, params, light, in.state, w.map, instance_of, s.sampler(), frame);
        EXPECT_EQ(call.result, 1u);
        EXPECT_TRUE(call.steps.empty());
        EXPECT_EQ(frame.pixels, Frame(7).pixels);
    }
    Frame drawn, rendered;
    const auto call = renderer.draw_scene(&in.camera, &in.params, &in.light, in.state, w.map, instance_of,
                                          s.sampler(), drawn);
    EXPECT_EQ(call.result, 0u);
    EXPECT_EQ(call.steps.size(), w.render(in, rendered).size());
    EXPECT_EQ(drawn.pixels, rendered.pixels);
    EXPECT_NE(drawn.pixels, Frame().pixels);
}

TEST(SceneFrame, CallsFollowTerrainQueueShadowPlanThenObjectsWithDeckShadowsAfterTheirDeck) {
    World w;
    w.add(10, kDeck, {kX, 0, kZ});
    w.add(11, kAircraft, {kX + 300, 3000, kZ});         // over the deck: waits for it
    w.add(12, kAircraft, {kX + 6000, 2000, kZ + 2000}); // over the water
    w.add(13, kPlain, {kX - 5000, 0, kZ});              // casts nothing
    SceneInput in = input_at(top_down(kX, 20000, kZ), 12, 2);
    Frame frame;
    const auto steps = w.render(in, frame);
    std::vector<std::string> got;
    std::size_t faces = 0;
    for (const auto& step : steps) {
        if (std::holds_alternative<TerrainDrawn>(step)) {
            // The terrain's faces come after every sample and before the queue (scene.terrain.cells).
            EXPECT_EQ(got.size(), 36u) << "a terrain face after " << got.size() << " other steps";
            ++faces;
            continue;
        }
        got.push_back(describe(step));
    }
    EXPECT_GT(faces, 0u);
    // (2R + 2)² terrain samples (then the terrain faces, checked above), the queue (farthest first), then per caster in queue order a sample,
    // a plane query and (without a receiver) the shadow; then the objects, the deck followed by the
    // shadow that waited for it.
    std::vector<std::string> expected;
    for (std::int32_t gz = 318; gz <= 323; ++gz)
        for (std::int32_t gx = 318; gx <= 323; ++gx)
            expected.push_back("sample " + std::to_string(gx * 4096) + " " + std::to_string(gz * 4096) +
                               " 0");
    const std::string x11 = std::to_string(kX + 300), x12 = std::to_string(kX + 6000), z = std::to_string(kZ);
    const std::vector<std::string> rest = {"queue 13 10 12 11",
                                           "sample " + x12 + " " + std::to_string(kZ + 2000) + " 0",
                                           "plane 12 terrain 0 height 0 receiver 0",
                                           "shadow 12 on 0 receiver 0",
                                           "sample " + x11 + " " + z + " 0",
                                           "plane 11 terrain 0 height 120 receiver 10",
                                           "object 13",
                                           "object 10",
                                           "shadow 11 on 120 receiver 10",
                                           "object 12",
                                           "object 11"};
    expected.insert(expected.end(), rest.begin(), rest.end());
    EXPECT_EQ(got, expected);
    for (const auto& step : steps) {
        if (const auto* d = std::get_if<ShadowDrawn>(&step)) {
            EXPECT_GT(d->pixels, 0u) << "shadow of " << d->caster;
        }
    }
    EXPECT_EQ(w.map.queue(w.models, in.camera, in.params.limits),
              (std::vector<std::uint32_t>{13, 10, 12, 11}));
    EXPECT_EQ(frame.at(60, 100), 250);       // the sea
    EXPECT_EQ(frame.at(0, 0), kClearColour); // beyond the grid (scene.clear)
}

TEST(SceneFrame, NeighbouringTerrainTrianglesMeetWithoutGaps) {
    World w;
    Camera turned = top_down(1536, 5000, 1536); // still looking down, turned 30 degrees about y
    turned.rotation = {14189, 0, -8192, 8192, 0, 14189, 0, -kQ14One, 0};
    Frame frame;
    w.render(input_at(turned), frame);
    // The grid spans world -1536 .. 1536 around the camera, at least 78 pixels from the centre of the
    // frame in every direction: inside that, every pixel is sea, none left as sky between triangles.
    for (std::int32_t y = 0; y < kFrameHeight; ++y) {
        for (std::int32_t x = 0; x < kFrameWidth; ++x) {
            if ((x - 160) * (x - 160) + (y - 100) * (y - 100) < 75 * 75) {
                ASSERT_EQ(frame.at(x, y), 250) << x << ", " << y;
            }
        }
    }
}

TEST(SceneFrame, AMobileWithoutInstanceIsNotDrawnAndTheShadowsWaitingForItAreNotDrawnEither) {
    World w;
    w.add(10, kDeck, {kX, 0, kZ});
    w.add(11, kAircraft, {kX + 300, 3000, kZ});
    Frame frame;
    const auto steps = w.render(input_at(top_down(kX, 20000, kZ), 12, 2), frame, 10);
    EXPECT_EQ(all_of_kind<PlaneQuery>(steps), (std::vector<PlaneQuery>{{11, 0, 120, 10}}));
    EXPECT_TRUE(all_of_kind<ShadowDrawn>(steps).empty());
    EXPECT_EQ(all_of_kind<ObjectDrawn>(steps), (std::vector<ObjectDrawn>{{11}}));
}

TEST(SceneFrame, TheSunIsTheLightReversedAndALightFromBelowCastsNothing) {
    World w;
    w.add(11, kAircraft, {kX, 3000, kZ});
    SceneInput in = input_at(top_down(kX, 20000, kZ), 12, 2);
    in.light.direction = {0, -kQ14One, 0}; // sun (0, +1, 0): nothing falls (shadow.project)
    Frame frame;
    const auto steps = w.render(in, frame);
    const auto shadows = all_of_kind<ShadowDrawn>(steps);
    ASSERT_EQ(shadows.size(), 1u);
    EXPECT_EQ(shadows[0].pixels, 0u);
    EXPECT_EQ(std::count(frame.pixels.begin(), frame.pixels.end(), kShadowColour), 0);
    // Light from +x: the shadow falls toward -x, left of the aircraft on screen.
    in.light.direction = {kQ14One, kQ14One, 0};
    Frame lit;
    w.render(in, lit);
    std::int32_t leftmost = kFrameWidth;
    for (std::int32_t y = 0; y < kFrameHeight; ++y)
        for (std::int32_t x = 0; x < kFrameWidth; ++x)
            if (lit.at(x, y) == kShadowColour) leftmost = std::min(leftmost, x);
    EXPECT_LT(leftmost, 160 - 1200 * 256 / 17000 - 20);
}

} // namespace
} // namespace refcheck::reimpl
