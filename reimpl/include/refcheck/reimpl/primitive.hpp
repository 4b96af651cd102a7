// The 22 primitive types of a face packet: header size, bytes per vertex, the material layout
// (which header bytes mean what) and how the face is drawn.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace refcheck::reimpl {

inline constexpr std::uint8_t kPrimitiveTypeCount = 22;

enum class Shape : std::uint8_t {
    Points,
    Polyline,
    Polygon,
    TwoColour,
    FineMesh,
    CoarseMesh,
    Glass,
    Haze,
    Texture,
    MaskedTexture
};
enum class Shading : std::uint8_t { None, Flat, Gouraud };

// Positions of the material fields in the packet (offsets from the type byte); nullopt = absent.
struct MaterialLayout {
    std::optional<std::uint8_t> colour = std::nullopt;
    std::optional<std::uint8_t> colour_b = std::nullopt;
    std::optional<std::uint8_t> texture = std::nullopt; // u16
    std::optional<std::uint8_t> mask = std::nullopt;
    std::optional<std::uint8_t> normal = std::nullopt; // face normal
};

struct PrimitiveInfo {
    std::string_view name;
    std::uint8_t header_size; // including type and count
    std::uint8_t vertex_size; // vertex index [, u, v] [, normal]
    Shape shape;
    Shading shading;
    MaterialLayout material;
    bool textured() const { return shape == Shape::Texture || shape == Shape::MaskedTexture; }
    bool vertex_normals() const { return shading == Shading::Gouraud; }
};

// nullptr for an unknown type (>= 22).
const PrimitiveInfo* primitive_info(std::uint8_t type);

} // namespace refcheck::reimpl
