#include "family/placement.hpp"

#include "refcheck/reimpl/geometry.hpp"
#include "refcheck/reimpl/shadow.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

namespace refcheck::harness {

namespace {
constexpr double kPi = 3.14159265358979323846;
std::int32_t fixed(double v, double one) {
    const double x = std::nearbyint(v * one);
    return static_cast<std::int32_t>(std::clamp(x, -2147483647.0, 2147483647.0));
}
} // namespace

std::array<std::int32_t, 9> rotation(double yaw, double pitch, double roll, double one) {
    const double y = yaw * kPi / 180, p = pitch * kPi / 180, r = roll * kPi / 180;
    // R = Rz(roll) * Rx(pitch) * Ry(yaw); rows are the camera's right, up and forward axes.
    const double cy = std::cos(y), sy = std::sin(y), cp = std::cos(p), sp = std::sin(p), cr = std::cos(r),
                 sr = std::sin(r);
    const double ry[9] = {cy, 0, -sy, 0, 1, 0, sy, 0, cy};
    const double rx[9] = {1, 0, 0, 0, cp, -sp, 0, sp, cp};
    const double rz[9] = {cr, -sr, 0, sr, cr, 0, 0, 0, 1};
    auto mul = [](const double* a, const double* b, double* out) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                out[i * 3 + j] = a[i * 3] * b[j] + a[i * 3 + 1] * b[3 + j] + a[i * 3 + 2] * b[6 + j];
    };
    double t[9], m[9];
    mul(rx, ry, t);
    mul(rz, t, m);
    std::array<std::int32_t, 9> out{};
    for (int i = 0; i < 9; ++i) out[static_cast<std::size_t>(i)] = fixed(m[i], one);
    return out;
}

std::vector<reimpl::Transform> construct_placements() {
    reimpl::Transform turned;
    turned.position = {4096, -512, 8192};
    turned.rotation = rotation(30, 10, 0, 2147483647.0);
    return {reimpl::Transform{}, turned};
}

namespace {

// The view's camera before any probe: placed ("position", turned by "rotation" or the angles) or
// looking at the record's bounding-box centre from `distance` radii.
reimpl::Camera aimed_camera(const reimpl::ModelRecord& record, const View& view) {
    reimpl::Camera cam;
    cam.rotation = view.rotation ? *view.rotation : rotation(view.yaw, view.pitch, view.roll, 16384.0);
    if (view.position) {
        cam.position = *view.position;
        return cam;
    }
    const auto& h = record.header;
    // Bounds are min x, max x, min y, max y, min z, max z in decoded local units (hdr.bounds.units).
    const double centre[3] = {(double(h.bounds[0]) + h.bounds[1]) / 2,
                              (double(h.bounds[2]) + h.bounds[3]) / 2,
                              (double(h.bounds[4]) + h.bounds[5]) / 2};
    double extent = 0;
    for (int i = 0; i < 3; ++i)
        extent = std::max(extent, std::abs(double(h.bounds[2 * i + 1]) - h.bounds[2 * i]) / 2);
    extent = std::max(extent, 256.0);
    const double distance = extent * view.distance;
    for (int i = 0; i < 3; ++i) {
        const double forward = cam.rotation[6 + static_cast<std::size_t>(i)] / 16384.0;
        cam.position[static_cast<std::size_t>(i)] = fixed(centre[i] - forward * distance, 1.0);
    }
    return cam;
}

// Moves `cam` (its rotation kept) until the point of `count` nearest to it (the least camera-space
// depth by `camera_space(k)`, the first of equals) lies exactly at `target`.
template <typename CameraSpace>
void place_nearest(std::size_t count, const reimpl::Vec3& target, reimpl::Camera& cam,
                   const CameraSpace& camera_space, const char* what) {
    std::size_t nearest = 0;
    std::int32_t depth = 0;
    for (std::size_t k = 0; k < count; ++k) {
        const std::int32_t z = camera_space(k)[2];
        if (k == 0 || z < depth) nearest = k, depth = z;
    }
    // Moving the camera by d moves every camera-space point by about -R d (R the Q14 rotation);
    // a few corrections by the rounded inverse (R's transpose) land the point exactly.
    for (int round = 0; round < 32; ++round) {
        const reimpl::Vec3 at = camera_space(nearest);
        std::int64_t miss[3];
        for (std::size_t i = 0; i < 3; ++i) miss[i] = std::int64_t{at[i]} - target[i];
        if (miss[0] == 0 && miss[1] == 0 && miss[2] == 0) return;
        for (std::size_t j = 0; j < 3; ++j) {
            double step = 0;
            for (std::size_t i = 0; i < 3; ++i) step += cam.rotation[i * 3 + j] / 16384.0 * double(miss[i]);
            if (round >= 16 && step != 0) step = step > 0 ? std::max(step, 1.0) : std::min(step, -1.0);
            cam.position[j] = fixed(double(cam.position[j]) + step, 1.0);
        }
    }
    throw std::runtime_error(std::string("a probing view cannot place ") + what + " " +
                             std::to_string(nearest) + " of the record exactly at (" +
                             std::to_string(target[0]) + ", " + std::to_string(target[1]) + ", " +
                             std::to_string(target[2]) + ") in camera space with this rotation");
}

} // namespace

