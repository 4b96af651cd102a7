// `synth census DIR`: the census counted by decoding the written files, independently of the
// generator's in-memory archive. Every read is bounds-checked and a failure names file, record
// and byte offset.
#include <algorithm>
#include <fstream>
#include <functional>
#include <set>
#include <stdexcept>

#include "census.hpp"
#include "packet_layout.hpp"

namespace refcheck::synth {
namespace {

std::vector<uint8_t> slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    if (!f) throw std::runtime_error("cannot read " + p.string());
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

class Bytes {
public:
    Bytes(std::vector<uint8_t> d, std::string file) : d_(std::move(d)), file_(std::move(file)) {}
    [[noreturn]] void fail(int64_t at, const std::string& what) const {
        throw std::runtime_error(file_ + (record_ >= 0 ? " record " + std::to_string(record_) : "") +
                                 " at byte " + std::to_string(at) + ": " + what);
    }
    uint32_t u8(int64_t at) const {
        if (at < 0 || at >= int64_t(d_.size())) fail(at, "read past the end of the file");
        return d_[size_t(at)];
    }
    uint32_t u16(int64_t at) const { return u8(at) | u8(at + 1) << 8; }
    int32_t s16(int64_t at) const { return int16_t(u16(at)); }
    uint32_t u32(int64_t at) const { return u16(at) | u16(at + 2) << 16; }
    int32_t s32(int64_t at) const { return int32_t(u32(at)); }
    size_t size() const { return d_.size(); }
    void record(int r) { record_ = r; }

private:
    std::vector<uint8_t> d_;
    std::string file_;
    int record_ = -1;
};

struct Rec {
    int64_t base = 0;
    uint32_t encoding = 0, vertices = 0, flat = 0, all = 0, properties = 0;
    int32_t next = -1, target = 0;
    int64_t attach = 0, program = 0, shadow = 0;
    std::vector<int32_t> children;
    std::string name;
};

struct Constraint {
    uint32_t one = 0, zero = 0;
    bool dead = false;
};

class Decoder {
public:
    Decoder(const std::filesystem::path& root)
        : obj_(slurp(root / "3DDATA" / "3DOBJS.BIN"), "3DOBJS.BIN"),
          tex_(slurp(root / "3DDATA" / "OBJTEXT.BIN"), "OBJTEXT.BIN"),
          pal_(slurp(root / "3DPAL.RGB"), "3DPAL.RGB") {}

    Census run() {
        textures();
        palette();
        headers();
        for (size_t i = 0; i < recs_.size(); ++i) model(int(i));
        construction();
        lod();
        return c_;
    }

private:
    Bytes obj_, tex_, pal_;
    Census c_;
    std::vector<Rec> recs_;
    std::set<int> populated_;

    void textures() {
        const uint32_t n = tex_.u32(0);
        c_.texture_slots = int(n);
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t off = tex_.u32(4 + 4 * i);
            if (!off) continue;
            populated_.insert(int(i));
            ++c_.textures_populated;
            const uint32_t type = tex_.u32(off), height = tex_.u32(off + 4);
            if (type > 2) tex_.fail(off, "texture type out of range");
            ++c_.texture_types[int(type)];
            const uint32_t stride = 16u << type;
            tex_.u8(int64_t(off) + 12 + int64_t(stride) * height - 1);
            ++c_.texture_sizes[std::to_string(stride) + "x" + std::to_string(height)];
        }
    }

    void palette() {
        std::vector<Rgb> p;
        for (size_t i = 0; i + 2 < pal_.size(); i += 3)
            p.push_back({uint8_t(pal_.u8(i)), uint8_t(pal_.u8(i + 1)), uint8_t(pal_.u8(i + 2))});
        c_.palette_colours = int(p.size());
        c_.palette_ramps = count_ramps(p);
    }

