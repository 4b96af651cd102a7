// In-memory form of the archives the generator writes (docs/formats/apache-3d.md). The writer turns
// it into bytes; the generator's own census is counted from it.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace refcheck::synth {

enum class Encoding : int32_t { S16 = 0, Grid = 1 };

// Model-local coordinates in world units (s16 vertices are multiples of 16, grid ones of 64).
struct Vec3 {
    int32_t x = 0, y = 0, z = 0;
    friend bool operator==(const Vec3&, const Vec3&) = default;
};

struct Normal8 {
    int8_t x = 0, y = 0, z = 0;
    friend bool operator==(const Normal8&, const Normal8&) = default;
};

// Normal indices are resolved when the record is written: face normals come first (count_flat),
// vertex normals after them, and a Missing reference becomes count_all + index (a documented fault).
struct NormalRef {
    enum class Kind : uint8_t { Face, Vertex, Missing };
    Kind kind = Kind::Face;
    uint8_t index = 0;
};

struct PacketVertex {
    uint8_t vertex = 0;
    uint8_t u = 0, v = 0; // textured types
    NormalRef normal;     // Gouraud types
};

struct Packet {
    uint8_t type = 0;
    uint8_t colour_a = 0, colour_b = 0;
    uint16_t texture = 0;
    uint8_t mask = 0;
    NormalRef normal; // face normal of shaded and Gouraud types
    std::vector<PacketVertex> vertices;
};

enum class Op : uint8_t { Primary = 0, Secondary, Plane, IfMask, Choose, Select, Attach, Return };

struct Instr;
using Block = std::vector<Instr>; // written as its instructions followed by op 7

struct Instr {
    Op op = Op::Return;
    Packet packet;                  // ops 0, 1
    std::array<uint8_t, 3> plane{}; // op 2: vertex indices
    uint32_t mask = 0;              // ops 3, 4, 5
    uint8_t shift = 0;              // op 5
    std::vector<Block> branches;    // 2: front, back; 3: branch; 4: set, clear; 5: cases
    uint8_t slot = 0;               // op 6
};

struct Attachment {
    int32_t model = 0; // 0: gameplay slot
    Vec3 offset;
    std::array<int32_t, 9> rotation{}; // Q31, row-major
};

struct Metadata {
    uint32_t properties = 0; // bit 0 casts shadow, bit 1 receives, bit 2 mobile collision
    int32_t target_code = 0; // 0 / 10000 / 30000 / 50000
    int32_t class_code = 0;  // 0xa0
    int32_t ship_type = 0;   // 0xa4
    int32_t damage = 0;      // 0xa8
    int32_t explosion = 0;   // 0xac
    int32_t aux_model = -1;  // 0xb0
    int32_t radar = 0;       // 0xb4
    uint32_t flags = 0;      // 0xb8
};

struct Model {
    std::string name, description;
    Encoding encoding = Encoding::S16;
    int32_t lod_distance = 0;
    int32_t next = -1;
    std::vector<Vec3> vertices;
    std::vector<Normal8> face_normals, vertex_normals;
    bool has_attachments = false;
    std::vector<Attachment> attachments;
    Block program;
    Metadata meta;
    bool has_shadow = false;
    int32_t shadow_geometry = -1; // -1: the model itself
    std::vector<uint8_t> grid_lighting;
};

struct Texture {
    uint32_t type = 2; // row stride 16 / 32 / 64
    uint32_t height = 64;
    std::vector<uint8_t> pixels;
};

struct Rgb {
    uint8_t r = 0, g = 0, b = 0;
};

struct Archive {
    std::vector<Model> models;
    std::vector<std::optional<Texture>> textures;
    std::vector<Rgb> palette;
};

} // namespace refcheck::synth
