#include "archive_reader.hpp"

#include <fstream>
#include <functional>
#include <stdexcept>

namespace refcheck::synth::test {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes load(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    if (!f) throw std::runtime_error("missing " + p.string());
    return Bytes(std::istreambuf_iterator<char>(f), {});
}

uint32_t at8(const Bytes& b, size_t o) { return b.at(o); }
uint32_t at16(const Bytes& b, size_t o) { return at8(b, o) | at8(b, o + 1) << 8; }
uint32_t at32(const Bytes& b, size_t o) { return at16(b, o) | at16(b, o + 2) << 16; }

// Section 9 of the spec: header size, bytes per vertex, face-normal offset, texture offset,
// offset of u within a vertex (0: none), offset of the vertex normal (0: none).
struct Layout {
    int h, v, n, tex, uv, g;
};
constexpr Layout kLayout[22] = {
    {3, 1, -1, -1, 0, 0}, {3, 1, -1, -1, 0, 0}, {3, 1, -1, -1, 0, 0}, {4, 1, -1, -1, 0, 0},
    {3, 1, -1, -1, 0, 0}, {3, 1, -1, -1, 0, 0}, {2, 1, -1, -1, 0, 0}, {5, 3, -1, 2, 1, 0},
    {5, 3, -1, 2, 1, 0},  {4, 1, 3, -1, 0, 0},  {4, 1, 3, -1, 0, 0},  {4, 1, 3, -1, 0, 0},
    {5, 1, 4, -1, 0, 0},  {4, 1, 3, -1, 0, 0},  {4, 1, 3, -1, 0, 0},  {6, 3, 5, 2, 1, 0},
    {6, 3, 5, 2, 1, 0},   {4, 2, 3, -1, 0, 1},  {5, 2, 4, -1, 0, 1},  {6, 4, 4, 2, 1, 3},
    {6, 4, 4, 2, 1, 3},   {2, 1, -1, -1, 0, 0}};
constexpr bool kPolygon[22] = {false, false, true, true, true, true, true, true, true, false, false,
                               true,  true,  true, true, true, true, true, true, true, true,  true};
constexpr bool kColoured[22] = {true, true, true, true, true,  true,  false, false, false, true,  true,
                                true, true, true, true, false, false, true,  true,  false, false, false};

struct Model {
    size_t base = 0;
    uint32_t enc = 0, nverts = 0, all = 0, flat = 0;
    int32_t next = -1;
    std::vector<int32_t> slots;
    size_t program = 0, verts = 0;
};

struct Frame { // one pending branch of the static walk
    size_t pc;
    int depth;
    uint32_t one, zero;
    bool dead;
};

class Reader {
public:
    explicit Reader(const std::filesystem::path& root)
        : obj_(load(root / "3DDATA" / "3DOBJS.BIN")), tex_(load(root / "3DDATA" / "OBJTEXT.BIN")),
          pal_(load(root / "3DPAL.RGB")) {}

    Facts run() {
        palette();
        textures();
        const uint32_t n = at32(obj_, 0);
        f_.records = int(n);
        for (uint32_t i = 0; i < n; ++i) models_.push_back(header(i));
        for (uint32_t i = 0; i < n; ++i) program(int(i));
        for (uint32_t i = 0; i < n; ++i) {
            const int c = construct(int(i), 0);
            f_.instances += c;
            if (reaches(int(i), 0)) f_.missing_state0.push_back(int(i));
        }
        f_.attached = f_.instances - f_.records;
        chains();
        return f_;
    }

private:
    Bytes obj_, tex_, pal_;
    Facts f_;
    std::vector<Model> models_;
    std::set<uint32_t> populated_;

