// Relocation (rel.offsets, rel.layout): given the guest addresses at which the original placed the
// model archive allocation and each texture allocation, the bytes the original leaves in memory.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

namespace refcheck::reimpl {

struct RelocatedModels {
    std::vector<std::uint8_t> bytes;         // the whole of 3DOBJS.BIN, relocated in place
    std::vector<std::uint32_t> object_table; // per slot: allocation + record offset, 0 for empty slots
};

// 3DOBJS.BIN is one allocation at `allocation`; each populated slot's model address is
// allocation + record offset, and every nonzero internal offset of its header gets that address
// added (u32 wrap). Slots are relocated in table order, in place.
RelocatedModels relocate_models(const ModelArchive& archive, std::uint32_t allocation);

struct RelocatedTexture {
    std::uint32_t slot = 0;
    std::uint32_t address = 0;       // the allocation
    std::vector<std::uint8_t> bytes; // 12-byte descriptor (word 2 = address + 12) and the pixels
};

struct RelocatedTextures {
    std::vector<RelocatedTexture> textures;   // populated slots in slot order
    std::vector<std::uint32_t> texture_table; // per slot: allocation, 0 for empty slots
};

// `allocations` holds one guest address per table slot (ignored for empty slots).
// std::invalid_argument when its size differs from the table's count.
RelocatedTextures relocate_textures(const TextureArchive& archive,
                                    std::span<const std::uint32_t> allocations);

// The descriptor and pixels of one texture as the loader leaves them at `address`.
std::vector<std::uint8_t> relocated_texture_bytes(const Texture& texture, std::uint32_t address);

} // namespace refcheck::reimpl
