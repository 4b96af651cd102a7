#include "generate.hpp"

#include <fstream>
#include <functional>
#include <stdexcept>

#include "census.hpp"
#include "packet_layout.hpp"
#include "palette.hpp"
#include "recipes.hpp"
#include "rng.hpp"
#include "writer.hpp"

namespace refcheck::synth {
namespace {

// An antenna wire or branch line at the top level of the program, lit through a normal index past
// the model's list: the documented fault `fault.normal.missing`, always executed in state 0.
void add_missing_normal(Model& m, Rng& rng) {
    size_t top = 0, front = 0;
    for (size_t i = 0; i < m.vertices.size(); ++i) {
        if (m.vertices[i].y > m.vertices[top].y) top = i;
        if (m.vertices[i].z > m.vertices[front].z) front = i;
    }
    if (front == top) front = top == 0 && m.vertices.size() > 1 ? 1 : 0;
    Packet p;
    p.type = 10;
    p.colour_a = colour(kGrey, 4);
    p.normal = {NormalRef::Kind::Missing, static_cast<uint8_t>(rng.below(3))};
    p.vertices = {{static_cast<uint8_t>(top), 0, 0, {}}, {static_cast<uint8_t>(front), 0, 0, {}}};
    Instr in;
    in.op = Op::Primary;
    in.packet = p;
    m.program.push_back(in);
}

// Right-edge texture coordinates (u = 64) on `n` textured packets, rows kept below 63 so the sample
// stays inside the allocation (`fault.tex.right_edge`).
void add_u64(Model& m, int n) {
    std::function<void(Block&)> walk = [&](Block& b) {
        for (Instr& in : b) {
            if (n == 0) return;
            if ((in.op == Op::Primary || in.op == Op::Secondary) && is_textured(in.packet.type)) {
                int umax = 0;
                for (const PacketVertex& v : in.packet.vertices) umax = std::max<int>(umax, v.u);
                if (umax != 63) continue;
                for (PacketVertex& v : in.packet.vertices) {
                    if (v.u == 63) v.u = 64;
                    if (v.v > 62) v.v = 62;
                }
                --n;
            }
            for (Block& br : in.branches) walk(br);
        }
    };
    walk(m.program);
    if (n) throw std::logic_error("not enough textured packets for u = 64 in " + m.name);
}

class Generator {
public:
    Generator(const Profile& p, uint64_t seed)
        : p_(p), seed_(seed), index_(place(p)), tex_(seed, p.texture_slots, p.textures_per_kind),
          built_(p.specs.size()), done_(p.specs.size(), false) {}

    GenerationStats stats;

    Archive run() {
        Archive a;
        for (size_t s = 0; s < p_.specs.size(); ++s) build(int(s), 0);
        a.models.resize(p_.specs.size());
        for (size_t s = 0; s < p_.specs.size(); ++s) a.models[index_[s]] = std::move(built_[s]);
        a.textures = tex_.textures();
        a.palette = make_palette();
        return a;
    }

private:
    const Profile& p_;
    uint64_t seed_;
    std::vector<int> index_;
    TextureSet tex_;
    std::vector<Model> built_;
    std::vector<bool> done_;

    int at(int spec) const { return spec >= 0 ? index_[spec] : -1; }

    void build(int s, int depth) {
        if (done_[s]) return;
        if (depth > 8) throw std::logic_error("attachment cycle at " + p_.specs[s].name);
        const Spec& sp = p_.specs[s];
        std::vector<Child> children;
        for (size_t i = 0; i < sp.children.size(); ++i) {
            const ChildRef& c = sp.children[i];
            if (c.spec >= 0) build(c.spec, depth + 1);
            children.push_back({c.role, static_cast<uint8_t>(i), c.spec >= 0 ? index_[c.spec] : 0,
                                c.spec >= 0 ? &built_[c.spec] : nullptr});
        }
        Model& m = built_[s];
        m.name = sp.name;
        m.description = sp.description;
        m.encoding = sp.encoding;
        Rng rng(mix64(seed_) ^ mix64(hash_name(sp.name) + uint64_t(s)));
        Kit k(m, sp, rng, tex_, children);
        recipe_for(sp.family)(k);
        stats.painter_fallbacks += k.paint.fallbacks();
        finish(sp, m, rng);
        done_[s] = true;
    }

    void finish(const Spec& sp, Model& m, Rng& rng) {
        if (sp.missing_normal) add_missing_normal(m, rng);
        if (sp.u64_packets) add_u64(m, sp.u64_packets);
        const Bounds b = bounds_of(m.vertices);
        m.next = at(sp.next);
        m.lod_distance = m.next >= 0 ? std::max(b.radius, 1024) * (sp.lod == 0 ? 24 : 64) : 0;
        if (sp.receiver) m.meta.properties |= 2;
        m.has_shadow = (m.meta.properties & 1) != 0;
        m.shadow_geometry = at(sp.shadow_geometry);
        m.meta.aux_model = at(sp.aux);
        if (m.encoding == Encoding::Grid) { // opaque per-vertex lighting bytes, brighter with height
            const int32_t span = std::max(1, b.max.y - b.min.y);
            for (const Vec3& v : m.vertices)
                m.grid_lighting.push_back(static_cast<uint8_t>(96 + int64_t(v.y - b.min.y) * 159 / span));
        }
    }
};

void write_file(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!f) throw std::runtime_error("cannot write " + path.string());
}

} // namespace

Archive generate(const Profile& profile, uint64_t seed, GenerationStats* stats) {
    Generator g(profile, seed);
    Archive a = g.run();
    if (stats) *stats = g.stats;
    return a;
}

DataRootFiles serialise(const Archive& a) {
    return {write_objects(a.models), write_textures(a.textures), write_palette(a.palette)};
}

std::string write_data_root(const Archive& a, const std::filesystem::path& root) {
    std::filesystem::create_directories(root / "3DDATA");
    const DataRootFiles f = serialise(a);
    write_file(root / "3DDATA" / "3DOBJS.BIN", f.objects);
    write_file(root / "3DDATA" / "OBJTEXT.BIN", f.textures);
    write_file(root / "3DPAL.RGB", f.palette);
    std::string text = to_json(census_of(a)).dump(2) + "\n";
    write_file(root / "census.json", std::vector<uint8_t>(text.begin(), text.end()));
    return text;
}

} // namespace refcheck::synth
