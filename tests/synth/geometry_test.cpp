// Plausible geometry: outward winding agrees with the spec's screen winding (`wind.formula`), so a
// convex solid's decision-plane chain paints every back face before every front face; separate
// parts are ordered by a separating face; details lie on their wall's plane after it.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "builder.hpp"
#include "generate.hpp"
#include "kit.hpp"
#include "painter.hpp"
#include "trig.hpp"

namespace refcheck::synth {
namespace {

struct V3 {
    double x, y, z;
};
V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
double dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
V3 cross(V3 a, V3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
V3 unit(V3 a) {
    const double l = std::sqrt(dot(a, a));
    return {a.x / l, a.y / l, a.z / l};
}
V3 of(const Vec3& v) { return {double(v.x), double(v.y), double(v.z)}; }

// A camera at `eye` looking at the origin: rows right, up, forward (section 7 of the spec).
struct Camera {
    V3 eye, right, up, fwd;
    explicit Camera(V3 e) : eye(e) {
        fwd = unit(V3{0, 0, 0} - e);
        right = unit(cross({0, 1, 0}, fwd));
        up = cross(fwd, right);
    }
    std::pair<double, double> project(V3 p) const {
        const V3 d = p - eye;
        const double x = dot(d, right), y = dot(d, up), z = dot(d, fwd);
        return {160 + 256 * x / z, 100 - 256 * y / z};
    }
    // `wind.formula`'s sign: >= 0 for a clockwise triangle on screen.
    double winding(V3 a, V3 b, V3 c) const {
        const auto [x0, y0] = project(a);
        const auto [x1, y1] = project(b);
        const auto [x2, y2] = project(c);
        return (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
    }
};

std::vector<Camera> cameras() {
    std::vector<Camera> out;
    for (int i = 0; i < 24; ++i) {
        const double yaw = i / 24.0, pitch = -0.2 + 0.4 * ((i * 7) % 24) / 24.0;
        const double d = 40000;
        out.emplace_back(V3{d * cos_turns(pitch) * cos_turns(yaw), d * sin_turns(pitch) + 1500,
                            d * cos_turns(pitch) * sin_turns(yaw)});
    }
    return out;
}

// Runs a block as the draw routine would (op 2 order by winding), listing the primaries drawn.
void run(const ModelBuilder& b, const Camera& cam, const Block& blk, std::vector<const Packet*>& drawn) {
    for (const Instr& in : blk) {
        if (in.op == Op::Primary) drawn.push_back(&in.packet);
        if (in.op == Op::Plane) {
            const bool front_facing =
                cam.winding(of(b.at(in.plane[0])), of(b.at(in.plane[1])), of(b.at(in.plane[2]))) >= 0;
            run(b, cam, in.branches[front_facing ? 1 : 0], drawn);
            run(b, cam, in.branches[front_facing ? 0 : 1], drawn);
        }
    }
}

bool faces_camera(const ModelBuilder& b, const Packet& p, const Camera& cam) {
    const V3 p0 = of(b.at(p.vertices[0].vertex)), p1 = of(b.at(p.vertices[1].vertex)),
             p2 = of(b.at(p.vertices[2].vertex));
    return dot(cross(p1 - p0, p2 - p0), cam.eye - p0) > 0;
}

TEST(SynthGeometry, OutwardWindingIsClockwiseOnScreenExactlyWhenTheFaceIsVisible) {
    Model m;
    m.encoding = Encoding::S16;
    ModelBuilder b(m);
    const Part box = b.box({-2048, 0, -1024}, {2048, 1536, 3072});
    const Part prism = b.loft(ring_y({6000, 0, 0}, 1024, 1024, 6), ring_y({6000, 2048, 0}, 512, 512, 6));
    int checked = 0;
    for (const Camera& cam : cameras())
        for (const Part* part : {&box, &prism})
            for (const Poly& f : part->faces) {
                const V3 p0 = of(b.at(f.v[0])), p1 = of(b.at(f.v[1])), p2 = of(b.at(f.v[2]));
                const double facing = dot(cross(p1 - p0, p2 - p0), cam.eye - p0);
                if (std::fabs(facing) < 1e3) continue;
                EXPECT_EQ(cam.winding(p0, p1, p2) >= 0, facing > 0);
                ++checked;
            }
    EXPECT_GT(checked, 300);
}

TEST(SynthGeometry, ConvexChainPaintsBackFacesFirst) {
    Model m;
    m.encoding = Encoding::Grid;
    ModelBuilder b(m);
    for (const Part& part : {b.box({-4096, 0, -2048}, {4096, 3072, 2048}),
                             b.loft(ring_y({0, 0, 9000}, 2048, 2048, 8), {{0, 4096, 9000}})}) {
        std::vector<FaceDraw> fds;
        for (const Poly& f : part.faces) fds.push_back({f, b.packet(f, shaded(3)), {}});
        const Block chain = convex_chain(fds);
        for (const Camera& cam : cameras()) {
            std::vector<const Packet*> drawn;
            run(b, cam, chain, drawn);
            ASSERT_EQ(drawn.size(), part.faces.size());
            bool seen_front = false;
            for (const Packet* p : drawn) {
                const bool front = faces_camera(b, *p, cam);
                EXPECT_FALSE(seen_front && !front) << "a back face painted over a front face";
                seen_front = seen_front || front;
            }
        }
    }
}

TEST(SynthGeometry, SeparatedPartsArePaintedFarFirst) {
    Model m;
    m.encoding = Encoding::S16;
    ModelBuilder b(m);
    Painter paint(b);
    const Part west = b.box({-8192, 0, -1024}, {-1024, 2048, 1024}),
               east = b.box({1024, 0, -1024}, {8192, 2048, 1024});
    auto item = [&](const Part& p, uint8_t c) {
        std::vector<FaceDraw> fds;
        for (const Poly& f : p.faces) fds.push_back({f, b.packet(f, shaded(c)), {}});
        return paint.part(p, fds);
    };
    const Block blk = paint.order({item(west, 10), item(east, 20)});
    EXPECT_EQ(paint.fallbacks(), 0);
    ASSERT_EQ(blk.size(), 1u);
    EXPECT_EQ(blk[0].op, Op::Plane);
    for (const V3 eye : {V3{40000, 3000, 500}, V3{-40000, 3000, -500}}) {
        std::vector<const Packet*> drawn;
        run(b, Camera(eye), blk, drawn);
        const uint8_t near = eye.x > 0 ? 20 : 10;
        EXPECT_EQ(drawn.back()->colour_a, near);
        EXPECT_NE(drawn.front()->colour_a, near);
    }
}

TEST(SynthGeometry, EveryItemSetOfBothProfilesHasASeparatingPlane) {
    for (const char* name : {"small", "default"}) {
        GenerationStats stats;
        generate(profile_named(name), 1, &stats);
        EXPECT_EQ(stats.painter_fallbacks, 0) << name;
    }
}

// Secondaries come after a primary on every path, and on citblkd0 they lie on that primary's plane.
TEST(SynthGeometry, SecondariesFollowAPrimaryAndCityBlockDetailIsCoplanar) {
    const Archive a = generate(default_profile(), 1);
    int checked = 0;
    for (size_t r = 0; r < a.models.size(); ++r) {
        const Model& m = a.models[r];
        const bool coplanar = m.name == "citblkd0";
        std::function<void(const Block&, const Packet*)> walk = [&](const Block& blk, const Packet* last) {
            for (const Instr& in : blk) {
                if (in.op == Op::Primary) last = &in.packet;
                if (in.op == Op::Secondary) {
                    ASSERT_NE(last, nullptr) << m.name << ": a secondary before any primary";
                    if (coplanar && in.packet.vertices.size() >= 3 && last->vertices.size() >= 3) {
                        const V3 p0 = of(m.vertices[last->vertices[0].vertex]),
                                 p1 = of(m.vertices[last->vertices[1].vertex]),
                                 p2 = of(m.vertices[last->vertices[2].vertex]);
                        const V3 n = unit(cross(p1 - p0, p2 - p0));
                        for (const PacketVertex& v : in.packet.vertices)
                            EXPECT_NEAR(dot(n, of(m.vertices[v.vertex]) - p0), 0.0, 1.0) << m.name;
                        ++checked;
                    }
                }
                for (const Block& br : in.branches) walk(br, last);
            }
        };
        walk(m.program, nullptr);
    }
    EXPECT_GT(checked, 50);
}

} // namespace
} // namespace refcheck::synth
