// Structures on the grid encoding: fuel tanks, bridges, pylons, walls and fences, helipads,
// radar stations with an attached rotating dish.
#include <algorithm>
#include <cmath>

#include "recipes.hpp"
#include "trig.hpp"

namespace refcheck::synth {

void build_fuel_tank(Kit& k) {
    const double r = 4 + k.rng.below(6), h = 5 + k.rng.below(8);
    const int n = k.detailed() ? 8 : 6;
    const Vec3 base{0, 0, 0}, top = k.at(0, h, 0);
    const Part body =
        k.b.loft(ring_y(base, k.snap(r), k.snap(r), n), ring_y(top, k.snap(r), k.snap(r), n), 1u | 2u);
    const Material side = k.spec.variant % 2 ? gouraud(colour(kGrey, 12))
                                             : gouraud_two(colour(kGrey, 12), colour(kConcrete, 11));
    std::vector<FaceDraw> fds = k.faces(body, side);
    fds[0].details.push_back(
        k.detail(fds[0].poly, 0.2, 0.8, 0.4, 0.7, texture(k.texture_slot(TexKind::Numbers), false)));
    fds[n / 2].details.push_back(k.detail(fds[n / 2].poly, 0.0, 1.0, 0.0, 0.08, shaded(colour(kRust, 6))));
    const Part roof = k.b.loft(ring_y(top, k.snap(r), k.snap(r), n), {k.at(0, h + r * 0.3, 0)});
    std::vector<Item> items{k.paint.part(body, fds), k.solid(roof, shaded(colour(kGrey, 10)))};
    if (k.detailed()) {
        const Vec3 p0 = k.b.at(body.faces[1].v[0]);
        std::vector<uint8_t> ladder;
        for (int i = 0; i <= 4; ++i)
            ladder.push_back(k.b.vertex({p0.x + (i % 2) * k.snap(0.5), int32_t(top.y * i / 4), p0.z}));
        items.push_back(overlay(k.paint.loose(ladder, {primary(k.b.line(ladder, 1, colour(kGrey, 4)))})));
    }
    items.push_back(damage_item(k, k.at(0, h + r * 0.3, 0), 3.0));
    k.model.program = k.paint.order(std::move(items));
    add_seams(k, k.model.program, colour(kGrey, 2));
    standard_metadata(k, Family::FuelTank);
}

void build_bridge(Kit& k) {
    const double len = 40 + k.rng.below(60), w = 8 + k.rng.below(4), h = 6 + k.rng.below(6);
    const int spans = k.detailed() ? 3 + int(k.rng.below(3)) : 2;
    std::vector<Item> items;
    const Vec3 dlo = k.at(-w / 2, h, -len / 2), dhi = k.at(w / 2, h + 1.2, len / 2);
    const Part deck = k.b.box(dlo, dhi);
    std::vector<FaceDraw> fds = k.faces(deck, shaded(colour(kConcrete, 9)));
    for (FaceDraw& fd : fds)
        if (k.b.newell(fd.poly).y > 0) {
            fd.packet = k.b.packet(fd.poly, shaded(colour(kGrey, 4)));
            const int dashes = k.detailed() ? 12 : 4;
            for (int i = 0; i < dashes; ++i)
                fd.details.push_back(k.detail(fd.poly, 0.48, 0.52, (i + 0.2) / dashes, (i + 0.6) / dashes,
                                              flat(colour(kLight, 14))));
        }
    items.push_back(k.paint.part(deck, fds));
    for (int i = 1; i < spans; ++i) {
        const double z = -len / 2 + len * i / spans;
        items.push_back(k.solid(k.b.box(k.at(-w / 3, 0, z - 1), k.at(w / 3, h, z + 1), 4u | 8u),
                                shaded(colour(kConcrete, 7))));
    }
    for (int side = -1; side <= 1; side += 2) {
        std::vector<uint8_t> rail;
        const int posts = k.detailed() ? 10 : 3;
        for (int i = 0; i <= posts; ++i) {
            const int32_t z = dlo.z + (dhi.z - dlo.z) * i / posts;
            const int32_t x = side < 0 ? dlo.x : dhi.x;
            rail.push_back(k.b.vertex({x, dhi.y, z}));
            rail.push_back(k.b.vertex({x, dhi.y + k.snap(1.0), z}));
            rail.push_back(k.b.vertex({x, dhi.y, z}));
        }
        Block blk{primary(k.b.line(rail, 1, colour(kGrey, 11)))};
        if (k.detailed()) {
            std::vector<uint8_t> lamps;
            for (size_t i = 1; i < rail.size(); i += 6) lamps.push_back(rail[i]);
            blk.push_back(if_mask(anim::kNight, {primary(k.b.line(lamps, 0, colour(kLight, 15)))}));
        }
        items.push_back(k.paint.loose(rail, blk));
    }
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::Bridge);
}

