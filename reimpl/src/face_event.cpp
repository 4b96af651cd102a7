#include "refcheck/reimpl/face_event.hpp"

#include <algorithm>
#include <array>

namespace refcheck::reimpl {
namespace {

using events::FaceFlag;

// Levels per light.levels; false when a used normal is missing (light.missing, light.missing.lit).
// A level from a missing normal is kBrightestLevel and marked in e.missing_levels; the others keep
// their lit values, so that only the levels the missing normal concerns may differ.
bool fill_levels(const Packet& p, const FaceContext& ctx, events::FaceDraw& e) {
    const std::size_t n = p.vertices.size();
    const auto lit = [&ctx](std::uint8_t index) { return index < ctx.levels.size(); };
    e.face_level = kBrightestLevel;
    e.vertex_levels.assign(n, kBrightestLevel);
    if (p.info->shading == Shading::None) return true;
    std::vector<std::uint8_t> missing(n + 1, 0);
    const std::uint8_t face_normal = *p.face_normal();
    if (lit(face_normal))
        e.face_level = ctx.levels[face_normal];
    else
        missing[0] = 1;
    if (p.info->shading == Shading::Gouraud && ctx.gouraud) {
        for (std::size_t k = 0; k < n; ++k) {
            if (lit(p.normals[k]))
                e.vertex_levels[k] = ctx.levels[p.normals[k]];
            else
                missing[k + 1] = 1;
        }
    } else {
        e.vertex_levels.assign(n, e.face_level);
        std::fill(missing.begin() + 1, missing.end(), missing[0]);
    }
    if (std::none_of(missing.begin(), missing.end(), [](std::uint8_t m) { return m != 0; })) return true;
    e.missing_levels = std::move(missing);
    return false;
}

void fill_texture(const Packet& p, const FaceContext& ctx, events::FaceDraw& e) {
    const std::size_t n = p.vertices.size();
    e.u.assign(n, 0);
    e.v.assign(n, 0);
    if (!p.info->textured()) return;
    e.texture = *p.texture();
    std::copy(p.u.begin(), p.u.end(), e.u.begin());
    std::copy(p.v.begin(), p.v.end(), e.v.begin());
    const Texture* texture =
        ctx.textures ? ctx.textures->find(static_cast<std::uint32_t>(e.texture)) : nullptr;
    if (!texture) return;
    const std::uint64_t size = std::uint64_t{texture->stride} * texture->height;
    for (std::size_t k = 0; k < n; ++k) {
        if (static_cast<std::uint32_t>(e.u[k]) >= texture->stride) e.flags.set(FaceFlag::TextureRightEdge);
        if (std::uint64_t(e.v[k]) * texture->stride + e.u[k] >= size) e.flags.set(FaceFlag::TexturePastImage);
    }
}

} // namespace

std::uint8_t unshaded_counterpart(std::uint8_t type) {
    static constexpr std::array<std::uint8_t, kPrimitiveTypeCount> kCounterpart{
        0, 1, 2, 3, 4, 5, 6, 7, 8, // unshaded types map to themselves
        0, 1, 2, 3, 4, 5, 7, 8,    // 9..16
        2, 3, 7, 8,                // 17..20
        21};
    return type < kPrimitiveTypeCount ? kCounterpart[type] : type;
}

events::FaceDraw face_event(const Packet& p, const FaceContext& ctx) {
    events::FaceDraw e;
    e.type = p.type;
    e.material = p.material;
    e.vertices = p.vertices;
    if (const auto n = p.face_normal()) e.face_normal = *n;
    e.vertex_normals.assign(p.normals.begin(), p.normals.end());
    bool visible = true;
    e.screen.reserve(p.vertices.size()); // one allocation, not one per doubling
    for (std::uint8_t index : p.vertices) {
        const ScreenPoint& s = ctx.screen[index];
        e.screen.push_back({s.sx, s.sy, s.z});
        visible = visible && inside_frame(s);
    }
    e.clipped = !visible;
    fill_texture(p, ctx, e);
    if (!fill_levels(p, ctx, e)) e.flags.set(FaceFlag::MissingNormal);
    if (ctx.encoding == Encoding::Grid) {
        e.flags.set(FaceFlag::GridRounding);
        if (!ctx.camera.empty())
            for (std::uint8_t index : p.vertices) e.camera.push_back(ctx.camera[index]);
    }
    return e;
}

} // namespace refcheck::reimpl
