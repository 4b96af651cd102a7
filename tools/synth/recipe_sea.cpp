// Ships and the carrier deck (signed 16-bit; bow towards +z, waterline at y = 0).
#include <algorithm>
#include <cmath>

#include "recipes.hpp"
#include "trig.hpp"

namespace refcheck::synth {
namespace {

struct Hull {
    std::vector<Item> items;
    Poly deck; // the upward face of the main body
    double deck_y;
};

std::vector<Vec3> section(Kit& k, double z, double half_beam, double deck, double draft) {
    return {k.at(-half_beam, deck, z),         k.at(half_beam, deck, z),
            k.at(half_beam * 0.9, 0, z),       k.at(half_beam * 0.4, -draft, z),
            k.at(-half_beam * 0.4, -draft, z), k.at(-half_beam * 0.9, 0, z)};
}

Hull hull(Kit& k, double L, double B, double D, double T, const Material& side, const Material& deck_m) {
    Hull h;
    h.deck_y = D;
    const double zb = L * 0.25, zs = -L / 2;
    const Part mid = k.b.loft(section(k, zs, B / 2, D, T), section(k, zb, B / 2, D, T));
    std::vector<FaceDraw> fds = k.faces(mid, [&](size_t, const Poly& f) {
        return k.b.newell(f).y > 0 && std::abs(k.b.newell(f).x) < 1 ? deck_m : side;
    });
    for (FaceDraw& fd : fds) {
        const Dir n = k.b.newell(fd.poly);
        if (n.y > 0 && std::abs(n.x) < 1) {
            h.deck = fd.poly;
            continue;
        }
        if (std::abs(n.x) > std::abs(n.y) && n.y >= 0 &&
            k.spec.lod == 0) // topsides: hull number, boot top stripe
            fd.details.push_back(
                k.detail(fd.poly, 0.85, 0.95, 0.3, 0.9, texture(k.texture_slot(TexKind::Numbers), false)));
        if (std::abs(n.x) > std::abs(n.y) && n.y < 0)
            fd.details.push_back(k.detail(fd.poly, 0.0, 1.0, 0.75, 1.0, shaded(colour(kRed, 6))));
    }
    const Part bow = k.b.loft(section(k, zb, B / 2, D, T), section(k, L / 2, B / 20, D, T * 0.3));
    std::vector<FaceDraw> bf = k.faces(bow, side);
    k.hide_on(bf, 2, k.snap(zb));
    k.hide_on(fds, 2, k.snap(zb));
    h.items.push_back(k.paint.part(mid, fds));
    h.items.push_back(k.paint.part(bow, bf));
    // Wake and bow wave at the waterline.
    const uint8_t w0 = k.b.vertex(k.at(-B / 2, 0, zs - 1)), w1 = k.b.vertex(k.at(B / 2, 0, zs - 1));
    const double wake = std::min(L / 8, 124.0 - L / 2); // s16 coordinates stay within +-4096 (128 m)
    const uint8_t w2 = k.b.vertex(k.at(B, 0, zs - wake)), w3 = k.b.vertex(k.at(-B, 0, zs - wake));
    h.items.push_back(k.paint.loose(
        {w0, w1, w2, w3}, {primary(k.b.packet({{w0, w3, w2, w1}}, fine_mesh(colour(kBlue, 15), false)))}));
    return h;
}

// A rotating radar bar on a mast: one select case per heading.
Item radar(Kit& k, Vec3 at, int cases) {
    std::vector<uint8_t> ring;
    for (const Vec3& p : ring_y(at, k.snap(1.5), k.snap(1.5), 2 * cases)) ring.push_back(k.b.vertex(p));
    const uint8_t foot = k.b.vertex({at.x, at.y - k.snap(4), at.z});
    std::vector<Block> sel;
    for (int i = 0; i < cases; ++i)
        sel.push_back({primary(k.b.line({ring[i], ring[i + cases]}, 1, colour(kGrey, 12)))});
    uint32_t mask = 1;
    while (mask + 1 < uint32_t(cases)) mask = mask * 2 + 1;
    const NormalRef up = k.b.face_normal(Dir{0, 1, 0});
    std::vector<uint8_t> pts = ring;
    pts.push_back(foot);
    return k.paint.loose(pts, {primary(k.b.line({foot, ring[0]}, 10, colour(kGrey, 6), up)),
                               select(anim::kDishShift, mask, sel)});
}

std::vector<Item> superstructure(Kit& k, double x, double z0, double z1, double w, double deck, int levels) {
    std::vector<Item> items;
    double y = deck;
    for (int l = 0; l < levels; ++l) {
        const double shrink = l * 0.15 * (z1 - z0);
        const double h = 2.6;
        const Part p = k.b.box(k.at(x - w / 2 + l * 0.4, y, z0 + shrink),
                               k.at(x + w / 2 - l * 0.4, y + h, z1 - shrink * 0.3), 4u);
        std::vector<FaceDraw> fds = k.faces(p, shaded(colour(kNaval, 11 - l)));
        for (FaceDraw& fd : fds) {
            const Dir n = k.b.newell(fd.poly);
            if (std::abs(n.y) > 1 || !k.detailed() || l != levels - 1) continue;
            const int ports = 2 + int(k.rng.below(2));
            for (int i = 0; i < ports; ++i)
                fd.details.push_back(k.detail(fd.poly, (i + 0.3) / ports, (i + 0.7) / ports, 0.5, 0.8,
                                              l == levels - 1 ? glass() : shaded(colour(kGrey, 2))));
        }
        items.push_back(k.paint.part(p, fds));
        y += h;
    }
    items.push_back(radar(k, k.at(x, y + 4.5, (z0 + z1) / 2), k.detailed() ? 8 : 4));
    return items;
}

std::vector<Item> turrets(Kit& k, double deck, double fore, double aft) {
    std::vector<Item> items;
    const auto slots = k.slots(Role::Turret);
    for (size_t i = 0; i < slots.size(); ++i) {
        const double z =
            slots.size() == 1 ? fore : fore + (aft - fore) * double(i) / double(slots.size() - 1);
        const Vec3 at = k.at(0, deck, z);
        const int quarter = z < 0 ? 2 : 0;
        k.place(slots[i], at, quarter_yaw(quarter));
        const Bounds b = placed_bounds(k.child_bounds(slots[i]), at, quarter);
        items.push_back(k.paint.box_points(b.min, b.max, {attach(slots[i])}));
    }
    return items;
}

} // namespace

void build_ship(Kit& k) {
    const double L = 40 + k.rng.below(90), B = L / (7 + k.rng.below(3)), D = 3 + L / 40, T = 2 + L / 60;
    Hull h = hull(k, L, B, D, T, shaded(colour(kNaval, 9)), shaded(colour(kGrey, 6)));
    std::vector<Item> items = std::move(h.items);
    for (Item& it : superstructure(k, 0, -L * 0.15, L * 0.05, B * 0.6, D, k.detailed() ? 3 : 2))
        items.push_back(std::move(it));
    for (Item& it : turrets(k, D, L * 0.2, -L * 0.3)) items.push_back(std::move(it));
    const uint8_t bl = k.b.vertex(k.at(-B / 2, D + 1, L * 0.1)), br = k.b.vertex(k.at(B / 2, D + 1, L * 0.1));
    items.push_back(overlay(k.paint.loose(
        {bl, br}, {if_mask(anim::kNavLights, {primary(k.b.line({bl}, 0, colour(kRed, 15))),
                                              primary(k.b.line({br}, 0, colour(kGrass, 15)))})})));
    items.push_back(damage_item(k, k.at(0, D + 1, -L * 0.05), 4.0));
    k.model.program = k.paint.order(std::move(items));
    add_seams(k, k.model.program, colour(kGrey, 2));
    standard_metadata(k, Family::Ship);
    k.model.meta.ship_type = 1 + int(k.spec.variant % 6);
}

void build_carrier(Kit& k) {
    const double L = 240, B = 32, D = 12, T = 8;
    Hull h = hull(k, L * 0.95, B * 0.85, D, T, shaded(colour(kNaval, 9)), shaded(colour(kNaval, 6)));
    std::vector<Item> items = std::move(h.items);
    // Flight deck: a slab overhanging the hull, textured, with markings as secondaries.
    const double fd_y = D + 1.5;
    const Part deck = k.b.box(k.at(-B / 2, D, -L / 2), k.at(B / 2, fd_y, L / 2));
    std::vector<FaceDraw> fds = k.faces(deck, shaded(colour(kNaval, 8)));
    for (FaceDraw& fd : fds) {
        if (k.b.newell(fd.poly).y <= 0) continue;
        fd.packet = k.b.packet(fd.poly, texture(k.texture_slot(TexKind::Deck), true));
        const int dashes = k.detailed() ? 10 : 6;
        for (int i = 0; i < dashes; ++i)
            fd.details.push_back(k.detail(fd.poly, 0.49, 0.51, (i + 0.2) / dashes, (i + 0.7) / dashes,
                                          flat(colour(kLight, 14))));
        if (k.detailed()) {
            for (int s = 0; s < 4; ++s) {
                const double t = 0.1 + s * 0.2;
                fd.details.push_back(k.detail(fd.poly, 0.15, 0.35, t, t + 0.06,
                                              two_colour(colour(kLight, 14), colour(kNaval, 6))));
                fd.details.push_back(
                    secondary(k.b.line(k.inset(fd.poly, 0.6, 0.8, t, t + 0.06).v, 1, colour(kLight, 12))));
            }
            fd.details.push_back(
                k.detail(fd.poly, 0.05, 0.2, 0.9, 0.97, texture(k.texture_slot(TexKind::Numbers), false)));
        }
    }
    items.push_back(k.paint.part(deck, fds));
    // Island on the starboard edge.
    for (Item& it : superstructure(k, B * 0.36, -L * 0.1, L * 0.08, B * 0.18, fd_y, k.detailed() ? 3 : 2))
        items.push_back(std::move(it));
    // Aircraft parked to port on painted pads.
    const auto parked = k.slots(Role::Aircraft);
    for (size_t i = 0; i < parked.size(); ++i) {
        const double z = L * 0.4 - L * 0.8 * double(i) / double(std::max<size_t>(1, parked.size() - 1));
        for (Item& it : pad_and_child(k, parked[i], k.at(-B * 0.28, fd_y, z), 0,
                                      shaded_two(colour(kNaval, 7), colour(kLight, 12))))
            items.push_back(std::move(it));
    }
    const uint8_t bl = k.b.vertex(k.at(-B / 2, fd_y, L / 2)), br = k.b.vertex(k.at(B / 2, fd_y, L / 2));
    items.push_back(overlay(k.paint.loose(
        {bl, br}, {if_mask(anim::kNavLights, {primary(k.b.line({bl}, 0, colour(kRed, 15))),
                                              primary(k.b.line({br}, 0, colour(kGrass, 15)))})})));
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::Carrier);
    k.model.meta.ship_type = 7;
}

} // namespace refcheck::synth
