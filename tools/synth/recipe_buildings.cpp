// Buildings on the grid encoding: walls with coplanar trim, windows and doors drawn as secondaries
// after their wall (like citblkd0), roofs ordered by decision planes, rooftop props attached.
#include <algorithm>
#include <cmath>

#include "packet_layout.hpp"
#include "recipes.hpp"
#include "trig.hpp"

namespace refcheck::synth {
namespace {

constexpr double kFloor = 3.2;

struct Style {
    Material wall, roof, trim, door;
    bool night = false, frames = false;
};

Style pick_style(Kit& k) {
    Style s;
    const uint32_t v = k.spec.variant + k.rng.below(3);
    const Ramp ramps[4] = {kBrick, kConcrete, kSand, kGrey};
    const Ramp r = ramps[v % 4];
    switch (k.spec.u64_packets > 0 ? 2 : v % 5) {
        case 0:
        case 1: s.wall = shaded(colour(r, 10)); break;
        case 2:
            s.wall = texture(k.texture_slot(r == kBrick ? TexKind::Bricks : TexKind::Concrete), true);
            break;
        case 3: s.wall = shaded_two(colour(r, 10), colour(r, 8)); break;
        default: s.wall = texture(k.texture_slot(TexKind::Windows), false); break;
    }
    s.roof =
        (v % 3 == 0) ? texture(k.texture_slot(TexKind::Roof), true) : shaded(colour(kGrey, 7 + int(v % 3)));
    s.trim = shaded(colour(r, 6));
    s.door = v % 2 ? shaded_two(colour(kWood, 5), colour(kWood, 3)) : shaded(colour(kWood, 4));
    s.night = (k.spec.variant % 3) != 2;
    s.frames = k.spec.lod < 2;
    return s;
}

bool is_wall(const ModelBuilder& b, const Poly& f) {
    const Dir n = b.newell(f);
    return std::abs(n.y) < 0.3 * (std::abs(n.x) + std::abs(n.z) + 1e-9);
}

double wall_length(const ModelBuilder& b, const Poly& f) {
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    const Dir n = b.newell(f);
    for (uint8_t v : f.v) {
        const int32_t c = std::abs(n.x) > std::abs(n.z) ? b.at(v).z : b.at(v).x;
        lo = std::min(lo, c);
        hi = std::max(hi, c);
    }
    return double(hi - lo) / kMetre;
}

// A body: box walls with trim, windows, a door on the first wall; the top face as a flat roof.
// Windows use what is left of the vertex pool below `vertex_limit`.
Item body(Kit& k, Vec3 lo, Vec3 hi, const Style& s, bool top, int vertex_limit, bool door) {
    const Part p = k.b.box(lo, hi, top ? 4u : 4u | 8u);
    const int floors = std::max(1, int((hi.y - lo.y) / metres(kFloor)));
    int walls_left = 0;
    for (const Poly& f : p.faces) walls_left += is_wall(k.b, f);
    std::vector<FaceDraw> fds;
    bool door_done = !door;
    for (const Poly& f : p.faces) {
        if (!is_wall(k.b, f)) {
            FaceDraw fd = k.face(f, s.roof);
            if (k.detailed())
                fd.details.push_back(k.detail(f, 0.05, 0.95, 0.05, 0.95, shaded(colour(kGrey, 5))));
            fds.push_back(fd);
            continue;
        }
        FaceDraw fd = k.face(f, s.wall);
        if (k.spec.lod < 2) {
            fd.details.push_back(k.detail(f, 0.0, 1.0, 0.94, 1.0, s.trim));
            const double len = wall_length(k.b, f);
            const int reserve = 2 * walls_left + (door_done ? 0 : 4) + (top ? 4 : 0);
            const int share = (vertex_limit - int(k.b.vertex_count()) - reserve) / std::max(1, walls_left);
            const Windows w = window_grid(k, f, floors, len, share);
            Block wd = window_details(k, w, s.night, s.frames);
            fd.details.insert(fd.details.end(), wd.begin(), wd.end());
            if (!door_done && len > 4) {
                fd.details.push_back(
                    k.detail(f, 0.45, 0.55, 0.0, std::min(0.9, 2.4 / kFloor / floors), s.door));
                door_done = true;
            }
        }
        --walls_left;
        fds.push_back(fd);
    }
    return k.paint.part(p, fds);
}

Item gable_roof(Kit& k, Vec3 lo, Vec3 hi, double rise, const Style& s, bool hip) {
    const int32_t r = k.snap(rise);
    const int32_t mz = (lo.z + hi.z) / 2;
    Part p;
    if (hip) {
        const int32_t in = std::min((hi.x - lo.x) / 4, (hi.z - lo.z) / 2);
        p = k.b.loft({{lo.x, hi.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}},
                     {{lo.x + in, hi.y + r, mz}, {hi.x - in, hi.y + r, mz}});
    } else {
        p = k.b.loft({{lo.x, hi.y, lo.z}, {lo.x, hi.y, hi.z}, {lo.x, hi.y + r, mz}},
                     {{hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {hi.x, hi.y + r, mz}});
    }
    std::vector<FaceDraw> fds =
        k.faces(p, [&](size_t, const Poly& f) { return is_wall(k.b, f) ? s.wall : s.roof; });
    k.hide_down(fds); // the underside rests on the body: a separator only
    return k.paint.part(p, fds);
}

// Rooftop: attached props on pads, AC boxes, an antenna with a beacon.
std::vector<Item> rooftop(Kit& k, Vec3 lo, Vec3 hi, bool flat_roof) {
    std::vector<Item> items;
    const auto props = k.slots(Role::Prop);
    const int32_t span = hi.x - lo.x;
    const int n = static_cast<int>(props.size());
    // Props stand in a row, with low kerbs between them whose planes order them.
    std::vector<int32_t> xs;
    xs.reserve(props.size());
    for (int i = 0; i < n; ++i) xs.push_back(lo.x + span * (i + 1) / (n + 1));
    for (int i = 0; i < n; ++i) {
        const int quarter = int(k.rng.below(2)) * 2;
        const Vec3 at{xs[i], hi.y, (lo.z + hi.z) / 2};
        k.place(props[i], at, quarter_yaw(quarter));
        const Bounds pb = placed_bounds(k.child_bounds(props[i]), at, quarter);
        items.push_back(k.paint.box_points(pb.min, pb.max, {attach(props[i])}));
        if (i + 1 == n) break;
        const int32_t x = (xs[i] + xs[i + 1]) / 2;
        const Poly kerb = k.b.poly(
            {{x, hi.y, lo.z}, {x, hi.y + k.snap(0.4), lo.z}, {x, hi.y + k.snap(0.4), hi.z}, {x, hi.y, hi.z}});
        Item it = k.paint.loose(kerb.v, {primary(k.b.packet(kerb, shaded(colour(kConcrete, 8))))});
        it.separators.push_back(kerb);
        items.push_back(std::move(it));
    }
    if (n == 0 && k.detailed() && flat_roof) {
        const int32_t s = k.snap(1.2);
        const Vec3 c{lo.x + (hi.x - lo.x) / 3, hi.y, lo.z + (hi.z - lo.z) / 3};
        const Part ac = k.b.box(c, {c.x + 2 * s, c.y + s, c.z + s}, 4u);
        std::vector<FaceDraw> f = k.faces(ac, shaded(colour(kGrey, 9)));
        f.back().details.push_back(
            k.detail(ac.faces.back(), 0.1, 0.9, 0.1, 0.9, fine_mesh(colour(kGrey, 3), false)));
        items.push_back(k.paint.part(ac, f));
    }
    if (k.detailed()) {
        const Vec3 base{hi.x - k.snap(1.5), hi.y, hi.z - k.snap(1.5)};
        const uint8_t a = k.b.vertex(base), t = k.b.vertex({base.x, base.y + k.snap(4.0), base.z});
        const uint8_t m = k.b.vertex({base.x + k.snap(0.8), base.y + k.snap(3.0), base.z});
        Block blk{primary(k.b.line({a, t, m}, 1, colour(kGrey, 4))),
                  if_mask(anim::kBeacon, {primary(k.b.line({t}, 0, colour(kRed, 15)))})};
        items.push_back(overlay(k.paint.loose({a, t, m}, blk)));
    }
    return items;
}

} // namespace

std::vector<Item> pad_and_child(Kit& k, uint8_t slot, Vec3 c, int quarter, const Material& pad) {
    const Bounds cb = placed_bounds(k.child_bounds(slot), {0, 0, 0}, quarter);
    const int32_t m = k.snap(0.3);
    const Vec3 plo{c.x + cb.min.x - m, c.y, c.z + cb.min.z - m},
        phi{c.x + cb.max.x + m, c.y + k.snap(0.2), c.z + cb.max.z + m};
    std::vector<Item> items{k.solid(k.b.box(plo, phi, 4u), pad)};
    const Vec3 at{c.x, phi.y - cb.min.y, c.z};
    k.place(slot, at, quarter_yaw(quarter));
    const Bounds pb = placed_bounds(k.child_bounds(slot), at, quarter);
    items.push_back(k.paint.box_points(pb.min, pb.max, {attach(slot)}));
    return items;
}

Windows window_grid(Kit& k, const Poly& wall, int floors, double len, int budget) {
    Windows w;
    int cols = std::max(1, int(len / 3.5));
    if (k.spec.lod == 1) cols = std::max(1, cols / 2);
    while (floors * cols > budget / 4 && cols > 1) --cols;
    int rows = floors;
    while (rows * cols > budget / 4 && rows > 0) --rows;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const double h0 = (c + 0.25) / cols, h1 = (c + 0.75) / cols;
            const double t0 = (r + 0.3) / floors, t1 = (r + 0.75) / floors;
            w.panes.push_back(k.inset(wall, h0, h1, t0 * 0.94, t1 * 0.94));
        }
    return w;
}

Block window_details(Kit& k, const Windows& w, bool night, bool frames) {
    Block dark, lit, out;
    const bool use_glass = k.spec.variant % 2 == 0;
    for (const Poly& p : w.panes) {
        dark.push_back(secondary(k.b.packet(p, use_glass ? glass() : shaded(colour(kBlue, 4)))));
        // A reflection glint across the upper half of the pane (no new vertices).
        dark.push_back(secondary(k.b.packet({{p.v[0], p.v[1], p.v[2]}}, flat(colour(kBlue, 11)))));
        lit.push_back(secondary(k.b.packet(p, flat(colour(kLight, 13)))));
    }
    if (night)
        out.push_back(choose(anim::kNight, lit, dark));
    else
        out = dark;
    if (frames)
        for (size_t i = 0; i < w.panes.size(); ++i) {
            std::vector<uint8_t> loop = w.panes[i].v;
            loop.push_back(loop.front());
            out.push_back(secondary(k.b.line(loop, 1, colour(kGrey, 13))));
        }
    return out;
}

Item damage_item(Kit& k, Vec3 top, double size) {
    const int32_t s = k.snap(size);
    const uint8_t a = k.b.vertex({top.x - s, top.y, top.z}), b = k.b.vertex({top.x + s, top.y, top.z});
    const uint8_t c = k.b.vertex({top.x + s / 2, top.y + 2 * s, top.z}),
                  d = k.b.vertex({top.x - s / 2, top.y + 2 * s, top.z});
    const uint8_t e = k.b.vertex({top.x, top.y + s, top.z});
    Block smoke{primary(k.b.packet({{a, d, c, b}}, haze())),
                primary(k.b.packet({{a, e, b}}, flat(colour(kLight, 12))))};
    return overlay(k.paint.loose({a, b, c, d, e}, {choose(anim::kDestroyed, smoke, {})}));
}

void add_seams(Kit& k, Block& program, uint8_t c) {
    for (size_t i = 0; i < program.size(); ++i) {
        Instr& in = program[i];
        for (Block& br : in.branches) add_seams(k, br, c);
        static constexpr bool kSolid[22] = {false, false, true,  true, false, false, false, true,
                                            false, false, false, true, true,  false, false, true,
                                            false, true,  true,  true, false, false};
        if (in.op != Op::Primary || !kSolid[in.packet.type]) continue;
        std::vector<uint8_t> loop;
        for (const PacketVertex& v : in.packet.vertices) loop.push_back(v.vertex);
        loop.push_back(loop.front());
        program.insert(program.begin() + long(i) + 1, secondary(k.b.line(loop, 1, c)));
        ++i;
    }
}

std::array<int32_t, 9> quarter_yaw(int quarter) {
    switch (quarter & 3) {
        case 1: return {0, 0, 0x7fffffff, 0, 0x7fffffff, 0, -0x7fffffff, 0, 0};
        case 2: return {-0x7fffffff, 0, 0, 0, 0x7fffffff, 0, 0, 0, -0x7fffffff};
        case 3: return {0, 0, -0x7fffffff, 0, 0x7fffffff, 0, 0x7fffffff, 0, 0};
        default: return {0x7fffffff, 0, 0, 0, 0x7fffffff, 0, 0, 0, 0x7fffffff};
    }
}

Bounds placed_bounds(const Bounds& c, Vec3 o, int quarter) {
    Bounds b;
    int32_t x0 = c.min.x, x1 = c.max.x, z0 = c.min.z, z1 = c.max.z;
    for (int i = 0; i < (quarter & 3); ++i) { // (x, z) -> (z, -x) per quarter turn
        const int32_t nx0 = z0, nx1 = z1, nz0 = -x1, nz1 = -x0;
        x0 = nx0;
        x1 = nx1;
        z0 = nz0;
        z1 = nz1;
    }
    b.min = {o.x + x0, o.y + c.min.y, o.z + z0};
    b.max = {o.x + x1, o.y + c.max.y, o.z + z1};
    return b;
}

void build_building(Kit& k) {
    const Style s = pick_style(k);
    const int n_props = static_cast<int>(k.slots(Role::Prop).size());
    const double w = std::max(8.0 + k.rng.below(20), 4.0 * n_props + 3.0);
    const double d = 8.0 + k.rng.below(14);
    const int floors = 1 + int((k.spec.variant * 7 + k.rng.below(3)) % 6);
    const int roof = n_props > 0 ? 0 : int((k.spec.variant / 3) % 3);
    const Vec3 lo = k.at(-w / 2, 0, -d / 2), hi = k.at(w / 2, floors * kFloor, d / 2);
    std::vector<Item> items;
    if (roof) items.push_back(gable_roof(k, lo, hi, std::min(w, d) * 0.35, s, roof == 2));
    for (Item& it : rooftop(k, lo, hi, roof == 0)) items.push_back(std::move(it));
    items.push_back(damage_item(k, {0, hi.y + k.snap(roof ? std::min(w, d) * 0.35 : 0.5), 0}, 3.0));
    items.insert(items.begin(), body(k, lo, hi, s, roof == 0, 250, true));
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::Building);
}

