// Weapons, props, the stretcher, effects, wrecks and the null model.
#include <algorithm>
#include <cmath>

#include "recipes.hpp"
#include "trig.hpp"

namespace refcheck::synth {
namespace {

// A body of revolution along z with nose and tail cones and fins on its flat faces.
std::vector<Item> store(Kit& k, double len, double r, int fins, const Material& skin) {
    std::vector<Item> items;
    const int n = fins == 3 ? 6 : 8; // flat faces where the fins stand
    const double ph = 1.0 / (2 * n);
    const auto front = ring_z(k.at(0, 0, len * 0.3), k.snap(r), k.snap(r), n, ph);
    const auto back = ring_z(k.at(0, 0, -len * 0.4), k.snap(r), k.snap(r), n, ph);
    const Part body = k.b.loft(back, front);
    const Part nose = k.b.loft(front, {k.at(0, 0, len / 2)}), tail = k.b.loft(back, {k.at(0, 0, -len / 2)});
    std::vector<FaceDraw> bf = k.faces(body, skin), nf = k.faces(nose, gouraud(colour(kGrey, 12))),
                          tf = k.faces(tail, gouraud(colour(kGrey, 5)));
    for (auto* fds : {&bf, &nf, &tf}) {
        k.hide_on(*fds, 2, k.snap(len * 0.3));
        k.hide_on(*fds, 2, k.snap(-len * 0.4));
    }
    items.push_back(k.paint.part(body, bf));
    items.push_back(k.paint.part(nose, nf));
    items.push_back(k.paint.part(tail, tf));
    for (int f = 0; f < fins; ++f) {
        const double a = double(f) / fins;
        const double cx = cos_turns(a), cy = sin_turns(a);
        const double ri = r, ro = r * 3.5;
        const Poly p = k.b.poly({k.at(cx * ri, cy * ri, -len * 0.38), k.at(cx * ro, cy * ro, -len * 0.38),
                                 k.at(cx * ro, cy * ro, -len * 0.3), k.at(cx * ri, cy * ri, -len * 0.2)});
        Item it = k.paint.loose(p.v, {primary(k.b.packet(p, shaded(colour(kGrey, 8))))});
        it.separators.push_back(p);
        items.push_back(std::move(it));
    }
    return items;
}

} // namespace

// Record 0 (`synth.shape`): no vertices, a program of a single op 7.
void build_null(Kit& k) {
    k.model.program = {};
    standard_metadata(k, Family::Null);
}

void build_weapon(Kit& k) {
    const int kind = int(k.spec.variant % 4);
    const double len = kind == 2 ? 2.5 : 2.0 + k.rng.below(30) / 10.0,
                 r = kind == 1 ? 0.2 : 0.08 + k.rng.below(5) / 100.0;
    const Material skin = kind == 3 ? gouraud_texture(k.texture_slot(TexKind::Panels), false)
                                    : gouraud(colour(kind == 1 ? kOlive : kGrey, 11));
    std::vector<Item> items = store(k, len, r, kind == 2 ? 0 : (k.spec.variant >= 24 ? 3 : 4), skin);
    if (kind == 2) { // rocket pod: tube mouths on the front cap as a mesh
        items.front().block.push_back(primary(
            k.b.packet(k.b.poly(ring_z(k.at(0, 0, len * 0.3), k.snap(r * 0.8), k.snap(r * 0.8), 8, 1.0 / 16)),
                       fine_mesh(colour(kGrey, 1), true))));
    }
    if (kind != 1) { // motor plume
        const uint8_t t = k.b.vertex(k.at(0, 0, -len / 2 - 1.5)), a = k.b.vertex(k.at(-r, 0, -len / 2)),
                      b = k.b.vertex(k.at(r, 0, -len / 2));
        const uint8_t c = k.b.vertex(k.at(0, r, -len / 2));
        items.push_back(overlay(k.paint.loose(
            {t, a, b, c}, {if_mask(anim::kAfterburner, {primary(k.b.packet({{a, c, b, t}}, haze())),
                                                        primary(k.b.packet({{a, t, b}}, glass()))})})));
    }
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::Weapon);
}

