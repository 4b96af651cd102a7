// Inputs both sides receive as the same integers: placements, cameras and lights built once from
// the case's angles (doubles rounded once here), then handed to the original (in guest memory)
// and to the reimplementation (as values).
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/types.hpp"

#include <array>
#include <cstdint>
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

std::vector<std::uint8_t> pack(const reimpl::Camera& c);
std::vector<std::uint8_t> pack(const reimpl::Light& l);
std::vector<std::uint8_t> pack_words(std::span<const std::int32_t> words);

} // namespace refcheck::harness
