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
                               kBlockNames[i], offsets[i], m.extent.size()),
                   Check::internal);
        }
        // arc.records: the blocks follow the 188-byte header (found by cases/hostile-objects-offset-in-header).
        if (offsets[i] != 0 && offsets[i] < kHeaderSize) {
            r.fail(m.absolute(kInternalOffsetsAt + 4 * i),
                   fmt::format("{} offset 0x{:x} lies inside the record's {}-byte header", kBlockNames[i],
                               offsets[i], kHeaderSize),
                   Check::internal);
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

std::uint64_t fitting(const ByteReader& r, ModelRecord& m, std::uint64_t at, std::uint64_t header,
                      std::uint64_t size, std::uint64_t count, std::string_view what);

// `clamp` (CutLists::Clamp): both counts cut to the vectors that fit (the stand-in's setup_normals).
NormalList read_normals(const ByteReader& r, std::uint64_t at, ModelRecord* clamp) {
    NormalList n;
    n.count_all = r.u16(at);
    n.count_flat = r.u16(at + 2);
    if (clamp) {
        n.count_all = static_cast<std::uint16_t>(fitting(r, *clamp, at, 4, 3, n.count_all, "normal list"));
        n.count_flat = static_cast<std::uint16_t>(
            fitting(r, *clamp, at, 4, 3, n.count_flat, "normal list's flat count"));
    }
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

// `clamp` (CutLists::Clamp): the count cut to the records that fit, then to 256 (the stand-in's
// attachment_list).
std::vector<Attachment> read_attachments(const ByteReader& r, std::uint64_t at, ModelRecord* clamp) {
    std::uint64_t count = r.u32(at);
    if (clamp) {
        count = fitting(r, *clamp, at, 4, sizeof(Attachment), count, "attachment list");
        if (count > kMaxAttachments) {
            clamp->cut.push_back(fmt::format("attachment list at +0x{:x}: {} entries, the first {} used",
                                             at - clamp->extent.begin, count, kMaxAttachments));
            count = kMaxAttachments;
        }
    }
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

namespace {
// CutLists::Clamp: how many `size`-byte entries after a `header`-byte list header at `at` fit
// before the record's end (none when the header itself does not fit), the count cut to that and
// the cut noted.
std::uint64_t fitting(const ByteReader& r, ModelRecord& m, std::uint64_t at, std::uint64_t header,
                      std::uint64_t size, std::uint64_t count, std::string_view what) {
    const std::uint64_t room = (r.end() - (at + header)) / size;
    if (count <= room) return count;
    m.cut.push_back(fmt::format("{} at +0x{:x}: {} entries, {} fit before the record's end", what,
                                at - m.extent.begin, count, room));
    return room;
}
bool header_fits(const ByteReader& r, ModelRecord& m, std::uint64_t at, std::uint64_t header,
                 std::string_view what) {
    if (r.contains(at, header)) return true;
    m.cut.push_back(fmt::format("{} at +0x{:x}: its {}-byte header runs past the record's end (absent)", what,
                                at - m.extent.begin, header));
    return false;
}
} // namespace

ModelRecord parse_model_record(const ByteReader& r, std::uint32_t index, CutLists cut_lists) {
    const bool clamp = cut_lists == CutLists::Clamp;
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
        if (!clamp)
            m.vertices = read_vertices(r, m, at + 2, r.u16(at), "vertex list");
        else if (header_fits(r, m, at, 2, "vertex list"))
            m.vertices = read_vertices(
                r, m, at + 2, fitting(r, m, at, 2, kVertexSize, r.u16(at), "vertex list"), "vertex list");
    }
    if (h.bounding_box != 0) {
        m.bounding_box =
            read_vertices(r, m, m.absolute(h.bounding_box), kBoundingBoxVertices, "bounding box");
    }
    if (h.normals != 0 && (!clamp || header_fits(r, m, m.absolute(h.normals), 4, "normal list")))
        m.normals = read_normals(r, m.absolute(h.normals), clamp ? &m : nullptr);
    if (h.attachments != 0 && (!clamp || header_fits(r, m, m.absolute(h.attachments), 4, "attachment list")))
        m.attachments = read_attachments(r, m.absolute(h.attachments), clamp ? &m : nullptr);
    if (h.shadow != 0) {
        if (clamp && !r.contains(m.absolute(h.shadow), 4)) {
            m.shadow_cut = true; // noted where a shadow is drawn (ShadowRenderer::geometry)
        } else
            m.shadow_record = r.s32(m.absolute(h.shadow));
    }
    return m;
}

ModelArchive ModelArchive::parse(std::span<const std::uint8_t> bytes, CutLists cut_lists) {
    ModelArchive archive;
    archive.bytes_.assign(bytes.begin(), bytes.end());
    const ByteReader whole(archive.bytes_, std::string(kModelArchiveName));
    archive.table_ = OffsetTable::read(whole, kHeaderSize, kModelTableCapacity);
    archive.records_.resize(archive.table_.count());
    for (std::uint32_t i = 0; i < archive.table_.count(); ++i) {
        if (archive.table_.populated(i))
            archive.records_[i] = parse_model_record(archive.reader(i), i, cut_lists);
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