    void palette() {
        f_.colours = int(pal_.size() / 3);
        f_.colour0_black = pal_.size() >= 3 && pal_[0] == 0 && pal_[1] == 0 && pal_[2] == 0;
        for (int r = 0; r + 1 <= f_.colours / 16; ++r) {
            bool up = true;
            for (int i = 1; i < 16; ++i) {
                const size_t a = size_t(r * 16 + i - 1) * 3, b = a + 3;
                if (pal_[b] + pal_[b + 1] + pal_[b + 2] <= pal_[a] + pal_[a + 1] + pal_[a + 2]) up = false;
            }
            f_.ramps += up;
        }
    }

    void textures() {
        f_.tex_slots = int(at32(tex_, 0));
        for (uint32_t s = 0; s < uint32_t(f_.tex_slots); ++s) {
            const uint32_t o = at32(tex_, 4 + 4 * s);
            if (!o) continue;
            ++f_.tex_populated;
            populated_.insert(s);
            f_.tex_types.insert(at32(tex_, o));
            if (at32(tex_, o) != 2 || at32(tex_, o + 4) != 64 || at32(tex_, o + 8) != 0)
                f_.tex_all_64x64 = false;
            at8(tex_, o + 12 + 4095);
        }
    }

    Model header(uint32_t i) {
        Model m;
        m.base = at32(obj_, 4 + 4 * i);
        m.enc = at32(obj_, m.base);
        (m.enc == 0 ? f_.s16 : f_.grid)++;
        m.next = int32_t(at32(obj_, m.base + 8));
        std::string name, desc;
        for (size_t k = 0; k < 16 && obj_.at(m.base + 0x48 + k); ++k) name += char(obj_[m.base + 0x48 + k]);
        for (size_t k = 0; k < 64 && obj_.at(m.base + 0x58 + k); ++k) desc += char(obj_[m.base + 0x58 + k]);
        f_.names.push_back(name);
        f_.descriptions.push_back(desc);
        f_.index_of.emplace(name, int(i));
        const uint32_t props = at32(obj_, m.base + 0x98);
        if (props & 2) f_.receivers.push_back(int(i));
        if (const uint32_t sh = at32(obj_, m.base + 0x40)) {
            const int32_t g = int32_t(at32(obj_, m.base + sh));
            if (g != -1) f_.shadow_subs.push_back({int(i), g});
        }
        if (const uint32_t a = at32(obj_, m.base + 0x2c)) {
            ++f_.attachment_records;
            for (uint32_t k = 0, n = at32(obj_, m.base + a); k < n; ++k) {
                m.slots.push_back(int32_t(at32(obj_, m.base + a + 4 + 52 * k)));
                f_.zero_slots += m.slots.back() == 0;
            }
        }
        m.verts = m.base + at32(obj_, m.base + 0x34);
        m.nverts = at16(obj_, m.verts);
        for (uint32_t v = 0; v < m.nverts; ++v)
            for (int c = 0; c < 3; ++c) {
                const size_t o = m.verts + 2 + 6 * v;
                if (m.enc == 0 && std::abs(int16_t(at16(obj_, o + 2 * c))) > 4096) ++f_.s16_too_large;
                if (m.enc == 1 && (at8(obj_, o + c) > 63 || at8(obj_, o + 3 + c) > 63)) ++f_.grid_bytes_out;
            }
        const size_t nl = m.base + at32(obj_, m.base + 0x38);
        m.all = at16(obj_, nl);
        m.flat = at16(obj_, nl + 2);
        if (m.flat > m.all || m.all > 256) ++f_.bad_normal_counts;
        m.program = m.base + at32(obj_, m.base + 0x3c);
        return m;
    }