void build_city_block(Kit& k) {
    const int n = k.spec.lod == 0 ? 3 + int(k.spec.variant % 3) : 2;
    std::vector<Item> items;
    std::vector<std::pair<Vec3, Vec3>> boxes;
    double x = -(n * 10.0) / 2;
    for (int i = 0; i < n; ++i) {
        const double w = 8 + k.rng.below(5), d = 12 + k.rng.below(8);
        const int floors = 2 + int(k.rng.below(k.spec.lod == 0 ? 8 : 5));
        boxes.push_back({k.at(x, 0, -d / 2), k.at(x + w, floors * kFloor, d / 2)});
        x += w;
    }
    std::vector<Style> styles;
    styles.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) styles.push_back(pick_style(k));
    // Flat roofs, a water tank on the tallest; the bodies share what is left of the vertex pool.
    if (k.detailed()) {
        const auto& [lo, hi] = *std::max_element(boxes.begin(), boxes.end(),
                                                 [](auto& a, auto& b) { return a.second.y < b.second.y; });
        const Vec3 c{(lo.x + hi.x) / 2, hi.y, (lo.z + hi.z) / 2};
        const Part tank = k.b.loft(ring_y(c, k.snap(1.5), k.snap(1.5), 6),
                                   ring_y({c.x, c.y + k.snap(2.5), c.z}, k.snap(1.5), k.snap(1.5), 6));
        items.push_back(k.solid(tank, gouraud(colour(kWood, 7))));
    }
    for (int i = 0; i < n; ++i) {
        const int used = int(k.b.vertex_count());
        const int limit = used + (250 - used) / (n - i);
        items.insert(items.begin() + i,
                     body(k, boxes[i].first, boxes[i].second, styles[i], true, limit, i == 0));
    }
    k.model.program = k.paint.order(std::move(items));
    standard_metadata(k, Family::CityBlock);
}

