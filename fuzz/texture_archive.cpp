// OBJTEXT.BIN: the offset table, every texture's descriptor and pixels, and relocation.
// The contract (texture_archive.hpp): bad bytes give a FormatError, nothing else.
#include "fuzz_support.hpp"
#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/relocation.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

using namespace refcheck::reimpl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto parsed = refcheck::fuzz::unless_refused<FormatError>([&] {
        return TextureArchive::parse({data, size});
    });
    if (!parsed) return 0;
    const TextureArchive& archive = *parsed;
    std::vector<std::uint32_t> allocations(archive.count());
    std::uint32_t next = 0x10000000;
    for (std::uint32_t slot = 0; slot < archive.count(); ++slot) {
        const Texture* t = archive.find(slot);
        if (!t) continue;
        if (t->pixels.size() != std::uint64_t{t->stride} * t->height) __builtin_trap();
        if (t->extent.end > size || t->extent.begin > t->extent.end) __builtin_trap();
        allocations[slot] = next;
        next += static_cast<std::uint32_t>(t->allocation_size() + 16);
    }
    const RelocatedTextures relocated = relocate_textures(archive, allocations);
    for (const RelocatedTexture& t : relocated.textures)
        if (t.bytes.size() != archive.texture(t.slot).allocation_size()) __builtin_trap();
    return 0;
}