    void headers() {
        const uint32_t n = obj_.u32(0);
        c_.records = int(n);
        for (uint32_t i = 0; i < n; ++i) {
            Rec r;
            r.base = obj_.u32(4 + 4 * i);
            if (!r.base) ++c_.empty_record_slots;
            obj_.record(int(i));
            if (r.base) {
                r.encoding = obj_.u32(r.base);
                r.next = obj_.s32(r.base + 0x08);
                r.attach = obj_.u32(r.base + 0x2c);
                r.program = obj_.u32(r.base + 0x3c);
                r.shadow = obj_.u32(r.base + 0x40);
                r.properties = obj_.u32(r.base + 0x98);
                r.target = obj_.s32(r.base + 0x9c);
                for (int k = 0; k < 16 && obj_.u8(r.base + 0x48 + k); ++k)
                    r.name.push_back(char(obj_.u8(r.base + 0x48 + k)));
                const int64_t v = r.base + obj_.u32(r.base + 0x34), nn = r.base + obj_.u32(r.base + 0x38);
                r.vertices = obj_.u16(v);
                r.all = obj_.u16(nn);
                r.flat = obj_.u16(nn + 2);
                if (r.flat > r.all) obj_.fail(nn, "flat normal count exceeds the total");
                if (r.attach) {
                    const uint32_t count = obj_.u32(r.base + r.attach);
                    for (uint32_t k = 0; k < count; ++k)
                        r.children.push_back(obj_.s32(r.base + r.attach + 4 + 52 * int64_t(k)));
                }
            }
            recs_.push_back(r);
        }
        obj_.record(-1);
    }

    void model(int i) {
        const Rec& r = recs_[i];
        if (!r.base) return;
        obj_.record(i);
        (r.encoding == 0 ? c_.s16 : c_.grid)++;
        if (r.encoding > 1) obj_.fail(r.base, "unknown vertex encoding");
        c_.vertices += int(r.vertices);
        c_.normals += int(r.all);
        if (r.attach) {
            ++c_.attachment_records;
            c_.attachment_slots += int(r.children.size());
            for (int32_t ch : r.children) {
                if (ch == 0)
                    ++c_.zero_slots;
                else if (ch < 0 || ch >= int(recs_.size()) || !recs_[ch].base)
                    obj_.fail(r.base + r.attach, "attachment names no record");
            }
        }
        if (r.properties & 1) ++c_.shadow_casters;
        if (r.properties & 2) c_.receivers.push_back(i);
        if (r.properties & 4) ++c_.mobile_collision;
        c_.target_levels[r.target == 10000 ? 1 : r.target == 30000 ? 2 : r.target == 50000 ? 3 : 0]++;
        if (r.shadow) {
            const int32_t g = obj_.s32(r.base + r.shadow);
            if (g >= 0) c_.shadow_substitutions.push_back({i, g});
        }
        if (!c_.landmarks.count(r.name)) c_.landmarks[r.name] = i;
        std::vector<bool> used(r.vertices, false);
        bool misses = false, u64 = false, vpast = false;
        std::set<int64_t> seen;
        std::function<void(int64_t, int, Constraint)> walk = [&](int64_t pc, int depth, Constraint k) {
            c_.max_branch_depth = std::max(c_.max_branch_depth, depth);
            for (;;) {
                if (!seen.insert(pc).second) return;
                const uint32_t op = obj_.u8(pc);
                if (op > 7) obj_.fail(pc, "unknown opcode " + std::to_string(op));
                ++c_.opcodes[op];
                if (op == 7) return;
                if (op <= 1) {
                    const int64_t at = op == 0 ? pc + 1 : pc + 2;
                    const int64_t size = packet(at, r, used, misses, u64, vpast);
                    (op == 0 ? c_.primary_packets : c_.secondary_packets)++;
                    if (op == 1 && int64_t(obj_.u8(pc + 1)) != size + 1) ++c_.bad_secondary_lengths;
                    pc = at + size;
                    continue;
                }
                if (op == 6) {
                    if (obj_.u8(pc + 1) >= r.children.size()) ++c_.attach_slots_out_of_range;
                    pc += 2;
                    continue;
                }
                ++c_.control_flow;
                if (depth > 0) ++c_.nested_control_flow;
                auto target = [&](int64_t field) { return field + 2 + obj_.s16(field); };
                if (op == 2) {
                    for (int v = 1; v <= 3; ++v)
                        if (obj_.u8(pc + v) >= r.vertices) ++c_.vertex_refs_out_of_range;
                    walk(target(pc + 4), depth + 1, k);
                    walk(target(pc + 6), depth + 1, k);
                    pc = target(pc + 8);
                } else if (op == 3 || op == 4) {
                    const uint32_t mask = obj_.u32(pc + 1);
                    Constraint set = k, clear = k;
                    const uint32_t free = mask & ~k.zero;
                    if (!free)
                        set.dead = true;
                    else if (!(mask & k.one))
                        set.one |= free & (~free + 1);
                    clear.zero |= mask;
                    if (clear.one & clear.zero) clear.dead = true;
                    walk(target(pc + 5), depth + 1, set);
                    if (op == 4) walk(target(pc + 7), depth + 1, clear);
                    pc = target(pc + (op == 3 ? 7 : 9));
                } else {
                    const uint32_t shift = obj_.u8(pc + 1), mask = obj_.u32(pc + 2), count = obj_.u8(pc + 6);
                    ++c_.select_instructions;
                    c_.select_cases += int(count);
                    c_.select_max_cases = std::max(c_.select_max_cases, int(count));
                    if (uint64_t(mask) + 1 > count) ++c_.select_mask_beyond_table;
                    for (uint32_t i2 = 0; i2 < count; ++i2) {
                        const uint64_t want = (uint64_t(i2) & mask) << shift, field = uint64_t(mask) << shift;
                        const bool ok = !k.dead && (i2 & ~mask) == 0 && shift < 32 && (want >> 32) == 0 &&
                                        (uint32_t(want) & k.zero) == 0 && (~want & field & k.one) == 0;
                        if (!ok) ++c_.select_unreachable_cases;
                        walk(target(pc + 9 + 2 * i2), depth + 1,
                             {k.one | uint32_t(want), k.zero | uint32_t(~want & field), !ok});
                    }
                    pc = target(pc + 7);
                }
            }
        };
        walk(r.base + r.program, 0, {});
        c_.unused_vertices += int(std::count(used.begin(), used.end(), false));
        if (misses) ++c_.missing_normal_models_anywhere;
        if (u64) c_.u64_models.push_back(i);
        if (vpast) c_.v_past_image_models.push_back(i);
        obj_.record(-1);
    }

