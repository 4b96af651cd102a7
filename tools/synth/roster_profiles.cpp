// The two profiles. The default one is laid out so that its census equals the reference archive's:
// 1,314 records (848 signed 16-bit, 466 grid), 250 with attachment blocks, 780 attached instances,
// 71 models reaching a missing normal, TARAWA at 130, the Apaches at 0x4ba/0x4bb shadowed by 0x40a.
#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <stdexcept>

#include "roster.hpp"

namespace refcheck::synth {
namespace {

constexpr Encoding S16 = Encoding::S16, GRID = Encoding::Grid;

class Roster {
public:
    Profile p;

    int add(Family f, std::string name, std::string desc, Encoding e, uint32_t variant, int lod = 0) {
        Spec s;
        s.family = f;
        s.name = std::move(name);
        s.description = std::move(desc);
        s.encoding = e;
        s.variant = variant;
        s.lod = lod;
        p.specs.push_back(std::move(s));
        return static_cast<int>(p.specs.size() - 1);
    }
    // A chain of `levels` records of decreasing detail linked through the next-record field.
    std::vector<int> chain(Family f, const std::string& name, const std::string& desc, Encoding e,
                           uint32_t variant, int levels) {
        std::vector<int> ids;
        for (int l = 0; l < levels; ++l) {
            const std::string n = l == 0 ? name : name.substr(0, 13) + "_" + std::to_string(l);
            ids.push_back(add(f, n, desc + (l ? " (level " + std::to_string(l) + ")" : ""), e, variant, l));
            if (l) spec(ids[l - 1]).next = ids[l];
        }
        return ids;
    }
    Spec& spec(int id) { return p.specs.at(static_cast<size_t>(id)); }
    void child(int parent, Role r, int s = -1) { spec(parent).children.push_back({r, s}); }
    int count(Encoding e) const {
        return static_cast<int>(
            std::count_if(p.specs.begin(), p.specs.end(), [&](const Spec& s) { return s.encoding == e; }));
    }
    int blocks() const {
        return static_cast<int>(
            std::count_if(p.specs.begin(), p.specs.end(), [](const Spec& s) { return !s.children.empty(); }));
    }
    int attached() const {
        int t = 0;
        for (size_t s = 0; s < p.specs.size(); ++s) t += instances(p, static_cast<int>(s)) - 1;
        return t;
    }
    std::set<int> targets() const {
        std::set<int> t;
        for (const Spec& s : p.specs)
            for (const ChildRef& c : s.children)
                if (c.spec >= 0) t.insert(c.spec);
        return t;
    }
    // Marks `n` models (none of them an attachment target) as reaching a missing normal.
    void missing_normals(const std::vector<int>& candidates, int n) {
        const std::set<int> t = targets();
        int done = 0;
        for (int c : candidates) {
            if (done == n) break;
            if (t.count(c) || spec(c).missing_normal) continue;
            spec(c).missing_normal = true;
            ++done;
        }
        if (done != n) throw std::logic_error("not enough candidates for missing normals");
    }
};

const char* const kAircraft[] = {"a10",     "f16c",   "f15e",   "f18c",  "av8b",  "f117",
                                 "tornado", "jaguar", "mig21",  "mig23", "mig27", "mig29",
                                 "su17",    "su24",   "su25",   "su27",  "an26",  "c130",
                                 "l39",     "hawk",   "mirage", "ov10",  "e2c",   "mi6tanker"};
const char* const kHelis[] = {"ah64a", "ah64d", "mi24", "mi28", "ka50",  "uh60", "ch46", "ch47",
                              "oh58",  "ah1w",  "mi8",  "mi17", "sa342", "lynx", "uh1n", "ka29"};
const char* const kVehicles[] = {"m1a1",     "t72",    "t80",     "bmp2",    "m2a2",    "zsu234",
                                 "sa6tel",   "sa8tel", "sa13tel", "sa15tel", "sa19tel", "m163",
                                 "t55",      "t62",    "pt76",    "bmd1",    "m60a3",   "leopard2",
                                 "chieftan", "lav25",  "m109",    "2s1",     "2s3",     "bm21"};
const char* const kWeapons[] = {"aim9l",   "aim9m", "aim120", "aim7",  "hellfire", "stinger",
                                "hydra70", "tow",   "sa6m",   "sa8m",  "sa13m",    "sa15m",
                                "sa19m",   "at6",   "at9",    "mk82",  "mk83",     "mk84",
                                "gbu10",   "gbu12", "cbu87",  "agm65", "agm88",    "durandal"};
const char* const kShips[] = {"ffg7",   "dd963", "cg47",     "lpd4",   "lst1179", "krivak", "kashin",
                              "udaloy", "osa2",  "nanuchka", "grisha", "poti",    "tanker", "freighter"};
const char* const kTrees[] = {"pine",   "spruce",  "fir",    "oak",   "elm",      "beech", "ash",
                              "poplar", "birch",   "willow", "palm",  "datepalm", "scrub", "bush",
                              "cedar",  "cypress", "larch",  "maple", "acacia",   "olive"};

std::string numbered(const std::string& stem, int i) {
    return stem + (i < 10 ? "0" : "") + std::to_string(i);
}

// Helicopter with its rotor assembly (blades nested inside it) and tail rotor.
int helicopter(Roster& r, const std::string& name, uint32_t variant, int stores, int rotor, int tail,
               int levels, std::vector<int>* lods) {
    std::vector<int> ids = r.chain(Family::Helicopter, name, name + " helicopter", S16, variant, levels);
    for (int id : ids) {
        r.child(id, Role::MainRotor, rotor);
        r.child(id, Role::TailRotor, tail);
        for (int s = 0; s < stores; ++s) r.child(id, Role::Gameplay);
    }
    if (lods) *lods = ids;
    return ids[0];
}

std::pair<int, int> rotor_set(Roster& r, const std::string& name, int blades, uint32_t variant) {
    const int blade = r.add(Family::Blade, name + "bld", name + " main rotor blade", S16, variant);
    const int rotor = r.add(Family::Rotor, name + "rtr", name + " main rotor assembly", S16, variant);
    for (int b = 0; b < blades; ++b) r.child(rotor, Role::Blade, blade);
    const int tail = r.add(Family::TailRotor, name + "trt", name + " tail rotor", S16, variant);
    return {rotor, tail};
}

} // namespace

Profile default_profile() {
    Roster r;
    r.p.name = "default";
    r.p.texture_slots = 480;
    r.p.textures_per_kind = {5, 3, 3, 4, 6, 5, 5, 4, 2, 2, 2, 2}; // 43 populated
    std::vector<int> mn_trees, mn_aircraft, mn_props, mn_buildings;
    // Scenery on the grid encoding.
    r.spec(r.add(Family::Null, "null", "null model", S16, 0)).pin = 0;
    const auto cit = r.chain(Family::CityBlock, "citblkd0", "city block, shops and flats", GRID, 0, 2);
    r.spec(cit[0]).pin = 16;
    r.spec(cit[1]).pin = 17;
    r.spec(cit[1]).name = "citblkd1";
    for (int i = 1; i < 20; ++i)
        r.chain(Family::CityBlock, numbered("citblk", i), "city block", GRID, uint32_t(i), 2);
    for (int i = 0; i < 110; ++i) {
        const auto ids = r.chain(Family::Building, numbered("bldg", i),
                                 i % 3 ? "town building" : "office building", GRID, uint32_t(i), 2);
        mn_buildings.push_back(ids[0]);
        if (i % 27 == 5) r.spec(ids[0]).u64_packets = 3;
    }
    for (int i = 0; i < 8; ++i)
        r.chain(Family::Hangar, numbered("hangar", i), "aircraft hangar", GRID, uint32_t(i), 2);
    for (int i = 0; i < 6; ++i)
        r.chain(Family::Tower, numbered("ctower", i), "control tower", GRID, uint32_t(i), 2);
    for (int i = 0; i < 10; ++i)
        r.add(Family::Bunker, numbered("bunker", i), "concrete bunker", GRID, uint32_t(i));
    for (int i = 0; i < 12; ++i)
        r.add(Family::FuelTank, numbered("fueltank", i), "fuel storage tank", GRID, uint32_t(i));
    for (int i = 0; i < 10; ++i)
        r.add(Family::Bridge, numbered("bridge", i), "road bridge", GRID, uint32_t(i));
    for (int i = 0; i < 8; ++i)
        r.add(Family::Pylon, numbered("pylon", i), "power line pylon", GRID, uint32_t(i));
    for (int i = 0; i < 16; ++i)
        r.add(Family::Wall, numbered(i % 2 ? "fence" : "wall", i), i % 2 ? "chain-link fence" : "brick wall",
              GRID, uint32_t(i));
    for (int i = 0; i < 8; ++i)
        r.add(Family::Helipad, numbered("helipad", i), "helicopter landing pad", GRID, uint32_t(i));
    for (int i = 0; i < 10; ++i) {
        const int dish = r.add(Family::Dish, numbered("rdish", i), "radar dish", GRID, uint32_t(i));
        const int st = r.add(Family::RadarStation, numbered("radar", i), "radar station", GRID, uint32_t(i));
        for (int c = 0; c < 4; ++c) r.child(st, Role::Dish, dish);
    }
    // Ships.
    std::vector<int> naval;
    for (int i = 0; i < 8; ++i)
        naval.push_back(
            r.add(Family::NavalTurret, numbered("navgun", i), "naval gun turret", S16, uint32_t(i)));
    for (int i = 0; i < 14; ++i) {
        const auto ids =
            r.chain(Family::Ship, kShips[i], std::string(kShips[i]) + " ship", S16, uint32_t(i), 2);
        r.child(ids[0], Role::Turret, naval[i % 8]);
        r.child(ids[0], Role::Turret, naval[(i + 3) % 8]);
    }
    // Rotorcraft parts, aircraft and helicopters.
    std::vector<std::pair<int, int>> rotors;
    for (int i = 0; i < 16; ++i) rotors.push_back(rotor_set(r, kHelis[i], 2 + (i % 4), uint32_t(i)));
    std::vector<int> aircraft0;
    for (int i = 0; i < 24; ++i) {
        const auto ids = r.chain(Family::Aircraft, kAircraft[i], std::string(kAircraft[i]) + " aircraft", S16,
                                 uint32_t(i), 3);
        for (int l = 0; l < 2; ++l)
            for (int s = 0; s < 2 + (i % 3) * 2; ++s) r.child(ids[l], Role::Gameplay);
        aircraft0.push_back(ids[0]);
        mn_aircraft.push_back(ids[0]);
    }
    std::vector<int> heli0;
    for (int i = 0; i < 16; ++i)
        heli0.push_back(helicopter(r, kHelis[i], uint32_t(i), i < 6 ? 4 : (i % 2) * 2, rotors[i].first,
                                   rotors[i].second, 2, nullptr));
    r.spec(heli0[0]).pin = 0x4ba;
    r.spec(heli0[1]).pin = 0x4bb;
    const int shadow = r.add(Family::ShadowGeometry, "ah64shd", "AH-64 shadow geometry", S16, 0);
    r.spec(shadow).pin = 0x40a;
    r.spec(heli0[0]).shadow_geometry = r.spec(heli0[1]).shadow_geometry = shadow;
    // The carrier: TARAWA at 130 carries helicopters and jump jets on its deck.
    const auto tarawa = r.chain(Family::Carrier, "tarawa", "TARAWA amphibious assault ship", S16, 0, 2);
    r.spec(tarawa[0]).pin = 130;
    r.spec(tarawa[0]).receiver = true;
    for (int h : {heli0[6], heli0[6], heli0[14], heli0[15]}) r.child(tarawa[0], Role::Aircraft, h);
    for (int a = 0; a < 2; ++a) r.child(tarawa[0], Role::Aircraft, aircraft0[4]);
    // Weapons (the SAM rounds ride on their launchers' turrets).
    std::vector<int> weapons;
    for (int i = 0; i < 60; ++i) {
        const std::string n = i < 24 ? kWeapons[i] : numbered("store", i);
        weapons.push_back(r.add(Family::Weapon, n, "weapon " + n, S16, uint32_t(i)));
    }
    // Ground vehicles: 24 named types carry turrets (SAM launchers carry missiles on them).
    for (int i = 0; i < 48; ++i) {
        const std::string n = i < 24 ? kVehicles[i] : numbered("truck", i);
        const auto ids = r.chain(Family::Vehicle, n, n + " vehicle", S16, uint32_t(i), 2);
        if (i >= 24) continue;
        const int turret = r.add(Family::Turret, n.substr(0, 12) + "tur", n + " turret", S16, uint32_t(i));
        if (i >= 6 && i < 12) {
            for (int m = 0; m < 2 + (i % 3); ++m) r.child(turret, Role::Missile, weapons[8 + (i - 6)]);
        } else if (i < 14 || i % 2 == 0) {
            r.child(turret, Role::Gameplay);
        }
        for (int id : ids) r.child(id, Role::Turret, turret);
    }
    // Nature, props, effects, wrecks.
    for (int i = 0; i < 40; ++i) {
        const auto ids =
            r.chain(Family::Tree, i < 20 ? kTrees[i] : numbered("tree", i), "tree", S16, uint32_t(i), 3);
        mn_trees.push_back(ids[0]);
        mn_trees.push_back(ids[1]);
    }
    std::vector<int> roof_props;
    for (int i = 0; i < 12; ++i)
        roof_props.push_back(
            r.add(Family::RoofProp, numbered("roofprop", i), "rooftop equipment", S16, uint32_t(i)));
    const int stretcher = r.add(Family::Stretcher, "CasStrch", "casualty stretcher", S16, 0);
    r.spec(stretcher).v80 = true;
    for (int i = 0; i < 100; ++i)
        mn_props.push_back(r.add(Family::Prop, numbered("prop", i), "scenery prop", S16, uint32_t(i)));
    for (int i = 0; i < 60; ++i)
        r.add(Family::Effect, numbered("effect", i), "visual effect", S16, uint32_t(i));
    for (int i = 0; i < 80; ++i) r.add(Family::Wreck, numbered("wreck", i), "wreckage", S16, uint32_t(i));
    // Fill to the reference's encoding split; 250 attachment blocks, the rest of them on rooftops.
    for (int i = 0; r.count(S16) < 848; ++i)
        mn_props.push_back(r.add(Family::Prop, numbered("misc", i), "scenery prop", S16, uint32_t(i + 3)));
    const int flex = 250 - r.blocks();
    std::vector<int> flexible;
    for (int i = 0; r.count(GRID) < 466; ++i) {
        const int id =
            r.add(Family::Building, numbered("block", i), "building with rooftop plant", GRID, uint32_t(i));
        if (i < flex) {
            flexible.push_back(id);
            r.child(id, Role::Prop, roof_props[i % roof_props.size()]);
        }
    }
    if (int(flexible.size()) != flex) throw std::logic_error("not enough grid records for attachment blocks");
    for (int i = 0; r.attached() < 780; ++i) {
        const int id = flexible[i % flexible.size()];
        if (r.spec(id).children.size() >= 8) throw std::logic_error("rooftop capacity exceeded");
        r.child(id, Role::Prop, roof_props[(i * 5) % roof_props.size()]);
    }
    // Aux models: wreckage for scenery and vehicles, exhaust for missiles, muzzle flash for guns.
    std::vector<int> wrecks, flashes, exhausts;
    for (size_t s = 0; s < r.p.specs.size(); ++s) {
        const Spec& sp = r.p.specs[s];
        if (sp.family == Family::Wreck) wrecks.push_back(int(s));
        if (sp.family == Family::Effect && sp.variant % 5 == 2) flashes.push_back(int(s));
        if (sp.family == Family::Effect && sp.variant % 5 == 1) exhausts.push_back(int(s));
    }
    for (size_t s = 0; s < r.p.specs.size(); ++s) {
        Spec& sp = r.spec(int(s));
        if (sp.family == Family::Building || sp.family == Family::Vehicle) sp.aux = wrecks[s % wrecks.size()];
        if (sp.family == Family::Weapon) sp.aux = exhausts[s % exhausts.size()];
        if (sp.family == Family::Turret || sp.family == Family::NavalTurret)
            sp.aux = flashes[s % flashes.size()];
    }
    // Missing normals: A10 and AIM9L first, then trees, aircraft, props and buildings in turn.
    std::vector<int> candidates{aircraft0[0], weapons[0]};
    for (size_t i = 0; i < mn_buildings.size() + mn_trees.size(); ++i)
        for (auto* list : {&mn_trees, &mn_aircraft, &mn_props, &mn_buildings})
            if (i < list->size()) candidates.push_back((*list)[i]);
    r.missing_normals(candidates, 71);
    return r.p;
}

Profile small_profile() {
    Roster r;
    r.p.name = "small";
    r.p.texture_slots = 64;
    r.p.textures_per_kind = std::vector<int>(12, 1);
    r.add(Family::Null, "null", "null model", S16, 0);
    const auto cit = r.chain(Family::CityBlock, "citblkd0", "city block, shops and flats", GRID, 0, 2);
    r.spec(cit[1]).name = "citblkd1";
    const int prop_a = r.add(Family::RoofProp, "roofprop00", "rooftop equipment", S16, 0);
    const int prop_b = r.add(Family::RoofProp, "roofprop01", "rooftop equipment", S16, 1);
    const int bldg = r.add(Family::Building, "block00", "building with rooftop plant", GRID, 0);
    r.child(bldg, Role::Prop, prop_a);
    r.child(bldg, Role::Prop, prop_b);
    const auto office = r.chain(Family::Building, "bldg00", "office building", GRID, 2, 2);
    r.spec(office[0]).u64_packets = 2;
    const int dish = r.add(Family::Dish, "rdish00", "radar dish", GRID, 0);
    const int radar = r.add(Family::RadarStation, "radar00", "radar station", GRID, 0);
    for (int c = 0; c < 4; ++c) r.child(radar, Role::Dish, dish);
    r.add(Family::FuelTank, "fueltank00", "fuel storage tank", GRID, 0);
    r.add(Family::Wall, "fence01", "chain-link fence", GRID, 1);
    r.add(Family::Helipad, "helipad00", "helicopter landing pad", GRID, 1);
    const auto [rotor, tail] = rotor_set(r, "ch46", 3, 0);
    const int ch46 = helicopter(r, "ch46", 1, 0, rotor, tail, 1, nullptr);
    const auto [arotor, atail] = rotor_set(r, "ah64", 4, 1);
    const int ah64a = helicopter(r, "ah64a", 0, 4, arotor, atail, 1, nullptr);
    const int ah64d = helicopter(r, "ah64d", 2, 4, arotor, atail, 1, nullptr);
    const int shadow = r.add(Family::ShadowGeometry, "ah64shd", "AH-64 shadow geometry", S16, 0);
    r.spec(ah64a).shadow_geometry = r.spec(ah64d).shadow_geometry = shadow;
    const auto harrier = r.chain(Family::Aircraft, "av8b", "av8b aircraft", S16, 4, 1);
    r.child(harrier[0], Role::Gameplay);
    r.child(harrier[0], Role::Gameplay);
    const auto a10 = r.chain(Family::Aircraft, "a10", "a10 aircraft", S16, 0, 2);
    for (int s = 0; s < 4; ++s) r.child(a10[0], Role::Gameplay);
    const auto tarawa = r.chain(Family::Carrier, "tarawa", "TARAWA amphibious assault ship", S16, 0, 1);
    r.spec(tarawa[0]).receiver = true;
    r.child(tarawa[0], Role::Aircraft, ch46);
    r.child(tarawa[0], Role::Aircraft, harrier[0]);
    const int gun = r.add(Family::NavalTurret, "navgun00", "naval gun turret", S16, 1);
    const auto ship = r.chain(Family::Ship, "ffg7", "ffg7 frigate", S16, 0, 1);
    r.child(ship[0], Role::Turret, gun);
    r.child(ship[0], Role::Turret, gun);
    const int aim9l = r.add(Family::Weapon, "aim9l", "weapon aim9l", S16, 0);
    const int sam = r.add(Family::Weapon, "sa6m", "weapon sa6m", S16, 1);
    r.add(Family::Weapon, "agm65", "weapon agm65", S16, 3);
    const int turret = r.add(Family::Turret, "sa6tur", "sa6 launcher turret", S16, 0);
    r.child(turret, Role::Missile, sam);
    r.child(turret, Role::Missile, sam);
    r.child(turret, Role::Gameplay);
    const auto tel = r.chain(Family::Vehicle, "sa6tel", "sa6 launcher vehicle", S16, 0, 1);
    r.child(tel[0], Role::Turret, turret);
    r.add(Family::Vehicle, "truck00", "cargo truck", S16, 2);
    std::vector<int> trees;
    for (uint32_t v : {0u, 1u, 3u})
        trees.push_back(r.add(Family::Tree, std::string("tree0") + char('0' + v), "tree", S16, v));
    r.add(Family::Tree, "pine_2", "tree (level 2)", S16, 0, 2);
    r.spec(r.add(Family::Stretcher, "CasStrch", "casualty stretcher", S16, 0)).v80 = true;
    for (uint32_t v = 0; v < 4; ++v)
        r.add(Family::Effect, std::string("effect0") + char('0' + v), "visual effect", S16, v);
    for (uint32_t v : {2u, 5u, 6u})
        r.add(Family::Prop, std::string("prop0") + char('0' + v), "scenery prop", S16, v);
    r.add(Family::Wreck, "wreck00", "wreckage", S16, 0);
    r.missing_normals({a10[0], aim9l, trees[0], trees[2], office[0]}, 5);
    return r.p;
}

} // namespace refcheck::synth
