#include "refcheck/reimpl/model_export.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "refcheck/reimpl/face_event.hpp"
#include "refcheck/reimpl/geometry.hpp"
#include "refcheck/reimpl/primitive.hpp"

namespace refcheck::reimpl {

std::optional<std::array<std::int64_t, 4>> canonical_plane(const Vec3& a, const Vec3& b, const Vec3& c) {
    const std::array<std::int64_t, 3> e1{std::int64_t{b[0]} - a[0], std::int64_t{b[1]} - a[1],
                                         std::int64_t{b[2]} - a[2]};
    const std::array<std::int64_t, 3> e2{std::int64_t{c[0]} - a[0], std::int64_t{c[1]} - a[1],
                                         std::int64_t{c[2]} - a[2]};
    std::array<std::int64_t, 4> p{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                                  e1[0] * e2[1] - e1[1] * e2[0], 0};
    if (p[0] == 0 && p[1] == 0 && p[2] == 0) return std::nullopt;
    p[3] = p[0] * a[0] + p[1] * a[1] + p[2] * a[2];
    std::int64_t g = 0;
    for (const std::int64_t x : p) g = std::gcd(g, x < 0 ? -x : x);
    const std::int64_t first = p[0] != 0 ? p[0] : p[1] != 0 ? p[1] : p[2];
    if (first < 0) g = -g;
    for (std::int64_t& x : p) x /= g;
    return p;
}

namespace {

constexpr double kQ31 = 2147483648.0;

std::array<double, 3> rotate(const Transform& t, bool root, const std::array<double, 3>& v) {
    if (root) return v;
    std::array<double, 3> out{};
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) out[i] += t.rotation[i * 3 + k] / kQ31 * v[k];
    }
    return out;
}

class Exporter {
public:
    Exporter(Interpreter& interpreter, std::uint32_t record) : interpreter_(interpreter) {
        out_.record = record;
        root_ = construct(interpreter.models(), record, Transform{});
        for_each_instance(root_, [this](const Instance& instance, std::span<const std::int32_t> path) {
            add_instance(instance, path);
        });
    }

    ModelExport run(const std::vector<std::uint32_t>& extra) {
        std::vector<std::uint32_t> candidates{0};
        collect_states(candidates);
        candidates.insert(candidates.end(), extra.begin(), extra.end());
        std::set<std::uint32_t> tried;
        for (const std::uint32_t state : candidates) {
            if (!tried.insert(state).second) continue;
            nodes_ = 0;
            Tree tree = build(0, 0, state, 0);
            const bool seen = std::any_of(out_.states.begin(), out_.states.end(),
                                          [&](const ExportedState& s) { return s.tree == tree; });
            if (!seen) out_.states.push_back({state, std::move(tree)});
            if (out_.states.size() == kMaxExportedStates) break;
        }
        place_lines();
        std::set<std::uint32_t> textures;
        for (const ExportedFace& f : out_.faces) {
            if (f.texture >= 0) textures.insert(static_cast<std::uint32_t>(f.texture));
        }
        out_.textures.assign(textures.begin(), textures.end());
        return std::move(out_);
    }

private:
    void add_instance(const Instance& instance, std::span<const std::int32_t> path) {
        const ModelRecord& rec = interpreter_.models().record(instance.model);
        ExportedInstance e;
        e.path.assign(path.begin(), path.end());
        e.model = instance.model;
        e.transform = instance.transform;
        const bool root = instance.depth == 0;
        for (const RawVertex& raw : rec.vertices) {
            const Vec3 v = decode_vertex(rec.encoding, raw);
            e.local.push_back(v);
            auto p = rotate(instance.transform, root, {double(v[0]), double(v[1]), double(v[2])});
            for (int i = 0; i < 3; ++i) p[i] += instance.transform.position[i];
            e.placed.push_back(p);
        }
        if (rec.encoding == Encoding::Grid) e.grid = rec.vertices;
        e.normals = rec.normals.vectors;
        index_of_[&instance] = static_cast<std::uint32_t>(out_.instances.size());
        instance_of_.push_back(&instance);
        out_.instances.push_back(std::move(e));
    }

    void collect_states(std::vector<std::uint32_t>& states) {
        std::uint32_t all_bits = 0;
        for (const ExportedInstance& inst : out_.instances) {
            for (const auto& [offset, in] : interpreter_.program(inst.model).instructions) {
                std::uint32_t mask = 0;
                if (const auto* o = std::get_if<IfMaskOperands>(&in.operands)) mask = o->mask;
                if (const auto* o = std::get_if<ChooseOperands>(&in.operands)) mask = o->mask;
                if (const auto* o = std::get_if<SelectOperands>(&in.operands)) {
                    for (std::uint32_t k = 1; k < o->cases.size(); ++k) states.push_back(k << o->shift);
                }
                for (int bit = 0; bit < 32; ++bit) {
                    if (mask & (1u << bit)) states.push_back(1u << bit);
                }
                all_bits |= mask;
            }
        }
        states.push_back(all_bits);
    }