void build_tower(Kit& k) {
    const Style s = pick_style(k);
    const double bw = 8 + k.rng.below(6), shaft = 3 + k.rng.below(2), h = 12 + k.rng.below(12);
    std::vector<Item> items;
    const Vec3 lo = k.at(-bw / 2, 0, -bw / 2), hi = k.at(bw / 2, 4, bw / 2);
    items.push_back(body(k, lo, hi, s, true, 80, true));
    const Vec3 slo = k.at(-shaft / 2, 4, -shaft / 2), shi = k.at(shaft / 2, h, shaft / 2);
    items.push_back(k.solid(k.b.box(slo, shi, 4u), s.wall));
    const Vec3 clo = k.at(-shaft, h, -shaft), chi = k.at(shaft, h + 3, shaft);
    const Part cab = k.b.box(clo, chi, 0u);
    items.push_back(k.paint.part(cab, k.faces(cab, [&](size_t, const Poly& f) {
        return is_wall(k.b, f) ? glass() : shaded(colour(kGrey, 6));
    })));
    const Vec3 rlo = k.at(-shaft - 0.6, h + 3, -shaft - 0.6), rhi = k.at(shaft + 0.6, h + 3.5, shaft + 0.6);
    items.push_back(k.solid(k.b.box(rlo, rhi), shaded(colour(kGrey, 10))));
    const uint8_t a = k.b.vertex({0, rhi.y, 0}), t = k.b.vertex({0, rhi.y + k.snap(5), 0});
    items.push_back(overlay(k.paint.loose(
        {a, t}, {primary(k.b.line({a, t}, 10, colour(kGrey, 3), k.b.face_normal(cab.faces[0]))),
                 if_mask(anim::kBeacon,
                         {primary(k.b.line({t}, 9, colour(kRed, 15), k.b.face_normal(cab.faces[0])))})})));
    k.model.program = k.paint.order(std::move(items));
    add_seams(k, k.model.program, colour(kGrey, 2));
    standard_metadata(k, Family::Tower);
}

