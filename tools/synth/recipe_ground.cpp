// Ground vehicles and their turrets (signed 16-bit; forward is +z).
#include <algorithm>
#include <cmath>

#include "recipes.hpp"
#include "trig.hpp"

namespace refcheck::synth {
namespace {

Material camo(Kit& k) {
    switch (k.spec.variant % 4) {
        case 0: return texture(k.texture_slot(TexKind::Camo), true);
        case 1: return shaded_two(colour(kOlive, 8), colour(kWood, 6));
        case 2: return shaded(colour(kKhaki, 9));
        default: return texture(k.texture_slot(TexKind::Panels), true);
    }
}

// Side profile (z, y) extruded across x.
Part extrude_x(Kit& k, const std::vector<std::pair<double, double>>& zy, double x0, double x1) {
    std::vector<Vec3> a, b;
    for (auto [z, y] : zy) {
        a.push_back(k.at(x0, y, z));
        b.push_back(k.at(x1, y, z));
    }
    return k.b.loft(a, b);
}

Item muzzle_flash(Kit& k, Vec3 tip) {
    const int32_t s = k.snap(0.35);
    std::vector<uint8_t> star;
    for (int i = 0; i < 6; ++i) {
        const int32_t r = i % 2 ? s / 3 : s;
        star.push_back(k.b.vertex({tip.x + int32_t(std::lround(r * cos_turns(i / 6.0))),
                                   tip.y + int32_t(std::lround(r * sin_turns(i / 6.0))), tip.z + s / 2}));
    }
    const uint8_t c = k.b.vertex({tip.x, tip.y, tip.z + s});
    Block flash{primary(k.b.packet({{star[0], star[2], star[4]}}, flat(colour(kLight, 15)))),
                primary(k.b.packet({{star[1], star[3], star[5]}}, flat(colour(kLight, 12)))),
                primary(k.b.packet({{star[0], c, star[3]}}, haze()))};
    std::vector<uint8_t> pts = star;
    pts.push_back(c);
    return overlay(k.paint.loose(pts, {if_mask(anim::kMuzzle, flash)}));
}

} // namespace

void build_vehicle(Kit& k) {
    const Material skin = camo(k);
    const bool tracked = k.spec.variant % 3 != 1,
               truck = k.spec.variant % 3 == 2 && k.slots(Role::Turret).empty();
    const double L = 5 + k.rng.below(4), W = 2.4 + k.rng.below(6) / 10.0, H = 1.6 + k.rng.below(4) / 10.0;
    std::vector<Item> items;
    const double body_w = tracked && !truck ? W - 1.2 : W;
    Part hull;
    if (truck) {
        hull = extrude_x(k, {{L / 2, 0.6}, {L / 2, H + 0.6}, {L / 2 - 1.6, H + 0.6}, {L / 2 - 1.8, 0.6}},
                         -W / 2, W / 2);
        const Part cargo = k.b.box(k.at(-W / 2, 0.6, -L / 2), k.at(W / 2, H + 1.0, L / 2 - 2.0));
        items.push_back(k.solid(cargo, texture(k.texture_slot(TexKind::Canvas), true)));
    } else {
        hull = extrude_x(k,
                         {{L / 2, 0.5},
                          {L / 2 - 0.9, H},
                          {-L / 2 + 0.3, H},
                          {-L / 2, H - 0.3},
                          {-L / 2, 0.5},
                          {L / 2 - 0.5, 0.3}},
                         -body_w / 2, body_w / 2);
    }
    std::vector<FaceDraw> fds = k.faces(hull, skin);
    k.hide_down(fds);
    for (FaceDraw& fd : fds) {
        const Dir n = k.b.newell(fd.poly);
        if (fd.hidden) continue;
        if (n.z > 0 && k.detailed()) {
            fd.details.push_back(k.detail(fd.poly, 0.1, 0.25, 0.6, 0.8, shaded(colour(kLight, 10))));
            fd.details.push_back(k.detail(fd.poly, 0.75, 0.9, 0.6, 0.8, shaded(colour(kLight, 10))));
        }
        if (n.y > 0 && k.detailed() && !truck)
            fd.details.push_back(k.detail(fd.poly, 0.05, 0.3, 0.1, 0.9, fine_mesh(colour(kGrey, 2), true)));
    }
    items.push_back(k.paint.part(hull, fds));
    // Running gear: tracks, or a wheel skirt, each side a convex block with road wheels as secondaries.
    for (int side = -1; side <= 1; side += 2) {
        const bool tracks = tracked && !truck;
        const double inner = tracks ? body_w / 2 : W / 2, outer = tracks ? W / 2 : W / 2 + 0.35;
        const double xa = side < 0 ? -outer : inner, xb = side < 0 ? -inner : outer;
        const Part gear =
            tracked && !truck
                ? extrude_x(k,
                            {{L / 2 + 0.2, 0.6},
                             {L / 2 - 0.3, 1.0},
                             {-L / 2 + 0.2, 1.0},
                             {-L / 2 - 0.1, 0.5},
                             {-L / 2 + 0.3, 0.0},
                             {L / 2 - 0.4, 0.0}},
                            xa, xb)
                : extrude_x(
                      k, {{L / 2 - 0.3, 0.9}, {-L / 2 + 0.3, 0.9}, {-L / 2 + 0.3, 0.0}, {L / 2 - 0.3, 0.0}},
                      xa, xb);
        std::vector<FaceDraw> tf = k.faces(gear, shaded(colour(kGrey, 3)));
        k.hide_down(tf);
        for (FaceDraw& fd : tf)
            if (side * k.b.newell(fd.poly).x > 0) {
                const int wheels = tracked && !truck ? (k.detailed() ? 5 : 3) : (truck ? 3 : 4);
                for (int i = 0; i < wheels; ++i) {
                    const double h0 = (i + 0.15) / wheels, h1 = (i + 0.85) / wheels;
                    const Poly hub = k.on_face(fd.poly, {{h0, 0.15},
                                                         {(h0 + h1) / 2, 0.05},
                                                         {h1, 0.15},
                                                         {h1, 0.55},
                                                         {(h0 + h1) / 2, 0.65},
                                                         {h0, 0.55}});
                    fd.details.push_back(
                        secondary(k.b.packet(hub, shaded_two(colour(kGrey, 6), colour(kGrey, 4)))));
                }
            }
        items.push_back(k.paint.part(gear, tf));
    }
    for (uint8_t s : k.slots(Role::Turret)) {
        const Vec3 at = k.at(0, H, -0.3);
        k.place(s, at, q31_identity());
        const Bounds b = placed_bounds(k.child_bounds(s), at, 0);
        items.push_back(k.paint.box_points(b.min, b.max, {attach(s)}));
    }
    // Headlights at night, exhaust smoke, and the destroyed state.
    const uint8_t hl = k.b.vertex(k.at(-W / 3, 0.9, L / 2 + 0.1)),
                  hr = k.b.vertex(k.at(W / 3, 0.9, L / 2 + 0.1));
    Block lights{if_mask(anim::kNight, {primary(k.b.line({hl, hr}, 0, colour(kLight, 15)))})};
    items.push_back(overlay(k.paint.loose({hl, hr}, lights)));
    if (k.detailed()) {
        const uint8_t e0 = k.b.vertex(k.at(-0.3, H, -L / 2 - 0.2)),
                      e1 = k.b.vertex(k.at(0.3, H, -L / 2 - 0.2)),
                      e2 = k.b.vertex(k.at(0, H + 1.5, -L / 2 - 0.8));
        items.push_back(overlay(k.paint.loose(
            {e0, e1, e2},
            {if_mask(anim::kSmoke,
                     {primary(k.b.packet({{e0, e2, e1}}, haze())),
                      primary(k.b.packet({{e0, e2, e1}}, coarse_mesh(colour(kGrey, 6), false)))})})));
    }
    items.push_back(damage_item(k, k.at(0, H + 0.2, 0), 1.5));
    k.model.program = k.paint.order(std::move(items));
    if (k.spec.lod < 2) add_seams(k, k.model.program, colour(kGrey, 2));
    standard_metadata(k, Family::Vehicle);
}

void build_turret(Kit& k) {
    const Material skin = camo(k);
    const double r = 1.1 + k.rng.below(5) / 10.0, h = 0.8, barrel = 3 + k.rng.below(3);
    const int n = k.detailed() ? 8 : 6;
    std::vector<Item> items;
    const Part body = k.b.loft(ring_y(k.at(0, 0, 0), k.snap(r), k.snap(r * 1.2), n, 1.0 / 16),
                               ring_y(k.at(0, h, -0.1), k.snap(r * 0.75), k.snap(r * 0.9), n, 1.0 / 16));
    std::vector<FaceDraw> fds = k.faces(body, skin);
    k.hide_down(fds);
    for (FaceDraw& fd : fds)
        if (k.b.newell(fd.poly).y > 0 && k.detailed())
            fd.details.push_back(k.detail(fd.poly, 0.3, 0.5, 0.2, 0.4, shaded(colour(kGrey, 3))));
    items.push_back(k.paint.part(body, fds));
    const auto missiles = k.slots(Role::Missile);
    if (missiles.empty()) {
        const double z0 = r * 1.1;
        const Part gun = k.b.loft(ring_z(k.at(0, h * 0.5, z0), k.snap(0.12), k.snap(0.12), 6),
                                  ring_z(k.at(0, h * 0.5, z0 + barrel), k.snap(0.1), k.snap(0.1), 6));
        std::vector<FaceDraw> gf = k.faces(gun, gouraud(colour(kGrey, 5)));
        k.hide_on(gf, 2, k.snap(z0));
        items.push_back(k.paint.part(gun, gf));
        items.push_back(muzzle_flash(k, k.at(0, h * 0.5, z0 + barrel)));
    } else {
        // Launcher rails above the turret, each carrying an attached missile.
        const Part rail = k.b.box(k.at(-r, h, -0.5), k.at(r, h + 0.2, 0.5));
        items.push_back(k.solid(rail, shaded(colour(kGrey, 6))));
        for (size_t i = 0; i < missiles.size(); ++i) {
            const double x = -r + 2 * r * (i + 0.5) / missiles.size();
            const Bounds cb = k.child_bounds(missiles[i]);
            const Vec3 at{k.snap(x), k.snap(h + 0.2) - cb.min.y, 0}; // resting on the rail
            k.place(missiles[i], at, q31_identity());
            const Bounds b = placed_bounds(cb, at, 0);
            items.push_back(overlay(k.paint.box_points(b.min, b.max, {attach(missiles[i])})));
        }
    }
    for (uint8_t s : k.slots(Role::Gameplay)) {
        const Vec3 at = k.at(r * 0.4, h, -0.4);
        k.place(s, at, q31_identity());
        items.push_back(overlay(
            k.paint.box_points({at.x - k.snap(0.2), at.y, at.z - k.snap(0.6)},
                               {at.x + k.snap(0.2), at.y + k.snap(0.4), at.z + k.snap(0.6)}, {attach(s)})));
    }
    k.model.program = k.paint.order(std::move(items));
    add_seams(k, k.model.program, colour(kGrey, 2));
    standard_metadata(k, Family::Turret);
}

void build_naval_turret(Kit& k) {
    const double w = 3 + k.rng.below(3), h = 2.0, barrel = 5 + k.rng.below(4);
    std::vector<Item> items;
    const Part body = k.b.loft(
        {k.at(-w / 2, 0, -w / 2), k.at(w / 2, 0, -w / 2), k.at(w / 2, 0, w / 2), k.at(-w / 2, 0, w / 2)},
        {k.at(-w / 3, h, -w / 2), k.at(w / 3, h, -w / 2), k.at(w / 3, h, w / 3), k.at(-w / 3, h, w / 3)}, 1u);
    items.push_back(k.solid(body, shaded(colour(kNaval, 10))));
    const int barrels = 1 + int(k.spec.variant % 2);
    for (int i = 0; i < barrels; ++i) {
        const double x = barrels == 1 ? 0 : (i ? 0.5 : -0.5);
        const Part gun = k.b.loft(ring_z(k.at(x, h * 0.5, w / 2), k.snap(0.18), k.snap(0.18), 6),
                                  ring_z(k.at(x, h * 0.5, w / 2 + barrel), k.snap(0.14), k.snap(0.14), 6));
        std::vector<FaceDraw> gf = k.faces(gun, gouraud(colour(kNaval, 7)));
        k.hide_on(gf, 2, k.snap(w / 2));
        items.push_back(k.paint.part(gun, gf));
        items.push_back(muzzle_flash(k, k.at(x, h * 0.5, w / 2 + barrel)));
    }
    k.model.program = k.paint.order(std::move(items));
    add_seams(k, k.model.program, colour(kGrey, 2));
    standard_metadata(k, Family::NavalTurret);
}

} // namespace refcheck::synth
