// Byte layout of the 22 primitive packets (docs/formats/apache-3d.md, "Primitive packets").
#pragma once
#include <cstdint>

namespace refcheck::synth {

constexpr int kPrimitiveTypes = 22;

struct PacketLayout {
    uint8_t header;     // bytes including type and count
    uint8_t per_vertex; // bytes per vertex
    int8_t colour_a;    // offset in the header, or -1
    int8_t colour_b;
    int8_t texture; // u16
    int8_t mask;
    int8_t normal;      // face normal
    bool uv;            // vertex: index, u, v
    bool vertex_normal; // vertex: ..., normal index
    const char* name;
};

const PacketLayout& packet_layout(uint8_t type); // type < kPrimitiveTypes

inline bool is_polygon(uint8_t type) { return type != 0 && type != 1 && type != 9 && type != 10; }
inline bool is_textured(uint8_t type) { return packet_layout(type).texture >= 0; }

} // namespace refcheck::synth