void build_pylon(Kit& k) {
    const double base = 3 + k.rng.below(3), top = 1.0, h = 20 + k.rng.below(20);
    const int levels = k.detailed() ? 6 : 3;
    std::vector<std::vector<uint8_t>> rings;
    for (int l = 0; l <= levels; ++l) {
        const double t = double(l) / levels, half = base + (top - base) * t;
        std::vector<uint8_t> r;
        for (const Vec3& p : ring_y(k.at(0, h * t, 0), k.snap(half), k.snap(half), 4, 0.125))
            r.push_back(k.b.vertex(p));
        rings.push_back(r);
    }
    Block blk;
    std::vector<uint8_t> all;
    for (int c = 0; c < 4; ++c) {
        std::vector<uint8_t> leg, brace;
        for (int l = 0; l <= levels; ++l) {
            leg.push_back(rings[l][c]);
            brace.push_back(rings[l][(c + (l % 2)) % 4]);
        }
        blk.push_back(primary(k.b.line(leg, 1, colour(kGrey, 6))));
        blk.push_back(primary(k.b.line(brace, 1, colour(kGrey, 8))));
    }
    for (auto& r : rings) all.insert(all.end(), r.begin(), r.end());
    const double arm = 6 + k.rng.below(4);
    const uint8_t al = k.b.vertex(k.at(-arm, h, 0)), ar = k.b.vertex(k.at(arm, h, 0));
    const uint8_t il = k.b.vertex(k.at(-arm, h - 1.5, 0)), ir = k.b.vertex(k.at(arm, h - 1.5, 0));
    blk.push_back(primary(k.b.line({al, rings[levels][0], rings[levels][2], ar}, 1, colour(kGrey, 6))));
    blk.push_back(primary(k.b.line({al, il}, 1, colour(kGrey, 10))));
    blk.push_back(primary(k.b.line({ar, ir}, 1, colour(kGrey, 10))));
    blk.push_back(primary(k.b.line({il, ir}, 0, colour(kBlue, 12))));
    blk.push_back(if_mask(anim::kBeacon, {primary(k.b.line({rings[levels][1]}, 0, colour(kRed, 15)))}));
    all.insert(all.end(), {al, ar, il, ir});
    k.model.program = k.paint.order({k.paint.loose(all, blk)});
    standard_metadata(k, Family::Pylon);
}

void build_wall(Kit& k) {
    const double len = 20 + k.rng.below(40), h = 2 + k.rng.below(2);
    std::vector<Item> items;
    if (k.spec.variant % 2 == 0) { // masonry wall with a brick texture and coping
        const Part w = k.b.box(k.at(-len / 2, 0, -0.3), k.at(len / 2, h, 0.3), 4u);
        items.push_back(k.solid(w, texture(k.texture_slot(TexKind::Bricks), true)));
        items.push_back(
            k.solid(k.b.box(k.at(-len / 2 - 0.1, h, -0.4), k.at(len / 2 + 0.1, h + 0.25, 0.4), 4u),
                    shaded(colour(kConcrete, 10))));
    } else { // chain-link fence: posts, mesh panels, barbed wire
        const int panels = k.detailed() ? 8 : 3;
        std::vector<uint8_t> wire, verts;
        Block fence; // every panel lies in one plane: any order paints the same
        for (int i = 0; i < panels; ++i) {
            const double x0 = -len / 2 + len * i / panels, x1 = -len / 2 + len * (i + 1) / panels;
            const Poly p = k.b.poly({k.at(x0, 0, 0), k.at(x0, h, 0), k.at(x1, h, 0), k.at(x1, 0, 0)});
            const Material m =
                i % 2 ? masked(k.texture_slot(TexKind::Fence), false) : fine_mesh(colour(kGrey, 9), false);
            verts.insert(verts.end(), p.v.begin(), p.v.end());
            fence.push_back(primary(k.b.packet(p, m)));
            fence.push_back(primary(k.b.line({p.v[0], p.v[1]}, 1, colour(kGrey, 5))));
            wire.push_back(k.b.vertex(k.at(x0, h + 0.4, 0)));
        }
        wire.push_back(k.b.vertex(k.at(len / 2, h + 0.4, 0)));
        fence.push_back(primary(k.b.line(wire, 1, colour(kGrey, 7))));
        verts.insert(verts.end(), wire.begin(), wire.end());
        items.push_back(k.paint.loose(verts, fence));
    }
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::Wall);
}