void build_hangar(Kit& k) {
    const double w = 20 + k.rng.below(16), d = 24 + k.rng.below(16), h = 6 + k.rng.below(3);
    Style s = pick_style(k);
    s.wall = shaded(colour(k.spec.variant % 2 ? kOlive : kGrey, 9));
    std::vector<Item> items;
    const Vec3 lo = k.at(-w / 2, 0, -d / 2), hi = k.at(w / 2, h, d / 2);
    const Part box = k.b.box(lo, hi, 4u | 8u);
    std::vector<FaceDraw> fds = k.faces(box, s.wall);
    for (FaceDraw& fd : fds) {
        const Dir n = k.b.newell(fd.poly);
        if (n.z < 0) { // the door
            fd.details.push_back(
                k.detail(fd.poly, 0.1, 0.9, 0.0, 0.85, two_colour(colour(kGrey, 8), colour(kGrey, 6))));
            if (k.detailed())
                fd.details.push_back(k.detail(fd.poly, 0.45, 0.55, 0.0, 0.85, shaded(colour(kGrey, 4))));
        } else if (k.detailed()) {
            fd.details.push_back(k.detail(fd.poly, 0.2, 0.4, 0.7, 0.9, fine_mesh(colour(kGrey, 3), false)));
            fd.details.push_back(k.detail(fd.poly, 0.6, 0.8, 0.7, 0.9, fine_mesh(colour(kGrey, 3), false)));
        }
    }
    items.push_back(k.paint.part(box, fds));
    const int n = k.detailed() ? 8 : 4;
    std::vector<Vec3> ra, rb;
    for (int i = 0; i <= n; ++i) {
        const double t = double(i) / n / 2;
        const int32_t x = int32_t(std::lround((hi.x - lo.x) / 2.0 * cos_turns(t)));
        const int32_t y = hi.y + int32_t(std::lround((hi.x - lo.x) / 3.0 * sin_turns(t)));
        ra.push_back({x, y, lo.z});
        rb.push_back({x, y, hi.z});
    }
    const Part arch = k.b.loft(ra, rb);
    items.push_back(k.paint.part(arch, k.faces(arch, [&](size_t, const Poly& f) {
        const Dir nn = k.b.newell(f);
        if (std::abs(nn.z) > std::abs(nn.x) + std::abs(nn.y)) return s.wall;
        return nn.y < -1 ? shaded(colour(kGrey, 3)) : gouraud(colour(kGrey, 11));
    })));
    items.push_back(damage_item(k, {0, hi.y + (hi.x - lo.x) / 3, 0}, 4.0));
    k.model.program = k.paint.order(std::move(items));
    add_seams(k, k.model.program, colour(kGrey, 2));
    standard_metadata(k, Family::Hangar);
}

