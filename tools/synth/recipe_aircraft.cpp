// Aircraft, helicopters and their parts (signed 16-bit coordinates; nose towards +z, y up).
#include <algorithm>
#include <cmath>

#include "recipes.hpp"
#include "trig.hpp"

namespace refcheck::synth {
namespace {

struct Station {
    double z, rx, ry, y; // rx == 0: an apex
};

struct Skin {
    Material body, wing;
};

Skin pick_skin(Kit& k) {
    switch (k.spec.variant % 4) {
        case 0:
            return {gouraud_texture(k.texture_slot(TexKind::Camo), false),
                    texture(k.texture_slot(TexKind::Camo), true)};
        case 1: return {gouraud(colour(kGrey, 10)), shaded(colour(kGrey, 9))};
        case 2:
            return {gouraud_two(colour(kOlive, 9), colour(kOlive, 7)),
                    shaded_two(colour(kOlive, 9), colour(kKhaki, 8))};
        default: return {shaded(colour(kNaval, 10)), shaded(colour(kNaval, 9))};
    }
}

std::vector<Vec3> station_ring(Kit& k, const Station& s, int sides) {
    if (s.rx == 0) return {k.at(0, s.y, s.z)};
    return ring_z(k.at(0, s.y, s.z), k.snap(s.rx), k.snap(s.ry), sides, 0.25);
}

// Consecutive lofts between stations: adjacent convex parts separated by their shared caps.
std::vector<Item> fuselage(Kit& k, const std::vector<Station>& st, int sides, const Material& m,
                           std::vector<Part>* parts) {
    std::vector<Item> items;
    for (size_t i = 0; i + 1 < st.size(); ++i) {
        const Part p = k.b.loft(station_ring(k, st[i], sides), station_ring(k, st[i + 1], sides));
        if (parts) parts->push_back(p);
        std::vector<FaceDraw> fds = k.faces(p, m);
        if (i > 0) k.hide_on(fds, 2, k.snap(st[i].z));
        if (i + 2 < st.size()) k.hide_on(fds, 2, k.snap(st[i + 1].z));
        if (k.spec.lod < 2)
            for (size_t f = 0; f < fds.size(); f += k.detailed() ? 2 : 1)
                if (!fds[f].hidden) fds[f].details.push_back(k.seam(fds[f].poly, colour(kGrey, 3)));
        items.push_back(k.paint.part(p, fds));
    }
    return items;
}

// A wing-like slab: diamond sections from root (x0) to tip (x1), swept by `sweep` metres.
Part wing(Kit& k, double x0, double x1, double y, double z, double chord, double tip_chord, double t,
          double sweep) {
    auto section = [&](double x, double c, double th, double zc) {
        return std::vector<Vec3>{k.at(x, y, zc + c / 2), k.at(x, y + th / 2, zc), k.at(x, y, zc - c / 2),
                                 k.at(x, y - th / 2, zc)};
    };
    return k.b.loft(section(x0, chord, t, z), section(x1, tip_chord, std::max(t / 2, 0.1), z - sweep));
}

// A vertical fin: sections in the x-z plane from y0 up to y1.
Part fin(Kit& k, double y0, double y1, double z, double chord, double t) {
    auto section = [&](double y, double c, double zc) {
        return std::vector<Vec3>{k.at(0, y, zc + c / 2), k.at(t / 2, y, zc), k.at(0, y, zc - c / 2),
                                 k.at(-t / 2, y, zc)};
    };
    return k.b.loft(section(y0, chord, z), section(y1, chord * 0.5, z - chord * 0.4));
}

Item damage_states(Kit& k, Vec3 at) {
    const int32_t s = k.snap(1.2);
    const uint8_t a = k.b.vertex({at.x - s, at.y, at.z}), b = k.b.vertex({at.x + s, at.y, at.z});
    const uint8_t c = k.b.vertex({at.x, at.y + 2 * s, at.z - s}), d = k.b.vertex({at.x, at.y + s, at.z + s});
    Packet smoke = k.b.packet({{a, c, b}}, haze()), fire = k.b.packet({{a, d, b}}, flat(colour(kLight, 12)));
    Packet debris = k.b.line({a, b, c, d}, 0, colour(kGrey, 2));
    std::vector<Block> cases{
        {}, {primary(smoke)}, {primary(smoke), primary(fire)}, {primary(fire), primary(debris)}};
    return overlay(k.paint.loose({a, b, c, d}, {select(anim::kDamageShift, 3, cases)}));
}

Item lights(Kit& k, uint8_t left, uint8_t right, uint8_t tail) {
    return overlay(
        k.paint.loose({left, right, tail},
                      {if_mask(anim::kNavLights, {primary(k.b.line({left}, 0, colour(kRed, 15))),
                                                  primary(k.b.line({right}, 0, colour(kGrass, 15))),
                                                  primary(k.b.line({tail}, 0, colour(kLight, 15)))})}));
}

Item gear(Kit& k, double y, const std::vector<double>& zs, double track) {
    std::vector<uint8_t> verts;
    Block down;
    const NormalRef up = k.b.face_normal(Dir{0, -1, 0});
    for (double z : zs)
        for (int side = -1; side <= 1; side += 2) {
            const double x = zs.size() > 1 && z == zs.front() ? 0.0 : side * track;
            const uint8_t top = k.b.vertex(k.at(x, y, z)), wheel = k.b.vertex(k.at(x, y - 1.2, z));
            verts.insert(verts.end(), {top, wheel});
            down.push_back(primary(k.b.line({top, wheel}, 1, colour(kGrey, 5))));
            down.push_back(primary(k.b.line({wheel}, 9, colour(kGrey, 2), up)));
            if (x == 0.0) break;
        }
    return overlay(k.paint.loose(verts, {choose(anim::kGearDown, down, {})}));
}

Item slot_item(Kit& k, uint8_t slot, Vec3 at) {
    k.place(slot, at, q31_identity());
    const Bounds b = placed_bounds(k.child_bounds(slot), at, 0);
    return overlay(k.paint.box_points(b.min, b.max, {attach(slot)})); // a gameplay store
}

// Secondaries on the largest upward face of a part (roundels, stripes).
void mark_top(Kit& k, std::vector<FaceDraw>& fds, const Material& m) {
    for (FaceDraw& fd : fds)
        if (k.b.newell(fd.poly).y > 0) {
            fd.details.push_back(k.detail(fd.poly, 0.55, 0.8, 0.3, 0.7, m));
            return;
        }
}

} // namespace

void build_aircraft(Kit& k) {
    const Skin skin = pick_skin(k);
    const double L = 12 + k.rng.below(8) + (k.spec.variant % 7 == 6 ? 14 : 0),
                 S = L * (0.7 + k.rng.below(20) / 100.0);
    const double r = L / 14;
    const int sides = k.spec.lod == 0 ? 6 : 4;
    std::vector<Item> items;
    if (k.spec.lod == 2) {
        items.push_back(k.solid(k.b.box(k.at(-r, -r, -L / 2), k.at(r, r, L / 2)),
                                skin.body.type >= 19 ? gouraud(colour(kGrey, 9)) : skin.body));
        items.push_back(k.solid(wing(k, r, S / 2, 0, 0, L / 4, L / 8, 0.3, L / 10), skin.wing));
        items.push_back(k.solid(wing(k, -r, -S / 2, 0, 0, L / 4, L / 8, 0.3, L / 10), skin.wing));
        k.model.program = k.paint.order(std::move(items));
        standard_metadata(k, Family::Aircraft);
        return;
    }
    std::vector<Part> parts;
    for (Item& it : fuselage(k,
                             {{L / 2, 0, 0, 0},
                              {L * 0.3, r * 0.7, r * 0.6, 0},
                              {-L * 0.2, r, r * 0.9, 0},
                              {-L * 0.45, r * 0.5, r * 0.5, 0}},
                             sides, skin.body, &parts))
        items.push_back(std::move(it));
    // Wings with roundels, stabilisers, fin with a tail number.
    for (int side = -1; side <= 1; side += 2) {
        const Part w = wing(k, side * r, side * S / 2, 0, 0, L / 4, L / 10, 0.4, L / 10);
        std::vector<FaceDraw> fds = k.faces(w, skin.wing);
        k.hide_on(fds, 0, k.snap(side * r));
        if (k.detailed())
            for (FaceDraw& fd : fds)
                if (!fd.hidden) fd.details.push_back(k.seam(fd.poly, colour(kGrey, 4)));
        if (k.detailed())
            mark_top(k, fds,
                     side < 0 ? two_colour(colour(kLight, 15), colour(kRed, 10)) : flat(colour(kBlue, 8)));
        items.push_back(k.paint.part(w, fds));
        if (k.detailed()) {
            const Part tp = wing(k, side * r * 0.7, side * S / 5, 0, -L * 0.42, L / 10, L / 16, 0.2, L / 30);
            items.push_back(k.mounted(tp, k.faces(tp, skin.wing), Dir{-double(side), 0, 0}));
        }
    }
    const Part f = fin(k, r * 0.5, r * 0.5 + L / 6, -L * 0.4, L / 8, 0.3);
    std::vector<FaceDraw> fds = k.faces(f, skin.wing);
    if (k.detailed())
        fds.front().details.push_back(
            k.detail(fds.front().poly, 0.2, 0.7, 0.3, 0.7, texture(k.texture_slot(TexKind::Numbers), false)));
    items.push_back(k.mounted(f, fds));
    // Canopy: glass frustum on the nose section.
    const Part canopy = k.b.loft({k.at(-r * 0.45, r * 0.55, L * 0.28), k.at(r * 0.45, r * 0.55, L * 0.28),
                                  k.at(r * 0.45, r * 0.55, L * 0.05), k.at(-r * 0.45, r * 0.55, L * 0.05)},
                                 {k.at(-r * 0.25, r * 1.05, L * 0.22), k.at(r * 0.25, r * 1.05, L * 0.22),
                                  k.at(r * 0.25, r * 1.05, L * 0.1), k.at(-r * 0.25, r * 1.05, L * 0.1)});
    items.push_back(k.mounted(canopy, k.faces(canopy, glass())));
    // Nozzle and afterburner.
    const Vec3 exit = k.at(0, 0, -L * 0.52);
    const Part nozzle = k.b.loft(ring_z(k.at(0, 0, -L * 0.45), k.snap(r * 0.5), k.snap(r * 0.5), sides, 0.25),
                                 ring_z(exit, k.snap(r * 0.4), k.snap(r * 0.4), sides, 0.25));
    items.push_back(k.solid(nozzle, shaded(colour(kGrey, 3))));
    if (k.detailed()) {
        const uint8_t tip = k.b.vertex(k.at(0, 0, -L * 0.52 - r * 3));
        Block burn;
        const Poly& cap = nozzle.faces.back();
        for (size_t i = 0; i < cap.v.size(); ++i)
            burn.push_back(primary(k.b.packet({{cap.v[i], cap.v[(i + 1) % cap.v.size()], tip}}, haze())));
        std::vector<uint8_t> pts = cap.v;
        pts.push_back(tip);
        items.push_back(overlay(k.paint.loose(pts, {if_mask(anim::kAfterburner, burn)})));
        items.push_back(gear(k, -r * 0.9, {L * 0.3, -L * 0.05}, r * 1.5));
        items.push_back(damage_states(k, k.at(0, r, -L * 0.2)));
    }
    const uint8_t lt = k.b.vertex(k.at(-S / 2, 0, -L / 10)), rt = k.b.vertex(k.at(S / 2, 0, -L / 10));
    const uint8_t tt = k.b.vertex(k.at(0, r * 0.5 + L / 6, -L * 0.4 - L / 8 * 0.4));
    items.push_back(lights(k, lt, rt, tt));
    const auto stores = k.slots(Role::Gameplay);
    for (size_t i = 0; i < stores.size(); ++i) {
        // NOLINTNEXTLINE(bugprone-integer-division): stores come in pairs, i / 2 is meant to truncate
        const double x = (i % 2 ? 1 : -1) * (r + (S / 2 - r) * (0.3 + 0.3 * double(i / 2)));
        items.push_back(slot_item(k, stores[i], k.at(x, -0.8, 0)));
    }
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::Aircraft);
}

