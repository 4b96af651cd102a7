#include "refcheck/reimpl/relocation.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace refcheck::reimpl {
namespace {

std::uint32_t load_u32(const std::vector<std::uint8_t>& b, std::size_t at) {
    return static_cast<std::uint32_t>(b[at]) | (static_cast<std::uint32_t>(b[at + 1]) << 8) |
           (static_cast<std::uint32_t>(b[at + 2]) << 16) | (static_cast<std::uint32_t>(b[at + 3]) << 24);
}

void store_u32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

} // namespace

RelocatedModels relocate_models(const ModelArchive& archive, std::uint32_t allocation) {
    RelocatedModels out;
    out.bytes.assign(archive.bytes().begin(), archive.bytes().end());
    out.object_table.assign(archive.count(), 0);
    for (std::uint32_t slot = 0; slot < archive.count(); ++slot) {
        if (!archive.populated(slot)) continue;
        const std::uint32_t offset = archive.table().offset(slot);
        const std::uint32_t model = allocation + offset; // u32 wrap
        out.object_table[slot] = model;
        for (std::uint32_t i = 0; i < kInternalOffsetCount; ++i) {
            const std::size_t at = std::size_t{offset} + kInternalOffsetsAt + 4 * i;
            const std::uint32_t value = load_u32(out.bytes, at);
            if (value != 0) store_u32(out.bytes, at, value + model);
        }
    }
    return out;
}

std::vector<std::uint8_t> relocated_texture_bytes(const Texture& texture, std::uint32_t address) {
    std::vector<std::uint8_t> bytes(texture.allocation_size());
    store_u32(bytes, 0, texture.type);
    store_u32(bytes, 4, texture.height);
    store_u32(bytes, 8, address + kTextureHeaderSize);
    std::copy(texture.pixels.begin(), texture.pixels.end(), bytes.begin() + kTextureHeaderSize);
    return bytes;
}

RelocatedTextures relocate_textures(const TextureArchive& archive,
                                    std::span<const std::uint32_t> allocations) {
    if (allocations.size() != archive.count()) {
        throw std::invalid_argument(fmt::format("relocate_textures: {} allocations for {} slots",
                                                allocations.size(), archive.count()));
    }
    RelocatedTextures out;
    out.texture_table.assign(archive.count(), 0);
    for (std::uint32_t slot = 0; slot < archive.count(); ++slot) {
        const Texture* t = archive.find(slot);
        if (!t) continue;
        out.texture_table[slot] = allocations[slot];
        out.textures.push_back(
            RelocatedTexture{slot, allocations[slot], relocated_texture_bytes(*t, allocations[slot])});
    }
    return out;
}

} // namespace refcheck::reimpl
