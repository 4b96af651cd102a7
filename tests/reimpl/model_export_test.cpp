// reimpl/model_export (spec section 20): canonical planes (wb.plane.key), and the exported program
// trees (wb.tree, wb.walk): walked with the engine's own projections they give exactly the faces,
// in exactly the order, that the interpreter draws, for every record of the small archives; lines
// take planes that hold them (wb.lines) and grid models carry their raw bytes (wb.screen).
#include <filesystem>

#include <gtest/gtest.h>

#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/geometry.hpp"
#include "refcheck/reimpl/interpreter.hpp"
#include "refcheck/reimpl/model_export.hpp"
#include "refcheck/reimpl/primitive.hpp"

namespace refcheck::reimpl {
namespace {

TEST(CanonicalPlane, OnePlaneGivesOneKeyWhateverTheVerticesOrTheirOrder) {
    // Four points of the plane x + 2y + 3z = 14 (through (1, 2, 3)).
    const Vec3 a{1, 2, 3}, b{3, 1, 3}, c{1, 5, 1}, d{1, -1, 5};
    const auto key = canonical_plane(a, b, c);
    ASSERT_TRUE(key);
    EXPECT_EQ(*key, (std::array<std::int64_t, 4>{1, 2, 3, 14}));
    EXPECT_EQ(canonical_plane(c, b, a), key); // reversed order
    EXPECT_EQ(canonical_plane(b, d, c), key);
    EXPECT_EQ(canonical_plane(d, a, b), key);
    EXPECT_EQ(canonical_plane(a, b, Vec3{5, 0, 3}), std::nullopt); // collinear
    // Large grid coordinates stay exact.
    const Vec3 p{-131072, 129024, -131072}, q{129024, 129024, -131072}, r{129024, 129024, 129024};
    EXPECT_EQ(canonical_plane(p, q, r), (std::array<std::int64_t, 4>{0, 1, 0, 129024}));
    EXPECT_EQ(canonical_plane(r, q, p), canonical_plane(p, q, r));
}

// The engine's walk over an exported tree (wb.walk) with the interpreter's own screen points.
struct TreeWalk {
    const ModelExport& model;
    const std::vector<std::vector<ScreenPoint>>& screen; // per instance
    std::vector<std::pair<std::vector<std::int32_t>, std::uint32_t>> drawn;

