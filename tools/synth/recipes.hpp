// One recipe per family: each fills the model through a Kit (geometry, program, attachments).
#pragma once
#include "kit.hpp"

namespace refcheck::synth {

using Recipe = void (*)(Kit&);
Recipe recipe_for(Family f);

// Buildings and structures (grid coordinates).
void build_building(Kit& k);
void build_city_block(Kit& k);
void build_hangar(Kit& k);
void build_tower(Kit& k);
void build_bunker(Kit& k);
void build_fuel_tank(Kit& k);
void build_bridge(Kit& k);
void build_pylon(Kit& k);
void build_wall(Kit& k);
void build_helipad(Kit& k);
void build_radar_station(Kit& k);
void build_dish(Kit& k);
// Aircraft and their parts.
void build_aircraft(Kit& k);
void build_helicopter(Kit& k);
void build_rotor(Kit& k);
void build_blade(Kit& k);
void build_tail_rotor(Kit& k);
void build_shadow_geometry(Kit& k);
// Ground and sea.
void build_vehicle(Kit& k);
void build_turret(Kit& k);
void build_ship(Kit& k);
void build_naval_turret(Kit& k);
void build_carrier(Kit& k);
// Everything else.
void build_null(Kit& k);
void build_tree(Kit& k);
void build_weapon(Kit& k);
void build_prop(Kit& k);
void build_roof_prop(Kit& k);
void build_stretcher(Kit& k);
void build_effect(Kit& k);
void build_wreck(Kit& k);

// Shared pieces.
struct Windows {
    std::vector<Poly> panes;
};
// A grid of windows on a wall face, at most `budget` of them (4 vertices each).
Windows window_grid(Kit& k, const Poly& wall, int floors, double wall_len, int budget);
// Window panes as secondaries: lit at night (op 4) when `night`, with frames on the first row.
Block window_details(Kit& k, const Windows& w, bool night, bool frames);
// Damage smoke and fire above a point (op 4 on the destroyed bit).
Item damage_item(Kit& k, Vec3 top, double size);
// Bounds of an attached child placed at `offset` with a yaw of `quarter` quarter turns.
Bounds placed_bounds(const Bounds& child, Vec3 offset, int quarter);
std::array<int32_t, 9> quarter_yaw(int quarter);
// Panel seams (outline polylines) after every polygonal primary of a finished program.
void add_seams(Kit& k, Block& program, uint8_t colour);
// An attached child standing on a thin pad (whose side faces order it against its neighbours).
std::vector<Item> pad_and_child(Kit& k, uint8_t slot, Vec3 centre, int quarter, const Material& pad);

} // namespace refcheck::synth