void build_roof_prop(Kit& k) {
    std::vector<Item> items;
    switch (k.spec.variant % 3) {
        case 0: { // air conditioner with a fan grille
            const Part p = k.b.box(k.at(-0.8, 0, -0.6), k.at(0.8, 1.0, 0.6));
            std::vector<FaceDraw> fds = k.faces(p, shaded(colour(kGrey, 10)));
            for (FaceDraw& fd : fds)
                if (k.b.newell(fd.poly).y > 0)
                    fd.details.push_back(
                        k.detail(fd.poly, 0.2, 0.8, 0.2, 0.8, fine_mesh(colour(kGrey, 2), false)));
            items.push_back(k.paint.part(p, fds));
            break;
        }
        case 1: { // water tank on legs
            const Part t = k.b.loft(ring_y(k.at(0, 1.2, 0), k.snap(0.8), k.snap(0.8), 6),
                                    ring_y(k.at(0, 2.4, 0), k.snap(0.8), k.snap(0.8), 6));
            items.push_back(k.solid(t, gouraud(colour(kWood, 6))));
            std::vector<uint8_t> legs;
            for (const Vec3& p : ring_y(k.at(0, 0, 0), k.snap(0.7), k.snap(0.7), 3))
                legs.push_back(k.b.vertex(p));
            Block lb;
            for (size_t i = 0; i < legs.size(); ++i)
                lb.push_back(primary(k.b.line({legs[i], t.faces[2 * i].v[0]}, 1, colour(kGrey, 4))));
            items.push_back(k.paint.loose(legs, lb));
            break;
        }
        default: { // satellite dish on a stand
            const Part stand = k.b.box(k.at(-0.15, 0, -0.15), k.at(0.15, 0.8, 0.15));
            items.push_back(k.solid(stand, shaded(colour(kGrey, 7))));
            const Part d = k.b.loft(ring_z(k.at(0, 1.4, 0.3), k.snap(0.6), k.snap(0.6), 6),
                                    ring_z(k.at(0, 1.4, 0.05), k.snap(0.2), k.snap(0.2), 6));
            items.push_back(k.solid(d, gouraud(colour(kGrey, 13))));
            break;
        }
    }
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::RoofProp);
}

