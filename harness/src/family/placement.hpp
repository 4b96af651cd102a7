// Inputs both sides receive as the same integers: placements, cameras and lights built once from
// the case's angles (doubles rounded once here), then handed to the original (in guest memory)
// and to the reimplementation (as values).
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/profile.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/shadow.hpp"
#include "refcheck/reimpl/types.hpp"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace refcheck::harness {

// Rotation rows for yaw (about y), pitch (about x), roll (about z), in degrees, scaled by `one`.
std::array<std::int32_t, 9> rotation(double yaw, double pitch, double roll, double one);

// The two placements every record is constructed with: identity at the origin, and a turned one.
std::vector<reimpl::Transform> construct_placements();

// A camera looking at the record's bounding-box centre from `view`, or standing at the view's
// "position" (turned by its "rotation" when given). A probing view ("probe") then moves it so that
// the record's nearest vertex lands at the probe (place_nearest_vertex).
reimpl::Camera camera_for(const reimpl::ModelRecord& record, const View& view);

// Moves `cam` (its rotation kept) until the vertex of `record` nearest to it (the least camera-space
// depth, the first of equals), drawn at the origin unturned, lies exactly at `target` in camera
// space by the reimplementation's transform for the record's encoding (geo.camera,
// geo.s16.transform, geo.grid.table): the inputs that sit on the near plane's boundary (z 63, 64),
// on the 16-bit screen clamps (a screen coordinate of exactly 32768 or -32769) or past 2^30.
// Throws std::runtime_error when no camera position lands it exactly.
void place_nearest_vertex(const reimpl::ModelRecord& record, const reimpl::Vec3& target, reimpl::Camera& cam);

// The shadow family's camera: as camera_for, but a probing view places the record's nearest shadow
// point (shadow.world of the root drawn at the origin unturned, shadow.project onto plane_height
// along `sun`) at the probe by the shadow's own camera transform (shadow.camera).
reimpl::Camera shadow_camera_for(const reimpl::ModelRecord& geometry, const View& view,
                                 const reimpl::Vec3& sun, std::int32_t plane_height);

std::vector<std::uint8_t> pack_words(std::span<const std::int32_t> words);

// A struct the harness writes for the original (camera, light, shadow_params, scene, scene_params),
// laid out as the profile's "structs" entry says: each field the harness fills at its offset there,
// the bytes no field covers 0, the struct's size its "size" (else the end of its last field). A
// struct or field the profile lacks, a field of another size than the harness writes, or a field
// past the struct's size is a ProfileError naming the profile, struct and field.
class GuestStruct {
public:
    GuestStruct(const Profile& profile, const std::string& type);
    std::uint32_t size() const { return size_; }
    struct Fill {
        const char* field;
        std::span<const std::int32_t> words;
    };
    std::vector<std::uint8_t> pack(std::initializer_list<Fill> fills) const;

private:
    const Profile& profile_;
    std::string type_;
    std::uint32_t size_ = 0;
};

std::vector<std::uint8_t> pack(const Profile& profile, const reimpl::Camera& c);
std::vector<std::uint8_t> pack(const Profile& profile, const reimpl::Light& l);
std::vector<std::uint8_t> pack(const Profile& profile, const reimpl::ShadowParams& p);

} // namespace refcheck::harness