    bool behind(std::uint32_t i, const std::vector<std::uint8_t>& vs) const {
        for (const auto v : vs) {
            if (screen[i][v].behind) return true;
        }
        return false;
    }
    std::int32_t wind(std::uint32_t i, std::uint8_t a, std::uint8_t b, std::uint8_t c) const {
        return winding(screen[i][a], screen[i][b], screen[i][c]);
    }
    std::int32_t walk(const Tree& tree, std::int32_t last) {
        for (const TreeNode& n : tree) {
            if (const auto* id = std::get_if<std::uint32_t>(&n.node)) {
                const ExportedFace& f = model.faces[*id];
                const auto here = std::make_pair(model.instances[f.instance].path, f.offset);
                if (f.opcode == 0) {
                    if (behind(f.instance, f.vertices)) {
                        last = -1;
                        continue;
                    }
                    last = f.vertices.size() >= 3
                               ? wind(f.instance, f.vertices[0], f.vertices[1], f.vertices[2])
                               : 0;
                    drawn.push_back(here);
                } else if (last >= 0 && !behind(f.instance, f.vertices)) {
                    drawn.push_back(here);
                }
            } else if (const auto* p = std::get_if<PlaneNode>(&n.node)) {
                const std::vector<std::uint8_t> vs(p->vertices.begin(), p->vertices.end());
                const std::int32_t w = behind(p->instance, vs) ? -1 : wind(p->instance, vs[0], vs[1], vs[2]);
                last = walk(w >= 0 ? p->back : p->front, last);
                last = walk(w >= 0 ? p->front : p->back, last);
            } else {
                walk(std::get<AttachNode>(n.node).tree, -1);
            }
        }
        return last;
    }
};

class Sink final : public events::EventSink {
public:
    void emit(events::Event e) override {
        if (const auto* f = std::get_if<events::FaceDraw>(&e)) drawn.emplace_back(f->path, f->offset);
    }
    std::vector<std::pair<std::vector<std::int32_t>, std::uint32_t>> drawn;
};

TEST(ModelExport, TreesWalkedWithTheEnginesWindingsDrawWhatTheInterpreterDraws) {
    const std::filesystem::path root = REFCHECK_REIMPL_SYNTH_DIR;
    const auto models = ModelArchive::parse(read_file_bytes(root / "3DDATA" / "3DOBJS.BIN"));
    const auto textures = TextureArchive::parse(read_file_bytes(root / "3DDATA" / "OBJTEXT.BIN"));
    Interpreter interpreter(models, textures);
    std::size_t compared = 0, records = 0, lines_on_planes = 0;
    for (std::uint32_t r = 0; r < models.count(); ++r) {
        if (!models.populated(r)) continue;
        const ModelExport model = export_model(interpreter, r);
        ASSERT_FALSE(model.states.empty());
        EXPECT_EQ(model.states[0].state, 0u);
        ++records;
        const Instance instance = construct(models, r, Transform{});
        // Cameras on the z axis both ways and from the side (rows right, up, forward; Q14).
        const std::array<Camera, 3> cameras{
            Camera{{0, 2000, -60000}, kIdentityQ14},
            Camera{{0, 2000, 60000}, {-16384, 0, 0, 0, 16384, 0, 0, 0, -16384}},
            Camera{{-60000, 3000, 0}, {0, 0, -16384, 0, 16384, 0, 16384, 0, 0}}};
        for (const Camera& camera : cameras) {
            for (const ExportedState& s : model.states) {
                Sink sink;
                interpreter.draw(instance, DrawInput{camera, Light{}, s.state}, sink);
                std::vector<std::vector<ScreenPoint>> screen;
                for (const ExportedInstance& inst : model.instances) {
                    const CameraTransform ct = camera_transform(camera, inst.transform);
                    const ModelRecord& rec = models.record(inst.model);
                    std::optional<GridTables> grid;
                    if (rec.encoding == Encoding::Grid) grid.emplace(ct);
                    std::vector<ScreenPoint> points;
                    for (const RawVertex& raw : rec.vertices) {
                        points.push_back(
                            project(transform_vertex(rec.encoding, ct, grid ? &*grid : nullptr, raw)));
                    }
                    screen.push_back(std::move(points));
                }
                TreeWalk walk{model, screen, {}};
                walk.walk(s.tree, -1);
                EXPECT_EQ(walk.drawn, sink.drawn) << "record " << r << " state " << s.state;
                compared += sink.drawn.size();
            }
        }
        // Every triangle of a face lies on a plane of its own instance (or is collinear); every
        // polyline segment (point) with a plane lies exactly on it (wb.lines).
        for (const ExportedFace& f : model.faces) {
            const Shape shape = primitive_info(f.type)->shape;
            const bool line = shape == Shape::Points || shape == Shape::Polyline;
            if (!line) {
                ASSERT_EQ(f.planes.size(), f.triangles.size());
            } else {
                ASSERT_EQ(f.planes.size(),
                          shape == Shape::Points ? f.vertices.size() : f.vertices.size() - 1);
            }
            for (std::size_t k = 0; k < f.planes.size(); ++k) {
                const std::int32_t p = f.planes[k];
                if (p < 0) continue;
                EXPECT_EQ(model.planes[p].instance, f.instance);
                if (!line) continue;
                ++lines_on_planes;
                const auto& key = model.planes[p].key;
                for (const std::uint8_t v : {f.vertices[k], f.vertices[shape == Shape::Points ? k : k + 1]}) {
                    const Vec3& x = model.instances[f.instance].local[v];
                    EXPECT_EQ(key[0] * x[0] + key[1] * x[1] + key[2] * x[2], key[3]) << "record " << r;
                }
            }
        }
        // Grid models carry their raw vertex bytes (wb.screen), ordinary ones none.
        for (const ExportedInstance& inst : model.instances) {
            const ModelRecord& rec = models.record(inst.model);
            EXPECT_EQ(inst.grid, rec.encoding == Encoding::Grid ? rec.vertices : std::vector<RawVertex>{});
        }
    }
    EXPECT_GT(records, 10u);
    EXPECT_GT(compared, 1000u);
    EXPECT_GT(lines_on_planes, 0u);
}

} // namespace
} // namespace refcheck::reimpl
