// Geometry toolkit for recipes: a vertex pool in the model's encoding, normal pools, convex parts
// with outward winding ((p1 - p0) x (p2 - p0) points out of the solid), and packets from faces.
#pragma once
#include <cstdint>
#include <vector>

#include "model.hpp"

namespace refcheck::synth {

struct Poly {
    std::vector<uint8_t> v; // vertex indices; first three are never collinear
};

struct Dir {
    double x = 0, y = 0, z = 0;
};

// How Gouraud vertex normals are derived for a part: from its face, from a centre, or from an axis.
struct Smooth {
    enum class Kind : uint8_t { Face, Centre, Axis } kind = Kind::Face;
    Dir a, b; // centre, or axis from a to b
};

struct Part {
    std::vector<uint8_t> verts;
    std::vector<Poly> faces;
    Smooth smooth;
};

struct Material {
    uint8_t type = 11;
    uint8_t colour_a = 0, colour_b = 0;
    uint16_t texture = 0;
    uint8_t mask = 0;
    uint8_t u0 = 0, u1 = 63, v0 = 0, v1 = 63; // texture rectangle mapped onto the face
};

struct Plane {
    int64_t nx = 0, ny = 0, nz = 0, d = 0;
    int64_t side(const Vec3& q) const { return nx * q.x + ny * q.y + nz * q.z - d; }
    double length() const;
};

class ModelBuilder {
public:
    explicit ModelBuilder(Model& m) : m_(m) {}
    Model& model() { return m_; }
    int32_t step() const { return m_.encoding == Encoding::S16 ? 16 : 64; }
    int32_t snap(int32_t c) const;
    Vec3 snap(Vec3 p) const { return {snap(p.x), snap(p.y), snap(p.z)}; }

    uint8_t vertex(Vec3 p); // snapped, shared with equal positions
    const Vec3& at(uint8_t i) const { return m_.vertices.at(i); }
    size_t vertex_count() const { return m_.vertices.size(); }

    NormalRef face_normal(const Poly& f);
    NormalRef vertex_normal(Dir d);
    NormalRef face_normal(Dir d); // a face normal given by direction (points, lines)
    Dir newell(const Poly& f) const;
    Plane plane(const Poly& f) const;

    // Convex parts. `skip` bits drop faces: box bit 0..5 = -x,+x,-y,+y,-z,+z; loft bit 0 = cap a, 1 = cap b.
    Part box(Vec3 lo, Vec3 hi, unsigned skip = 0);
    Part loft(const std::vector<Vec3>& ring_a, const std::vector<Vec3>& ring_b, unsigned skip = 0);
    // A polygon from positions (oriented as given) and a cleaned polygon from indices.
    Poly poly(const std::vector<Vec3>& pts);
    Poly clean(std::vector<uint8_t> v) const; // empty result: degenerate

    Packet packet(const Poly& f, const Material& m, const Smooth& s = {});
    Packet line(const std::vector<uint8_t>& verts, uint8_t type, uint8_t colour, NormalRef n = {});

private:
    Model& m_;
    void orient(Part& p) const;
    PacketVertex textured(const Poly& f, size_t i, const Material& m) const;
};

// Regular polygon ring around the Y axis (or another axis by swapping), radius r, n sides.
std::vector<Vec3> ring_y(Vec3 centre, int32_t rx, int32_t rz, int n, double phase = 0.0);
std::vector<Vec3> ring_z(Vec3 centre, int32_t rx, int32_t ry, int n, double phase = 0.0);
std::vector<Vec3> ring_x(Vec3 centre, int32_t ry, int32_t rz, int n, double phase = 0.0);

} // namespace refcheck::synth
