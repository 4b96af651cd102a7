// 3DOBJS.BIN: the counted offset table and, per populated slot, the model record's header and its
// blocks (vertex list, bounding box, normals, attachments, shadow data), each checked as it is read.
// The face program is decoded separately (program.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "refcheck/reimpl/byte_reader.hpp"
#include "refcheck/reimpl/model_header.hpp"
#include "refcheck/reimpl/offset_table.hpp"
#include "refcheck/reimpl/types.hpp"

namespace refcheck::reimpl {

inline constexpr std::string_view kModelArchiveName = "3DOBJS.BIN";

// Six bytes per vertex: s16 x, y, z (S16) or cx, cy, cz, fx, fy, fz (Grid).
using RawVertex = std::array<std::uint8_t, 6>;
inline constexpr std::uint32_t kVertexSize = 6;
inline constexpr std::uint32_t kBoundingBoxVertices = 8;
inline constexpr std::uint32_t kGridTableEntries = 64; // geo.grid.range: bytes 0..63
inline constexpr std::uint32_t kMaxNormals = 256;      // valid.index
inline constexpr std::uint32_t kMaxAttachments = 256;  // valid.attach

// What ModelArchive::parse does with a vertex, normal or attachment list that runs past its
// record's end (valid.extent).
enum class CutLists {
    // The reimplementation's own behaviour: a FormatError naming the archive, record and offset.
    Refuse,
    // The stand-in's reaction, which a hostile case holds the original to (valid.extent.clamp): a
    // list whose header does not fit is absent; otherwise its count is cut to the entries that fit
    // before the record's end (attachments also to 256), each cut noted in ModelRecord::cut. The
    // stand-in measures from the archive's end, so only the archive's last record is modelled.
    Clamp,
};

struct NormalList {
    std::uint16_t count_all = 0;                     // every entry
    std::uint16_t count_flat = 0;                    // the subset needed when Gouraud shading is off
    std::vector<std::array<std::int8_t, 3>> vectors; // count_all signed x, y, z (unit about 127)
};

// One 52-byte attachment record: model id (0 = a slot filled by gameplay), translation, Q31 rotation.
struct Attachment {
    std::uint32_t model;
    std::int32_t translation[3];
    std::int32_t rotation[9];
};
static_assert(sizeof(Attachment) == 52, "an attachment record is 52 bytes");

struct ModelRecord {
    std::uint32_t index = 0;
    Extent extent; // absolute archive offsets
    ModelHeader header{};
    Encoding encoding = Encoding::S16;
    std::vector<RawVertex> vertices;
    std::vector<RawVertex> bounding_box; // 8 vertices, or none when absent
    NormalList normals;
    std::vector<Attachment> attachments;
    std::optional<std::int32_t> shadow_record; // -1 = self
    // CutLists::Clamp only: each list cut short by the record's end, in words; and whether the
    // shadow data's 4 bytes run past it (the stand-in then draws no shadow for the model).
    std::vector<std::string> cut;
    bool shadow_cut = false;

    std::string name() const { return field_string(header.short_name, sizeof header.short_name); }
    std::string description() const { return field_string(header.description, sizeof header.description); }
    // Absolute archive offset of a record-relative offset.
    std::uint64_t absolute(std::uint64_t relative) const { return extent.begin + relative; }
};

class ModelArchive {
public:
    // Parses and checks every populated record (table, header, blocks, attachment ids; the programs
    // are decoded by decode_program). Throws FormatError naming archive, record and offset.
    static ModelArchive parse(std::span<const std::uint8_t> bytes, CutLists cut_lists = CutLists::Refuse);

    std::span<const std::uint8_t> bytes() const { return bytes_; }
    const OffsetTable& table() const { return table_; }
    std::uint32_t count() const { return table_.count(); }
    bool populated(std::uint32_t index) const { return table_.populated(index); }
    // The record in a populated slot (std::out_of_range otherwise).
    const ModelRecord& record(std::uint32_t index) const&;
    const ModelRecord& record(std::uint32_t index) const&& = delete; // would dangle
    // A checked reader confined to the record's extent.
    ByteReader reader(std::uint32_t index) const;

private:
    void check_attachment_ids(const ModelRecord& record) const;

    std::vector<std::uint8_t> bytes_;
    OffsetTable table_;
    std::vector<std::optional<ModelRecord>> records_;
};

// Parses one record in isolation (used by ModelArchive::parse).
ModelRecord parse_model_record(const ByteReader& record, std::uint32_t index,
                               CutLists cut_lists = CutLists::Refuse);

} // namespace refcheck::reimpl
