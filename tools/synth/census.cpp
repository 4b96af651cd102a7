// The generator's own census: counted from the in-memory archive before it is written.
#include <algorithm>
#include <functional>
#include <set>
#include <stdexcept>

#include "census.hpp"
#include "packet_layout.hpp"
#include "writer.hpp"

namespace refcheck::synth {
namespace {

int resolved(const NormalRef& n, int flat, int all) {
    switch (n.kind) {
        case NormalRef::Kind::Face: return n.index;
        case NormalRef::Kind::Vertex: return flat + n.index;
        case NormalRef::Kind::Missing: return all + n.index;
    }
    return n.index;
}

bool packet_misses_normal(const Packet& p, int flat, int all) {
    const PacketLayout& layout = packet_layout(p.type);
    if (layout.normal >= 0 && resolved(p.normal, flat, all) >= all) return true;
    if (layout.vertex_normal)
        for (const PacketVertex& v : p.vertices)
            if (resolved(v.normal, flat, all) >= all) return true;
    return false;
}

// Bits of the animation state a path requires set (one) or clear (zero); dead: no state reaches it.
struct Constraint {
    uint32_t one = 0, zero = 0;
    bool dead = false;
};

Constraint any_of(Constraint k, uint32_t mask) {
    const uint32_t free = mask & ~k.zero;
    if (!free)
        k.dead = true;
    else if (!(mask & k.one))
        k.one |= free & (~free + 1);
    return k;
}

Constraint none_of(Constraint k, uint32_t mask) {
    k.zero |= mask;
    if (k.one & k.zero) k.dead = true;
    return k;
}

class ModelWalk {
public:
    ModelWalk(Census& c, const Model& m, const std::vector<std::optional<Texture>>& tex)
        : c_(c), m_(m), tex_(tex), flat_(int(m.face_normals.size())),
          all_(flat_ + int(m.vertex_normals.size())), used_(m.vertices.size(), false) {}

    void run() { block(m_.program, 0, {}); }
    bool misses_anywhere = false, u64 = false, v_past = false;
    int unused() const { return int(std::count(used_.begin(), used_.end(), false)); }

private:
    Census& c_;
    const Model& m_;
    const std::vector<std::optional<Texture>>& tex_;
    int flat_, all_;
    std::vector<bool> used_;

    void block(const Block& b, int depth, Constraint k) {
        c_.max_branch_depth = std::max(c_.max_branch_depth, depth);
        for (const Instr& in : b) instr(in, depth, k);
        ++c_.opcodes[7];
    }

    void instr(const Instr& in, int depth, Constraint k) {
        ++c_.opcodes[static_cast<int>(in.op)];
        switch (in.op) {
            case Op::Primary:
                ++c_.primary_packets;
                packet(in.packet);
                return;
            case Op::Secondary:
                ++c_.secondary_packets;
                packet(in.packet);
                return;
            case Op::Attach:
                if (in.slot >= m_.attachments.size()) ++c_.attach_slots_out_of_range;
                return;
            case Op::Return: return;
            default: break;
        }
        ++c_.control_flow;
        if (depth > 0) ++c_.nested_control_flow;
        if (in.op == Op::Plane) {
            for (uint8_t v : in.plane)
                if (v >= m_.vertices.size()) ++c_.vertex_refs_out_of_range;
            for (const Block& br : in.branches) block(br, depth + 1, k);
        } else if (in.op == Op::IfMask) {
            block(in.branches[0], depth + 1, any_of(k, in.mask));
        } else if (in.op == Op::Choose) {
            block(in.branches[0], depth + 1, any_of(k, in.mask));
            block(in.branches[1], depth + 1, none_of(k, in.mask));
        } else {
            ++c_.select_instructions;
            const int n = int(in.branches.size());
            c_.select_cases += n;
            c_.select_max_cases = std::max(c_.select_max_cases, n);
            if (uint64_t(in.mask) + 1 > uint64_t(n)) ++c_.select_mask_beyond_table;
            for (int i = 0; i < n; ++i) {
                const uint64_t want = (uint64_t(i) & in.mask) << in.shift, field = uint64_t(in.mask)
                                                                                   << in.shift;
                const bool ok = !k.dead && (uint32_t(i) & ~in.mask) == 0 && (want >> 32) == 0 &&
                                (uint32_t(want) & k.zero) == 0 && (~want & field & k.one) == 0;
                if (!ok) ++c_.select_unreachable_cases;
                Constraint inner{k.one | uint32_t(want), k.zero | uint32_t(~want & field), !ok};
                block(in.branches[i], depth + 1, inner);
            }
        }
    }

