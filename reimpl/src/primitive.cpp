#include "refcheck/reimpl/primitive.hpp"

#include <array>

namespace refcheck::reimpl {
namespace {

constexpr MaterialLayout kColour{.colour = 2};
constexpr MaterialLayout kTwoColour{.colour = 2, .colour_b = 3};
constexpr MaterialLayout kNone{};
constexpr MaterialLayout kTexture{.texture = 2, .mask = 4};
constexpr MaterialLayout kShadedColour{.colour = 2, .normal = 3};
constexpr MaterialLayout kShadedTwoColour{.colour = 2, .colour_b = 3, .normal = 4};
constexpr MaterialLayout kShadedTexture{.texture = 2, .mask = 4, .normal = 5};
constexpr MaterialLayout kGouraudTexture{.texture = 2, .mask = 5, .normal = 4};

constexpr std::array<PrimitiveInfo, kPrimitiveTypeCount> kPrimitives{{
    {"points", 3, 1, Shape::Points, Shading::None, kColour},
    {"polyline", 3, 1, Shape::Polyline, Shading::None, kColour},
    {"flat_polygon", 3, 1, Shape::Polygon, Shading::None, kColour},
    {"two_colour_polygon", 4, 1, Shape::TwoColour, Shading::None, kTwoColour},
    {"fine_mesh", 3, 1, Shape::FineMesh, Shading::None, kColour},
    {"coarse_mesh", 3, 1, Shape::CoarseMesh, Shading::None, kColour},
    {"glass", 2, 1, Shape::Glass, Shading::None, kNone},
    {"texture", 5, 3, Shape::Texture, Shading::None, kTexture},
    {"masked_texture", 5, 3, Shape::MaskedTexture, Shading::None, kTexture},
    {"shaded_points", 4, 1, Shape::Points, Shading::Flat, kShadedColour},
    {"shaded_polyline", 4, 1, Shape::Polyline, Shading::Flat, kShadedColour},
    {"shaded_flat_polygon", 4, 1, Shape::Polygon, Shading::Flat, kShadedColour},
    {"shaded_two_colour_polygon", 5, 1, Shape::TwoColour, Shading::Flat, kShadedTwoColour},
    {"shaded_fine_mesh", 4, 1, Shape::FineMesh, Shading::Flat, kShadedColour},
    {"shaded_coarse_mesh", 4, 1, Shape::CoarseMesh, Shading::Flat, kShadedColour},
    {"shaded_texture", 6, 3, Shape::Texture, Shading::Flat, kShadedTexture},
    {"shaded_masked_texture", 6, 3, Shape::MaskedTexture, Shading::Flat, kShadedTexture},
    {"gouraud_polygon", 4, 2, Shape::Polygon, Shading::Gouraud, kShadedColour},
    {"gouraud_two_colour_polygon", 5, 2, Shape::TwoColour, Shading::Gouraud, kShadedTwoColour},
    {"gouraud_texture", 6, 4, Shape::Texture, Shading::Gouraud, kGouraudTexture},
    {"gouraud_masked_texture", 6, 4, Shape::MaskedTexture, Shading::Gouraud, kGouraudTexture},
    {"heat_haze", 2, 1, Shape::Haze, Shading::None, kNone},
}};

} // namespace

const PrimitiveInfo* primitive_info(std::uint8_t type) {
    return type < kPrimitiveTypeCount ? &kPrimitives[type] : nullptr;
}

} // namespace refcheck::reimpl