    // Decodes one packet at `at`; returns its size.
    int64_t packet(int64_t at, const Rec& r, std::vector<bool>& used, bool& misses, bool& u64, bool& vpast) {
        const uint32_t type = obj_.u8(at), count = obj_.u8(at + 1);
        if (type >= uint32_t(kPrimitiveTypes))
            obj_.fail(at, "unknown primitive type " + std::to_string(type));
        const PacketLayout& L = packet_layout(uint8_t(type));
        ++c_.primitive_types[type];
        if (count == 0 || (is_polygon(uint8_t(type)) && count < 3)) ++c_.short_polygons;
        if (L.normal >= 0 && obj_.u8(at + L.normal) >= r.all) misses = true;
        int umax = 0, vmax = 0;
        for (uint32_t k = 0; k < count; ++k) {
            const int64_t v = at + L.header + int64_t(k) * L.per_vertex;
            const uint32_t idx = obj_.u8(v);
            if (idx >= r.vertices)
                ++c_.vertex_refs_out_of_range;
            else
                used[idx] = true;
            int next = 1;
            if (L.uv) {
                umax = std::max<int>(umax, int(obj_.u8(v + 1)));
                const int vv = int(obj_.u8(v + 2));
                vmax = std::max(vmax, vv);
                if (vv > 63) {
                    ++c_.v_past_image_coordinates;
                    vpast = true;
                }
                next = 3;
            }
            if (L.vertex_normal && obj_.u8(v + next) >= r.all) misses = true;
        }
        if (L.uv) {
            ++c_.textured_packets;
            if (!populated_.count(int(obj_.u16(at + L.texture)))) ++c_.unpopulated_texture_refs;
            c_.v_max = std::max(c_.v_max, vmax);
            if (umax > 64 || (umax == 64 && vmax >= 63)) ++c_.uv_beyond_edge;
            if (umax == 64) {
                ++c_.u64_packets;
                u64 = true;
            }
        }
        return L.header + int64_t(count) * L.per_vertex;
    }

