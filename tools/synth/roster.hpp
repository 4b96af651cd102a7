// The roster: what each record of a profile is (family, name, level of detail, attachments, and the
// documented features it carries), before any geometry is made.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model.hpp"

namespace refcheck::synth {

enum class Family : uint8_t {
    Null,
    Building,
    CityBlock,
    Hangar,
    Tower,
    FuelTank,
    Bridge,
    Pylon,
    Wall,
    RadarStation,
    Bunker,
    Helipad,
    RoofProp,
    Dish,
    Aircraft,
    Helicopter,
    Rotor,
    Blade,
    TailRotor,
    ShadowGeometry,
    Vehicle,
    Turret,
    Ship,
    NavalTurret,
    Carrier,
    Tree,
    Weapon,
    Prop,
    Stretcher,
    Effect,
    Wreck,
};

enum class Role : uint8_t { Gameplay, MainRotor, TailRotor, Blade, Turret, Aircraft, Prop, Dish, Missile };

struct ChildRef {
    Role role = Role::Gameplay;
    int spec = -1; // -1: a zero-ID gameplay slot
};

struct Spec {
    Family family = Family::Null;
    std::string name, description;
    Encoding encoding = Encoding::S16;
    uint32_t variant = 0; // style within the family
    int lod = 0;          // 0: full detail
    int next = -1;        // spec of the next level of detail
    int pin = -1;         // fixed record index, or -1
    std::vector<ChildRef> children;
    bool missing_normal = false;
    int u64_packets = 0;
    bool v80 = false;
    bool receiver = false;
    int shadow_geometry = -1; // spec whose geometry draws this model's shadow
    int aux = -1;             // spec named by 0xb0
};

struct Profile {
    std::string name;
    std::vector<Spec> specs;
    int texture_slots = 0;
    std::vector<int> textures_per_kind;
};

Profile default_profile();
Profile small_profile();
Profile profile_named(const std::string& name); // throws std::invalid_argument

// Record index of every spec: pinned specs first, the rest in roster order.
std::vector<int> place(const Profile& p);
// Instances made by constructing spec `s` with its gameplay slots empty.
int instances(const Profile& p, int s);

} // namespace refcheck::synth
