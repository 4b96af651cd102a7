#include "archive_builder.hpp"

#include <stdexcept>

#include "refcheck/reimpl/texture_archive.hpp"

namespace refcheck::reimpl::testing {

void put_u16(Bytes& b, std::uint16_t v) {
    b.push_back(static_cast<std::uint8_t>(v));
    b.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put_u32(Bytes& b, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void set_u32(Bytes& b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b.at(at + i) = static_cast<std::uint8_t>(v >> (8 * i));
}
void set_u16(Bytes& b, std::size_t at, std::uint16_t v) {
    b.at(at) = static_cast<std::uint8_t>(v);
    b.at(at + 1) = static_cast<std::uint8_t>(v >> 8);
}

RawVertex s16_vertex(std::int16_t x, std::int16_t y, std::int16_t z) {
    const auto u = [](std::int16_t s) { return static_cast<std::uint16_t>(s); };
    return {static_cast<std::uint8_t>(u(x)), static_cast<std::uint8_t>(u(x) >> 8),
            static_cast<std::uint8_t>(u(y)), static_cast<std::uint8_t>(u(y) >> 8),
            static_cast<std::uint8_t>(u(z)), static_cast<std::uint8_t>(u(z) >> 8)};
}

RawVertex grid_vertex(std::uint8_t cx, std::uint8_t cy, std::uint8_t cz, std::uint8_t fx, std::uint8_t fy,
                      std::uint8_t fz) {
    return {cx, cy, cz, fx, fy, fz};
}

Attachment attachment(std::uint32_t model, std::array<std::int32_t, 3> translation,
                      std::array<std::int32_t, 9> rotation) {
    Attachment a{};
    a.model = model;
    for (int i = 0; i < 3; ++i) a.translation[i] = translation[i];
    for (int i = 0; i < 9; ++i) a.rotation[i] = rotation[i];
    return a;
}

Bytes packet(std::uint8_t type, const Bytes& material, const std::vector<Bytes>& vertices) {
    Bytes b{type, static_cast<std::uint8_t>(vertices.size())};
    b.insert(b.end(), material.begin(), material.end());
    for (const Bytes& v : vertices) b.insert(b.end(), v.begin(), v.end());
    return b;
}

ProgramBuilder& ProgramBuilder::label(const std::string& name) {
    labels_[name] = bytes_.size();
    return *this;
}
ProgramBuilder& ProgramBuilder::raw(const Bytes& bytes) {
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    return *this;
}
ProgramBuilder& ProgramBuilder::primary(std::uint8_t type, const Bytes& material,
                                        const std::vector<Bytes>& vertices) {
    bytes_.push_back(0);
    return raw(packet(type, material, vertices));
}
ProgramBuilder& ProgramBuilder::secondary(std::uint8_t type, const Bytes& material,
                                          const std::vector<Bytes>& vertices) {
    const Bytes p = packet(type, material, vertices);
    bytes_.push_back(1);
    bytes_.push_back(static_cast<std::uint8_t>(1 + p.size()));
    return raw(p);
}
void ProgramBuilder::displacement(const std::string& label) {
    fixups_.emplace_back(bytes_.size(), label);
    bytes_.push_back(0);
    bytes_.push_back(0);
}
ProgramBuilder& ProgramBuilder::plane(std::uint8_t v0, std::uint8_t v1, std::uint8_t v2,
                                      const std::string& front, const std::string& back,
                                      const std::string& cont) {
    raw({2, v0, v1, v2});
    displacement(front);
    displacement(back);
    displacement(cont);
    return *this;
}
ProgramBuilder& ProgramBuilder::if_mask(std::uint32_t mask, const std::string& branch,
                                        const std::string& cont) {
    bytes_.push_back(3);
    put_u32(bytes_, mask);
    displacement(branch);
    displacement(cont);
    return *this;
}
ProgramBuilder& ProgramBuilder::choose(std::uint32_t mask, const std::string& set, const std::string& clear,
                                       const std::string& cont) {
    bytes_.push_back(4);
    put_u32(bytes_, mask);
    displacement(set);
    displacement(clear);
    displacement(cont);
    return *this;
}
ProgramBuilder& ProgramBuilder::select(std::uint8_t shift, std::uint32_t mask,
                                       const std::vector<std::string>& cases, const std::string& cont) {
    raw({5, shift});
    put_u32(bytes_, mask);
    bytes_.push_back(static_cast<std::uint8_t>(cases.size()));
    displacement(cont);
    for (const auto& c : cases) displacement(c);
    return *this;
}
ProgramBuilder& ProgramBuilder::attach(std::uint8_t slot) { return raw({6, slot}); }
ProgramBuilder& ProgramBuilder::ret() { return raw({7}); }

Bytes ProgramBuilder::build() const {
    Bytes out = bytes_;
    for (const auto& [at, name] : fixups_) {
        const auto target = static_cast<std::int64_t>(labels_.at(name));
        set_u16(out, at,
                static_cast<std::uint16_t>(
                    static_cast<std::int16_t>(target - static_cast<std::int64_t>(at + 2))));
    }
    return out;
}

namespace {

void align4(Bytes& b) {
    while (b.size() % 4 != 0) b.push_back(0);
}

void put_vertices(Bytes& b, const std::vector<RawVertex>& vertices) {
    for (const RawVertex& v : vertices) b.insert(b.end(), v.begin(), v.end());
}

BuiltRecord append_record(Bytes& out, const RecordSpec& spec) {
    BuiltRecord r;
    r.offset = static_cast<std::uint32_t>(out.size());
    Bytes rec(kHeaderSize, 0);
    set_u32(rec, 0x00, static_cast<std::uint32_t>(spec.encoding));
    set_u32(rec, 0x08, static_cast<std::uint32_t>(spec.next));
    set_u32(rec, 0x98, spec.properties);
    for (std::size_t i = 0; i < spec.name.size() && i < 16; ++i)
        rec[0x48 + i] = static_cast<std::uint8_t>(spec.name[i]);
    const auto mark = [&rec](std::uint32_t field, std::uint32_t& where) {
        align4(rec);
        where = static_cast<std::uint32_t>(rec.size());
        set_u32(rec, field, where);
    };
    if (spec.bounding_box) {
        mark(0x30, r.box);
        for (int k = 0; k < 8; ++k)
            put_vertices(rec, {spec.vertices.empty() ? RawVertex{} : spec.vertices[0]});
    }
    if (spec.has_vertices) {
        mark(0x34, r.vertices);
        put_u16(rec, static_cast<std::uint16_t>(spec.vertices.size()));
        put_vertices(rec, spec.vertices);
    }
    if (spec.normals) {
        mark(0x38, r.normals);
        put_u16(rec, static_cast<std::uint16_t>(spec.normals->size()));
        put_u16(rec, spec.count_flat.value_or(static_cast<std::uint16_t>(spec.normals->size())));
        for (const auto& n : *spec.normals) {
            for (std::int8_t c : n) rec.push_back(static_cast<std::uint8_t>(c));
        }
    }
    if (spec.attachments) {
        mark(0x2c, r.attachments);
        put_u32(rec, static_cast<std::uint32_t>(spec.attachments->size()));
        for (const Attachment& a : *spec.attachments) {
            put_u32(rec, a.model);
            for (std::int32_t t : a.translation) put_u32(rec, static_cast<std::uint32_t>(t));
            for (std::int32_t q : a.rotation) put_u32(rec, static_cast<std::uint32_t>(q));
        }
    }
    if (spec.shadow) {
        mark(0x40, r.shadow);
        put_u32(rec, static_cast<std::uint32_t>(*spec.shadow));
    }
    if (spec.program) {
        mark(0x3c, r.program);
        rec.insert(rec.end(), spec.program->begin(), spec.program->end());
    }
    align4(rec);
    out.insert(out.end(), rec.begin(), rec.end());
    return r;
}

} // namespace

BuiltArchive build_model_archive(const std::vector<std::optional<RecordSpec>>& slots) {
    BuiltArchive built;
    put_u32(built.bytes, static_cast<std::uint32_t>(slots.size()));
    for (std::size_t i = 0; i < slots.size(); ++i) put_u32(built.bytes, 0);
    for (std::size_t i = 0; i < slots.size(); ++i) {
        if (!slots[i]) {
            built.records.push_back({});
            continue;
        }
        built.records.push_back(append_record(built.bytes, *slots[i]));
        set_u32(built.bytes, 4 + 4 * i, built.records.back().offset);
    }
    return built;
}

Bytes build_texture_archive(const std::vector<std::optional<TextureSpec>>& slots) {
    Bytes out;
    put_u32(out, static_cast<std::uint32_t>(slots.size()));
    for (std::size_t i = 0; i < slots.size(); ++i) put_u32(out, 0);
    for (std::size_t i = 0; i < slots.size(); ++i) {
        if (!slots[i]) continue;
        set_u32(out, 4 + 4 * i, static_cast<std::uint32_t>(out.size()));
        const TextureSpec& t = *slots[i];
        put_u32(out, t.type);
        put_u32(out, t.height);
        put_u32(out, 0);
        const std::uint32_t stride = stride_of_type(t.type).value_or(64);
        if (t.pixels.empty()) {
            for (std::uint32_t y = 0; y < t.height; ++y) {
                for (std::uint32_t x = 0; x < stride; ++x)
                    out.push_back(static_cast<std::uint8_t>((x + y) & 0xff));
            }
        } else {
            out.insert(out.end(), t.pixels.begin(), t.pixels.end());
        }
    }
    return out;
}

Bytes palette_file() {
    Bytes out;
    for (int i = 0; i < 224; ++i) {
        out.push_back(static_cast<std::uint8_t>(i));
        out.push_back(static_cast<std::uint8_t>(255 - i));
        out.push_back(static_cast<std::uint8_t>((i * 7) & 0xff));
    }
    return out;
}

} // namespace refcheck::reimpl::testing