    // Instances with gameplay slots empty, and models reaching a missing normal in state 0.
    void construction() {
        const int n = int(recs_.size());
        std::vector<int> inst(n, 0), depth(n, 0);
        std::function<void(int, int)> build = [&](int i, int d) {
            if (d > 8)
                throw std::runtime_error("3DOBJS.BIN: attachments nest deeper than 8 at record " +
                                         std::to_string(i));
            if (inst[i]) return;
            int total = 1, deepest = 0;
            for (int32_t ch : recs_[i].children)
                if (ch > 0) {
                    build(ch, d + 1);
                    total += inst[ch];
                    deepest = std::max(deepest, depth[ch] + 1);
                }
            inst[i] = total;
            depth[i] = deepest;
        };
        for (int i = 0; i < n; ++i) {
            if (!recs_[i].base) continue;
            build(i, 0);
            c_.instances += inst[i];
            c_.max_depth = std::max(c_.max_depth, depth[i]);
            if (reaches_missing(i, 0)) c_.missing_normal_models.push_back(i);
        }
        c_.attached_instances = c_.instances - (c_.records - c_.empty_record_slots);
        std::map<std::string, int> lm;
        for (const char* name : kLandmarkNames)
            if (c_.landmarks.count(name)) lm[name] = c_.landmarks[name];
        c_.landmarks = lm;
    }

    bool reaches_missing(int i, int depth) {
        if (depth > 8) return false;
        const Rec& r = recs_[i];
        std::function<bool(int64_t)> walk = [&](int64_t pc) {
            for (;;) {
                const uint32_t op = obj_.u8(pc);
                auto target = [&](int64_t field) { return field + 2 + obj_.s16(field); };
                switch (op) {
                    case 0:
                    case 1: {
                        const int64_t at = op == 0 ? pc + 1 : pc + 2;
                        const PacketLayout& L = packet_layout(uint8_t(obj_.u8(at)));
                        const uint32_t count = obj_.u8(at + 1);
                        if (L.normal >= 0 && obj_.u8(at + L.normal) >= r.all) return true;
                        if (L.vertex_normal)
                            for (uint32_t k = 0; k < count; ++k)
                                if (obj_.u8(at + L.header + int64_t(k) * L.per_vertex + L.per_vertex - 1) >=
                                    r.all)
                                    return true;
                        pc = at + L.header + int64_t(count) * L.per_vertex;
                        break;
                    }
                    case 2:
                        if (walk(target(pc + 4)) || walk(target(pc + 6))) return true;
                        pc = target(pc + 8);
                        break;
                    case 3: pc = target(pc + 7); break;
                    case 4:
                        if (walk(target(pc + 7))) return true;
                        pc = target(pc + 9);
                        break;
                    case 5:
                        if (obj_.u8(pc + 6) > 0 && walk(target(pc + 9))) return true;
                        pc = target(pc + 7);
                        break;
                    case 6: {
                        const uint32_t slot = obj_.u8(pc + 1);
                        if (slot < r.children.size() && r.children[slot] > 0 &&
                            reaches_missing(r.children[slot], depth + 1))
                            return true;
                        pc += 2;
                        break;
                    }
                    default: return false;
                }
            }
        };
        return walk(r.base + r.program);
    }

    void lod() {
        const int n = int(recs_.size());
        std::vector<bool> pointed(n, false);
        for (const Rec& r : recs_)
            if (r.base && r.next >= 0) {
                if (r.next >= n) throw std::runtime_error("3DOBJS.BIN: next-record field out of range");
                pointed[r.next] = true;
            }
        for (int i = 0; i < n; ++i) {
            if (!recs_[i].base || recs_[i].next < 0 || pointed[i]) continue;
            int len = 1;
            for (int j = recs_[i].next; j >= 0 && len <= n; j = recs_[j].next) ++len;
            ++c_.lod_chains;
            c_.lod_records += len;
            c_.lod_longest = std::max(c_.lod_longest, len);
        }
    }
};

} // namespace

Census decode_census(const std::filesystem::path& root) { return Decoder(root).run(); }

} // namespace refcheck::synth