void build_helicopter(Kit& k) {
    const Skin skin = pick_skin(k);
    const double L = 11 + k.rng.below(6), r = 1.0 + k.rng.below(4) / 10.0, boom = L * 0.55;
    const int sides = k.spec.lod == 0 ? 6 : 4;
    std::vector<Item> items;
    for (Item& it : fuselage(k, {{L / 2, 0, 0, 0}, {L * 0.3, r * 0.8, r, 0}, {-L * 0.1, r, r, 0}}, sides,
                             skin.body, nullptr))
        items.push_back(std::move(it));
    // Tail boom: constant width, tapering height, so its side faces are vertical.
    const double bw = 0.35;
    const Part tb = k.b.loft({k.at(-bw, -0.4, -L * 0.1), k.at(bw, -0.4, -L * 0.1), k.at(bw, 0.5, -L * 0.1),
                              k.at(-bw, 0.5, -L * 0.1)},
                             {k.at(-bw, 0.0, -L * 0.1 - boom), k.at(bw, 0.0, -L * 0.1 - boom),
                              k.at(bw, 0.3, -L * 0.1 - boom), k.at(-bw, 0.3, -L * 0.1 - boom)});
    std::vector<FaceDraw> tbf = k.faces(tb, skin.wing);
    k.hide_on(tbf, 2, k.snap(-L * 0.1));
    items.push_back(k.paint.part(tb, tbf));
    const double tail_z = -L * 0.1 - boom;
    const Part hf = fin(k, 0.3, 2.2, tail_z + 0.6, 1.4, 0.2);
    items.push_back(k.mounted(hf, k.faces(hf, skin.wing)));
    if (k.detailed()) {
        const Part canopy = k.b.loft({k.at(-r * 0.6, r * 0.5, L * 0.42), k.at(r * 0.6, r * 0.5, L * 0.42),
                                      k.at(r * 0.6, r * 0.5, L * 0.12), k.at(-r * 0.6, r * 0.5, L * 0.12)},
                                     {k.at(-r * 0.4, r * 1.1, L * 0.35), k.at(r * 0.4, r * 1.1, L * 0.35),
                                      k.at(r * 0.4, r * 1.1, L * 0.18), k.at(-r * 0.4, r * 1.1, L * 0.18)});
        items.push_back(k.mounted(canopy, k.faces(canopy, glass())));
        // Skids.
        std::vector<uint8_t> sk;
        for (int side = -1; side <= 1; side += 2) {
            const uint8_t a = k.b.vertex(k.at(side * r, -r - 0.6, L * 0.35)),
                          b = k.b.vertex(k.at(side * r, -r - 0.6, -L * 0.15));
            const uint8_t s1 = k.b.vertex(k.at(side * r * 0.7, -r * 0.8, L * 0.2)),
                          s2 = k.b.vertex(k.at(side * r * 0.7, -r * 0.8, -L * 0.05));
            const uint8_t f1 = k.b.vertex(k.at(side * r, -r - 0.6, L * 0.2)),
                          f2 = k.b.vertex(k.at(side * r, -r - 0.6, -L * 0.05));
            sk.insert(sk.end(), {a, b, s1, s2, f1, f2});
        }
        Block skids;
        for (size_t i = 0; i < sk.size(); i += 6) {
            skids.push_back(primary(k.b.line({sk[i], sk[i + 1]}, 1, colour(kGrey, 4))));
            skids.push_back(primary(k.b.line({sk[i + 2], sk[i + 4]}, 1, colour(kGrey, 4))));
            skids.push_back(primary(k.b.line({sk[i + 3], sk[i + 5]}, 1, colour(kGrey, 4))));
        }
        items.push_back(overlay(k.paint.loose(sk, skids)));
        items.push_back(damage_states(k, k.at(0, r, -L * 0.05)));
    }
    // Stub wings carry the gameplay stores.
    const auto stores = k.slots(Role::Gameplay);
    if (!stores.empty()) {
        for (int side = -1; side <= 1; side += 2)
            items.push_back(
                k.solid(wing(k, side * r, side * (r + 1.6), 0, -L * 0.02, 1.2, 0.9, 0.25, 0.1), skin.wing));
        for (size_t i = 0; i < stores.size(); ++i) {
            const double x = (i % 2 ? 1 : -1) * (r + 0.5 + 0.9 * double(i / 2 % 2));
            items.push_back(slot_item(k, stores[i], k.at(x, -0.7, -L * 0.02)));
        }
    }
    // Mast, main rotor above it, tail rotor beside the boom's end.
    const double hub = std::max(r + 0.6, 2.5); // the rotor turns above the fin
    const Part mast = k.b.box(k.at(-0.3, r, -0.3), k.at(0.3, hub, 0.3));
    items.push_back(k.solid(mast, shaded(colour(kGrey, 4))));
    for (uint8_t s : k.slots(Role::MainRotor)) {
        const Vec3 at = k.at(0, hub, 0);
        k.place(s, at, q31_identity());
        const Bounds b = placed_bounds(k.child_bounds(s), at, 0);
        items.push_back(k.paint.box_points(b.min, b.max, {attach(s)}));
    }
    for (uint8_t s : k.slots(Role::TailRotor)) {
        const Vec3 at = k.at(bw + 0.2, 1.0, tail_z + 0.3);
        k.place(s, at, q31_identity());
        const Bounds b = placed_bounds(k.child_bounds(s), at, 0);
        items.push_back(k.paint.box_points(b.min, b.max, {attach(s)}));
    }
    const uint8_t lt = k.b.vertex(k.at(-r, 0, 0)), rt = k.b.vertex(k.at(r, 0, 0)),
                  tt = k.b.vertex(k.at(0, 2.2, tail_z + 0.2));
    items.push_back(lights(k, lt, rt, tt));
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::Helicopter);
}

