// The shadow renderer: shadow.caster, substitute, geometry, world, project, camera, attach, faces,
// mesh and colour (spec section 15), walking the program as section 8 does (program_walk.cpp).
#include "refcheck/reimpl/shadow.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "refcheck/reimpl/fixed_point.hpp"
#include "refcheck/reimpl/geometry.hpp"
#include "refcheck/reimpl/interpreter.hpp"
#include "program_walk.hpp"

namespace refcheck::reimpl {

using fixed::dot3;
using fixed::low32;

namespace {

// (a / b) on int64 with b != 0, the one overflowing quotient (INT64_MIN / -1) wrapped.
std::int64_t divide64(std::int64_t a, std::int64_t b) { return b == -1 ? fixed::sub64(0, a) : a / b; }

// Everything one shadow draw shares across the instance tree.
struct Pass {
    const Camera& camera;
    const ShadowParams& params;
    std::uint32_t state;
    Frame& frame;
    std::vector<ShadowFace>& faces;
};

// One instance's shadow: its geometry record's program walked over the projected vertices, with its
// own last winding, nesting and step count (op.last_wind, op.nesting, op.steps).
class ShadowDraw final : public ProgramVisitor {
public:
    ShadowDraw(ShadowRenderer& renderer, const Instance& instance, std::uint32_t geometry, const Pass& pass,
               std::vector<std::int32_t>& path)
        : renderer_(renderer), instance_(instance), record_(renderer.archive().record(geometry)),
          program_(renderer.program(record_.index)), pass_(pass), path_(path) {}

    void run();

    void face(const Instruction& in, const Packet& packet) override;
    void attach(const Instruction& in, std::uint8_t slot) override;
    [[noreturn]] void fail(std::uint32_t at, std::string_view detail) override;
    void reached_invalid(const Instruction& in, std::string_view why, bool ends_draw) override {
        renderer_.note_stop({record_.index, in.offset, std::string(why), ends_draw});
    }

private:
    void prepare_vertices();

