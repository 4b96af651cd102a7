// Serialises the in-memory archive into the three files of a data root.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "model.hpp"

namespace refcheck::synth {

constexpr uint32_t kHeaderSize = 188;

// Header field offsets (docs/formats/apache-3d.md, "Header").
namespace hdr {
constexpr uint32_t encoding = 0x00, lod_distance = 0x04, next = 0x08, bounds = 0x0c, radius = 0x24,
                   height = 0x28, attachments = 0x2c, bbox = 0x30, vertices = 0x34, normals = 0x38,
                   program = 0x3c, shadow = 0x40, grid_lighting = 0x44, name = 0x48, description = 0x58,
                   properties = 0x98, target_code = 0x9c, class_code = 0xa0, ship_type = 0xa4, damage = 0xa8,
                   explosion = 0xac, aux_model = 0xb0, radar = 0xb4, flags = 0xb8;
}

struct Bounds {
    Vec3 min, max;
    int32_t radius = 0; // horizontal (x, z)
};
Bounds bounds_of(const std::vector<Vec3>& vertices);

// One vertex in the model's encoding (6 bytes).
void encode_vertex(Encoding e, const Vec3& v, uint8_t out[6]);

// Bytes of one packet (type byte first), normal references resolved against count_all.
std::vector<uint8_t> encode_packet(const Packet& p, uint32_t count_flat, uint32_t count_all);

std::vector<uint8_t> write_program(const Model& m);
std::vector<uint8_t> write_model(const Model& m);
std::vector<uint8_t> write_objects(const std::vector<Model>& models);
std::vector<uint8_t> write_textures(const std::vector<std::optional<Texture>>& textures);
std::vector<uint8_t> write_palette(const std::vector<Rgb>& palette);

} // namespace refcheck::synth