void build_prop(Kit& k) {
    std::vector<Item> items;
    const int kind = int(k.spec.variant % 8);
    if (kind == 0) { // crate with a stencilled number
        const double s = 0.8 + k.rng.below(8) / 10.0;
        const Part p = k.b.box(k.at(-s / 2, 0, -s / 2), k.at(s / 2, s, s / 2), 4u);
        std::vector<FaceDraw> fds = k.faces(p, texture(k.texture_slot(TexKind::Panels), true));
        fds[0].details.push_back(
            k.detail(fds[0].poly, 0.25, 0.75, 0.3, 0.7, texture(k.texture_slot(TexKind::Numbers), false)));
        items.push_back(k.paint.part(p, fds));
    } else if (kind == 1) { // oil drum
        const Part p = k.b.loft(ring_y(k.at(0, 0, 0), k.snap(0.3), k.snap(0.3), 8),
                                ring_y(k.at(0, 0.9, 0), k.snap(0.3), k.snap(0.3), 8), 1u);
        std::vector<FaceDraw> fds = k.faces(p, gouraud(colour(k.spec.variant % 3 ? kRust : kOlive, 8)));
        fds[0].details.push_back(k.detail(fds[0].poly, 0.0, 1.0, 0.45, 0.55, shaded(colour(kLight, 12))));
        items.push_back(k.paint.part(p, fds));
    } else if (kind == 2) { // tent with guy lines
        const double w = 3 + k.rng.below(3), l = 4 + k.rng.below(3), h = 2.2;
        const Part p = k.b.loft({k.at(-w / 2, 0, -l / 2), k.at(w / 2, 0, -l / 2), k.at(0, h, -l / 2)},
                                {k.at(-w / 2, 0, l / 2), k.at(w / 2, 0, l / 2), k.at(0, h, l / 2)});
        std::vector<FaceDraw> fds = k.faces(p, texture(k.texture_slot(TexKind::Canvas), true));
        for (FaceDraw& fd : fds)
            if (k.b.newell(fd.poly).z > 0)
                fd.details.push_back(k.detail(fd.poly, 0.4, 0.6, 0.0, 0.6, shaded(colour(kOlive, 3))));
        items.push_back(k.paint.part(p, fds));
        const uint8_t r0 = k.b.vertex(k.at(0, h, l / 2)), g0 = k.b.vertex(k.at(0, 0, l / 2 + 1.5));
        const uint8_t r1 = k.b.vertex(k.at(0, h, -l / 2)), g1 = k.b.vertex(k.at(0, 0, -l / 2 - 1.5));
        items.push_back(k.paint.loose({r0, g0}, {primary(k.b.line({r0, g0}, 1, colour(kWood, 10)))}));
        items.push_back(k.paint.loose({r1, g1}, {primary(k.b.line({r1, g1}, 1, colour(kWood, 10)))}));
    } else if (kind == 3) { // sandbag wall
        for (int row = 0; row < 3; ++row) {
            const Part p =
                k.b.box(k.at(-2 + row * 0.1, row * 0.3, -0.3), k.at(2 - row * 0.1, row * 0.3 + 0.3, 0.3), 4u);
            items.push_back(k.solid(p, row % 2 ? gouraud_two(colour(kKhaki, 9), colour(kKhaki, 7))
                                               : shaded_two(colour(kSand, 9), colour(kSand, 7))));
        }
    } else if (kind == 4) { // road sign
        items.push_back(
            k.solid(k.b.box(k.at(-0.05, 0, -0.05), k.at(0.05, 2.0, 0.05)), shaded(colour(kGrey, 9))));
        const Part panel = k.b.box(k.at(-0.6, 2.0, -0.04), k.at(0.6, 2.8, 0.04));
        std::vector<FaceDraw> fds = k.faces(panel, shaded(colour(kGrey, 10)));
        for (FaceDraw& fd : fds)
            if (k.b.newell(fd.poly).z > 0)
                fd.packet = k.b.packet(fd.poly, texture(k.texture_slot(TexKind::Numbers), false));
        items.push_back(k.paint.part(panel, fds));
    } else if (kind == 5) { // lamp post
        const uint8_t a = k.b.vertex(k.at(0, 0, 0)), t = k.b.vertex(k.at(0, 6, 0)),
                      arm = k.b.vertex(k.at(1.2, 6, 0));
        const uint8_t l0 = k.b.vertex(k.at(0.9, 5.8, -0.2)), l1 = k.b.vertex(k.at(1.5, 5.8, -0.2)),
                      l2 = k.b.vertex(k.at(1.2, 5.8, 0.3));
        const NormalRef down = k.b.face_normal(Dir{0, -1, 0});
        Block b{primary(k.b.line({a, t, arm}, 10, colour(kGrey, 5), down)),
                primary(k.b.line({arm}, 9, colour(kGrey, 8), down)),
                if_mask(anim::kNight, {primary(k.b.packet({{l0, l1, l2}}, flat(colour(kLight, 15))))})};
        items.push_back(k.paint.loose({a, t, arm, l0, l1, l2}, b));
    } else if (kind == 6) { // flag pole: the flag flutters through four authored shapes
        const uint8_t a = k.b.vertex(k.at(0, 0, 0)), t = k.b.vertex(k.at(0, 8, 0)),
                      m = k.b.vertex(k.at(0, 7, 0));
        std::vector<Block> cases;
        std::vector<uint8_t> pts{a, t, m};
        for (int c = 0; c < 4; ++c) {
            const double sway = 0.3 * sin_turns(c / 4.0);
            const uint8_t f0 = k.b.vertex(k.at(1.0, 7.9 + sway * 0.2, sway)),
                          f1 = k.b.vertex(k.at(2.0, 7.1 + sway * 0.2, -sway));
            pts.insert(pts.end(), {f0, f1});
            cases.push_back(
                {primary(k.b.packet({{t, f0, f1, m}}, two_colour(colour(kRed, 12), colour(kLight, 15))))});
        }
        items.push_back(k.paint.loose(
            pts, {primary(k.b.line({a, t}, 1, colour(kGrey, 12))), select(anim::kFlagShift, 3, cases)}));
    } else { // camouflage net over a frame
        const double w = 6 + k.rng.below(4);
        const Part p = k.b.loft(
            {k.at(-w / 2, 0, -w / 2), k.at(w / 2, 0, -w / 2), k.at(w / 2, 0, w / 2), k.at(-w / 2, 0, w / 2)},
            {k.at(0, 2.5, 0)}, 1u);
        std::vector<FaceDraw> fds = k.faces(p, [&](size_t i, const Poly&) {
            return i % 2 ? fine_mesh(colour(kOlive, 6), true) : coarse_mesh(colour(kFoliage, 5), true);
        });
        items.push_back(k.paint.part(p, fds));
    }
    k.model.program = k.paint.order(std::move(items));
    add_seams(k, k.model.program, colour(kGrey, 3));
    standard_metadata(k, Family::Prop);
}

