// Painter's-order programs: convex parts become chains of decision planes (op 2) so that back
// faces are always drawn before front faces, and separate items are ordered by a separating face.
#pragma once
#include <vector>

#include "builder.hpp"

namespace refcheck::synth {

// A face: its primary packet followed by details (secondaries and the state switches around them).
struct FaceDraw {
    Poly poly;
    Packet packet;
    Block details;
    bool hidden = false; // never visible (ground contact, joined to another part): a separator only
};

// Something to order: the points it covers, faces whose planes may separate it from others, and
// the code that draws it.
struct Item {
    std::vector<Vec3> points;
    std::vector<Poly> separators;
    Block block;
    bool overlay = false; // smoke, lights, wires: drawn after the solids when no plane separates it
    bool mounted = false; // sits partly sunk into another part (a canopy, a fin): separators[0] is
                          // its mounting face, which decides alone whether it is drawn first or last
};

Item overlay(Item it);

Instr primary(Packet p);
Instr secondary(Packet p);
Instr if_mask(uint32_t mask, Block branch);
Instr choose(uint32_t mask, Block set, Block clear);
Instr select(uint8_t shift, uint32_t mask, std::vector<Block> cases);
Instr attach(uint8_t slot);
Instr plane(const Poly& p, Block front, Block back);

Block face_block(const FaceDraw& f);
// Nested decision planes over the faces of one convex solid.
Block convex_chain(const std::vector<FaceDraw>& faces);

class Painter {
public:
    explicit Painter(const ModelBuilder& b) : b_(b) {}
    Item part(const Part& p, const std::vector<FaceDraw>& faces) const;
    Item loose(const std::vector<uint8_t>& verts, Block block) const; // lines, points, effects
    Item box_points(Vec3 lo, Vec3 hi, Block block) const;             // e.g. an attached model
    // Orders items: a separating face where one exists; failing that, the solids first (ordered
    // again without the overlays) and the overlays after them; failing that, the given order.
    Block order(std::vector<Item> items) const;
    int fallbacks() const { return fallbacks_; }

private:
    const ModelBuilder& b_;
    mutable int fallbacks_ = 0;
    int classify(const Plane& pl, double tol, const Item& it) const; // 1 front, -1 back, 0 straddles
    bool split(std::vector<Item>& items, Block& out) const;
};

} // namespace refcheck::synth