void build_rotor(Kit& k) {
    const auto blades = k.slots(Role::Blade);
    double radius = 7.0;
    for (uint8_t s : blades) radius = std::max(radius, k.child_bounds(s).max.x / double(kMetre));
    const Part hub = k.b.loft(ring_y(k.at(0, 0, 0), k.snap(0.35), k.snap(0.35), 8),
                              ring_y(k.at(0, 0.4, 0), k.snap(0.25), k.snap(0.25), 8));
    std::vector<Item> items{k.solid(hub, gouraud(colour(kGrey, 5)))};
    Block slow;
    for (size_t i = 0; i < blades.size(); ++i) {
        k.place(blades[i], k.at(0, 0.3, 0), q31_yaw(double(i) / double(blades.size())));
        slow.push_back(attach(blades[i]));
    }
    std::vector<uint8_t> disc;
    for (const Vec3& p : ring_y(k.at(0, 0.3, 0), k.snap(radius), k.snap(radius), 12))
        disc.push_back(k.b.vertex(p));
    Block fast{primary(k.b.packet({disc}, glass())), primary(k.b.line(disc, 5, colour(kGrey, 3)))};
    items.push_back(overlay(k.paint.loose(disc, {choose(anim::kRotorFast, fast, slow)})));
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::Rotor);
}