void build_stretcher(Kit& k) {
    // Poles, legs, a canvas bed whose authored texture rows run to v = 80 on a 64-row image.
    std::vector<Item> items;
    const double L = 2.2, W = 0.56, h = 0.35;
    std::vector<uint8_t> frame;
    for (int side = -1; side <= 1; side += 2) {
        frame.push_back(k.b.vertex(k.at(side * W / 2, h, -L / 2 - 0.2)));
        frame.push_back(k.b.vertex(k.at(side * W / 2, h, L / 2 + 0.2)));
    }
    Block poles{primary(k.b.line({frame[0], frame[1]}, 1, colour(kWood, 9))),
                primary(k.b.line({frame[2], frame[3]}, 1, colour(kWood, 9)))};
    for (double z : {-L / 2 + 0.2, L / 2 - 0.2}) {
        const uint8_t a = k.b.vertex(k.at(-W / 2, h, z)), b = k.b.vertex(k.at(W / 2, h, z));
        const uint8_t fa = k.b.vertex(k.at(-W / 2, 0, z)), fb = k.b.vertex(k.at(W / 2, 0, z));
        poles.push_back(primary(k.b.line({fa, a, b, fb}, 1, colour(kGrey, 6))));
        frame.insert(frame.end(), {a, b, fa, fb});
    }
    items.push_back(k.paint.loose(frame, poles));
    const Poly bed = k.b.poly(
        {k.at(-W / 2, h, -L / 2), k.at(-W / 2, h, L / 2), k.at(W / 2, h, L / 2), k.at(W / 2, h, -L / 2)});
    Material canvas = texture(k.texture_slot(TexKind::Canvas), true);
    if (k.spec.v80) canvas.v1 = 80;
    Item bi = k.paint.loose(bed.v, {primary(k.b.packet(bed, canvas))});
    bi.separators.push_back(bed);
    items.push_back(std::move(bi));
    const Part pillow = k.b.box(k.at(-0.2, h, L / 2 - 0.4), k.at(0.2, h + 0.1, L / 2 - 0.1));
    items.push_back(k.solid(pillow, shaded(colour(kLight, 14))));
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::Stretcher);
}

