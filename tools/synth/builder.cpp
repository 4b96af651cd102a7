#include "builder.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "packet_layout.hpp"
#include "trig.hpp"

namespace refcheck::synth {
namespace {

double dot(Dir a, Dir b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

Normal8 quantise(Dir d) {
    const double len = std::sqrt(dot(d, d));
    if (len == 0) return {0, 127, 0};
    auto q = [&](double c) { return static_cast<int8_t>(std::lround(c / len * 127.0)); };
    return {q(d.x), q(d.y), q(d.z)};
}

NormalRef pooled(std::vector<Normal8>& pool, Normal8 n, NormalRef::Kind kind) {
    for (size_t i = 0; i < pool.size(); ++i)
        if (pool[i] == n) return {kind, static_cast<uint8_t>(i)};
    if (pool.size() >= 250) throw std::runtime_error("normal pool full");
    pool.push_back(n);
    return {kind, static_cast<uint8_t>(pool.size() - 1)};
}

int32_t round_div(int64_t num, int64_t den) { // den > 0
    return static_cast<int32_t>(num >= 0 ? (num + den / 2) / den : -((-num + den / 2) / den));
}

} // namespace

double Plane::length() const {
    return std::sqrt(double(nx) * double(nx) + double(ny) * double(ny) + double(nz) * double(nz));
}

int32_t ModelBuilder::snap(int32_t c) const { return round_div(c, step()) * step(); }

uint8_t ModelBuilder::vertex(Vec3 p) {
    p = snap(p);
    for (size_t i = 0; i < m_.vertices.size(); ++i)
        if (m_.vertices[i] == p) return static_cast<uint8_t>(i);
    if (m_.vertices.size() >= 255) throw std::runtime_error("vertex pool full: " + m_.name);
    m_.vertices.push_back(p);
    return static_cast<uint8_t>(m_.vertices.size() - 1);
}

Dir ModelBuilder::newell(const Poly& f) const {
    Dir n;
    for (size_t i = 0; i < f.v.size(); ++i) {
        const Vec3& a = at(f.v[i]);
        const Vec3& b = at(f.v[(i + 1) % f.v.size()]);
        // Newell's method, sign chosen so that it agrees with (p1 - p0) x (p2 - p0).
        n.x += (double(a.y) - b.y) * (double(a.z) + b.z);
        n.y += (double(a.z) - b.z) * (double(a.x) + b.x);
        n.z += (double(a.x) - b.x) * (double(a.y) + b.y);
    }
    return n;
}

Plane ModelBuilder::plane(const Poly& f) const {
    const Vec3 &p0 = at(f.v[0]), &p1 = at(f.v[1]), &p2 = at(f.v[2]);
    const int64_t ax = p1.x - p0.x, ay = p1.y - p0.y, az = p1.z - p0.z;
    const int64_t bx = p2.x - p0.x, by = p2.y - p0.y, bz = p2.z - p0.z;
    Plane pl{ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx, 0};
    pl.d = pl.nx * p0.x + pl.ny * p0.y + pl.nz * p0.z;
    return pl;
}

NormalRef ModelBuilder::face_normal(const Poly& f) {
    return pooled(m_.face_normals, quantise(newell(f)), NormalRef::Kind::Face);
}

NormalRef ModelBuilder::face_normal(Dir d) {
    return pooled(m_.face_normals, quantise(d), NormalRef::Kind::Face);
}

NormalRef ModelBuilder::vertex_normal(Dir d) {
    return pooled(m_.vertex_normals, quantise(d), NormalRef::Kind::Vertex);
}

Poly ModelBuilder::clean(std::vector<uint8_t> v) const {
    std::vector<uint8_t> out;
    for (size_t i = 0; i < v.size(); ++i)
        if (v[i] != v[(i + 1) % v.size()]) out.push_back(v[i]);
    if (out.size() < 3) return {};
    for (size_t r = 0; r < out.size(); ++r) {
        Poly p{out};
        std::rotate(p.v.begin(), p.v.begin() + static_cast<long>(r), p.v.end());
        const Plane pl = plane(p);
        if (pl.nx || pl.ny || pl.nz) return p;
    }
    return {};
}

Poly ModelBuilder::poly(const std::vector<Vec3>& pts) {
    std::vector<uint8_t> v;
    for (const Vec3& p : pts) v.push_back(vertex(p));
    Poly p = clean(v);
    if (p.v.empty()) throw std::runtime_error("degenerate polygon in " + m_.name);
    return p;
}

void ModelBuilder::orient(Part& p) const {
    Dir c;
    for (uint8_t v : p.verts) c = {c.x + at(v).x, c.y + at(v).y, c.z + at(v).z};
    const double n = static_cast<double>(p.verts.size());
    c = {c.x / n, c.y / n, c.z / n};
    for (Poly& f : p.faces) {
        Dir fc;
        for (uint8_t v : f.v) fc = {fc.x + at(v).x, fc.y + at(v).y, fc.z + at(v).z};
        const double k = static_cast<double>(f.v.size());
        const Dir out{fc.x / k - c.x, fc.y / k - c.y, fc.z / k - c.z};
        if (dot(newell(f), out) < 0) {
            std::reverse(f.v.begin(), f.v.end());
            f = clean(f.v);
        }
    }
}

Part ModelBuilder::box(Vec3 lo, Vec3 hi, unsigned skip) {
    std::vector<Vec3> a{{lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, lo.y, hi.z}, {lo.x, lo.y, hi.z}};
    std::vector<Vec3> b;
    for (Vec3 p : a) b.push_back({p.x, hi.y, p.z});
    // loft bit 0 = bottom cap (-y), bit 1 = top cap (+y); side faces map to -z, +x, +z, -x.
    Part p = loft(a, b, ((skip >> 2) & 1) | (((skip >> 3) & 1) << 1));
    std::vector<Poly> kept;
    const unsigned side_bits[4] = {4, 1, 5, 0}; // face order of loft: sides 0..3, then caps
    for (size_t i = 0; i < p.faces.size(); ++i) {
        if (i < 4 && (skip >> side_bits[i]) & 1) continue;
        kept.push_back(p.faces[i]);
    }
    p.faces = kept;
    p.smooth = {Smooth::Kind::Centre, {(lo.x + hi.x) / 2.0, (lo.y + hi.y) / 2.0, (lo.z + hi.z) / 2.0}, {}};
    return p;
}

Part ModelBuilder::loft(const std::vector<Vec3>& ra, const std::vector<Vec3>& rb, unsigned skip) {
    Part p;
    std::vector<uint8_t> a, b;
    for (const Vec3& v : ra) a.push_back(vertex(v));
    for (const Vec3& v : rb) b.push_back(vertex(v));
    for (uint8_t v : a) p.verts.push_back(v);
    for (uint8_t v : b) p.verts.push_back(v);
    std::sort(p.verts.begin(), p.verts.end());
    p.verts.erase(std::unique(p.verts.begin(), p.verts.end()), p.verts.end());
    const size_t n = std::max(a.size(), b.size());
    auto pick = [&](const std::vector<uint8_t>& r, size_t i) { return r[r.size() == 1 ? 0 : i % r.size()]; };
    for (size_t i = 0; i < n; ++i) {
        Poly f = clean({pick(a, i), pick(a, i + 1), pick(b, i + 1), pick(b, i)});
        if (!f.v.empty()) p.faces.push_back(f);
    }
    if (!(skip & 1) && a.size() >= 3) {
        Poly f = clean(a);
        if (!f.v.empty()) p.faces.push_back(f);
    }
    if (!(skip & 2) && b.size() >= 3) {
        Poly f = clean(b);
        if (!f.v.empty()) p.faces.push_back(f);
    }
    orient(p);
    Dir ca, cb;
    for (const Vec3& v : ra)
        ca = {ca.x + v.x / double(ra.size()), ca.y + v.y / double(ra.size()), ca.z + v.z / double(ra.size())};
    for (const Vec3& v : rb)
        cb = {cb.x + v.x / double(rb.size()), cb.y + v.y / double(rb.size()), cb.z + v.z / double(rb.size())};
    p.smooth = {Smooth::Kind::Axis, ca, cb};
    return p;
}

PacketVertex ModelBuilder::textured(const Poly& f, size_t i, const Material& m) const {
    const Dir n = newell(f);
    int ua = 0, va = 1; // axes: 0 x, 1 y, 2 z
    if (std::fabs(n.y) >= std::fabs(n.x) && std::fabs(n.y) >= std::fabs(n.z)) {
        ua = 0;
        va = 2;
    } else if (std::fabs(n.x) >= std::fabs(n.z)) {
        ua = 2;
    }
    auto coord = [&](uint8_t v, int axis) {
        const Vec3& p = at(v);
        return axis == 0 ? p.x : axis == 1 ? p.y : p.z;
    };
    int32_t umin = INT32_MAX, umax = INT32_MIN, vmin = INT32_MAX, vmax = INT32_MIN;
    for (uint8_t v : f.v) {
        umin = std::min(umin, coord(v, ua));
        umax = std::max(umax, coord(v, ua));
        vmin = std::min(vmin, coord(v, va));
        vmax = std::max(vmax, coord(v, va));
    }
    auto map = [](int32_t c, int32_t lo, int32_t hi, int a, int b) {
        if (hi == lo) return static_cast<uint8_t>(a);
        return static_cast<uint8_t>(a + round_div(int64_t(c - lo) * (b - a), hi - lo));
    };
    PacketVertex pv;
    pv.vertex = f.v[i];
    pv.u = map(coord(f.v[i], ua), umin, umax, m.u0, m.u1);
    // Rows run downwards: the top of a wall (largest y) is v0.
    pv.v = va == 1 ? map(coord(f.v[i], va), vmax, vmin, m.v0, m.v1)
                   : map(coord(f.v[i], va), vmin, vmax, m.v0, m.v1);
    return pv;
}

Packet ModelBuilder::packet(const Poly& f, const Material& m, const Smooth& s) {
    const PacketLayout& L = packet_layout(m.type);
    Packet p;
    p.type = m.type;
    p.colour_a = m.colour_a;
    p.colour_b = m.colour_b;
    p.texture = m.texture;
    p.mask = m.mask;
    if (L.normal >= 0) p.normal = face_normal(f);
    const Dir fn = newell(f);
    for (size_t i = 0; i < f.v.size(); ++i) {
        PacketVertex pv = L.uv ? textured(f, i, m) : PacketVertex{f.v[i], 0, 0, {}};
        if (L.vertex_normal) {
            const Vec3& q = at(f.v[i]);
            Dir d = fn;
            if (s.kind == Smooth::Kind::Centre) {
                d = {q.x - s.a.x, q.y - s.a.y, q.z - s.a.z};
            } else if (s.kind == Smooth::Kind::Axis) {
                const Dir ax{s.b.x - s.a.x, s.b.y - s.a.y, s.b.z - s.a.z};
                const Dir r{q.x - s.a.x, q.y - s.a.y, q.z - s.a.z};
                const double l2 = dot(ax, ax), t = l2 > 0 ? dot(r, ax) / l2 : 0.0;
                d = {r.x - t * ax.x, r.y - t * ax.y, r.z - t * ax.z};
            }
            if (dot(d, d) < 1.0 || dot(d, fn) <= 0) d = fn;
            pv.normal = vertex_normal(d);
        }
        p.vertices.push_back(pv);
    }
    return p;
}

Packet ModelBuilder::line(const std::vector<uint8_t>& verts, uint8_t type, uint8_t colour, NormalRef n) {
    Packet p;
    p.type = type;
    p.colour_a = colour;
    if (packet_layout(type).normal >= 0) p.normal = n;
    for (uint8_t v : verts) p.vertices.push_back({v, 0, 0, {}});
    return p;
}

std::vector<Vec3> ring_y(Vec3 c, int32_t rx, int32_t rz, int n, double phase) {
    std::vector<Vec3> r;
    for (int i = 0; i < n; ++i) {
        const double t = phase + double(i) / n;
        r.push_back({c.x + int32_t(std::lround(rx * cos_turns(t))), c.y,
                     c.z + int32_t(std::lround(rz * sin_turns(t)))});
    }
    return r;
}

std::vector<Vec3> ring_z(Vec3 c, int32_t rx, int32_t ry, int n, double phase) {
    std::vector<Vec3> r;
    for (int i = 0; i < n; ++i) {
        const double t = phase + double(i) / n;
        r.push_back({c.x + int32_t(std::lround(rx * cos_turns(t))),
                     c.y + int32_t(std::lround(ry * sin_turns(t))), c.z});
    }
    return r;
}

std::vector<Vec3> ring_x(Vec3 c, int32_t ry, int32_t rz, int n, double phase) {
    std::vector<Vec3> r;
    for (int i = 0; i < n; ++i) {
        const double t = phase + double(i) / n;
        r.push_back({c.x, c.y + int32_t(std::lround(ry * cos_turns(t))),
                     c.z + int32_t(std::lround(rz * sin_turns(t)))});
    }
    return r;
}

} // namespace refcheck::synth
