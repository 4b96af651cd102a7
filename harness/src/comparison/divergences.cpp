#include "refcheck/harness/divergences.hpp"

#include <algorithm>
#include <array>

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
     "coordinates may differ within the case's stated tolerance."},
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

std::uint32_t taint_causes(std::span<const std::uint8_t> taint, std::uint32_t flags) {
    std::uint32_t seen = 0;
    for (const std::uint8_t t : taint) seen |= t;
    return seen & flags;
}

} // namespace refcheck::harness
