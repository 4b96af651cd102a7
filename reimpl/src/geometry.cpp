#include "refcheck/reimpl/geometry.hpp"

#include <algorithm>

#include "refcheck/reimpl/fixed_point.hpp"

namespace refcheck::reimpl {

using fixed::add32;
using fixed::dot3;
using fixed::low32;

namespace {

std::int32_t s16_at(const RawVertex& raw, int k) {
    return static_cast<std::int16_t>(static_cast<std::uint16_t>(raw[2 * k] | (raw[2 * k + 1] << 8)));
}

std::int32_t grid_coordinate(std::int32_t coarse, std::int32_t fine) {
    return (coarse - 32) * 4096 + (fine - 32) * 64;
}

std::int32_t clamp16(std::int64_t value) {
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(value, -32768, 32767));
}

} // namespace

Vec3 decode_vertex(Encoding encoding, const RawVertex& raw) {
    if (encoding == Encoding::S16) return {16 * s16_at(raw, 0), 16 * s16_at(raw, 1), 16 * s16_at(raw, 2)};
    return {grid_coordinate(raw[0], raw[3]), grid_coordinate(raw[1], raw[4]),
            grid_coordinate(raw[2], raw[5])};
}

CameraTransform camera_transform(const Camera& camera, const Transform& instance) {
    const Mat3& r = camera.rotation;
    const Mat3& q = instance.rotation;
    CameraTransform ct;
    std::array<std::int64_t, 3> d{};
    for (int k = 0; k < 3; ++k) d[k] = fixed::sub64(instance.position[k], camera.position[k]);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            ct.m[3 * i + j] =
                low32(dot3(r[3 * i], q[j], r[3 * i + 1], q[3 + j], r[3 * i + 2], q[6 + j]) >> 31);
        }
        ct.t[i] = low32(dot3(r[3 * i], d[0], r[3 * i + 1], d[1], r[3 * i + 2], d[2]) >> 14);
    }
    return ct;
}

Vec3 transform_exact(const CameraTransform& ct, const Vec3& v) {
    Vec3 cam{};
    for (int i = 0; i < 3; ++i) {
        const std::int64_t sum = dot3(ct.m[3 * i], v[0], ct.m[3 * i + 1], v[1], ct.m[3 * i + 2], v[2]);
        cam[i] = add32(low32(sum >> 14), ct.t[i]);
    }
    return cam;
}

GridTables::GridTables(const CameraTransform& ct) : t_(ct.t) {
    for (int j = 0; j < 3; ++j) {
        for (std::int32_t e = 0; e < static_cast<std::int32_t>(kGridTableEntries); ++e) {
            for (int i = 0; i < 3; ++i) {
                const std::int64_t m = ct.m[3 * i + j];
                coarse_[j][e][i] = low32(fixed::mul64(m, (e - 32) * 4096) >> 14);
                fine_[j][e][i] = low32(fixed::mul64(m, (e - 32) * 64) >> 14);
            }
        }
    }
}

Vec3 GridTables::transform(const RawVertex& raw) const {
    Vec3 cam{};
    for (int i = 0; i < 3; ++i) {
        std::int32_t sum = 0;
        for (int j = 0; j < 3; ++j)
            sum = add32(add32(sum, coarse_[j].at(raw[j])[i]), fine_[j].at(raw[3 + j])[i]);
        cam[i] = add32(sum, t_[i]);
    }
    return cam;
}

Vec3 transform_vertex(Encoding encoding, const CameraTransform& ct, const GridTables* grid,
                      const RawVertex& raw) {
    if (encoding == Encoding::Grid && grid != nullptr) return grid->transform(raw);
    return transform_exact(ct, decode_vertex(encoding, raw));
}

// geo.project: the 64-bit quotient wraps to int32, the offset is added in int32, then clamped.
ScreenPoint project(const Vec3& cam) {
    if (cam[2] < kNearZ) return ScreenPoint{0, 0, cam[2], true};
    const std::int32_t qx = low32((std::int64_t{cam[0]} * 256) / cam[2]);
    const std::int32_t qy = low32((std::int64_t{cam[1]} * 256) / cam[2]);
    return ScreenPoint{clamp16(add32(160, qx)), clamp16(fixed::sub32(100, qy)), cam[2], false};
}

bool inside_frame(const ScreenPoint& p) {
    return !p.behind && p.sx >= 0 && p.sx < kFrameWidth && p.sy >= 0 && p.sy < kFrameHeight;
}

std::int32_t winding(const ScreenPoint& p0, const ScreenPoint& p1, const ScreenPoint& p2) {
    using fixed::mul32;
    using fixed::sub32;
    const std::int32_t cross = sub32(mul32(sub32(p1.sx, p0.sx), sub32(p2.sy, p0.sy)),
                                     mul32(sub32(p1.sy, p0.sy), sub32(p2.sx, p0.sx)));
    return cross >> 16;
}

Vec3 model_space_light(const Transform& instance, const Light& light) {
    const Mat3& q = instance.rotation;
    const Vec3& l = light.direction;
    Vec3 lm{};
    for (int j = 0; j < 3; ++j) lm[j] = low32(dot3(q[j], l[0], q[3 + j], l[1], q[6 + j], l[2]) >> 31);
    return lm;
}

std::int32_t light_level(const Vec3& lm, const std::array<std::int8_t, 3>& n) {
    const std::int32_t dot = low32(dot3(n[0], lm[0], n[1], lm[1], n[2], lm[2]) >> 14);
    return std::min(std::max(dot, 0) >> 2, kBrightestLevel);
}

} // namespace refcheck::reimpl
