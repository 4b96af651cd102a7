// What a recipe works with: the spec, the builder and painter, materials, and its attachments.
#pragma once
#include <functional>
#include <vector>

#include "anim.hpp"
#include "builder.hpp"
#include "painter.hpp"
#include "palette.hpp"
#include "rng.hpp"
#include "roster.hpp"
#include "textures.hpp"
#include "writer.hpp"

namespace refcheck::synth {

constexpr int32_t kMetre = 512; // world units per metre (generator's choice)
inline int32_t metres(double m) { return static_cast<int32_t>(m * kMetre + (m < 0 ? -0.5 : 0.5)); }

// Materials by primitive type.
Material flat(uint8_t c);                           // 2
Material shaded(uint8_t c);                         // 11
Material two_colour(uint8_t a, uint8_t b);          // 3
Material shaded_two(uint8_t a, uint8_t b);          // 12
Material fine_mesh(uint8_t c, bool shade);          // 4 / 13
Material coarse_mesh(uint8_t c, bool shade);        // 5 / 14
Material glass();                                   // 6
Material haze();                                    // 21
Material texture(uint16_t slot, bool shade);        // 7 / 15
Material masked(uint16_t slot, bool shade);         // 8 / 16
Material gouraud(uint8_t c);                        // 17
Material gouraud_two(uint8_t a, uint8_t b);         // 18
Material gouraud_texture(uint16_t slot, bool mask); // 19 / 20

struct Child {
    Role role;
    uint8_t slot;
    int32_t model;      // record index, 0 for a gameplay slot
    const Model* built; // nullptr for a gameplay slot
};

class Kit {
public:
    Kit(Model& m, const Spec& spec, Rng rng, const TextureSet& tex, std::vector<Child> children);

    Model& model;
    const Spec& spec;
    Rng rng;
    const TextureSet& tex;
    ModelBuilder b;
    Painter paint;
    std::vector<Child> children;

    int32_t snap(double m) const { return b.snap(metres(m)); }
    Vec3 at(double x, double y, double z) const { return {snap(x), snap(y), snap(z)}; }
    bool detailed() const { return spec.lod == 0; }

    FaceDraw face(const Poly& p, const Material& m, const Smooth& s = {});
    std::vector<FaceDraw> faces(const Part& part, const Material& m);
    std::vector<FaceDraw> faces(const Part& part, const std::function<Material(size_t, const Poly&)>& pick);
    Item solid(const Part& part, const Material& m) { return paint.part(part, faces(part, m)); }
    // A part sunk into another (canopy, fin, tailplane): its face towards the host (by default the
    // downward one) is hidden and alone decides whether it is drawn before or after the rest.
    Item mounted(const Part& part, std::vector<FaceDraw> fds, Dir toward = {0, -1, 0});
    // Hides faces facing down (resting on the ground) or lying on the plane axis = value (joined caps).
    void hide_down(std::vector<FaceDraw>& fds) const;
    void hide_on(std::vector<FaceDraw>& fds, int axis, int32_t value) const;
    // Outline of a face as a secondary polyline (panel seams); costs no vertices.
    Instr seam(const Poly& f, uint8_t colour) {
        std::vector<uint8_t> v = f.v;
        v.push_back(v.front());
        return secondary(b.line(v, 1, colour));
    }

    // A polygon lying on face `f`'s plane, inset into it: for secondaries (coplanar detail).
    // (h, t) in [0, 1]: across the face and up it (walls), or across x and z (horizontal faces).
    Poly inset(const Poly& f, double h0, double h1, double t0, double t1);
    Poly on_face(const Poly& f, const std::vector<std::pair<double, double>>& ht);
    Instr detail(const Poly& f, double u0, double u1, double v0, double v1, const Material& m);

    // Attachment block entries and op 6 for each child of a role; returns the slots.
    std::vector<uint8_t> slots(Role r) const;
    void place(uint8_t slot, Vec3 offset, const std::array<int32_t, 9>& rotation);
    Bounds child_bounds(uint8_t slot) const; // in the child's own space

    uint16_t texture_slot(TexKind k) { return tex.slot(k, static_cast<uint32_t>(rng.below(64))); }
};

// Common metadata for families (0x98..0xb8), before the generator applies roster-wide bits.
void standard_metadata(Kit& k, Family f);

} // namespace refcheck::synth
