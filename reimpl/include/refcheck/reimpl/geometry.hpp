// Vertex decoding (geo.s16, geo.grid.decode), the camera transform (geo.camera,
// geo.s16.transform, geo.grid.table), projection (geo.project), winding (wind.formula) and
// lighting (light.transform, light.clamp, light.level). Spec sections 4, 5 and 7.
#pragma once

#include <array>
#include <cstdint>

#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/types.hpp"

namespace refcheck::reimpl {

// ---- model space -----------------------------------------------------------------------------------

// The local coordinate of a vertex: s16 scaled by 16, or grid (coarse - 32) * 4096 + (fine - 32) * 64.
Vec3 decode_vertex(Encoding encoding, const RawVertex& raw);

// ---- camera space ----------------------------------------------------------------------------------

// Model-to-camera: M (Q14) and T for one instance seen from one camera (geo.camera).
struct CameraTransform {
    Mat3 m{};
    Vec3 t{};
};
CameraTransform camera_transform(const Camera& camera, const Transform& instance);

// cam[i] = (int32)((Σ_j (int64)M[i][j] * v[j]) >> 14) + T[i] (geo.s16.transform). For a grid model
// this is the exact transform the lookup tables approximate.
Vec3 transform_exact(const CameraTransform& ct, const Vec3& local);

// The grid path's lookup tables (geo.grid.table): per axis column j, coarse_j[c] and fine_j[f]
// hold that term's camera-space vector; a vertex sums six separately floored terms.
class GridTables {
public:
    explicit GridTables(const CameraTransform& ct);
    Vec3 transform(const RawVertex& raw) const; // raw bytes must lie in 0..63 (geo.grid.range)

private:
    std::array<std::array<Vec3, kGridTableEntries>, 3> coarse_{};
    std::array<std::array<Vec3, kGridTableEntries>, 3> fine_{};
    Vec3 t_{};
};

// geo.grid.rounding: the table result minus T lies in [e - 5, e], e the exact value minus T.
inline constexpr std::int32_t kGridRoundingBound = 5;

// Camera-space coordinates of one vertex of a model drawn with `ct`, by the model's own path
// (s16: exact formula; grid: lookup tables).
Vec3 transform_vertex(Encoding encoding, const CameraTransform& ct, const GridTables* grid,
                      const RawVertex& raw);

// ---- screen ----------------------------------------------------------------------------------------

inline constexpr std::int32_t kNearZ = 64; // geo.near
inline constexpr std::int32_t kFrameWidth = 320;
inline constexpr std::int32_t kFrameHeight = 200;

// geo.project: sx = 160 + qx, sy = 100 - qy (qx, qy the int32-wrapped 64-bit quotients of
// cam * 256 / cam.z), each clamped to [-32768, 32767].
struct ScreenPoint {
    std::int32_t sx = 0;
    std::int32_t sy = 0;
    std::int32_t z = 0;
    bool behind = false; // cam.z < 64: sx, sy are 0 and meaningless
};
ScreenPoint project(const Vec3& cam);
bool inside_frame(const ScreenPoint& p); // fb.visible, per vertex

// wind.formula: w = (int32)((x1-x0)*(y2-y0) - (y1-y0)*(x2-x0)) >> 16, 32-bit wrapping.
std::int32_t winding(const ScreenPoint& p0, const ScreenPoint& p1, const ScreenPoint& p2);

// ---- lighting --------------------------------------------------------------------------------------

inline constexpr std::int32_t kBrightestLevel = 31;

// light.transform: Lm[j] = (int32)((Σ_k (int64)Rot[k][j] * L[k]) >> 31).
Vec3 model_space_light(const Transform& instance, const Light& light);
// light.clamp + light.level: min(max(dot, 0) >> 2, 31).
std::int32_t light_level(const Vec3& model_light, const std::array<std::int8_t, 3>& normal);

} // namespace refcheck::reimpl