    // Size of the packet at `p`; records what it uses.
    size_t packet(const Model& m, size_t p, std::vector<bool>& used, bool& missing) {
        const uint32_t type = at8(obj_, p), count = at8(obj_, p + 1);
        if (type >= 22) throw std::runtime_error("unknown primitive type");
        const Layout& L = kLayout[type];
        ++f_.types[type];
        ++f_.packets;
        if (count == 0 || (kPolygon[type] && count < 3)) ++f_.short_polygons;
        if (L.n >= 0 && at8(obj_, p + L.n) >= m.all) missing = true;
        if (L.tex >= 0 && !populated_.count(at16(obj_, p + L.tex))) ++f_.unpopulated_tex;
        if (kColoured[type] && at8(obj_, p + 2) >= 224) ++f_.bad_colours;
        bool u64 = false;
        for (uint32_t k = 0; k < count; ++k) {
            const size_t v = p + L.h + k * L.v;
            const uint32_t idx = at8(obj_, v);
            if (idx < m.nverts)
                used[idx] = true;
            else
                ++f_.bad_vertex_refs;
            if (L.uv) {
                const uint32_t u = at8(obj_, v + 1), vv = at8(obj_, v + 2);
                if (u > 64) ++f_.u_out;
                if (u == 64) u64 = true;
                if (vv > 63) {
                    if (f_.v_past_models.empty() || f_.v_past_models.back() != current_)
                        f_.v_past_models.push_back(current_);
                }
            }
            if (L.g && at8(obj_, v + L.g) >= m.all) missing = true;
        }
        f_.u64_packets += u64;
        return size_t(L.h) + size_t(count) * L.v;
    }

    int current_ = -1;

    void program(int i) {
        current_ = i;
        const Model& m = models_[i];
        std::vector<bool> used(m.nverts, false);
        bool missing = false;
        std::vector<Frame> todo{{m.program, 0, 0, 0, false}};
        auto disp = [&](size_t field) { return size_t(int64_t(field) + 2 + int16_t(at16(obj_, field))); };
        while (!todo.empty()) {
            Frame fr = todo.back();
            todo.pop_back();
            if (fr.depth > 32) ++f_.deep_nesting;
            for (size_t pc = fr.pc;;) {
                const uint32_t op = at8(obj_, pc);
                if (op > 7) throw std::runtime_error("unknown opcode");
                ++f_.ops[op];
                if (op == 7) break;
                if (op == 0) {
                    pc += 1 + packet(m, pc + 1, used, missing);
                    continue;
                }
                if (op == 1) {
                    const size_t size = packet(m, pc + 2, used, missing);
                    if (at8(obj_, pc + 1) != size + 1) ++f_.bad_lengths;
                    pc += 2 + size;
                    continue;
                }
                if (op == 6) {
                    if (at8(obj_, pc + 1) >= m.slots.size()) ++f_.bad_slots;
                    pc += 2;
                    continue;
                }
                ++f_.control_flow;
                if (fr.depth > 0) ++f_.nested_control_flow;
                const int d = fr.depth + 1;
                if (op == 2) {
                    for (int k = 1; k <= 3; ++k)
                        if (at8(obj_, pc + k) >= m.nverts) ++f_.bad_vertex_refs;
                    todo.push_back({disp(pc + 4), d, fr.one, fr.zero, fr.dead});
                    todo.push_back({disp(pc + 6), d, fr.one, fr.zero, fr.dead});
                    pc = disp(pc + 8);
                } else if (op == 3 || op == 4) {
                    const uint32_t mask = at32(obj_, pc + 1);
                    const uint32_t bit = mask & ~fr.zero & (~(mask & ~fr.zero) + 1);
                    todo.push_back({disp(pc + 5), d, fr.one | ((mask & fr.one) ? 0 : bit), fr.zero,
                                    fr.dead || (mask & ~fr.zero) == 0});
                    if (op == 4)
                        todo.push_back(
                            {disp(pc + 7), d, fr.one, fr.zero | mask, fr.dead || (fr.one & mask) != 0});
                    pc = disp(pc + (op == 3 ? 7 : 9));
                } else {
                    const uint32_t shift = at8(obj_, pc + 1), mask = at32(obj_, pc + 2),
                                   count = at8(obj_, pc + 6);
                    ++f_.selects;
                    for (uint32_t c = 0; c < count; ++c) {
                        ++f_.select_cases;
                        // Some state gives (state >> shift) & mask == c without contradicting the path.
                        const uint64_t want = uint64_t(c) << shift, field = uint64_t(mask) << shift;
                        const bool fits = (c & ~mask) == 0 && shift < 32 && (want >> 32) == 0;
                        const bool clash = (uint32_t(want) & fr.zero) || (uint32_t(~want & field) & fr.one);
                        const bool ok = fits && !clash && !fr.dead;
                        if (!ok) ++f_.select_unreachable;
                        todo.push_back({disp(pc + 9 + 2 * c), d, fr.one | uint32_t(want),
                                        fr.zero | uint32_t(~want & field), !ok});
                    }
                    pc = disp(pc + 7);
                }
            }
        }
        for (bool u : used) f_.unused_vertices += !u;
        if (missing) f_.missing_anywhere.push_back(i);
    }

