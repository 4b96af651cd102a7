#include "writer.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "packet_layout.hpp"

namespace refcheck::synth {
namespace {

class Bytes {
public:
    std::vector<uint8_t> data;
    uint32_t size() const { return static_cast<uint32_t>(data.size()); }
    void u8(uint32_t v) { data.push_back(static_cast<uint8_t>(v)); }
    void u16(uint32_t v) {
        u8(v);
        u8(v >> 8);
    }
    void u32(uint32_t v) {
        u16(v);
        u16(v >> 16);
    }
    void put32(uint32_t at, uint32_t v) {
        for (int i = 0; i < 4; ++i) data[at + i] = static_cast<uint8_t>(v >> (8 * i));
    }
    void put16(uint32_t at, uint32_t v) {
        data[at] = static_cast<uint8_t>(v);
        data[at + 1] = static_cast<uint8_t>(v >> 8);
    }
    void align4() {
        while (data.size() % 4) u8(0);
    }
    void append(const std::vector<uint8_t>& b) { data.insert(data.end(), b.begin(), b.end()); }
};

uint8_t resolve(const NormalRef& n, uint32_t count_flat, uint32_t count_all) {
    uint32_t idx = n.index;
    if (n.kind == NormalRef::Kind::Vertex) idx += count_flat;
    if (n.kind == NormalRef::Kind::Missing) idx += count_all;
    if (idx > 255) throw std::runtime_error("normal index does not fit in a byte");
    return static_cast<uint8_t>(idx);
}

class ProgramWriter {
public:
    ProgramWriter(uint32_t flat, uint32_t all) : flat_(flat), all_(all) {}
    Bytes out;

    void block(const Block& b) {
        for (const Instr& in : b) instr(in);
        out.u8(static_cast<uint8_t>(Op::Return));
    }

private:
    uint32_t flat_, all_;

    void patch(uint32_t field, uint32_t target) {
        const int64_t disp = static_cast<int64_t>(target) - (static_cast<int64_t>(field) + 2);
        if (disp < -32768 || disp > 32767) throw std::runtime_error("branch displacement out of range");
        out.put16(field, static_cast<uint16_t>(static_cast<int16_t>(disp)));
    }

    // Branch bodies follow the instruction; `fields` are the displacement slots, one per branch,
    // then the continuation slot.
    void bodies(const Instr& in, const std::vector<uint32_t>& fields, uint32_t cont) {
        for (size_t i = 0; i < in.branches.size(); ++i) {
            patch(fields[i], out.size());
            block(in.branches[i]);
        }
        patch(cont, out.size());
    }

    uint32_t slot16() {
        const uint32_t at = out.size();
        out.u16(0);
        return at;
    }

