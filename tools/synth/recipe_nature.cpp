// Trees: a trunk with stacked cones, crossed billboards, a rounded crown, a palm or a bush.
#include <algorithm>
#include <cmath>

#include "recipes.hpp"
#include "trig.hpp"

namespace refcheck::synth {
namespace {

Item trunk(Kit& k, double h, double r, int n) {
    const Part p = k.b.loft(ring_y(k.at(0, 0, 0), k.snap(r), k.snap(r), n),
                            ring_y(k.at(0, h, 0), k.snap(r * 0.7), k.snap(r * 0.7), n), 1u);
    const bool textured = k.spec.variant % 2 == 0;
    return k.solid(p, textured ? texture(k.texture_slot(TexKind::Bark), true) : gouraud(colour(kWood, 5)));
}

// Four half billboards around the trunk axis above `y0` (primaries: visible from both sides).
std::vector<Item> billboards(Kit& k, double y0, double h, double w, bool shade) {
    std::vector<Item> items;
    const Material m = masked(k.texture_slot(TexKind::Foliage), shade);
    const Vec3 base = k.at(0, y0, 0), top = k.at(0, y0 + h, 0);
    const Vec3 ends[4][2] = {{k.at(w / 2, y0, 0), k.at(w / 2, y0 + h, 0)},
                             {k.at(-w / 2, y0, 0), k.at(-w / 2, y0 + h, 0)},
                             {k.at(0, y0, w / 2), k.at(0, y0 + h, w / 2)},
                             {k.at(0, y0, -w / 2), k.at(0, y0 + h, -w / 2)}};
    for (const auto& e : ends) {
        const Poly p = k.b.poly({base, e[0], e[1], top});
        Material half = m;
        const bool right = e[0].x > 0 || e[0].z > 0;
        half.u0 = right ? 32 : 0;
        half.u1 = right ? 63 : 32;
        Item it = k.paint.loose(p.v, {primary(k.b.packet(p, half))});
        it.separators.push_back(p);
        items.push_back(std::move(it));
    }
    return items;
}

} // namespace

void build_tree(Kit& k) {
    const int kind = int(k.spec.variant % 5);
    const double h = 6 + k.rng.below(10), r = 0.25 + k.rng.below(3) / 10.0;
    const int n = k.spec.lod == 0 ? 6 : 4;
    std::vector<Item> items;
    if (k.spec.lod == 2) { // a single billboard
        const Poly p =
            k.b.poly({k.at(-h / 3, 0, 0), k.at(-h / 3, h, 0), k.at(h / 3, h, 0), k.at(h / 3, 0, 0)});
        items.push_back(
            k.paint.loose(p.v, {primary(k.b.packet(p, masked(k.texture_slot(TexKind::Foliage), false)))}));
    } else if (kind == 0) { // conifer: trunk and stacked frustums
        items.push_back(trunk(k, h * 0.2, r, n));
        const int tiers = k.spec.lod == 0 ? 3 : 2;
        double y = h * 0.2, R = h * 0.3;
        for (int t = 0; t < tiers; ++t) {
            const double th = (h * 0.8) / tiers;
            const bool last = t == tiers - 1;
            std::vector<Vec3> top = last ? std::vector<Vec3>{k.at(0, y + th, 0)}
                                         : ring_y(k.at(0, y + th, 0), k.snap(R * 0.3), k.snap(R * 0.3), n);
            const Part cone = k.b.loft(ring_y(k.at(0, y, 0), k.snap(R), k.snap(R), n), top);
            const Material m =
                t % 2 ? gouraud(colour(kFoliage, 7))
                      : gouraud_texture(k.texture_slot(TexKind::Foliage), k.spec.variant % 3 == 0);
            items.push_back(k.solid(cone, m));
            y += th;
            R *= 0.75;
        }
    } else if (kind == 1) { // broadleaf billboards over a short trunk
        items.push_back(trunk(k, h * 0.35, r, n));
        for (Item& it : billboards(k, h * 0.35, h * 0.65, h * 0.8, k.spec.variant % 3 == 1))
            items.push_back(std::move(it));
    } else if (kind == 2) { // rounded crown: two cones base to base
        items.push_back(trunk(k, h * 0.4, r, n));
        const double R = h * 0.3, mid = h * 0.65;
        const auto ring = ring_y(k.at(0, mid, 0), k.snap(R), k.snap(R), n + 2);
        const Part top = k.b.loft(ring, {k.at(0, h, 0)}), bottom = k.b.loft(ring, {k.at(0, h * 0.4, 0)});
        items.push_back(k.solid(top, gouraud_two(colour(kFoliage, 8), colour(kGrass, 7))));
        items.push_back(k.solid(bottom, gouraud_two(colour(kFoliage, 5), colour(kGrass, 4))));
    } else if (kind == 3) { // palm: trunk, fronds and a coarse crown
        items.push_back(trunk(k, h * 0.85, r * 0.7, n));
        const uint8_t crown = k.b.vertex(k.at(0, h * 0.85, 0));
        std::vector<uint8_t> tips;
        for (const Vec3& p : ring_y(k.at(0, h * 0.7, 0), k.snap(h * 0.35), k.snap(h * 0.35), 7))
            tips.push_back(k.b.vertex(p));
        Block fronds;
        const NormalRef up = k.b.face_normal(Dir{0, 1, 0});
        for (uint8_t t : tips) fronds.push_back(primary(k.b.line({crown, t}, 10, colour(kFoliage, 9), up)));
        fronds.push_back(primary(k.b.line(tips, 14, colour(kFoliage, 6), up)));
        std::vector<uint8_t> pts = tips;
        pts.push_back(crown);
        items.push_back(overlay(k.paint.loose(pts, fronds)));
    } else { // bush
        const double R = h * 0.2;
        const auto ring = ring_y(k.at(0, R, 0), k.snap(R * 1.5), k.snap(R * 1.5), n + 2);
        const Part top = k.b.loft(ring, {k.at(0, R * 2.2, 0)}), bottom = k.b.loft(ring, {k.at(0, 0, 0)});
        items.push_back(k.solid(top, coarse_mesh(colour(kGrass, 7), true)));
        std::vector<FaceDraw> fds = k.faces(bottom, fine_mesh(colour(kGrass, 5), true));
        items.push_back(k.paint.part(bottom, fds));
    }
    k.model.program = k.paint.order(std::move(items));
    if (k.spec.lod == 0) add_seams(k, k.model.program, colour(kWood, 2));
    standard_metadata(k, Family::Tree);
}

} // namespace refcheck::synth
