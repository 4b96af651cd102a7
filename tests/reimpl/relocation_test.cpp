// reimpl/relocation: the bytes the loader leaves in memory (rel.offsets, rel.layout, rel.textures).
#include "refcheck/reimpl/relocation.hpp"

#include <gtest/gtest.h>

#include "archive_builder.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;

std::uint32_t u32_at(const Bytes& b, std::size_t at) {
    return b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (static_cast<std::uint32_t>(b[at + 3]) << 24);
}

TEST(Relocation, AddsTheModelAddressToEveryNonzeroInternalOffsetOnly) {
    RecordSpec a;
    a.vertices = {s16_vertex(0, 0, 0)};
    a.program = ProgramBuilder().ret().build();
    a.normals = std::vector<std::array<std::int8_t, 3>>{{1, 2, 3}};
    a.next = 1;
    RecordSpec b;
    b.attachments = std::vector<Attachment>{attachment(1, {0, 0, 0})};
    b.shadow = 1;
    b.program = ProgramBuilder().ret().build();
    const BuiltArchive built = build_model_archive({a, std::nullopt, b});
    // attachment id 1 names an empty slot: make it name record 0 instead.
    Bytes bytes = built.bytes;
    set_u32(bytes, built.records[2].offset + built.records[2].attachments + 4, 0);
    const ModelArchive archive = ModelArchive::parse(bytes);
    const std::uint32_t allocation = 0x00531000;
    const RelocatedModels out = relocate_models(archive, allocation);

    ASSERT_EQ(out.bytes.size(), bytes.size());
    EXPECT_EQ(out.object_table, (std::vector<std::uint32_t>{allocation + built.records[0].offset, 0,
                                                            allocation + built.records[2].offset}));
    std::size_t changed = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) changed += out.bytes[i] != bytes[i];
    for (int slot : {0, 2}) {
        const std::uint32_t base = built.records[slot].offset;
        for (std::uint32_t field = 0x2c; field <= 0x44; field += 4) {
            const std::uint32_t before = u32_at(bytes, base + field);
            EXPECT_EQ(u32_at(out.bytes, base + field), before == 0 ? 0 : before + allocation + base)
                << slot << " " << field;
        }
        EXPECT_EQ(u32_at(out.bytes, base + 8), u32_at(bytes, base + 8)); // rel.scope: hdr.next untouched
    }
    EXPECT_GT(changed, 0u);
    // Only the header offset fields changed.
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        if (out.bytes[i] == bytes[i]) continue;
        bool in_field = false;
        for (int slot : {0, 2}) {
            const std::size_t base = built.records[slot].offset;
            in_field = in_field || (i >= base + 0x2c && i < base + 0x48);
        }
        EXPECT_TRUE(in_field) << "byte " << i;
    }
}

TEST(Relocation, WrapsModulo2To32) {
    RecordSpec a;
    a.program = ProgramBuilder().ret().build();
    const BuiltArchive built = build_model_archive({a});
    const ModelArchive archive = ModelArchive::parse(built.bytes);
    const RelocatedModels out = relocate_models(archive, 0xfffffff0u);
    const std::uint32_t model = 0xfffffff0u + built.records[0].offset;
    EXPECT_EQ(out.object_table[0], model);
    EXPECT_EQ(u32_at(out.bytes, built.records[0].offset + 0x3c), built.records[0].program + model);
}

TEST(Relocation, TexturesGetTheirOwnAllocationAndPixelPointer) {
    const Bytes bytes = build_texture_archive({TextureSpec{2, 64, {}}, std::nullopt, TextureSpec{1, 2, {}}});
    const TextureArchive archive = TextureArchive::parse(bytes);
    const std::vector<std::uint32_t> allocations{0x00600010, 0xdeadbeef, 0x00700020};
    const RelocatedTextures out = relocate_textures(archive, allocations);
    EXPECT_EQ(out.texture_table, (std::vector<std::uint32_t>{0x00600010, 0, 0x00700020}));
    ASSERT_EQ(out.textures.size(), 2u);
    const RelocatedTexture& t = out.textures[1];
    EXPECT_EQ(t.slot, 2u);
    ASSERT_EQ(t.bytes.size(), 12u + 64u);
    EXPECT_EQ(u32_at(t.bytes, 0), 1u);
    EXPECT_EQ(u32_at(t.bytes, 4), 2u);
    EXPECT_EQ(u32_at(t.bytes, 8), 0x0070002cu);
    const std::size_t file_at = archive.texture(2).extent.begin;
    EXPECT_TRUE(std::equal(t.bytes.begin() + 12, t.bytes.end(), bytes.begin() + file_at + 12));
    EXPECT_EQ(out.textures[0].bytes.size(), 4108u);
    EXPECT_THROW(relocate_textures(archive, std::vector<std::uint32_t>{1, 2}), std::invalid_argument);
}

} // namespace
} // namespace refcheck::reimpl
