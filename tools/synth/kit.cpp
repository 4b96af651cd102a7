#include "kit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace refcheck::synth {

namespace {
Material typed(uint8_t type) {
    Material m;
    m.type = type;
    return m;
}
} // namespace

Material flat(uint8_t c) {
    Material m = typed(2);
    m.colour_a = c;
    return m;
}
Material shaded(uint8_t c) {
    Material m = typed(11);
    m.colour_a = c;
    return m;
}
Material two_colour(uint8_t a, uint8_t b) {
    Material m = typed(3);
    m.colour_a = a;
    m.colour_b = b;
    return m;
}
Material shaded_two(uint8_t a, uint8_t b) {
    Material m = typed(12);
    m.colour_a = a;
    m.colour_b = b;
    return m;
}
Material fine_mesh(uint8_t c, bool s) {
    Material m = typed(s ? 13 : 4);
    m.colour_a = c;
    return m;
}
Material coarse_mesh(uint8_t c, bool s) {
    Material m = typed(s ? 14 : 5);
    m.colour_a = c;
    return m;
}
Material glass() { return typed(6); }
Material haze() { return typed(21); }
Material texture(uint16_t slot, bool s) {
    Material m = typed(s ? 15 : 7);
    m.texture = slot;
    return m;
}
Material masked(uint16_t slot, bool s) {
    Material m = typed(s ? 16 : 8);
    m.texture = slot;
    m.mask = kTransparent;
    return m;
}
Material gouraud(uint8_t c) {
    Material m = typed(17);
    m.colour_a = c;
    return m;
}
Material gouraud_two(uint8_t a, uint8_t b) {
    Material m = typed(18);
    m.colour_a = a;
    m.colour_b = b;
    return m;
}
Material gouraud_texture(uint16_t slot, bool mask) {
    Material m = typed(mask ? 20 : 19);
    m.texture = slot;
    m.mask = kTransparent;
    return m;
}

Kit::Kit(Model& m, const Spec& s, Rng r, const TextureSet& t, std::vector<Child> c)
    : model(m), spec(s), rng(r), tex(t), b(m), paint(b), children(std::move(c)) {
    model.has_attachments = !children.empty();
    model.attachments.resize(children.size());
    for (const Child& ch : children) {
        model.attachments[ch.slot].model = ch.model;
        model.attachments[ch.slot].rotation = {0x7fffffff, 0, 0, 0, 0x7fffffff, 0, 0, 0, 0x7fffffff};
    }
}

FaceDraw Kit::face(const Poly& p, const Material& m, const Smooth& s) { return {p, b.packet(p, m, s), {}}; }

std::vector<FaceDraw> Kit::faces(const Part& part, const Material& m) {
    std::vector<FaceDraw> out;
    for (const Poly& f : part.faces) out.push_back(face(f, m, part.smooth));
    return out;
}

std::vector<FaceDraw> Kit::faces(const Part& part, const std::function<Material(size_t, const Poly&)>& pick) {
    std::vector<FaceDraw> out;
    for (size_t i = 0; i < part.faces.size(); ++i)
        out.push_back(face(part.faces[i], pick(i, part.faces[i]), part.smooth));
    return out;
}

Item Kit::mounted(const Part& part, std::vector<FaceDraw> fds, Dir toward) {
    auto along = [&](const Poly& f) {
        const Dir n = b.newell(f);
        return (n.x * toward.x + n.y * toward.y + n.z * toward.z) /
               std::sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
    };
    size_t low = 0;
    for (size_t i = 1; i < fds.size(); ++i)
        if (along(fds[i].poly) > along(fds[low].poly)) low = i;
    fds[low].hidden = true;
    Item it = paint.part(part, fds);
    std::swap(it.separators[0], it.separators[low]);
    it.mounted = true;
    return it;
}

void Kit::hide_down(std::vector<FaceDraw>& fds) const {
    for (FaceDraw& fd : fds) {
        const Dir n = b.newell(fd.poly);
        if (n.y < 0 && -n.y > 2.0 * (std::abs(n.x) + std::abs(n.z))) fd.hidden = true;
    }
}

void Kit::hide_on(std::vector<FaceDraw>& fds, int axis, int32_t value) const {
    auto c = [&](uint8_t v) {
        const Vec3& p = b.at(v);
        return axis == 0 ? p.x : axis == 1 ? p.y : p.z;
    };
    for (FaceDraw& fd : fds)
        if (std::all_of(fd.poly.v.begin(), fd.poly.v.end(), [&](uint8_t v) { return c(v) == value; }))
            fd.hidden = true;
}