void build_helipad(Kit& k) {
    const double w = 16 + k.rng.below(10);
    const Part slab = k.b.box(k.at(-w / 2, 0, -w / 2), k.at(w / 2, 0.4, w / 2), 4u);
    std::vector<FaceDraw> fds = k.faces(slab, shaded(colour(kConcrete, 7)));
    std::vector<uint8_t> lights;
    for (FaceDraw& fd : fds)
        if (k.b.newell(fd.poly).y > 0) {
            const bool shade = k.spec.variant % 2 == 1;
            fd.packet = k.b.packet(fd.poly, texture(k.texture_slot(TexKind::Concrete), shade));
            fd.details.push_back(
                k.detail(fd.poly, 0.25, 0.75, 0.25, 0.75, texture(k.texture_slot(TexKind::Deck), false)));
            fd.details.push_back(k.detail(fd.poly, 0.02, 0.98, 0.02, 0.06, flat(colour(kLight, 14))));
            fd.details.push_back(k.detail(fd.poly, 0.02, 0.98, 0.94, 0.98, flat(colour(kLight, 14))));
            for (uint8_t v : fd.poly.v) lights.push_back(v);
            fd.details.push_back(if_mask(anim::kNight, {secondary(k.b.line(lights, 0, colour(kLight, 15)))}));
        }
    k.model.program = k.paint.order({k.paint.part(slab, fds)});
    standard_metadata(k, Family::Helipad);
}

void build_radar_station(Kit& k) {
    const double w = 8 + k.rng.below(4), h = 3.5, mast = 6 + k.rng.below(6);
    std::vector<Item> items;
    const Part hut = k.b.box(k.at(-w / 2, 0, -w / 2), k.at(w / 2, h, w / 2), 4u);
    std::vector<FaceDraw> fds = k.faces(hut, shaded(colour(kOlive, 9)));
    for (FaceDraw& fd : fds)
        if (k.b.newell(fd.poly).z < 0)
            fd.details.push_back(k.detail(fd.poly, 0.4, 0.6, 0, 0.7, shaded(colour(kOlive, 5))));
    items.push_back(k.paint.part(hut, fds));
    const Part m = k.b.box(k.at(-0.8, h, -0.8), k.at(0.8, h + mast, 0.8), 4u);
    items.push_back(k.solid(m, shaded(colour(kGrey, 9))));
    const auto dishes = k.slots(Role::Dish);
    const Vec3 pivot = k.at(0, h + mast, 0);
    std::vector<Block> cases;
    Bounds all;
    for (size_t i = 0; i < dishes.size(); ++i) {
        k.place(dishes[i], pivot, q31_yaw(double(i) / (2.0 * dishes.size())));
        const Bounds cb = k.child_bounds(dishes[i]);
        const int32_t r = std::max({cb.max.x, -cb.min.x, cb.max.z, -cb.min.z});
        all.min = {-r, pivot.y + cb.min.y, -r};
        all.max = {r, pivot.y + cb.max.y, r};
        cases.push_back({attach(dishes[i])});
    }
    uint32_t mask = 1;
    while (mask + 1 < cases.size()) mask = mask * 2 + 1;
    items.push_back(k.paint.box_points(all.min, all.max, {select(anim::kDishShift, mask, cases)}));
    items.push_back(damage_item(k, k.at(0, h + 0.5, w / 2 + 2), 2.0));
    k.model.program = k.paint.order(std::move(items));
    add_seams(k, k.model.program, colour(kGrey, 2));
    standard_metadata(k, Family::RadarStation);
}

void build_dish(Kit& k) {
    const double r = 2.5 + k.rng.below(2);
    const int n = 8;
    const double cy = 1.2 + r * 0.6; // the dish clears its pivot
    const Part dish = k.b.loft(ring_z(k.at(0, cy, 0.6), k.snap(r), k.snap(r * 0.6), n),
                               ring_z(k.at(0, cy, 0.0), k.snap(r * 0.4), k.snap(r * 0.25), n));
    std::vector<FaceDraw> fds = k.faces(dish, gouraud(colour(kGrey, 13)));
    const Part arm = k.b.box(k.at(-0.25, 0, -0.5), k.at(0.25, cy - r * 0.25, 0.0));
    std::vector<Item> items{k.paint.part(dish, fds), k.solid(arm, shaded(colour(kGrey, 8)))};
    const uint8_t f = k.b.vertex(k.at(0, cy, 2.0));
    std::vector<uint8_t> struts{dish.faces.back().v[0], f, dish.faces.back().v[n / 2]};
    items.push_back(overlay(k.paint.loose(struts, {primary(k.b.line(struts, 1, colour(kGrey, 6)))})));
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::Dish);
}

} // namespace refcheck::synth