void build_effect(Kit& k) {
    const int kind = int(k.spec.variant % 5);
    std::vector<Item> items;
    if (kind == 0 || kind == 4) { // explosion or fire: phases through a select shorter than its mask
        const int phases = kind == 0 ? 5 : 3;
        std::vector<Block> cases;
        std::vector<uint8_t> pts;
        for (int p = 0; p < phases; ++p) {
            const double s = 1.0 + p * 1.5;
            std::vector<uint8_t> ring;
            for (const Vec3& q : ring_z(k.at(0, s, 0), k.snap(s), k.snap(s), 6, p / 12.0))
                ring.push_back(k.b.vertex(q));
            const uint8_t c = k.b.vertex(k.at(0, s, 0.2));
            Block b{primary(k.b.packet({ring}, flat(colour(kLight, 15 - p)))),
                    primary(k.b.packet({{ring[0], ring[2], ring[4]}}, haze()))};
            if (kind == 0)
                b.push_back(primary(k.b.line({ring[1], ring[3], ring[5], c}, 0, colour(kGrey, 2))));
            else
                b.push_back(primary(k.b.packet({{ring[1], ring[3], c}}, flat(colour(kRed, 12)))));
            pts.insert(pts.end(), ring.begin(), ring.end());
            pts.push_back(c);
            cases.push_back(b);
        }
        items.push_back(k.paint.loose(pts, {select(anim::kPhaseShift, 7, cases)}));
    } else if (kind == 1) { // smoke column of puffs in the four mesh styles
        for (int p = 0; p < 4; ++p) {
            const double y = p * 3.0, s = 1.5 + p;
            const Poly q =
                k.b.poly({k.at(-s, y, 0), k.at(-s, y + 2.5, 0), k.at(s, y + 2.5, 0), k.at(s, y, 0)});
            const Material m = p == 0   ? fine_mesh(colour(kGrey, 4), false)
                               : p == 1 ? coarse_mesh(colour(kGrey, 6), false)
                               : p == 2 ? fine_mesh(colour(kGrey, 8), true)
                                        : coarse_mesh(colour(kGrey, 10), true);
            items.push_back(k.paint.loose(q.v, {primary(k.b.packet(q, m))}));
        }
    } else if (kind == 2) { // muzzle flash and heat shimmer
        const Poly a = k.b.poly({k.at(-0.5, 0, 0), k.at(0, 0.5, 0), k.at(0.5, 0, 0), k.at(0, -0.5, 0)});
        const Poly b = k.b.poly({k.at(-0.2, 0, 0.1), k.at(0, 0.2, 1.2), k.at(0.2, 0, 0.1)});
        items.push_back(k.paint.loose(
            a.v, {primary(k.b.packet(a, flat(colour(kLight, 15)))), primary(k.b.packet(a, haze()))}));
        items.push_back(k.paint.loose(b.v, {primary(k.b.packet(b, glass()))}));
    } else { // crater decal
        std::vector<uint8_t> outer, inner;
        for (const Vec3& q : ring_y(k.at(0, 0, 0), k.snap(4), k.snap(4), 8)) outer.push_back(k.b.vertex(q));
        for (const Vec3& q : ring_y(k.at(0, 0.05, 0), k.snap(2), k.snap(2), 8))
            inner.push_back(k.b.vertex(q));
        std::reverse(outer.begin(), outer.end());
        std::reverse(inner.begin(), inner.end());
        items.push_back(k.paint.loose(
            outer, {primary(k.b.packet({outer}, two_colour(colour(kWood, 3), colour(kGrey, 2)))),
                    primary(k.b.packet({inner}, flat(colour(kGrey, 1))))}));
    }
    // Effects are flat, translucent or remapped sprites: painted in authoring order.
    for (const Item& it : items)
        k.model.program.insert(k.model.program.end(), it.block.begin(), it.block.end());
    standard_metadata(k, Family::Effect);
}