reimpl::Camera camera_for(const reimpl::ModelRecord& record, const View& view) {
    reimpl::Camera cam = aimed_camera(record, view);
    if (view.probe && !record.vertices.empty()) place_nearest_vertex(record, *view.probe, cam);
    return cam;
}

reimpl::Camera shadow_camera_for(const reimpl::ModelRecord& geometry, const View& view,
                                 const reimpl::Vec3& sun, std::int32_t plane_height) {
    reimpl::Camera cam = aimed_camera(geometry, view);
    if (!view.probe || geometry.vertices.empty()) return cam;
    std::vector<reimpl::Vec3> on_plane;
    for (const reimpl::RawVertex& raw : geometry.vertices)
        on_plane.push_back(reimpl::project_to_plane(
            reimpl::world_point(reimpl::Transform{}, reimpl::decode_vertex(geometry.encoding, raw)), sun,
            plane_height));
    place_nearest(
        on_plane.size(), *view.probe, cam,
        [&](std::size_t k) { return reimpl::camera_point(cam, on_plane[k]); }, "shadow point");
    return cam;
}

void place_nearest_vertex(const reimpl::ModelRecord& record, const reimpl::Vec3& target,
                          reimpl::Camera& cam) {
    // The instance every family draws at the origin, unturned (construct_placements()[0]).
    const reimpl::Transform instance{};
    place_nearest(
        record.vertices.size(), target, cam,
        [&](std::size_t k) {
            const reimpl::CameraTransform ct = reimpl::camera_transform(cam, instance);
            std::optional<reimpl::GridTables> grid;
            if (record.encoding == reimpl::Encoding::Grid) grid.emplace(ct);
            return reimpl::transform_vertex(record.encoding, ct, grid ? &*grid : nullptr, record.vertices[k]);
        },
        "vertex");
}

std::vector<std::uint8_t> pack_words(std::span<const std::int32_t> words) {
    std::vector<std::uint8_t> out;
    for (std::int32_t w : words)
        for (int i = 0; i < 4; ++i)
            out.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(w) >> (8 * i)));
    return out;
}

GuestStruct::GuestStruct(const Profile& profile, const std::string& type) : profile_(profile), type_(type) {
    const auto it = profile.structs.find(type);
    if (it == profile.structs.end())
        throw ProfileError(profile.file.string() + ": no struct \"" + type +
                           "\" (its \"structs\" entry says how the harness lays it out for the image)");
    size_ = profile.struct_size(type); // its fields end within it (load_profile checks)
}

std::vector<std::uint8_t> GuestStruct::pack(std::initializer_list<Fill> fills) const {
    std::vector<std::uint8_t> out(size_, 0);
    const std::vector<ProfileField>& fields = profile_.structs.at(type_);
    for (const Fill& fill : fills) {
        const auto f = std::find_if(fields.begin(), fields.end(),
                                    [&](const ProfileField& x) { return x.name == fill.field; });
        const std::string who = profile_.file.string() + ": " + type_ + "." + fill.field;
        if (f == fields.end()) throw ProfileError(who + ": the struct has no such field");
        if (f->size != 4 * fill.words.size())
            throw ProfileError(who + " is " + std::to_string(f->size) + " bytes, the harness writes " +
                               std::to_string(4 * fill.words.size()));
        const std::vector<std::uint8_t> bytes = pack_words(fill.words);
        std::copy(bytes.begin(), bytes.end(), out.begin() + f->offset);
    }
    return out;
}

std::vector<std::uint8_t> pack(const Profile& profile, const reimpl::Camera& c) {
    return GuestStruct(profile, "camera").pack({{"pos", c.position}, {"rot", c.rotation}});
}

std::vector<std::uint8_t> pack(const Profile& profile, const reimpl::Light& l) {
    return GuestStruct(profile, "light").pack({{"dir", l.direction}});
}

std::vector<std::uint8_t> pack(const Profile& profile, const reimpl::ShadowParams& p) {
    const std::int32_t terrain[] = {p.terrain_height}, cloud[] = {p.cloud_altitude},
                       plane[] = {p.plane_height};
    return GuestStruct(profile, "shadow_params")
        .pack({{"sun", p.sun},
               {"terrain_height", terrain},
               {"cloud_altitude", cloud},
               {"plane_height", plane}});
}

} // namespace refcheck::harness