    [[noreturn]] void fail(std::uint32_t instance, std::uint32_t offset, std::string_view detail) {
        const std::uint32_t model = out_.instances[instance].model;
        interpreter_.models().reader(model).fail(interpreter_.program(model).base + offset,
                                                 fmt::format("program +0x{:x}: {}", offset, detail));
    }

    // The sequence starting at `offset` up to its op 7, for one state (spec section 8).
    Tree build(std::uint32_t instance, std::uint32_t offset, std::uint32_t state, std::uint32_t nesting) {
        if (nesting > kMaxNesting) fail(instance, offset, "branch nesting deeper than 32 (op.nesting)");
        const Program& program = interpreter_.program(out_.instances[instance].model);
        Tree tree;
        if (program.empty()) return tree;
        for (std::uint32_t at = offset;;) {
            if (++nodes_ > kMaxTreeNodes) fail(instance, at, "the program tree is too large to export");
            const Instruction& in = program.at(at);
            const auto branch = [&](std::uint32_t target) {
                Tree sub = build(instance, target, state, nesting + 1);
                std::move(sub.begin(), sub.end(), std::back_inserter(tree));
            };
            switch (in.opcode) {
                case Opcode::Primary:
                case Opcode::Secondary: tree.push_back({face(instance, in)}); break;
                case Opcode::Plane: {
                    const auto& o = std::get<PlaneOperands>(in.operands);
                    tree.push_back({PlaneNode{instance, in.offset, o.vertices,
                                              build(instance, o.front, state, nesting + 1),
                                              build(instance, o.back, state, nesting + 1)}});
                    break;
                }
                case Opcode::IfMask: {
                    const auto& o = std::get<IfMaskOperands>(in.operands);
                    if ((state & o.mask) != 0) branch(o.branch);
                    break;
                }
                case Opcode::Choose: {
                    const auto& o = std::get<ChooseOperands>(in.operands);
                    branch((state & o.mask) != 0 ? o.set : o.clear);
                    break;
                }
                case Opcode::Select: {
                    const auto& o = std::get<SelectOperands>(in.operands);
                    const std::uint32_t value = (state >> o.shift) & o.mask;
                    if (value < o.cases.size()) branch(o.cases[value]);
                    break;
                }
                case Opcode::Attach: {
                    const std::uint8_t slot = std::get<AttachOperands>(in.operands).slot;
                    const Instance* child = instance_of_[instance]->slot(slot);
                    if (child != nullptr) {
                        const std::uint32_t c = index_of_.at(child);
                        tree.push_back({AttachNode{in.offset, slot, c, build(c, 0, state, 0)}});
                    }
                    break;
                }
                case Opcode::Return: return tree;
            }
            const auto next = in.next();
            if (!next) return tree;
            at = *next;
        }
    }

    std::uint32_t face(std::uint32_t instance, const Instruction& in) {
        const auto key = std::make_pair(instance, in.offset);
        if (const auto it = faces_.find(key); it != faces_.end()) return it->second;
        const Packet& p = std::get<FaceOperands>(in.operands).packet;
        const ExportedInstance& inst = out_.instances[instance];
        const ModelRecord& rec = interpreter_.models().record(inst.model);
        ExportedFace f;
        f.instance = instance;
        f.offset = in.offset;
        f.opcode = static_cast<std::uint8_t>(in.opcode);
        f.type = p.type;
        f.vertices = p.vertices;
        f.material = p.material;
        f.u = p.u;
        f.v = p.v;
        f.texture = p.texture() ? *p.texture() : -1;
        f.mask = p.mask() ? *p.mask() : -1;
        f.colour = p.colour() ? *p.colour() : -1;
        f.colour_b = p.colour_b() ? *p.colour_b() : -1;
        // light.gouraud, light.missing.lit: the lit count, as the interpreter lights the model.
        const bool all = interpreter_.options().gouraud || rec.encoding == Encoding::Grid;
        const std::uint32_t lit = all ? rec.normals.count_all : rec.normals.count_flat;
        bool missing = false;
        if (const auto n = p.face_normal()) {
            f.face_normal = *n < lit ? *n : -1;
            missing = *n >= lit;
        }
        if (p.info->shading == Shading::Gouraud && interpreter_.options().gouraud) {
            for (const std::uint8_t g : p.normals) {
                f.vertex_normals.push_back(g < lit ? g : -1);
                missing = missing || g >= lit;
            }
        }
        f.missing_normal = missing;
        f.draw_type = missing ? unshaded_counterpart(p.type) : p.type;
        const Shape shape = p.info->shape;
        if (shape != Shape::Points && shape != Shape::Polyline) {
            for (std::size_t k = 1; k + 1 < p.vertices.size(); ++k) {
                f.triangles.push_back({0, static_cast<std::uint8_t>(k), static_cast<std::uint8_t>(k + 1)});
                f.planes.push_back(plane(instance, inst.local[p.vertices[0]], inst.local[p.vertices[k]],
                                         inst.local[p.vertices[k + 1]]));
            }
        }
        const auto index = static_cast<std::uint32_t>(out_.faces.size());
        out_.faces.push_back(std::move(f));
        faces_.emplace(key, index);
        return index;
    }

