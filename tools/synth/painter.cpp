#include "painter.hpp"

namespace refcheck::synth {

Instr primary(Packet p) {
    Instr i;
    i.op = Op::Primary;
    i.packet = std::move(p);
    return i;
}

Instr secondary(Packet p) {
    Instr i;
    i.op = Op::Secondary;
    i.packet = std::move(p);
    return i;
}

Instr if_mask(uint32_t mask, Block branch) {
    Instr i;
    i.op = Op::IfMask;
    i.mask = mask;
    i.branches = {std::move(branch)};
    return i;
}

Instr choose(uint32_t mask, Block set, Block clear) {
    Instr i;
    i.op = Op::Choose;
    i.mask = mask;
    i.branches = {std::move(set), std::move(clear)};
    return i;
}

Instr select(uint8_t shift, uint32_t mask, std::vector<Block> cases) {
    Instr i;
    i.op = Op::Select;
    i.shift = shift;
    i.mask = mask;
    i.branches = std::move(cases);
    return i;
}

Instr attach(uint8_t slot) {
    Instr i;
    i.op = Op::Attach;
    i.slot = slot;
    return i;
}

Instr plane(const Poly& p, Block front, Block back) {
    Instr i;
    i.op = Op::Plane;
    i.plane = {p.v[0], p.v[1], p.v[2]};
    i.branches = {std::move(front), std::move(back)};
    return i;
}

Block face_block(const FaceDraw& f) {
    Block b{primary(f.packet)};
    b.insert(b.end(), f.details.begin(), f.details.end());
    return b;
}

Block convex_chain(const std::vector<FaceDraw>& all) {
    std::vector<FaceDraw> faces;
    for (const FaceDraw& f : all)
        if (!f.hidden) faces.push_back(f);
    if (faces.empty()) return {};
    Block tail = face_block(faces.back());
    for (size_t i = faces.size() - 1; i-- > 0;)
        tail = {plane(faces[i].poly, face_block(faces[i]), std::move(tail))};
    return tail;
}

Item Painter::part(const Part& p, const std::vector<FaceDraw>& faces) const {
    Item it;
    for (uint8_t v : p.verts) it.points.push_back(b_.at(v));
    for (const FaceDraw& f : faces) it.separators.push_back(f.poly);
    it.block = convex_chain(faces);
    return it;
}

Item Painter::loose(const std::vector<uint8_t>& verts, Block block) const {
    Item it;
    for (uint8_t v : verts) it.points.push_back(b_.at(v));
    it.block = std::move(block);
    return it;
}

Item Painter::box_points(Vec3 lo, Vec3 hi, Block block) const {
    Item it;
    for (int i = 0; i < 8; ++i)
        it.points.push_back({(i & 1) ? hi.x : lo.x, (i & 2) ? hi.y : lo.y, (i & 4) ? hi.z : lo.z});
    it.block = std::move(block);
    return it;
}

int Painter::classify(const Plane& pl, double tol, const Item& it) const {
    bool any_front = false, any_back = false;
    for (const Vec3& q : it.points) {
        const double s = static_cast<double>(pl.side(q));
        if (s > tol) any_front = true;
        if (s < -tol) any_back = true;
    }
    if (any_front && any_back) return 0;
    return any_back ? -1 : 1;
}

Item overlay(Item it) {
    it.overlay = true;
    return it;
}

bool Painter::split(std::vector<Item>& items, Block& out) const {
    for (size_t i = 0; i < items.size(); ++i) {
        if (!items[i].mounted) continue;
        Item part = std::move(items[i]);
        items.erase(items.begin() + long(i));
        part.mounted = false;
        const Poly mount = part.separators.front();
        out = {plane(mount, order(std::move(items)), std::move(part.block))};
        return true;
    }
    for (size_t i = 0; i < items.size(); ++i) {
        for (const Poly& sep : items[i].separators) {
            const Plane pl = b_.plane(sep);
            const double tol = pl.length() * b_.step();
            std::vector<Item> front, back;
            bool ok = true;
            for (size_t j = 0; j < items.size() && ok; ++j) {
                if (j == i) continue;
                const int c = classify(pl, tol, items[j]);
                if (c == 0)
                    ok = false;
                else
                    (c > 0 ? front : back).push_back(items[j]);
            }
            // The owner lies behind its own face, unless it is flat (a kerb, a billboard): then it may
            // stand on either side.
            const bool flat = classify(pl, tol, items[i]) > 0;
            (flat && !back.empty() ? front : back).push_back(items[i]);
            if (ok && !front.empty() && !back.empty()) {
                out = {plane(sep, order(std::move(front)), order(std::move(back)))};
                return true;
            }
        }
    }
    return false;
}

Block Painter::order(std::vector<Item> items) const {
    if (items.empty()) return {};
    if (items.size() == 1) return std::move(items[0].block);
    Block out;
    if (split(items, out)) return out;
    std::vector<Item> solids, overlays;
    for (Item& it : items) (it.overlay ? overlays : solids).push_back(std::move(it));
    if (!overlays.empty()) {
        out = order(std::move(solids));
        for (Item& it : overlays) out.insert(out.end(), it.block.begin(), it.block.end());
        return out;
    }
    ++fallbacks_;
    for (Item& it : solids) out.insert(out.end(), it.block.begin(), it.block.end());
    return out;
}

} // namespace refcheck::synth