void build_blade(Kit& k) {
    const double R = 6 + k.rng.below(3), chord = 0.5;
    const Part p = k.b.box(k.at(0.3, 0, -chord / 2), k.at(R, 0.1, chord / 2));
    std::vector<FaceDraw> fds = k.faces(p, shaded(colour(kGrey, 3)));
    for (FaceDraw& fd : fds)
        if (k.b.newell(fd.poly).y > 0)
            fd.details.push_back(k.detail(fd.poly, 0.9, 1.0, 0.0, 1.0, flat(colour(kLight, 14))));
    k.model.program = k.paint.order({k.paint.part(p, fds)});
    standard_metadata(k, Family::Blade);
}

void build_tail_rotor(Kit& k) {
    const double R = 1.2 + k.rng.below(4) / 10.0;
    const Part hub = k.b.box(k.at(0, -0.15, -0.15), k.at(0.25, 0.15, 0.15));
    std::vector<uint8_t> disc, blades;
    for (const Vec3& p : ring_x(k.at(0.3, 0, 0), k.snap(R), k.snap(R), 8)) disc.push_back(k.b.vertex(p));
    const uint8_t c0 = k.b.vertex(k.at(0.3, -0.1, 0)), c1 = k.b.vertex(k.at(0.3, 0.1, 0));
    Block slow;
    for (size_t i = 0; i < disc.size(); i += 2)
        slow.push_back(primary(k.b.packet({{c0, disc[i], c1}}, shaded(colour(kGrey, 3)))));
    Block fast{primary(k.b.packet({disc}, glass()))};
    std::vector<uint8_t> pts = disc;
    pts.insert(pts.end(), {c0, c1});
    std::vector<Item> items{k.solid(hub, shaded(colour(kGrey, 6))),
                            overlay(k.paint.loose(pts, {choose(anim::kRotorFast, fast, slow)}))};
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::TailRotor);
}

void build_shadow_geometry(Kit& k) {
    const double L = 15, r = 1.0;
    std::vector<Item> items;
    items.push_back(k.solid(k.b.box(k.at(-r, -r, -L * 0.1), k.at(r, r, L / 2)), shaded(colour(kGrey, 2))));
    items.push_back(
        k.solid(k.b.box(k.at(-0.35, -0.3, -L / 2), k.at(0.35, 0.4, -L * 0.1)), shaded(colour(kGrey, 2))));
    for (int side = -1; side <= 1; side += 2)
        items.push_back(k.solid(
            k.b.box(k.at(side < 0 ? -r - 1.6 : r, -0.1, -0.6), k.at(side < 0 ? -r : r + 1.6, 0.1, 0.6)),
            shaded(colour(kGrey, 2))));
    std::vector<uint8_t> disc;
    for (const Vec3& p : ring_y(k.at(0, r + 0.9, 0), k.snap(7.3), k.snap(7.3), 12))
        disc.push_back(k.b.vertex(p));
    items.push_back(k.paint.loose(disc, {primary(k.b.packet({disc}, fine_mesh(colour(kGrey, 0), false)))}));
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::ShadowGeometry);
}

} // namespace refcheck::synth
