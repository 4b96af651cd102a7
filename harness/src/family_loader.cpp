// Loader family: both relocated archives compared byte for byte. The original's
// initialise_3d_objects_ has run; the reimplementation relocates the same files for the addresses
// at which the original placed the model archive and each texture.
#include "families.hpp"

#include "refcheck/reimpl/relocation.hpp"

namespace refcheck::harness {

namespace {
std::vector<std::uint8_t> words(std::span<const std::uint32_t> v) {
    std::vector<std::uint8_t> out;
    for (std::uint32_t w : v)
        for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(w >> (8 * i)));
    return out;
}

std::vector<std::uint32_t> guest_words(Original& o, const std::string& global, std::uint32_t count) {
    std::vector<std::uint32_t> out(count);
    for (std::uint32_t i = 0; i < count; ++i) out[i] = o.u32(global, i);
    return out;
}
}  // namespace

void run_loader(CaseContext& ctx) {
    Original& o = ctx.original;
    const auto models = reimpl::ModelArchive::parse(ctx.models);
    const std::uint32_t base = o.u32("object_archive");
    const std::uint32_t size = o.u32("object_archive_size");
    const auto relocated = reimpl::relocate_models(models, base);
    compare_buffers(ctx, "archive", "3DDATA/3DOBJS.BIN", o.bytes(base, size), relocated.bytes);
    const std::uint32_t object_count = o.u32("object_count");
    compare_buffers(ctx, "table", "object_table", words(guest_words(o, "object_table", object_count)),
                    words(relocated.object_table));

    const auto textures = reimpl::TextureArchive::parse(ctx.textures);
    const std::uint32_t texture_count = o.u32("texture_count");
    const auto allocations = guest_words(o, "texture_table", texture_count);
    const auto relocated_textures = reimpl::relocate_textures(textures, allocations);
    compare_buffers(ctx, "table", "texture_table", words(allocations), words(relocated_textures.texture_table));
    std::uint64_t texture_bytes = 0;
    for (const auto& t : relocated_textures.textures) {
        // The original's bytes: the whole heap allocation it made for this texture.
        const auto* allocation = o.machine().heap().live_at(t.address);
        const std::size_t original_size = allocation ? allocation->size : t.bytes.size();
        compare_buffers(ctx, "texture", "slot " + std::to_string(t.slot), o.bytes(t.address, original_size),
                        t.bytes);
        texture_bytes += t.bytes.size();
    }
    std::uint32_t populated = 0;
    for (std::uint32_t i = 0; i < models.count(); ++i) populated += models.populated(i) ? 1 : 0;
    ctx.report["metrics"] = {{"model_records", populated},
                             {"model_archive_bytes", size},
                             {"texture_slots", texture_count},
                             {"textures_populated", relocated_textures.textures.size()},
                             {"texture_bytes", texture_bytes}};
}

}  // namespace refcheck::harness
