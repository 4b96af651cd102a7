// reimpl/model_archive, model_header, offset_table, byte_reader: parsing hand-built records.
#include "refcheck/reimpl/model_archive.hpp"

#include <gtest/gtest.h>

#include "archive_builder.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;

RecordSpec full_record() {
    RecordSpec r;
    r.name = "citblkd0";
    r.vertices = {s16_vertex(1, -2, 3), s16_vertex(-32768, 32767, 0)};
    r.normals = std::vector<std::array<std::int8_t, 3>>{{127, 0, 0}, {0, -127, 0}, {0, 0, 127}};
    r.count_flat = 2;
    r.attachments = std::vector<Attachment>{attachment(0, {1, 2, 3}), attachment(2, {-4, 5, -6})};
    r.program = ProgramBuilder().ret().build();
    r.shadow = -1;
    r.bounding_box = true;
    r.properties = 5;
    r.next = 2;
    return r;
}

TEST(ModelArchive, ParsesHeaderAndBlocks) {
    RecordSpec second;
    second.encoding = 1;
    second.vertices = {grid_vertex(32, 33, 0, 32, 0, 63)};
    const BuiltArchive built = build_model_archive({std::nullopt, full_record(), second});
    const ModelArchive archive = ModelArchive::parse(built.bytes);
    ASSERT_EQ(archive.count(), 3u);
    EXPECT_FALSE(archive.populated(0));
    EXPECT_THROW(archive.record(0), std::out_of_range);
    const ModelRecord& m = archive.record(1);
    EXPECT_EQ(m.index, 1u);
    EXPECT_EQ(m.extent.begin, built.records[1].offset);
    EXPECT_EQ(m.extent.end, built.records[2].offset);
    EXPECT_EQ(m.name(), "citblkd0");
    EXPECT_EQ(m.header.next, 2);
    EXPECT_EQ(m.header.properties, 5u);
    EXPECT_EQ(m.header.vertices, built.records[1].vertices);
    EXPECT_EQ(m.header.program, built.records[1].program);
    EXPECT_EQ(m.encoding, Encoding::S16);
    ASSERT_EQ(m.vertices.size(), 2u);
    EXPECT_EQ(m.vertices[1], s16_vertex(-32768, 32767, 0));
    EXPECT_EQ(m.bounding_box.size(), 8u);
    EXPECT_EQ(m.normals.count_all, 3);
    EXPECT_EQ(m.normals.count_flat, 2);
    EXPECT_EQ(m.normals.vectors[1], (std::array<std::int8_t, 3>{0, -127, 0}));
    ASSERT_EQ(m.attachments.size(), 2u);
    EXPECT_EQ(m.attachments[0].model, 0u);
    EXPECT_EQ(m.attachments[1].model, 2u);
    EXPECT_EQ(m.attachments[1].translation[2], -6);
    EXPECT_EQ(m.attachments[1].rotation[8], 0x7fffffff);
    EXPECT_EQ(m.shadow_record, -1);

    const ModelRecord& g = archive.record(2);
    EXPECT_EQ(g.encoding, Encoding::Grid);
    EXPECT_EQ(g.extent.end, built.bytes.size());
    EXPECT_TRUE(g.attachments.empty());
    EXPECT_EQ(g.normals.count_all, 0);
    EXPECT_FALSE(g.shadow_record.has_value());
}

TEST(ModelArchive, ExtentRunsToTheNextGreaterOffsetWhateverTheSlotOrder) {
    BuiltArchive built = build_model_archive({RecordSpec{}, RecordSpec{}});
    // Swap the two table entries: slot 0 now names the later record.
    const std::uint32_t a = built.records[0].offset, b = built.records[1].offset;
    set_u32(built.bytes, 4, b);
    set_u32(built.bytes, 8, a);
    const ModelArchive archive = ModelArchive::parse(built.bytes);
    EXPECT_EQ(archive.table().extent(1).begin, a);
    EXPECT_EQ(archive.table().extent(1).end, b);
    EXPECT_EQ(archive.table().extent(0).end, built.bytes.size());
}

TEST(ModelArchive, HeaderIsReadFieldByFieldAtPinnedOffsets) {
    BuiltArchive built = build_model_archive({RecordSpec{}});
    const std::uint32_t at = built.records[0].offset;
    for (std::uint32_t field = 0x9c; field <= 0xb8; field += 4) set_u32(built.bytes, at + field, field * 3);
    set_u32(built.bytes, at + 0x04, 4000);
    set_u32(built.bytes, at + 0x0c, static_cast<std::uint32_t>(-100));
    set_u32(built.bytes, at + 0x20, 77);
    set_u32(built.bytes, at + 0x24, 99);
    set_u32(built.bytes, at + 0x28, 55);
    built.bytes[at + 0x58] = 'D';
    const ModelArchive archive = ModelArchive::parse(built.bytes);
    const ModelHeader& h = archive.record(0).header;
    EXPECT_EQ(h.lod_distance, 4000);
    EXPECT_EQ(h.bounds[0], -100);
    EXPECT_EQ(h.bounds[5], 77);
    EXPECT_EQ(h.radius, 99);
    EXPECT_EQ(h.height, 55);
    EXPECT_EQ(h.target_filter, 0x9c * 3);
    EXPECT_EQ(h.metadata_a0, 0xa0 * 3);
    EXPECT_EQ(h.metadata_a4, 0xa4 * 3);
    EXPECT_EQ(h.damage_threshold, 0xa8 * 3);
    EXPECT_EQ(h.explosion_size, 0xac * 3);
    EXPECT_EQ(h.auxiliary_model, 0xb0 * 3);
    EXPECT_EQ(h.radar_type, 0xb4 * 3);
    EXPECT_EQ(h.gameplay_flags, 0xb8u * 3);
    EXPECT_EQ(field_string(h.description, sizeof h.description), "D");
}

TEST(ModelArchive, FullLengthNameHasNoTerminator) {
    RecordSpec r;
    r.name = "ABCDEFGHIJKLMNOP";
    BuiltArchive built = build_model_archive({r});
    built.bytes[built.records[0].offset + 0x58] = 'x'; // description follows the name directly
    const ModelArchive archive = ModelArchive::parse(built.bytes);
    EXPECT_EQ(archive.record(0).name(), "ABCDEFGHIJKLMNOP");
}

TEST(ByteReader, ReadsLittleEndianAndChecksTheWindow) {
    const Bytes bytes{0x01, 0x02, 0x03, 0x04, 0xff, 0xfe};
    const ByteReader r(bytes, "X.BIN", 4u, 1, 5);
    EXPECT_EQ(r.u16(1), 0x0302);
    EXPECT_EQ(r.u32(1), 0xff040302u);
    EXPECT_EQ(r.s8(4), -1);
    EXPECT_THROW(r.u8(0), FormatError);
    EXPECT_THROW(r.u16(4), FormatError);
    try {
        r.u32(2);
        FAIL() << "no error";
    } catch (const FormatError& e) {
        EXPECT_STREQ(
            e.what(),
            "X.BIN: record 4: offset 0x2: 32-bit value (4 bytes) runs past the end of the record (0x5)");
        EXPECT_EQ(e.where().offset, 2u);
    }
    EXPECT_FALSE(r.contains(3, UINT64_MAX));
}

} // namespace
} // namespace refcheck::reimpl
