// Assembled scenes: scene.terrain.* (grid, samples, cells, order, colour, camera, near, face) and
// scene.queue, scene.instance, scene.sun, scene.shadow.plan, scene.objects, scene.state.
#include "refcheck/reimpl/scene.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "refcheck/reimpl/fixed_point.hpp"
#include "refcheck/reimpl/geometry.hpp"

namespace refcheck::reimpl {

using fixed::low32;

bool SceneParams::valid() const {
    return cell_shift >= 8 && cell_shift <= 24 && cell_reach <= kMaxCellReach && sea_colour <= 255 &&
           band_shift <= 31;
}

std::int32_t SectorTerrain::operator()(std::int32_t x, std::int32_t z) const {
    return heights[static_cast<std::size_t>(((z >> 16) & 63) * 64 + ((x >> 16) & 63))];
}

std::uint32_t scene_result(const Camera* camera, const SceneParams* params, const Light* light) {
    return camera && params && light && params->valid() ? 0 : 1;
}

namespace {

// (a / b) on int64 with b != 0, the one overflowing quotient (INT64_MIN / -1) wrapped.
std::int64_t divide64(std::int64_t a, std::int64_t b) { return b == -1 ? fixed::sub64(0, a) : a / b; }

// A grid coordinate to world units: g << shift on int32, wrapping (scene.terrain.grid).
std::int32_t grid_to_world(std::int32_t g, std::uint32_t shift) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(g) << shift);
}

// scene.terrain.near: the crossing of P -> Q with z = 64, measured from P.
Vec3 near_crossing(const Vec3& p, const Vec3& q) {
    const std::int64_t num = fixed::sub64(kNearZ, p[2]), den = fixed::sub64(q[2], p[2]);
    auto axis = [&](int i) {
        return fixed::add32(p[i], low32(divide64(fixed::mul64(fixed::sub64(q[i], p[i]), num), den)));
    };
    return {axis(0), axis(1), kNearZ};
}

// The corners of one frame's grid: world x and z of each, its height and camera point.
class TerrainGrid {
public:
    TerrainGrid(const SceneInput& input, const TerrainSampler& sampler, std::vector<SceneStep>& steps)
        : p_(input.params), side_(2 * p_.cell_reach + 2), cx_(input.camera.position[0] >> p_.cell_shift),
          cz_(input.camera.position[2] >> p_.cell_shift) {
        for (std::uint32_t r = 0; r < side_; ++r) { // scene.terrain.samples: rows of z, x within a row
            for (std::uint32_t c = 0; c < side_; ++c) {
                const std::int32_t x = world(cx_, c), z = world(cz_, r);
                const std::int32_t h = sampler(x, z);
                steps.push_back(TerrainSample{x, z, h});
                height_.push_back(h);
                // scene.terrain.camera: the formula of shadow.camera.
                cam_.push_back(camera_point(input.camera, {x, h, z}));
            }
        }
    }

    // scene.terrain.order: cell indices (row-major), farthest first, equal keys in row order.
    std::vector<std::uint32_t> cell_order(const Camera& camera) const {
        const std::uint32_t cells = side_ - 1;
        const std::int32_t half = std::int32_t{1} << (p_.cell_shift - 1);
        std::vector<std::uint32_t> order(cells * cells);
        std::vector<std::uint64_t> key(order.size());
        for (std::uint32_t n = 0; n < order.size(); ++n) {
            order[n] = n;
            const std::int64_t dx =
                fixed::sub64(fixed::add32(world(cx_, n % cells), half), camera.position[0]);
            const std::int64_t dz =
                fixed::sub64(fixed::add32(world(cz_, n / cells), half), camera.position[2]);
            key[n] = static_cast<std::uint64_t>(fixed::mul64(dx, dx)) +
                     static_cast<std::uint64_t>(fixed::mul64(dz, dz));
        }
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return key[a] > key[b]; });
        return order;
    }

    // scene.terrain.colour
    std::uint8_t colour(std::uint32_t a, std::uint32_t b, std::uint32_t c) const {
        const std::int32_t h = std::max({height_[a], height_[b], height_[c]});
        if (h <= 0) return static_cast<std::uint8_t>(p_.sea_colour);
        return static_cast<std::uint8_t>(kFirstLandColour + std::min(h >> p_.band_shift, kLandBands - 1));
    }

    const Vec3& cam(std::uint32_t corner) const { return cam_[corner]; }
    std::uint32_t side() const { return side_; }

