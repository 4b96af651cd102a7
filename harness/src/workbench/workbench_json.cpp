// A record's workbench data as JSON (docs/formats/apache-3d.md, section 20): instances with their
// vertices, faces with program offsets and fan triangles, canonical planes, program trees.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "refcheck/harness/workbench.hpp"

namespace refcheck::harness {
namespace {

using ojson = nlohmann::ordered_json;

ojson tree_json(const reimpl::Tree& tree) {
    ojson out = ojson::array();
    for (const reimpl::TreeNode& n : tree) {
        if (const auto* face = std::get_if<std::uint32_t>(&n.node)) {
            out.push_back(*face);
        } else if (const auto* p = std::get_if<reimpl::PlaneNode>(&n.node)) {
            out.push_back({{"p", {p->instance, p->vertices[0], p->vertices[1], p->vertices[2]}},
                           {"o", p->offset},
                           {"f", tree_json(p->front)},
                           {"b", tree_json(p->back)}});
        } else {
            const auto& a = std::get<reimpl::AttachNode>(n.node);
            out.push_back({{"a", a.slot}, {"o", a.offset}, {"i", a.instance}, {"n", tree_json(a.tree)}});
        }
    }
    return out;
}

// Integral values print without a fraction; others keep 9 significant digits (enough for float).
ojson number(double x) {
    if (std::nearbyint(x) == x && std::fabs(x) < 9.0e15) return static_cast<std::int64_t>(x);
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", x);
    return std::strtod(text, nullptr);
}

} // namespace

ojson workbench_json(const reimpl::ModelExport& model, const reimpl::ModelArchive& archive) {
    const reimpl::ModelRecord& rec = archive.record(model.record);
    ojson j;
    j["record"] = model.record;
    j["name"] = rec.name();
    j["description"] = rec.description();
    j["encoding"] = rec.encoding == reimpl::Encoding::Grid ? "grid" : "s16";
    j["next"] = rec.header.next;
    j["radius"] = rec.header.radius;
    ojson instances = ojson::array();
    for (const auto& inst : model.instances) {
        ojson i;
        i["path"] = inst.path;
        i["model"] = inst.model;
        i["position"] = inst.transform.position;
        i["rotation"] = inst.transform.rotation;
        ojson local = ojson::array(), placed = ojson::array();
        for (const auto& v : inst.local) local.push_back(v);
        if (!inst.path.empty()) {
            for (const auto& p : inst.placed) placed.push_back({number(p[0]), number(p[1]), number(p[2])});
            i["placed"] = std::move(placed);
        }
        i["local"] = std::move(local);
        if (!inst.grid.empty()) i["grid"] = inst.grid;
        ojson normals = ojson::array();
        for (const auto& n : inst.normals) normals.push_back({n[0], n[1], n[2]});
        i["normals"] = std::move(normals);
        instances.push_back(std::move(i));
    }
    j["instances"] = std::move(instances);
    ojson faces = ojson::array();
    for (const auto& f : model.faces) {
        ojson o;
        o["i"] = f.instance;
        o["o"] = f.offset;
        o["op"] = f.opcode;
        o["t"] = f.type;
        if (f.draw_type != f.type) o["dt"] = f.draw_type;
        if (f.missing_normal) o["missing"] = true;
        o["v"] = f.vertices;
        o["mat"] = f.material;
        if (!f.u.empty()) {
            o["u"] = f.u;
            o["vv"] = f.v;
        }
        if (f.texture >= 0) o["tex"] = f.texture;
        if (f.mask >= 0) o["m"] = f.mask;
        if (f.colour >= 0) o["c"] = f.colour;
        if (f.colour_b >= 0) o["c2"] = f.colour_b;
        if (f.face_normal >= 0) o["n"] = f.face_normal;
        if (!f.vertex_normals.empty()) o["g"] = f.vertex_normals;
        if (!f.triangles.empty()) {
            ojson tri = ojson::array();
            for (const auto& t : f.triangles) tri.push_back({t[0], t[1], t[2]});
            o["tri"] = std::move(tri);
            o["pl"] = f.planes;
        } else if (!f.planes.empty()) {
            o["pl"] = f.planes; // wb.lines: per segment (points: per vertex)
        }
        faces.push_back(std::move(o));
    }
    j["faces"] = std::move(faces);
    ojson planes = ojson::array();
    for (const auto& p : model.planes) {
        planes.push_back({{"i", p.instance}, {"key", p.key}, {"n", p.root}});
    }
    j["planes"] = std::move(planes);
    ojson states = ojson::array();
    for (const auto& s : model.states) states.push_back({{"state", s.state}, {"tree", tree_json(s.tree)}});
    j["states"] = std::move(states);
    j["textures"] = model.textures;
    return j;
}

} // namespace refcheck::harness
