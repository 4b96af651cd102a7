#include "refcheck/harness/divergences.hpp"

#include "refcheck/reimpl/geometry.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

namespace refcheck::harness {

namespace {
const std::array<KnownDivergence, 4> kRegistry = {{
    {"missing_normal",
     "fault.normal.missing",
     kMissingNormal,
     {"face_level", "vertex_levels", "pixels"},
     false,
     "A normal index past the normal list: the original reads stray memory (uninitialised stack for "
     "signed-16-bit models, adjacent record bytes for grid models); the reimplementation uses the "
     "authored colour at full intensity."},
    {"texture_right_edge",
     "fault.tex.right_edge",
     kTextureRightEdge,
     {"pixels"},
     false,
     "u equal to the row stride: the original samples the first texel of the next row through its "
     "contiguous image address; only pixels of faces carrying the flag may differ."},
    {"texture_past_allocation",
     "fault.tex.past_alloc",
     kTexturePastImage,
     {"pixels"},
     false,
     "An authored v past the image: the original reads past the texture allocation; the "
     "reimplementation omits that sample."},
    {"grid_rounding",
     "geo.grid.rounding",
     kGridModel,
     {"screen_x", "screen_y", "screen_z"},
     true,
     "Grid models are transformed through rotated lookup tables whose terms round separately; screen "
     "coordinates may differ within the projection of a box of the case's stated half-size around "
     "the reimplementation's camera-space point (div.grid_tolerance)."},
}};
} // namespace

std::span<const KnownDivergence> known_divergences() { return kRegistry; }

const KnownDivergence* find_known_divergence(std::string_view id) {
    for (const auto& k : kRegistry)
        if (k.id == id) return &k;
    return nullptr;
}

std::uint32_t flags_explaining(const std::vector<std::string>& allowed, std::string_view field) {
    std::uint32_t flags = 0;
    for (const auto& id : allowed)
        if (const KnownDivergence* k = find_known_divergence(id))
            if (std::find(k->fields.begin(), k->fields.end(), field) != k->fields.end()) flags |= k->flag;
    return flags;
}

bool within_grid_tolerance(std::string_view field, const std::array<std::int32_t, 3>& camera,
                           std::int64_t half, std::int64_t value) {
    // A half-size past 32 bits draws no box (and would overflow below).
    if (half < 0 || half > std::numeric_limits<std::int32_t>::max()) return false;
    const std::int64_t z = camera[2];
    if (z - half < reimpl::kNearZ) return false; // a corner nearer than geo.near
    if (field == "screen_z") return value >= z - half && value <= z + half;
    if (field != "screen_x" && field != "screen_y") return false;
    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
    for (int corner = 0; corner < 8; ++corner) {
        reimpl::Vec3 p{};
        for (int axis = 0; axis < 3; ++axis) {
            const std::int64_t c = std::int64_t{camera[axis]} + ((corner >> axis) & 1 ? half : -half);
            if (c < std::numeric_limits<std::int32_t>::min() || c > std::numeric_limits<std::int32_t>::max())
                return false;
            p[axis] = static_cast<std::int32_t>(c);
        }
        // geo.project wraps its quotient to 32 bits before clamping: a corner whose quotient does
        // not fit lands anywhere, and the box it draws excuses nothing.
        for (int axis = 0; axis < 2; ++axis) {
            const std::int64_t q = std::int64_t{p[axis]} * 256 / p[2];
            if (q < std::numeric_limits<std::int32_t>::min() || q > std::numeric_limits<std::int32_t>::max())
                return false;
        }
        const reimpl::ScreenPoint s = reimpl::project(p);
        const std::int64_t v = field == "screen_x" ? s.sx : s.sy;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    return value >= lo && value <= hi;
}

std::uint32_t taint_causes(std::span<const std::uint8_t> taint, std::uint32_t flags) {
    std::uint32_t seen = 0;
    for (const std::uint8_t t : taint) seen |= t;
    return seen & flags;
}

} // namespace refcheck::harness