private:
    std::int32_t world(std::int32_t centre, std::uint32_t k) const {
        return grid_to_world(fixed::add32(fixed::sub32(centre, static_cast<std::int32_t>(p_.cell_reach)),
                                          static_cast<std::int32_t>(k)),
                             p_.cell_shift);
    }

    const SceneParams& p_;
    std::uint32_t side_;
    std::int32_t cx_, cz_;
    std::vector<std::int32_t> height_;
    std::vector<Vec3> cam_;
};

void require_valid(const SceneParams& p) {
    if (!p.valid()) {
        throw std::invalid_argument(fmt::format("scene parameters out of range (scene.params.valid): "
                                                "cell_shift {}, cell_reach {}, sea_colour {}, band_shift {}",
                                                p.cell_shift, p.cell_reach, p.sea_colour, p.band_shift));
    }
}

// Pixels that differ between `before` and `after`.
std::uint32_t changed_pixels(const std::vector<std::uint8_t>& before,
                             const std::vector<std::uint8_t>& after) {
    std::uint32_t n = 0;
    for (std::size_t i = 0; i < after.size(); ++i) n += after[i] != before[i];
    return n;
}

} // namespace

std::vector<ScreenPoint> clip_and_project(const Vec3& a, const Vec3& b, const Vec3& c) {
    const std::array<const Vec3*, 3> v{&a, &b, &c};
    std::vector<ScreenPoint> out;
    for (std::size_t i = 0; i < 3; ++i) {
        const Vec3& p = *v[i];
        const Vec3& q = *v[(i + 1) % 3];
        const bool p_front = p[2] >= kNearZ, q_front = q[2] >= kNearZ;
        if (p_front) out.push_back(project(p));
        if (p_front != q_front) out.push_back(project(near_crossing(p, q)));
    }
    if (out.size() < 3) out.clear();
    return out;
}

std::vector<TerrainFace> terrain_faces(const SceneInput& input, const TerrainSampler& sampler,
                                       std::vector<SceneStep>& steps) {
    require_valid(input.params);
    const TerrainGrid grid(input, sampler, steps);
    const std::uint32_t side = grid.side(), cells = side - 1;
    std::vector<TerrainFace> faces;
    for (const std::uint32_t cell : grid.cell_order(input.camera)) {
        const std::uint32_t a = (cell / cells) * side + cell % cells, b = a + 1, d = a + side, c = d + 1;
        for (const auto& [p, q, r] :
             {std::array<std::uint32_t, 3>{a, b, c}, std::array<std::uint32_t, 3>{c, a, d}}) {
            TerrainFace face{grid.colour(p, q, r), clip_and_project(grid.cam(p), grid.cam(q), grid.cam(r)),
                             false};
            if (face.screen.empty()) continue;
            face.clipped = !std::all_of(face.screen.begin(), face.screen.end(), inside_frame);
            faces.push_back(std::move(face));
        }
    }
    return faces;
}

events::FaceDraw terrain_face_event(const TerrainFace& face) {
    const std::size_t n = face.screen.size();
    events::FaceDraw f;
    f.record = -1; // not a model's face
    f.type = 2;
    f.clipped = face.clipped;
    f.material = {face.colour};
    for (std::size_t i = 0; i < n; ++i) {
        f.vertices.push_back(static_cast<std::uint8_t>(i));
        f.screen.push_back({face.screen[i].sx, face.screen[i].sy, face.screen[i].z});
    }
    f.u.assign(n, 0);
    f.v.assign(n, 0);
    f.vertex_levels.assign(n, kBrightestLevel);
    f.face_level = kBrightestLevel;
    return f;
}