    int construct(int i, int depth) {
        f_.deepest = std::max(f_.deepest, depth);
        if (depth > 8) throw std::runtime_error("attachments nest past depth 8");
        int n = 1;
        for (int32_t s : models_[i].slots)
            if (s != 0) n += construct(s, depth + 1);
        return n;
    }

    // Standard isolated view: state 0 (op 2 both sides, op 3 skipped, op 4 clear, op 5 case 0),
    // attached models drawn.
    bool reaches(int i, int depth) {
        const Model& m = models_[i];
        std::vector<size_t> todo{m.program};
        std::vector<bool> scratch(m.nverts);
        auto disp = [&](size_t field) { return size_t(int64_t(field) + 2 + int16_t(at16(obj_, field))); };
        while (!todo.empty()) {
            size_t pc = todo.back();
            todo.pop_back();
            for (;;) {
                const uint32_t op = at8(obj_, pc);
                if (op == 7) break;
                if (op == 0 || op == 1) {
                    bool missing = false;
                    const size_t at = pc + (op == 0 ? 1 : 2);
                    const uint32_t type = at8(obj_, at), count = at8(obj_, at + 1);
                    const Layout& L = kLayout[type];
                    if (L.n >= 0 && at8(obj_, at + L.n) >= m.all) missing = true;
                    for (uint32_t k = 0; L.g && k < count; ++k)
                        if (at8(obj_, at + L.h + k * L.v + L.g) >= m.all) missing = true;
                    if (missing) return true;
                    pc = at + L.h + count * L.v;
                } else if (op == 2) {
                    todo.push_back(disp(pc + 4));
                    todo.push_back(disp(pc + 6));
                    pc = disp(pc + 8);
                } else if (op == 3) {
                    pc = disp(pc + 7);
                } else if (op == 4) {
                    todo.push_back(disp(pc + 7));
                    pc = disp(pc + 9);
                } else if (op == 5) {
                    if (at8(obj_, pc + 6) > 0) todo.push_back(disp(pc + 9));
                    pc = disp(pc + 7);
                } else {
                    const uint32_t slot = at8(obj_, pc + 1);
                    if (depth < 8 && slot < m.slots.size() && m.slots[slot] != 0 &&
                        reaches(m.slots[slot], depth + 1))
                        return true;
                    pc += 2;
                }
            }
        }
        return false;
    }

    void chains() {
        std::set<int> targets;
        for (const Model& m : models_)
            if (m.next >= 0) targets.insert(m.next);
        for (size_t i = 0; i < models_.size(); ++i) {
            if (models_[i].next < 0 || targets.count(int(i))) continue;
            int len = 1;
            for (int j = models_[i].next; j >= 0; j = models_[j].next) ++len;
            ++f_.lod_chains;
            f_.lod_longest = std::max(f_.lod_longest, len);
        }
    }
};

} // namespace

Facts read_data_root(const std::filesystem::path& root) { return Reader(root).run(); }

} // namespace refcheck::synth::test