    void packet(const Packet& p) {
        ++c_.primitive_types[p.type];
        const PacketLayout& layout = packet_layout(p.type);
        if (is_polygon(p.type) && p.vertices.size() < 3) ++c_.short_polygons;
        for (const PacketVertex& v : p.vertices) {
            if (v.vertex >= m_.vertices.size())
                ++c_.vertex_refs_out_of_range;
            else
                used_[v.vertex] = true;
        }
        if (packet_misses_normal(p, flat_, all_)) misses_anywhere = true;
        if (!layout.uv) return;
        ++c_.textured_packets;
        if (p.texture >= tex_.size() || !tex_[p.texture]) ++c_.unpopulated_texture_refs;
        int umax = 0, vmax = 0;
        for (const PacketVertex& v : p.vertices) {
            umax = std::max<int>(umax, v.u);
            vmax = std::max<int>(vmax, v.v);
            if (v.v > 63) {
                ++c_.v_past_image_coordinates;
                v_past = true;
            }
        }
        c_.v_max = std::max(c_.v_max, vmax);
        if (umax > 64 || (umax == 64 && vmax >= 63)) ++c_.uv_beyond_edge;
        if (umax == 64) {
            ++c_.u64_packets;
            u64 = true;
        }
    }
};

// The standard isolated view: animation state 0, attached models drawn, secondaries included.
bool reaches_missing(const Archive& a, int model, int depth) {
    if (depth > 8) return false;
    const Model& m = a.models[model];
    const int flat = int(m.face_normals.size()), all = flat + int(m.vertex_normals.size());
    std::function<bool(const Block&)> walk = [&](const Block& b) {
        for (const Instr& in : b) {
            switch (in.op) {
                case Op::Primary:
                case Op::Secondary:
                    if (packet_misses_normal(in.packet, flat, all)) return true;
                    break;
                case Op::Plane:
                    if (walk(in.branches[0]) || walk(in.branches[1])) return true;
                    break;
                case Op::IfMask: break;
                case Op::Choose:
                    if (walk(in.branches[1])) return true;
                    break;
                case Op::Select:
                    if (!in.branches.empty() && walk(in.branches[0])) return true;
                    break;
                case Op::Attach: {
                    const int child = in.slot < m.attachments.size() ? m.attachments[in.slot].model : 0;
                    if (child > 0 && reaches_missing(a, child, depth + 1)) return true;
                    break;
                }
                case Op::Return: break;
            }
        }
        return false;
    };
    return walk(m.program);
}

} // namespace

Census census_of(const Archive& a) {
    Census c;
    const int n = int(a.models.size());
    c.records = n;
    std::vector<int> inst(n, 0), depth(n, 0);
    std::function<void(int, int)> construct = [&](int i, int d) {
        if (d > 8) throw std::runtime_error("attachment nesting deeper than 8");
        if (inst[i]) return;
        int total = 1, deepest = 0;
        for (const Attachment& at : a.models[i].attachments)
            if (at.model != 0) {
                construct(at.model, d + 1);
                total += inst[at.model];
                deepest = std::max(deepest, depth[at.model] + 1);
            }
        inst[i] = total;
        depth[i] = deepest;
    };
    std::vector<bool> pointed(n, false);
    for (int i = 0; i < n; ++i)
        if (a.models[i].next >= 0) pointed[a.models[i].next] = true;
    for (int i = 0; i < n; ++i) {
        const Model& m = a.models[i];
        (m.encoding == Encoding::S16 ? c.s16 : c.grid)++;
        c.vertices += int(m.vertices.size());
        c.normals += int(m.face_normals.size() + m.vertex_normals.size());
        if (m.has_attachments) {
            ++c.attachment_records;
            c.attachment_slots += int(m.attachments.size());
            for (const Attachment& at : m.attachments) c.zero_slots += at.model == 0;
        }
        construct(i, 0);
        c.instances += inst[i];
        c.max_depth = std::max(c.max_depth, depth[i]);
        if (m.next >= 0 && !pointed[i]) {
            int len = 1;
            for (int j = m.next; j >= 0 && len <= n; j = a.models[j].next) ++len;
            ++c.lod_chains;
            c.lod_records += len;
            c.lod_longest = std::max(c.lod_longest, len);
        }
        ModelWalk w(c, m, a.textures);
        w.run();
        c.unused_vertices += w.unused();
        if (w.misses_anywhere) ++c.missing_normal_models_anywhere;
        if (reaches_missing(a, i, 0)) c.missing_normal_models.push_back(i);
        if (w.u64) c.u64_models.push_back(i);
        if (w.v_past) c.v_past_image_models.push_back(i);
        const Metadata& md = m.meta;
        if (md.properties & 1) ++c.shadow_casters;
        if (md.properties & 2) c.receivers.push_back(i);
        if (md.properties & 4) ++c.mobile_collision;
        if (m.has_shadow && m.shadow_geometry >= 0) c.shadow_substitutions.push_back({i, m.shadow_geometry});
        c.target_levels[md.target_code == 10000   ? 1
                        : md.target_code == 30000 ? 2
                        : md.target_code == 50000 ? 3
                                                  : 0]++;
        if (!c.landmarks.count(m.name)) c.landmarks[m.name] = i;
    }
    c.attached_instances = c.instances - c.records;
    c.texture_slots = int(a.textures.size());
    for (const auto& t : a.textures) {
        if (!t) continue;
        ++c.textures_populated;
        ++c.texture_types[int(t->type)];
        const int stride = t->type == 0 ? 16 : t->type == 1 ? 32 : 64;
        ++c.texture_sizes[std::to_string(stride) + "x" + std::to_string(t->height)];
    }
    c.palette_colours = int(a.palette.size());
    c.palette_ramps = count_ramps(a.palette);
    std::map<std::string, int> lm;
    for (const char* name : kLandmarkNames)
        if (c.landmarks.count(name)) lm[name] = c.landmarks[name];
    c.landmarks = lm;
    return c;
}

} // namespace refcheck::synth
