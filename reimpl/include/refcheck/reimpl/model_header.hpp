// The 188-byte model header (hdr.*), one struct with a pinned size, read field by field.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "refcheck/reimpl/byte_reader.hpp"

namespace refcheck::reimpl {

enum class Encoding : std::int32_t { S16 = 0, Grid = 1 };

struct ModelHeader {
    std::int32_t encoding;         // 0x00 coordinate encoding: 0 signed 16-bit, 1 grid
    std::int32_t lod_distance;     // 0x04 distance threshold for the next level of detail
    std::int32_t next;             // 0x08 next model record, or -1 (not relocated)
    std::int32_t bounds[6];        // 0x0c min x, max x, min y, max y, min z, max z
    std::int32_t radius;           // 0x24 horizontal bounding radius
    std::int32_t height;           // 0x28
    std::uint32_t attachments;     // 0x2c attached-model definitions  } seven internal offsets,
    std::uint32_t bounding_box;    // 0x30 eight bounding-box vertices  } relative to the record,
    std::uint32_t vertices;        // 0x34 vertex list                  } 0 = absent; the loader
    std::uint32_t normals;         // 0x38 normal list                  } adds the model address
    std::uint32_t program;         // 0x3c face drawing program         } to each nonzero one
    std::uint32_t shadow;          // 0x40 shadow data                  }
    std::uint32_t grid_lighting;   // 0x44 additional grid-lighting data}
    char short_name[16];           // 0x48
    char description[64];          // 0x58
    std::uint32_t properties;      // 0x98 bit 0 casts shadow, bit 1 receives shadows, bit 2 mobile collision
    std::int32_t target_filter;    // 0x9c
    std::int32_t metadata_a0;      // 0xa0
    std::int32_t metadata_a4;      // 0xa4 patched for ship type
    std::int32_t damage_threshold; // 0xa8
    std::int32_t explosion_size;   // 0xac
    std::int32_t auxiliary_model;  // 0xb0
    std::int32_t radar_type;       // 0xb4
    std::uint32_t gameplay_flags;  // 0xb8
};
static_assert(sizeof(ModelHeader) == 188, "the model header is 188 bytes");

inline constexpr std::uint32_t kHeaderSize = 188;
inline constexpr std::uint32_t kInternalOffsetsAt = 0x2c; // seven u32 fields 0x2c..0x44
inline constexpr std::uint32_t kInternalOffsetCount = 7;

// Reads the header at `at` (absolute) field by field, each read checked against the reader's window.
ModelHeader read_model_header(const ByteReader& record, std::uint64_t at);

// The seven internal offsets in header order (0x2c .. 0x44).
std::array<std::uint32_t, kInternalOffsetCount> internal_offsets(const ModelHeader& header);

// A NUL-terminated (or full-length) char field as a string.
std::string field_string(const char* field, std::size_t size);

} // namespace refcheck::reimpl
