// The one registry of known divergences: documented causes under which the original and the
// reimplementation may differ. Each entry names the flag an event must carry and the only fields it
// may explain. A case may allow entries by id; it cannot invent its own exceptions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace refcheck::harness {

// Flags carried by EventRecord::flags: the same bits as refcheck::events::FaceFlag. A
// reimplementation event carries its documented-fault flags; an original face event the original's
// own classification of the face (FaceWitness::classify).
enum Flag : std::uint32_t {
    kMissingNormal = 1u << 0,    // a normal index past the list (fault.normal.missing)
    kTextureRightEdge = 1u << 1, // u equal to the row stride samples the next row (fault.tex.right_edge)
    kTexturePastImage = 1u << 2, // v past the image reads past the allocation (fault.tex.past_alloc)
    kGridModel = 1u << 3,        // a grid-encoded model: lookup-table rounding (geo.grid.rounding)
};

struct KnownDivergence {
    std::string_view id;                  // stable id cases use in "allow"
    std::string_view rule;                // rule id in docs/formats/apache-3d.md
    std::uint32_t flag;                   // the flag the event must carry
    std::vector<std::string_view> fields; // the only fields it may explain
    bool tolerance;                       // explains integer fields only within the case's tolerance
    std::string_view cause;               // one sentence for reports
};

std::span<const KnownDivergence> known_divergences();
const KnownDivergence* find_known_divergence(std::string_view id);
// The flags of the allowed entries that may explain `field` (e.g. "pixels").
std::uint32_t flags_explaining(const std::vector<std::string>& allowed, std::string_view field);
// div.grid_tolerance: whether the original's `value` of `field` ("screen_x", "screen_y" or
// "screen_z") for a vertex lies within the box of half-size `half` around the reimplementation's
// camera-space point `camera`: z within [z - half, z + half]; sx (sy) within the least and greatest
// projections (geo.project) of the box's eight corners. Never when a corner's z is below 64.
bool within_grid_tolerance(std::string_view field, const std::array<std::int32_t, 3>& camera,
                           std::int64_t half, std::int64_t value);
// Which of `flags` some byte of a per-pixel taint holds.
std::uint32_t taint_causes(std::span<const std::uint8_t> taint, std::uint32_t flags);

} // namespace refcheck::harness
