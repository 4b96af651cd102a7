#include "refcheck/reimpl/face_event.hpp"

#include <algorithm>
#include <array>

namespace refcheck::reimpl {
namespace {

using events::FaceFlag;

// Levels per light.levels; nullopt when a used normal is missing (light.missing, light.missing.lit).
bool fill_levels(const Packet& p, const FaceContext& ctx, events::FaceDraw& e) {
  const std::size_t n = p.vertices.size();
  const auto lit = [&ctx](std::uint8_t index) { return index < ctx.levels.size(); };
  e.face_level = kBrightestLevel;
  e.vertex_levels.assign(n, kBrightestLevel);
  if (p.info->shading == Shading::None) return true;
  const std::uint8_t face_normal = *p.face_normal();
  if (!lit(face_normal)) return false;
  e.face_level = ctx.levels[face_normal];
  if (p.info->shading == Shading::Gouraud && ctx.gouraud) {
    if (!std::all_of(p.normals.begin(), p.normals.end(), lit)) return false;
    for (std::size_t k = 0; k < n; ++k) e.vertex_levels[k] = ctx.levels[p.normals[k]];
  } else {
    e.vertex_levels.assign(n, e.face_level);
  }
  return true;
}

void fill_texture(const Packet& p, const FaceContext& ctx, events::FaceDraw& e) {
  const std::size_t n = p.vertices.size();
  e.u.assign(n, 0);
  e.v.assign(n, 0);
  if (!p.info->textured()) return;
  e.texture = *p.texture();
  std::copy(p.u.begin(), p.u.end(), e.u.begin());
  std::copy(p.v.begin(), p.v.end(), e.v.begin());
  const Texture* texture = ctx.textures ? ctx.textures->find(static_cast<std::uint32_t>(e.texture)) : nullptr;
  if (!texture) return;
  const std::uint64_t size = std::uint64_t{texture->stride} * texture->height;
  for (std::size_t k = 0; k < n; ++k) {
    if (static_cast<std::uint32_t>(e.u[k]) >= texture->stride) e.flags.set(FaceFlag::TextureRightEdge);
    if (std::uint64_t(e.v[k]) * texture->stride + e.u[k] >= size) e.flags.set(FaceFlag::TexturePastImage);
  }
}

}  // namespace

std::uint8_t unshaded_counterpart(std::uint8_t type) {
  static constexpr std::array<std::uint8_t, kPrimitiveTypeCount> kCounterpart{
      0, 1, 2, 3, 4, 5, 6, 7, 8,  // unshaded types map to themselves
      0, 1, 2, 3, 4, 5, 7, 8,     // 9..16
      2, 3, 7, 8,                 // 17..20
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
  for (std::uint8_t index : p.vertices) {
    const ScreenPoint& s = ctx.screen[index];
    e.screen.push_back({s.sx, s.sy, s.z});
    visible = visible && inside_frame(s);
  }
  e.clipped = !visible;
  fill_texture(p, ctx, e);
  if (!fill_levels(p, ctx, e)) {
    e.face_level = kBrightestLevel;
    e.vertex_levels.assign(p.vertices.size(), kBrightestLevel);
    e.flags.set(FaceFlag::MissingNormal);
  }
  if (ctx.encoding == Encoding::Grid) e.flags.set(FaceFlag::GridRounding);
  return e;
}

}  // namespace refcheck::reimpl
