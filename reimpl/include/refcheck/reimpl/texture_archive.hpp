// OBJTEXT.BIN: the counted offset table and, per populated slot, a 12-byte texture descriptor
// (u32 type, u32 height in rows, u32 pixel pointer) followed by stride * height indexed pixels.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "refcheck/reimpl/byte_reader.hpp"
#include "refcheck/reimpl/offset_table.hpp"

namespace refcheck::reimpl {

inline constexpr std::string_view kTextureArchiveName = "OBJTEXT.BIN";
inline constexpr std::uint32_t kTextureHeaderSize = 12;

// Row stride selected by the texture type (tex.stride): 0 -> 16, 1 -> 32, 2 -> 64.
std::optional<std::uint32_t> stride_of_type(std::uint32_t type);

// valid.texture: the greatest height the loader accepts (the stand-in refuses 4097 rows whose
// pixels all fit: cases/hostile-texture-height-over-max.json, edge-texture-height-max.json).
inline constexpr std::uint32_t kMaxTextureHeight = 4096;

struct Texture {
    std::uint32_t slot = 0;
    Extent extent; // absolute archive offsets of the record
    std::uint32_t type = 0;
    std::uint32_t stride = 0;
    std::uint32_t height = 0;
    std::uint32_t pixel_pointer = 0;  // header word 2 as stored in the file
    std::vector<std::uint8_t> pixels; // stride * height

    // The descriptor and pixels as the loader copies them: 12 + stride * height bytes.
    std::uint64_t allocation_size() const { return kTextureHeaderSize + pixels.size(); }
};

class TextureArchive {
public:
    static TextureArchive parse(std::span<const std::uint8_t> bytes);

    const OffsetTable& table() const { return table_; }
    std::uint32_t count() const { return table_.count(); }
    bool populated(std::uint32_t slot) const { return table_.populated(slot); }
    const Texture& texture(std::uint32_t slot) const&;           // std::out_of_range unless populated
    const Texture* find(std::uint32_t slot) const&;              // nullptr unless populated
    const Texture& texture(std::uint32_t slot) const&& = delete; // would dangle
    const Texture* find(std::uint32_t slot) const&& = delete;

private:
    OffsetTable table_;
    std::vector<std::optional<Texture>> textures_;
};

} // namespace refcheck::reimpl