void build_wreck(Kit& k) {
    const double L = 5 + k.rng.below(8), W = 2.5 + k.rng.below(3);
    std::vector<Item> items;
    const Part hull = k.b.loft(
        {k.at(-W / 2, 0, -L / 2), k.at(W / 2, 0, -L / 2), k.at(W / 2, 0, L / 2), k.at(-W / 2, 0, L / 2)},
        {k.at(-W / 3, 1.2, -L / 3), k.at(W / 3, 1.0, -L / 3), k.at(W / 3, 0.8, L / 3),
         k.at(-W / 3, 1.1, L / 3)},
        1u);
    std::vector<FaceDraw> fds = k.faces(hull, shaded_two(colour(kGrey, 3), colour(kRust, 3)));
    fds.back().details.push_back(k.detail(fds.back().poly, 0.2, 0.7, 0.2, 0.8, shaded(colour(kGrey, 1))));
    items.push_back(k.paint.part(hull, fds));
    // A torn-off panel lying beside the hull, and scattered debris.
    const Poly panel = k.b.poly({k.at(W / 2 + 0.5, 0.05, -0.5), k.at(W / 2 + 0.6, 0.05, 0.6),
                                 k.at(W / 2 + 1.5, 0.05, 0.5), k.at(W / 2 + 1.3, 0.05, -0.6)});
    std::vector<uint8_t> debris;
    for (int i = 0; i < 6; ++i)
        debris.push_back(
            k.b.vertex(k.at(-W + k.rng.below(20) * W / 10.0, 0, -L / 2 + k.rng.below(20) * L / 20.0)));
    std::sort(debris.begin(), debris.end());
    debris.erase(std::unique(debris.begin(), debris.end()), debris.end());
    Block loose{primary(k.b.packet(panel, shaded_two(colour(kRust, 4), colour(kGrey, 2)))),
                primary(k.b.line(debris, 0, colour(kGrey, 2))),
                primary(k.b.line(debris, 9, colour(kRust, 5), k.b.face_normal(Dir{0, 1, 0})))};
    std::vector<uint8_t> lp = panel.v;
    lp.insert(lp.end(), debris.begin(), debris.end());
    items.push_back(overlay(k.paint.loose(lp, loose)));
    const uint8_t s0 = k.b.vertex(k.at(-1, 1.2, 0)), s1 = k.b.vertex(k.at(1, 1.2, 0)),
                  s2 = k.b.vertex(k.at(0.5, 5, 1));
    const uint8_t f0 = k.b.vertex(k.at(0, 2.5, 0));
    std::vector<Block> fire{{primary(k.b.packet({{s0, f0, s1}}, flat(colour(kLight, 13))))},
                            {primary(k.b.packet({{s0, f0, s1}}, flat(colour(kRed, 13))))}};
    items.push_back(overlay(
        k.paint.loose({s0, s1, s2, f0}, {if_mask(anim::kSmoke, {primary(k.b.packet({{s0, s2, s1}}, haze())),
                                                                select(anim::kPhaseShift, 1, fire)})})));
    k.model.program = k.paint.order(std::move(items));
    add_seams(k, k.model.program, colour(kGrey, 1));
    standard_metadata(k, Family::Wreck);
}

Recipe recipe_for(Family f) {
    switch (f) {
        case Family::Null: return build_null;
        case Family::Building: return build_building;
        case Family::CityBlock: return build_city_block;
        case Family::Hangar: return build_hangar;
        case Family::Tower: return build_tower;
        case Family::FuelTank: return build_fuel_tank;
        case Family::Bridge: return build_bridge;
        case Family::Pylon: return build_pylon;
        case Family::Wall: return build_wall;
        case Family::RadarStation: return build_radar_station;
        case Family::Bunker: return build_bunker;
        case Family::Helipad: return build_helipad;
        case Family::RoofProp: return build_roof_prop;
        case Family::Dish: return build_dish;
        case Family::Aircraft: return build_aircraft;
        case Family::Helicopter: return build_helicopter;
        case Family::Rotor: return build_rotor;
        case Family::Blade: return build_blade;
        case Family::TailRotor: return build_tail_rotor;
        case Family::ShadowGeometry: return build_shadow_geometry;
        case Family::Vehicle: return build_vehicle;
        case Family::Turret: return build_turret;
        case Family::Ship: return build_ship;
        case Family::NavalTurret: return build_naval_turret;
        case Family::Carrier: return build_carrier;
        case Family::Tree: return build_tree;
        case Family::Weapon: return build_weapon;
        case Family::Prop: return build_prop;
        case Family::Stretcher: return build_stretcher;
        case Family::Effect: return build_effect;
        case Family::Wreck: return build_wreck;
    }
    return build_null;
}

} // namespace refcheck::synth