    ShadowRenderer& renderer_;
    const Instance& instance_;
    const ModelRecord& record_; // the geometry record
    const Program& program_;
    const Pass& pass_;
    std::vector<std::int32_t>& path_;
    std::vector<ScreenPoint> screen_;
};

void ShadowDraw::run() {
    // A list cut by the record's end (CutLists::Clamp): the draw goes on with what fits.
    for (const std::string& cut : record_.cut) renderer_.note_stop({record_.index, 0, cut, false});
    if (program_.empty()) return;
    prepare_vertices();
    walk_program(program_, screen_, pass_.state, *this);
}

// shadow.world, shadow.project, shadow.camera, geo.project: exact local coordinates, no tables.
void ShadowDraw::prepare_vertices() {
    screen_.reserve(record_.vertices.size());
    for (const RawVertex& raw : record_.vertices) {
        const Vec3 world = world_point(instance_.transform, decode_vertex(record_.encoding, raw));
        const Vec3 on_plane = project_to_plane(world, pass_.params.sun, pass_.params.plane_height);
        screen_.push_back(project(camera_point(pass_.camera, on_plane)));
    }
}

void ShadowDraw::fail(std::uint32_t at, std::string_view detail) {
    renderer_.archive()
        .reader(record_.index)
        .fail(program_.base + at, fmt::format("program +0x{:x}: {}", at, detail));
}

// shadow.faces, shadow.mesh: a mesh type makes one draw_shadow_face_ call; the others none.
void ShadowDraw::face(const Instruction& in, const Packet& packet) {
    const std::optional<ShadowMesh> mesh = shadow_mesh(packet.type);
    if (!mesh) return;
    ShadowFace face{record_.index, path_, in.offset, static_cast<std::uint8_t>(in.opcode),
                    packet.type,   *mesh, {}};
    face.screen.reserve(packet.vertices.size());
    for (std::uint8_t i : packet.vertices)
        face.screen.push_back({screen_[i].sx, screen_[i].sy, screen_[i].z});
    draw_shadow_face(face.screen, *mesh, pass_.frame);
    pass_.faces.push_back(std::move(face));
}

// shadow.attach: a filled slot of the drawn instance recurses into the child's shadow.
void ShadowDraw::attach(const Instruction& in, std::uint8_t slot) {
    if (slot >= instance_.slots.size()) {
        fail(in.offset,
             fmt::format("attachment slot {} of the shadow geometry is past model {}'s {} attachments", slot,
                         instance_.model, instance_.slots.size()));
    }
    const Instance* child = instance_.slot(slot);
    if (child == nullptr) return;
    const std::optional<std::uint32_t> geometry = renderer_.geometry(child->model);
    if (!geometry) return;
    path_.push_back(slot);
    ShadowDraw(renderer_, *child, *geometry, pass_, path_).run();
    path_.pop_back();
}

} // namespace

// shadow.world: p[i] = pos[i] + (int32)((Σ_j (int64)Q[i][j] * v[j]) >> 31).
Vec3 world_point(const Transform& t, const Vec3& v) {
    Vec3 p{};
    const Mat3& q = t.rotation;
    for (int i = 0; i < 3; ++i) {
        p[i] = fixed::add32(t.position[i],
                            low32(dot3(q[3 * i], v[0], q[3 * i + 1], v[1], q[3 * i + 2], v[2]) >> 31));
    }
    return p;
}

// shadow.camera: cam[i] = (int32)((Σ_k (int64)R[i][k] * ((int64)p'[k] - C[k])) >> 14).
Vec3 camera_point(const Camera& camera, const Vec3& p) {
    const Mat3& r = camera.rotation;
    std::array<std::int64_t, 3> d{};
    for (int k = 0; k < 3; ++k) d[k] = fixed::sub64(p[k], camera.position[k]);
    Vec3 cam{};
    for (int i = 0; i < 3; ++i)
        cam[i] = low32(dot3(r[3 * i], d[0], r[3 * i + 1], d[1], r[3 * i + 2], d[2]) >> 14);
    return cam;
}

Vec3 project_to_plane(const Vec3& p, const Vec3& sun, std::int32_t h) {
    if (sun[1] >= 0) throw std::invalid_argument(fmt::format("shadow projection with sun y {} >= 0", sun[1]));
    const std::int64_t drop = fixed::sub64(p[1], h);
    const auto along = [&](std::int32_t d) { return low32(divide64(fixed::mul64(d, drop), sun[1])); };
    return {fixed::sub32(p[0], along(sun[0])), h, fixed::sub32(p[2], along(sun[2]))};
}

std::optional<ShadowMesh> shadow_mesh(std::uint8_t type) {
    if (type == 6) return ShadowMesh::Medium;
    if (type >= 2 && type <= 20 && type != 9 && type != 10) return ShadowMesh::Fine;
    return std::nullopt; // 0, 1, 9, 10 (points, lines), 21 (heat haze), unknown types
}

void draw_shadow_face(std::span<const events::ScreenVertex> screen, ShadowMesh mesh, Frame& frame) {
    const std::int32_t pattern = mesh == ShadowMesh::Fine ? 1 : 3; // rast.mesh.fine, rast.mesh.medium
    for (const PolygonRow& row : polygon_rows(screen)) {
        for (std::int32_t x = row.x_begin(); x < row.x_end(); ++x) {
            if (((x + row.y) & pattern) != 0) continue;
            const std::size_t at = static_cast<std::size_t>(row.y) * kFrameWidth + x;
            frame.pixels[at] = kShadowColour;
            frame.taint[at] = 0; // div.taint: an unflagged direct write
        }
    }
}

std::uint32_t shadow_geometry(const ModelArchive& archive, std::uint32_t model) {
    const ModelRecord& record = archive.record(model);
    if (std::find(std::begin(kShadowSubstituted), std::end(kShadowSubstituted), model) !=
        std::end(kShadowSubstituted)) {
        if (!archive.populated(kShadowSubstitute)) {
            archive.reader(model).fail(record.extent.begin,
                                       fmt::format("shadow geometry substitute 0x{:x} is not a "
                                                   "populated record",
                                                   kShadowSubstitute));
        }
        return kShadowSubstitute;
    }
    if (!record.shadow_record || *record.shadow_record == -1) return model;
    const std::int32_t index = *record.shadow_record;
    if (index < 0 || !archive.populated(static_cast<std::uint32_t>(index))) {
        archive.reader(model).fail(record.absolute(record.header.shadow),
                                   fmt::format("shadow data names record {}, not a populated record", index));
    }
    return static_cast<std::uint32_t>(index);
}

std::optional<std::uint32_t> ShadowRenderer::geometry(std::uint32_t model) {
    if (invalid_ == InvalidData::StopThere) {
        const ModelRecord& record = archive_.record(model);
        const bool substituted = std::find(std::begin(kShadowSubstituted), std::end(kShadowSubstituted),
                                           model) != std::end(kShadowSubstituted);
        std::optional<std::string> none;
        if (!substituted && record.shadow_cut)
            none = "shadow data: its 4 bytes run past the record's end (no shadow)";
        else if (!substituted && record.shadow_record && *record.shadow_record != -1 &&
                 (*record.shadow_record < 0 ||
                  !archive_.populated(static_cast<std::uint32_t>(*record.shadow_record))))
            none = fmt::format("shadow data names record {}, not a populated one (no shadow)",
                               *record.shadow_record);
        if (none) {
            note_stop({model, 0, *none, false});
            return std::nullopt;
        }
    }
    return shadow_geometry(archive_, model);
}

const Program& ShadowRenderer::program(std::uint32_t record) {
    auto it = programs_.find(record);
    if (it == programs_.end())
        it = programs_.emplace(record, decode_program(archive_, record, nullptr, invalid_)).first;
    return it->second;
}

std::vector<ShadowFace> ShadowRenderer::draw(const Instance* root, const Camera* camera,
                                             const ShadowParams* params, std::uint32_t state, Frame& frame) {
    if (!root || !camera || !params) return {}; // abi.null
    return draw(*root, *camera, *params, state, frame);
}

std::vector<ShadowFace> ShadowRenderer::draw(const Instance& root, const Camera& camera,
                                             const ShadowParams& params, std::uint32_t state, Frame& frame) {
    std::vector<ShadowFace> faces;
    if ((archive_.record(root.model).header.properties & kShadowCasterBit) == 0)
        return faces;                     // shadow.caster
    if (params.sun[1] >= 0) return faces; // shadow.project
    std::vector<std::int32_t> path;
    const Pass pass{camera, params, state, frame, faces};
    if (const std::optional<std::uint32_t> g = geometry(root.model))
        ShadowDraw(*this, root, *g, pass, path).run();
    return faces;
}

std::vector<ShadowFace> draw_shadow(const ModelArchive& archive, const Instance& root, const Camera& camera,
                                    const ShadowParams& params, std::uint32_t state, Frame& frame) {
    return ShadowRenderer(archive).draw(root, camera, params, state, frame);
}

} // namespace refcheck::reimpl
