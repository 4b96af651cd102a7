// The content of one face event (decisions: "FaceDraw fields"): packet fields, face and vertex
// levels (light.levels), screen vertices and the fault flags (spec section 16).
#pragma once

#include <cstdint>
#include <span>

#include "refcheck/events.hpp"
#include "refcheck/reimpl/geometry.hpp"
#include "refcheck/reimpl/program.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

namespace refcheck::reimpl {

struct FaceContext {
    Encoding encoding = Encoding::S16;
    std::span<const ScreenPoint> screen;  // every vertex of the model, projected
    std::span<const Vec3> camera;         // every vertex in camera space (grid models: div.grid_tolerance)
    std::span<const std::int32_t> levels; // level of each lit normal (lit count entries)
    bool gouraud = true;
    const TextureArchive* textures = nullptr; // for the texture flags
};

// Fills every field that depends on the packet and the model (type, material, vertices, texture,
// u, v, normals, levels, screen, clipped, flags). The caller sets record, path, offset, opcode and
// secondary. No vertex of the packet may be behind the camera.
events::FaceDraw face_event(const Packet& packet, const FaceContext& context);

// fault.normal.flag: the unshaded counterpart drawn for a face with a missing normal
// (9, 10, 11 -> 0, 1, 2; 12 -> 3; 13, 14 -> 4, 5; 15, 16 -> 7, 8; 17 -> 2; 18 -> 3; 19, 20 -> 7, 8).
std::uint8_t unshaded_counterpart(std::uint8_t type);

} // namespace refcheck::reimpl