    void instr(const Instr& in) {
        out.u8(static_cast<uint8_t>(in.op));
        switch (in.op) {
            case Op::Primary: out.append(encode_packet(in.packet, flat_, all_)); break;
            case Op::Secondary: {
                const auto p = encode_packet(in.packet, flat_, all_);
                out.u8(static_cast<uint32_t>(p.size() + 1));
                out.append(p);
                break;
            }
            case Op::Plane: {
                for (uint8_t v : in.plane) out.u8(v);
                const uint32_t f = slot16(), b = slot16(), c = slot16();
                bodies(in, {f, b}, c);
                break;
            }
            case Op::IfMask: {
                out.u32(in.mask);
                const uint32_t br = slot16(), c = slot16();
                bodies(in, {br}, c);
                break;
            }
            case Op::Choose: {
                out.u32(in.mask);
                const uint32_t s = slot16(), cl = slot16(), c = slot16();
                bodies(in, {s, cl}, c);
                break;
            }
            case Op::Select: {
                out.u8(in.shift);
                out.u32(in.mask);
                out.u8(static_cast<uint32_t>(in.branches.size()));
                const uint32_t c = slot16();
                std::vector<uint32_t> cases;
                for (size_t i = 0; i < in.branches.size(); ++i) cases.push_back(slot16());
                bodies(in, cases, c);
                break;
            }
            case Op::Attach: out.u8(in.slot); break;
            case Op::Return: break;
        }
    }
};

std::vector<uint8_t> write_record(const Model& m);

void write_header(Bytes& b, const Model& m) {
    const Bounds bd = bounds_of(m.vertices);
    b.u32(static_cast<uint32_t>(m.encoding));
    b.u32(static_cast<uint32_t>(m.lod_distance));
    b.u32(static_cast<uint32_t>(m.next));
    for (int32_t v : {bd.min.x, bd.max.x, bd.min.y, bd.max.y, bd.min.z, bd.max.z})
        b.u32(static_cast<uint32_t>(v));
    b.u32(static_cast<uint32_t>(bd.radius));
    b.u32(static_cast<uint32_t>(bd.max.y));
    for (int i = 0; i < 7; ++i) b.u32(0); // internal offsets, patched later
    auto text = [&](const std::string& s, size_t n) {
        if (s.size() > n) throw std::runtime_error("name or description too long: " + s);
        for (size_t i = 0; i < n; ++i) b.u8(i < s.size() ? static_cast<uint8_t>(s[i]) : 0); // `hdr.name.pad`
    };
    text(m.name, 16);
    text(m.description, 64);
    const Metadata& md = m.meta;
    b.u32(md.properties);
    for (int32_t v :
         {md.target_code, md.class_code, md.ship_type, md.damage, md.explosion, md.aux_model, md.radar})
        b.u32(static_cast<uint32_t>(v));
    b.u32(md.flags);
    if (b.size() != kHeaderSize) throw std::logic_error("header size");
}

} // namespace

Bounds bounds_of(const std::vector<Vec3>& vs) {
    Bounds b;
    if (vs.empty()) return b;
    b.min = b.max = vs[0];
    int64_t r2 = 0;
    for (const Vec3& v : vs) {
        b.min = {std::min(b.min.x, v.x), std::min(b.min.y, v.y), std::min(b.min.z, v.z)};
        b.max = {std::max(b.max.x, v.x), std::max(b.max.y, v.y), std::max(b.max.z, v.z)};
        r2 = std::max(r2, int64_t{v.x} * v.x + int64_t{v.z} * v.z);
    }
    int64_t r = static_cast<int64_t>(std::sqrt(static_cast<double>(r2)));
    while (r * r < r2) ++r;
    b.radius = static_cast<int32_t>(r);
    return b;
}

void encode_vertex(Encoding e, const Vec3& v, uint8_t out[6]) {
    const int32_t c[3] = {v.x, v.y, v.z};
    for (int i = 0; i < 3; ++i) {
        if (e == Encoding::S16) {
            if (c[i] % 16) throw std::runtime_error("s16 vertex not a multiple of 16");
            const int32_t s = c[i] / 16;
            // The generator keeps 16 * s (and its products with Q14 matrices) well inside int32.
            if (s < -4096 || s > 4096)
                throw std::runtime_error("s16 coordinate " + std::to_string(s) + " beyond +-4096");
            out[2 * i] = static_cast<uint8_t>(s);
            out[2 * i + 1] = static_cast<uint8_t>(static_cast<uint16_t>(s) >> 8);
        } else {
            if (c[i] % 64) throw std::runtime_error("grid vertex not a multiple of 64");
            const int32_t t = c[i] / 64 + 32;
            const int32_t coarse = 32 + (t >= 0 ? t / 64 : -((-t + 63) / 64));
            const int32_t fine = t - 64 * (coarse - 32);
            if (coarse < 0 || coarse > 63)
                throw std::runtime_error("grid vertex out of range (`geo.grid.range`)");
            out[i] = static_cast<uint8_t>(coarse);
            out[3 + i] = static_cast<uint8_t>(fine);
        }
    }
}

std::vector<uint8_t> encode_packet(const Packet& p, uint32_t flat, uint32_t all) {
    const PacketLayout& layout = packet_layout(p.type);
    if (p.vertices.empty()) throw std::runtime_error("packet with no vertices");
    if (layout.header + p.vertices.size() * layout.per_vertex > 254)
        throw std::runtime_error("packet longer than 254 bytes (`valid.packet`)");
    std::vector<uint8_t> h(layout.header, 0);
    h[0] = p.type;
    h[1] = static_cast<uint8_t>(p.vertices.size());
    if (layout.colour_a >= 0) h[layout.colour_a] = p.colour_a;
    if (layout.colour_b >= 0) h[layout.colour_b] = p.colour_b;
    if (layout.texture >= 0) {
        h[layout.texture] = static_cast<uint8_t>(p.texture);
        h[layout.texture + 1] = static_cast<uint8_t>(p.texture >> 8);
    }
    if (layout.mask >= 0) h[layout.mask] = p.mask;
    if (layout.normal >= 0) h[layout.normal] = resolve(p.normal, flat, all);
    for (const PacketVertex& v : p.vertices) {
        h.push_back(v.vertex);
        if (layout.uv) {
            h.push_back(v.u);
            h.push_back(v.v);
        }
        if (layout.vertex_normal) h.push_back(resolve(v.normal, flat, all));
    }
    return h;
}

std::vector<uint8_t> write_program(const Model& m) {
    const auto flat = static_cast<uint32_t>(m.face_normals.size());
    ProgramWriter w(flat, flat + static_cast<uint32_t>(m.vertex_normals.size()));
    w.block(m.program);
    return w.out.data;
}

std::vector<uint8_t> write_model(const Model& m) {
    try {
        return write_record(m);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error("record \"" + m.name + "\": " + e.what());
    }
}

namespace {
std::vector<uint8_t> write_record(const Model& m) {
    Bytes b;
    write_header(b, m);
    auto mark = [&](uint32_t field) {
        b.align4();
        b.put32(field, b.size());
    };
    if (m.has_attachments) {
        mark(hdr::attachments);
        b.u32(static_cast<uint32_t>(m.attachments.size()));
        for (const Attachment& a : m.attachments) {
            for (int32_t v : {a.model, a.offset.x, a.offset.y, a.offset.z}) b.u32(static_cast<uint32_t>(v));
            for (int32_t r : a.rotation) b.u32(static_cast<uint32_t>(r));
        }
    }
    const Bounds bd = bounds_of(m.vertices);
    mark(hdr::bbox);
    for (int i = 0; i < 8; ++i) {
        const Vec3 c{(i & 1) ? bd.max.x : bd.min.x, (i & 2) ? bd.max.y : bd.min.y,
                     (i & 4) ? bd.max.z : bd.min.z};
        uint8_t e[6];
        encode_vertex(m.encoding, c, e);
        for (uint8_t x : e) b.u8(x);
    }
    mark(hdr::vertices);
    if (m.vertices.size() > 255) throw std::runtime_error("more than 255 vertices: " + m.name);
    b.u16(static_cast<uint32_t>(m.vertices.size()));
    for (const Vec3& v : m.vertices) {
        uint8_t e[6];
        encode_vertex(m.encoding, v, e);
        for (uint8_t x : e) b.u8(x);
    }
    mark(hdr::normals);
    const size_t all = m.face_normals.size() + m.vertex_normals.size();
    if (all > 252) throw std::runtime_error("too many normals: " + m.name);
    b.u16(static_cast<uint32_t>(all));
    b.u16(static_cast<uint32_t>(m.face_normals.size()));
    for (const auto* list : {&m.face_normals, &m.vertex_normals})
        for (const Normal8& n : *list) {
            b.u8(static_cast<uint8_t>(n.x));
            b.u8(static_cast<uint8_t>(n.y));
            b.u8(static_cast<uint8_t>(n.z));
        }
    mark(hdr::program);
    b.append(write_program(m));
    if (m.has_shadow) {
        mark(hdr::shadow);
        b.u32(static_cast<uint32_t>(m.shadow_geometry));
    }
    if (!m.grid_lighting.empty()) {
        mark(hdr::grid_lighting);
        b.u16(static_cast<uint32_t>(m.grid_lighting.size()));
        for (uint8_t x : m.grid_lighting) b.u8(x);
    }
    b.align4();
    return b.data;
}

} // namespace

std::vector<uint8_t> write_objects(const std::vector<Model>& models) {
    Bytes b;
    b.u32(static_cast<uint32_t>(models.size()));
    for (size_t i = 0; i < models.size(); ++i) b.u32(0);
    for (size_t i = 0; i < models.size(); ++i) {
        b.align4();
        b.put32(4 + 4 * static_cast<uint32_t>(i), b.size());
        b.append(write_model(models[i]));
    }
    return b.data;
}

std::vector<uint8_t> write_textures(const std::vector<std::optional<Texture>>& textures) {
    Bytes b;
    b.u32(static_cast<uint32_t>(textures.size()));
    for (size_t i = 0; i < textures.size(); ++i) b.u32(0);
    for (size_t i = 0; i < textures.size(); ++i) {
        if (!textures[i]) continue;
        b.align4();
        b.put32(4 + 4 * static_cast<uint32_t>(i), b.size());
        const Texture& t = *textures[i];
        b.u32(t.type);
        b.u32(t.height);
        b.u32(0); // pixel pointer: the loader rewrites it
        b.append(t.pixels);
    }
    return b.data;
}

std::vector<uint8_t> write_palette(const std::vector<Rgb>& palette) {
    Bytes b;
    for (const Rgb& c : palette) {
        b.u8(c.r);
        b.u8(c.g);
        b.u8(c.b);
    }
    return b.data;
}

} // namespace refcheck::synth
