#include "refcheck/reimpl/texture_archive.hpp"

#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace refcheck::reimpl {

std::optional<std::uint32_t> stride_of_type(std::uint32_t type) {
    switch (type) {
        case 0: return 16;
        case 1: return 32;
        case 2: return 64;
        default: return std::nullopt;
    }
}

namespace {

Texture read_texture(const ByteReader& r, std::uint32_t slot) {
    Texture t;
    t.slot = slot;
    t.extent = Extent{r.begin(), r.end()};
    Cursor c(r, r.begin());
    t.type = c.u32();
    t.height = c.u32();
    t.pixel_pointer = c.u32();
    const auto stride = stride_of_type(t.type);
    if (!stride) r.fail(r.begin(), fmt::format("unknown texture type {}", t.type), Check::record);
    t.stride = *stride;
    if (t.height == 0) r.fail(r.begin() + 4, "texture height 0", Check::record);
    if (t.height > kMaxTextureHeight)
        r.fail(r.begin() + 4, fmt::format("texture height {} above {}", t.height, kMaxTextureHeight),
               Check::record);
    const std::uint64_t size = std::uint64_t{t.stride} * t.height;
    if (!r.contains(c.at(), size)) {
        r.fail(r.begin() + 4,
               fmt::format("texture height {} overflows the record ({} pixel bytes needed, {} left)",
                           t.height, size, r.end() - c.at()),
               Check::record);
    }
    const auto pixels = r.span(c.at(), size);
    t.pixels.assign(pixels.begin(), pixels.end());
    return t;
}

} // namespace

TextureArchive TextureArchive::parse(std::span<const std::uint8_t> bytes) {
    TextureArchive archive;
    const ByteReader whole(bytes, std::string(kTextureArchiveName));
    archive.table_ = OffsetTable::read(whole, kTextureHeaderSize, kTextureTableCapacity);
    archive.textures_.resize(archive.table_.count());
    for (std::uint32_t slot = 0; slot < archive.table_.count(); ++slot) {
        if (!archive.table_.populated(slot)) continue;
        const Extent e = archive.table_.extent(slot);
        archive.textures_[slot] =
            read_texture(ByteReader(bytes, std::string(kTextureArchiveName), slot, e.begin, e.end), slot);
    }
    return archive;
}

const Texture& TextureArchive::texture(std::uint32_t slot) const& {
    const Texture* t = find(slot);
    if (!t) throw std::out_of_range(fmt::format("{} has no texture {}", kTextureArchiveName, slot));
    return *t;
}

const Texture* TextureArchive::find(std::uint32_t slot) const& {
    return slot < textures_.size() && textures_[slot] ? &*textures_[slot] : nullptr;
}

} // namespace refcheck::reimpl