void build_bunker(Kit& k) {
    const double w = 6 + k.rng.below(6), d = 5 + k.rng.below(4), h = 2.5 + k.rng.below(2);
    const Vec3 lo = k.at(-w / 2, 0, -d / 2), hi = k.at(w / 2, h, d / 2);
    const int32_t in = k.snap(1.0);
    const Part p = k.b.loft({{lo.x, 0, lo.z}, {hi.x, 0, lo.z}, {hi.x, 0, hi.z}, {lo.x, 0, hi.z}},
                            {{lo.x + in, hi.y, lo.z + in},
                             {hi.x - in, hi.y, lo.z + in},
                             {hi.x - in, hi.y, hi.z - in},
                             {lo.x + in, hi.y, hi.z - in}},
                            1u);
    std::vector<FaceDraw> fds = k.faces(p, shaded_two(colour(kKhaki, 8), colour(kOlive, 6)));
    for (FaceDraw& fd : fds) {
        const Dir n = k.b.newell(fd.poly);
        if (n.y > std::abs(n.x) + std::abs(n.z)) {
            if (k.detailed())
                fd.details.push_back(
                    k.detail(fd.poly, 0.1, 0.9, 0.1, 0.9, fine_mesh(colour(kOlive, 4), true)));
        } else if (n.z < 0) {
            fd.details.push_back(k.detail(fd.poly, 0.2, 0.45, 0.45, 0.6, shaded(colour(kGrey, 1))));
            fd.details.push_back(k.detail(fd.poly, 0.55, 0.8, 0.45, 0.6, shaded(colour(kGrey, 1))));
        }
    }
    std::vector<Item> items{k.paint.part(p, fds), damage_item(k, {0, hi.y, 0}, 2.0)};
    k.model.program = k.paint.order(std::move(items));
    add_seams(k, k.model.program, colour(kGrey, 2));
    standard_metadata(k, Family::Bunker);
}

} // namespace refcheck::synth