SceneRenderer::SceneRenderer(const ModelArchive& models, const TextureArchive& textures,
                             const PaletteTables& palette)
    : models_(models), interpreter_(models, textures), shadows_(models), rasteriser_(palette, textures) {}

std::vector<SceneStep> SceneRenderer::render(const SceneInput& input, const MobileMap& mobiles,
                                             const InstanceOf& instance_of, const TerrainSampler& sampler,
                                             Frame& frame) {
    std::vector<SceneStep> steps;
    for (const TerrainFace& face : terrain_faces(input, sampler, steps)) {
        TerrainDrawn drawn{terrain_face_event(face)};
        rasteriser_.draw(drawn.face, frame);
        steps.push_back(std::move(drawn));
    }
    const std::vector<std::uint32_t> queue =
        mobiles.queue(models_, input.camera, input.params.limits); // scene.queue
    steps.push_back(QueueBuilt{queue});
    const std::vector<Planned> planned =
        plan_shadows(input, mobiles, instance_of, sampler, queue, steps, frame);
    FrameSink sink(rasteriser_, frame);
    for (const std::uint32_t id : queue) { // scene.objects
        const Instance* instance = instance_of(id);
        if (!instance) continue;
        interpreter_.draw(*instance, DrawInput{input.camera, input.light, input.state}, sink);
        steps.push_back(ObjectDrawn{id});
        for (const Planned& p : planned)
            if (p.receiver == id) draw_shadow(input, *instance_of(p.caster), p, steps, frame);
    }
    return steps;
}

SceneRenderer::Call SceneRenderer::draw_scene(const Camera* camera, const SceneParams* params,
                                              const Light* light, std::uint32_t state,
                                              const MobileMap& mobiles, const InstanceOf& instance_of,
                                              const TerrainSampler& sampler, Frame& frame) {
    Call call;
    call.result = scene_result(camera, params, light);
    if (call.result != 0) return call;
    call.steps = render(SceneInput{*camera, *light, state, *params}, mobiles, instance_of, sampler, frame);
    return call;
}

// scene.sun, scene.shadow.plan
std::vector<SceneRenderer::Planned>
SceneRenderer::plan_shadows(const SceneInput& input, const MobileMap& mobiles, const InstanceOf& instance_of,
                            const TerrainSampler& sampler, const std::vector<std::uint32_t>& queue,
                            std::vector<SceneStep>& steps, Frame& frame) {
    std::vector<Planned> planned;
    for (const std::uint32_t id : queue) {
        const Mobile& m = mobiles.mobile(id);
        const Instance* instance = instance_of(id);
        if (!instance || (models_.record(m.model).header.properties & kShadowCasterBit) == 0) continue;
        Planned p;
        p.caster = id;
        const Vec3& l = input.light.direction;
        p.params.sun = {fixed::sub32(0, l[0]), fixed::sub32(0, l[1]), fixed::sub32(0, l[2])};
        p.params.terrain_height = sampler(m.position[0], m.position[2]);
        steps.push_back(TerrainSample{m.position[0], m.position[2], p.params.terrain_height});
        p.params.cloud_altitude = input.params.limits.cloud_altitude;
        const ReceiverQuery q = shadow_plane_height(models_, mobiles, id, p.params);
        p.params.plane_height = q.height;
        p.receiver = q.receiver;
        steps.push_back(PlaneQuery{id, p.params.terrain_height, q.height, q.receiver});
        if (!p.receiver) draw_shadow(input, *instance, p, steps, frame);
        planned.push_back(p);
    }
    return planned;
}

void SceneRenderer::draw_shadow(const SceneInput& input, const Instance& caster, const Planned& planned,
                                std::vector<SceneStep>& steps, Frame& frame) {
    const std::vector<std::uint8_t> before = frame.pixels;
    shadows_.draw(caster, input.camera, planned.params, input.state, frame);
    steps.push_back(ShadowDrawn{planned.caster, planned.params.plane_height, planned.receiver,
                                planned.params.terrain_height, changed_pixels(before, frame.pixels)});
}

} // namespace refcheck::reimpl