Poly Kit::on_face(const Poly& f, const std::vector<std::pair<double, double>>& ht) {
    const Plane pl = b.plane(f);
    const double n[3] = {double(pl.nx), double(pl.ny), double(pl.nz)};
    int dom = 0;
    for (int i = 1; i < 3; ++i)
        if (std::fabs(n[i]) > std::fabs(n[dom])) dom = i;
    // In-plane axes: across (h) and up (t); for horizontal faces x and z.
    const int ha = dom == 1 ? 0 : (dom == 0 ? 2 : 0);
    const int ta = dom == 1 ? 2 : 1;
    auto c = [&](const Vec3& p, int a) { return double(a == 0 ? p.x : a == 1 ? p.y : p.z); };
    double hmin = 1e18, hmax = -1e18, tmin = 1e18, tmax = -1e18;
    for (uint8_t v : f.v) {
        hmin = std::min(hmin, c(b.at(v), ha));
        hmax = std::max(hmax, c(b.at(v), ha));
        tmin = std::min(tmin, c(b.at(v), ta));
        tmax = std::max(tmax, c(b.at(v), ta));
    }
    std::vector<Vec3> pts;
    for (auto [h, t] : ht) {
        double p[3] = {0, 0, 0};
        p[ha] = hmin + h * (hmax - hmin);
        p[ta] = tmin + t * (tmax - tmin);
        p[dom] = (double(pl.d) - n[ha] * p[ha] - n[ta] * p[ta]) / n[dom];
        pts.push_back({int32_t(std::lround(p[0])), int32_t(std::lround(p[1])), int32_t(std::lround(p[2]))});
    }
    Poly q = b.poly(pts);
    const Dir fn = b.newell(f), qn = b.newell(q);
    if (fn.x * qn.x + fn.y * qn.y + fn.z * qn.z < 0) {
        std::reverse(q.v.begin(), q.v.end());
        q = b.clean(q.v);
    }
    return q;
}

Poly Kit::inset(const Poly& f, double h0, double h1, double t0, double t1) {
    return on_face(f, {{h0, t0}, {h1, t0}, {h1, t1}, {h0, t1}});
}

Instr Kit::detail(const Poly& f, double h0, double h1, double t0, double t1, const Material& m) {
    return secondary(b.packet(inset(f, h0, h1, t0, t1), m));
}

std::vector<uint8_t> Kit::slots(Role r) const {
    std::vector<uint8_t> out;
    for (const Child& c : children)
        if (c.role == r) out.push_back(c.slot);
    return out;
}

void Kit::place(uint8_t slot, Vec3 offset, const std::array<int32_t, 9>& rotation) {
    model.attachments.at(slot).offset = offset;
    model.attachments.at(slot).rotation = rotation;
}

Bounds Kit::child_bounds(uint8_t slot) const {
    for (const Child& c : children)
        if (c.slot == slot && c.built) return bounds_of(c.built->vertices);
    Bounds gameplay; // a typical store: 3 m long, 0.4 m wide
    gameplay.min = {-metres(0.2), -metres(0.2), -metres(1.5)};
    gameplay.max = {metres(0.2), metres(0.2), metres(1.5)};
    return gameplay;
}

void standard_metadata(Kit& k, Family f) {
    Metadata& m = k.model.meta;
    Rng& r = k.rng;
    constexpr uint32_t kCasts = 1, kMobile = 4;
    m.class_code = static_cast<int32_t>(f);
    switch (f) {
        case Family::Aircraft:
        case Family::Helicopter:
            m.properties = kCasts | kMobile;
            m.target_code = 50000;
            m.damage = r.range(300, 1200);
            m.explosion = r.range(2000, 4000);
            m.radar = f == Family::Aircraft ? 1 : 2;
            m.flags = 1;
            break;
        case Family::Vehicle:
            m.properties = kCasts | kMobile;
            m.target_code = 30000;
            m.damage = r.range(800, 3000);
            m.explosion = r.range(1500, 2500);
            m.radar = 3;
            m.flags = 1;
            break;
        case Family::Ship:
        case Family::Carrier:
            m.properties = kCasts | kMobile;
            m.target_code = 50000;
            m.damage = r.range(20000, 80000);
            m.explosion = r.range(8000, 16000);
            m.radar = 5;
            m.flags = 1;
            break;
        case Family::Building:
        case Family::CityBlock:
        case Family::Hangar:
        case Family::Tower:
        case Family::FuelTank:
        case Family::Bridge:
        case Family::Bunker:
            m.properties = kCasts;
            m.target_code = 10000;
            m.damage = r.range(2000, 10000);
            m.explosion = r.range(3000, 6000);
            break;
        case Family::RadarStation:
            m.properties = kCasts;
            m.target_code = 30000;
            m.damage = r.range(1500, 4000);
            m.explosion = r.range(2000, 4000);
            m.radar = 4;
            m.flags = 1;
            break;
        case Family::Pylon:
        case Family::Wall:
        case Family::Tree:
        case Family::Prop:
        case Family::Stretcher:
        case Family::RoofProp:
        case Family::Dish:
        case Family::Rotor:
        case Family::Blade:
        case Family::TailRotor:
        case Family::Turret:
        case Family::NavalTurret:
        case Family::Wreck:
        case Family::ShadowGeometry:
            m.properties = kCasts;
            m.damage = r.range(50, 400);
            m.explosion = r.range(200, 800);
            break;
        case Family::Weapon:
            m.properties = kCasts;
            m.explosion = r.range(200, 2000);
            break;
        case Family::Helipad:
        case Family::Effect:
        case Family::Null: break;
    }
}

} // namespace refcheck::synth
