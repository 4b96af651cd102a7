#include "refcheck/reimpl/model_archive.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace refcheck::reimpl {
namespace {

constexpr std::array<std::string_view, kInternalOffsetCount> kBlockNames{
    "attachment block", "bounding box", "vertex list",       "normal list",
    "face program",     "shadow data",  "grid-lighting data"};

void check_internal_offsets(const ByteReader& r, const ModelRecord& m) {
    const auto offsets = internal_offsets(m.header);
    for (std::uint32_t i = 0; i < kInternalOffsetCount; ++i) {
        if (offsets[i] != 0 && offsets[i] >= m.extent.size()) {
            r.fail(m.absolute(kInternalOffsetsAt + 4 * i),
                   fmt::format("{} offset 0x{:x} lies past the record end (record size 0x{:x})",
                               kBlockNames[i], offsets[i], m.extent.size()));
        }
        // arc.records: the blocks follow the 188-byte header (found by cases/hostile-objects-offset-in-header).
        if (offsets[i] != 0 && offsets[i] < kHeaderSize) {
            r.fail(m.absolute(kInternalOffsetsAt + 4 * i),
                   fmt::format("{} offset 0x{:x} lies inside the record's {}-byte header", kBlockNames[i],
                               offsets[i], kHeaderSize));
        }
    }
}

void check_grid_vertex(const ByteReader& r, std::uint64_t at, const RawVertex& v) {
    for (std::uint32_t i = 0; i < kVertexSize; ++i) {
        if (v[i] >= kGridTableEntries) {
            r.fail(at + i, fmt::format("grid {} byte {} is past the {}-entry table",
                                       i < 3 ? "coarse" : "fine", v[i], kGridTableEntries));
        }
    }
}

std::vector<RawVertex> read_vertices(const ByteReader& r, const ModelRecord& m, std::uint64_t at,
                                     std::uint64_t count, std::string_view what) {
    r.require(at, count * kVertexSize, what);
    std::vector<RawVertex> out(count);
    for (std::uint64_t i = 0; i < count; ++i) {
        const auto bytes = r.span(at + i * kVertexSize, kVertexSize);
        std::copy(bytes.begin(), bytes.end(), out[i].begin());
        if (m.encoding == Encoding::Grid) check_grid_vertex(r, at + i * kVertexSize, out[i]);
    }
    return out;
}

NormalList read_normals(const ByteReader& r, std::uint64_t at) {
    NormalList n;
    n.count_all = r.u16(at);
    n.count_flat = r.u16(at + 2);
    if (n.count_all > kMaxNormals) {
        r.fail(at, fmt::format("normal count {} exceeds {}", n.count_all, kMaxNormals));
    }
    if (n.count_flat > n.count_all) {
        r.fail(at + 2,
               fmt::format("flat normal count {} exceeds the normal count {}", n.count_flat, n.count_all));
    }
    r.require(at + 4, 3ull * n.count_all, "normal vectors");
    n.vectors.resize(n.count_all);
    for (std::uint32_t i = 0; i < n.count_all; ++i) {
        for (std::uint32_t k = 0; k < 3; ++k) n.vectors[i][k] = r.s8(at + 4 + 3 * i + k);
    }
    return n;
}

std::vector<Attachment> read_attachments(const ByteReader& r, std::uint64_t at) {
    const std::uint64_t count = r.u32(at);
    if (count > kMaxAttachments)
        r.fail(at, fmt::format("attachment count {} exceeds {}", count, kMaxAttachments));
    if (!r.contains(at + 4, count * sizeof(Attachment))) {
        r.fail(at, fmt::format("attachment count {} overflows the record ({} bytes needed, {} left)", count,
                               count * sizeof(Attachment), r.end() - (at + 4)));
    }
    std::vector<Attachment> out(count);
    for (std::uint64_t i = 0; i < count; ++i) {
        Cursor c(r, at + 4 + i * sizeof(Attachment));
        out[i].model = c.u32();
        for (auto& t : out[i].translation) t = c.s32();
        for (auto& q : out[i].rotation) q = c.s32();
    }
    return out;
}

} // namespace

ModelRecord parse_model_record(const ByteReader& r, std::uint32_t index) {
    ModelRecord m;
    m.index = index;
    m.extent = Extent{r.begin(), r.end()};
    m.header = read_model_header(r, r.begin());
    if (m.header.encoding != 0 && m.header.encoding != 1) {
        r.fail(r.begin(), fmt::format("unknown coordinate encoding {}", m.header.encoding));
    }
    m.encoding = static_cast<Encoding>(m.header.encoding);
    check_internal_offsets(r, m);
    const ModelHeader& h = m.header;
    if (h.vertices != 0) {
        const std::uint64_t at = m.absolute(h.vertices);
        m.vertices = read_vertices(r, m, at + 2, r.u16(at), "vertex list");
    }
    if (h.bounding_box != 0) {
        m.bounding_box =
            read_vertices(r, m, m.absolute(h.bounding_box), kBoundingBoxVertices, "bounding box");
    }
    if (h.normals != 0) m.normals = read_normals(r, m.absolute(h.normals));
    if (h.attachments != 0) m.attachments = read_attachments(r, m.absolute(h.attachments));
    if (h.shadow != 0) m.shadow_record = r.s32(m.absolute(h.shadow));
    return m;
}

ModelArchive ModelArchive::parse(std::span<const std::uint8_t> bytes) {
    ModelArchive archive;
    archive.bytes_.assign(bytes.begin(), bytes.end());
    const ByteReader whole(archive.bytes_, std::string(kModelArchiveName));
    archive.table_ = OffsetTable::read(whole, kHeaderSize, kModelTableCapacity);
    archive.records_.resize(archive.table_.count());
    for (std::uint32_t i = 0; i < archive.table_.count(); ++i) {
        if (archive.table_.populated(i)) archive.records_[i] = parse_model_record(archive.reader(i), i);
    }
    for (const auto& record : archive.records_) {
        if (record) archive.check_attachment_ids(*record);
    }
    return archive;
}

// valid.attach: a nonzero attachment id names a populated record.
void ModelArchive::check_attachment_ids(const ModelRecord& m) const {
    for (std::uint32_t slot = 0; slot < m.attachments.size(); ++slot) {
        const std::uint32_t id = m.attachments[slot].model;
        if (id != 0 && !populated(id)) {
            reader(m.index).fail(m.absolute(m.header.attachments) + 4 + slot * sizeof(Attachment),
                                 fmt::format("attachment slot {} names model {}, an {} record", slot, id,
                                             id < count() ? "empty" : "absent"));
        }
    }
}

const ModelRecord& ModelArchive::record(std::uint32_t index) const& {
    if (index >= records_.size() || !records_[index]) {
        throw std::out_of_range(fmt::format("{} has no record {}", kModelArchiveName, index));
    }
    return *records_[index];
}

ByteReader ModelArchive::reader(std::uint32_t index) const {
    const Extent e = table_.extent(index);
    return ByteReader(bytes_, std::string(kModelArchiveName), index, e.begin, e.end);
}

} // namespace refcheck::reimpl
