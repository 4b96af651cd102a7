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

// A camera looking at the record's bounding-box centre from `view`.
reimpl::Camera camera_for(const reimpl::ModelRecord& record, const View& view);

std::vector<std::uint8_t> pack(const reimpl::Camera& c);
std::vector<std::uint8_t> pack(const reimpl::Light& l);
std::vector<std::uint8_t> pack_words(std::span<const std::int32_t> words);

} // namespace refcheck::harness