    // wb.lines: each segment of a polyline (each vertex of points) takes a plane of its instance
    // that holds it exactly, so that it keeps program order with the faces on that plane: the
    // plane of the closest face before it in program order that holds it, else the first such.
    void place_lines() {
        for (std::size_t at = 0; at < out_.faces.size(); ++at) {
            ExportedFace& f = out_.faces[at];
            const Shape shape = primitive_info(f.type)->shape;
            if (shape != Shape::Points && shape != Shape::Polyline) continue;
            const auto& local = out_.instances[f.instance].local;
            const auto holds = [&](const ExportedPlane& p, std::uint8_t v) {
                const Vec3& x = local[v];
                return p.key[0] * x[0] + p.key[1] * x[1] + p.key[2] * x[2] == p.key[3];
            };
            const std::size_t parts = shape == Shape::Points ? f.vertices.size() : f.vertices.size() - 1;
            for (std::size_t k = 0; k < parts && f.vertices.size() > 0; ++k) {
                const std::uint8_t a = f.vertices[k], b = f.vertices[shape == Shape::Points ? k : k + 1];
                std::int32_t found = -1;
                for (std::size_t j = at; j-- > 0 && found < 0;) {
                    if (out_.faces[j].instance != f.instance) continue;
                    const std::vector<std::int32_t>& held = out_.faces[j].planes;
                    const bool surface = !out_.faces[j].triangles.empty();
                    for (std::size_t t = 0; surface && t < held.size() && found < 0; ++t) {
                        if (held[t] >= 0 && holds(out_.planes[held[t]], a) && holds(out_.planes[held[t]], b))
                            found = held[t];
                    }
                }
                for (std::size_t i = 0; i < out_.planes.size() && found < 0; ++i) {
                    const ExportedPlane& p = out_.planes[i];
                    if (p.instance == f.instance && holds(p, a) && holds(p, b))
                        found = static_cast<std::int32_t>(i);
                }
                f.planes.push_back(found);
            }
        }
    }

    std::int32_t plane(std::uint32_t instance, const Vec3& a, const Vec3& b, const Vec3& c) {
        const auto key = canonical_plane(a, b, c);
        if (!key) return -1;
        const auto map_key = std::make_pair(instance, *key);
        if (const auto it = planes_.find(map_key); it != planes_.end()) return it->second;
        const ExportedInstance& inst = out_.instances[instance];
        const bool root = instance_of_[instance]->depth == 0;
        const auto n =
            rotate(inst.transform, root, {double((*key)[0]), double((*key)[1]), double((*key)[2])});
        double d = double((*key)[3]);
        for (int i = 0; i < 3; ++i) d += n[i] * inst.transform.position[i];
        const double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        ExportedPlane p{instance, *key, {n[0] / length, n[1] / length, n[2] / length, d / length}};
        const auto index = static_cast<std::int32_t>(out_.planes.size());
        out_.planes.push_back(p);
        planes_.emplace(map_key, index);
        return index;
    }

    Interpreter& interpreter_;
    Instance root_;
    ModelExport out_;
    std::map<const Instance*, std::uint32_t> index_of_;
    std::vector<const Instance*> instance_of_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> faces_;
    std::map<std::pair<std::uint32_t, std::array<std::int64_t, 4>>, std::int32_t> planes_;
    std::size_t nodes_ = 0;
};

} // namespace

ModelExport export_model(Interpreter& interpreter, std::uint32_t record,
                         const std::vector<std::uint32_t>& extra_states) {
    return Exporter(interpreter, record).run(extra_states);
}

} // namespace refcheck::reimpl
