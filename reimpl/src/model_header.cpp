#include "refcheck/reimpl/model_header.hpp"

namespace refcheck::reimpl {

ModelHeader read_model_header(const ByteReader& record, std::uint64_t at) {
    record.require(at, kHeaderSize, "model header");
    Cursor c(record, at);
    ModelHeader h{};
    h.encoding = c.s32();
    h.lod_distance = c.s32();
    h.next = c.s32();
    for (auto& b : h.bounds) b = c.s32();
    h.radius = c.s32();
    h.height = c.s32();
    h.attachments = c.u32();
    h.bounding_box = c.u32();
    h.vertices = c.u32();
    h.normals = c.u32();
    h.program = c.u32();
    h.shadow = c.u32();
    h.grid_lighting = c.u32();
    c.chars(h.short_name);
    c.chars(h.description);
    h.properties = c.u32();
    h.target_filter = c.s32();
    h.metadata_a0 = c.s32();
    h.metadata_a4 = c.s32();
    h.damage_threshold = c.s32();
    h.explosion_size = c.s32();
    h.auxiliary_model = c.s32();
    h.radar_type = c.s32();
    h.gameplay_flags = c.u32();
    return h;
}

std::array<std::uint32_t, kInternalOffsetCount> internal_offsets(const ModelHeader& h) {
    return {h.attachments, h.bounding_box, h.vertices, h.normals, h.program, h.shadow, h.grid_lighting};
}

std::string field_string(const char* field, std::size_t size) {
    std::size_t n = 0;
    while (n < size && field[n] != '\0') ++n;
    return std::string(field, n);
}

} // namespace refcheck::reimpl
