#include "family/scene_script.hpp"

#include "family/placement.hpp"
#include "refcheck/harness/run.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace refcheck::harness {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kQ31 = 2147483647.0;
constexpr std::int32_t kSector = 1 << 16;
constexpr std::int32_t kCentre = 32 * kSector + kSector / 2; // the middle of the sector map

// The models of the scripts by short name (hdr.name), each with a stand-in of the small archives
// after it: in the reference's roster (and the default synthetic archives) "tarawa" is record 130
// and the Apaches "ah64a" and "ah64d" are 0x4ba and 0x4bb, whose shadows are those of 0x40a.
using Names = std::vector<std::string_view>;
const Names kCarrier{"tarawa"}, kApacheA{"ah64a"}, kApacheD{"ah64d"}, kA10{"a10"}, kHarrier{"av8b"},
    kCh46{"ch46"};
const Names kF16{"f16c", "a10"}, kF15{"f15e", "av8b"}, kTornado{"tornado", "a10"}, kMig29{"mig29", "av8b"};
const Names kSu25{"su25", "a10"}, kC130{"c130", "a10"}, kMi24{"mi24", "ch46"}, kUh60{"uh60", "ch46"};
const Names kKa50{"ka50", "ah64d"}, kOh58{"oh58", "ch46"};

bool same_name(const char (&field)[16], std::string_view name) {
    const std::string_view stored(field, strnlen(field, sizeof field));
    return stored.size() == name.size() &&
           std::equal(stored.begin(), stored.end(), name.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) ==
                      std::tolower(static_cast<unsigned char>(b));
           });
}

// The first populated record whose short name is the first of `names` found (case-insensitive).
std::uint32_t model_named(const reimpl::ModelArchive& models, const Names& names) {
    for (std::string_view name : names)
        for (std::uint32_t i = 0; i < models.count(); ++i)
            if (models.populated(i) && same_name(models.record(i).header.short_name, name)) return i;
    throw PreconditionError("the scene scripts need a model named " + std::string(names.front()) +
                            ", which the data root's 3DOBJS.BIN lacks");
}

reimpl::Vec3 add(const reimpl::Vec3& a, const reimpl::Vec3& b) {
    return {a[0] + b[0], a[1] + b[1], a[2] + b[2]};
}

// A model turned to fly along (dx, dz): its local +z (the nose) along that heading.
reimpl::Mat3 heading(double dx, double dz) { return rotation(std::atan2(-dx, dz) * 180 / kPi, 0, 0, kQ31); }

// The position at `altitude` whose shadow, cast along the sun onto y = 0, lands on `target`'s x and
// z: p = t + L.xz * altitude / L.y (shadow.project with sun = -L).
reimpl::Vec3 over(const reimpl::Vec3& target, std::int32_t altitude, const reimpl::Vec3& light) {
    return {static_cast<std::int32_t>(target[0] + std::int64_t{light[0]} * altitude / light[1]), altitude,
            static_cast<std::int32_t>(target[2] + std::int64_t{light[2]} * altitude / light[1])};
}

struct Cast {
    const reimpl::ModelArchive& models;
    std::vector<Actor> actors;
    void add(const Names& model, const reimpl::Vec3& start, const reimpl::Vec3& step, const reimpl::Mat3& rot,
             bool built = true) {
        actors.push_back({static_cast<std::uint32_t>(actors.size() + 1), model_named(models, model), start,
                          step, rot, built});
    }
};

const Island& first_island(const Case& c, const std::string& script) {
    if (c.scene.islands.empty())
        throw CaseError(c.file.string() + ": scene script \"" + script +
                        "\" needs an island in selection.scene.islands");
    return c.scene.islands.front();
}

// The carrier steaming north at sea, aircraft over its deck (their shadows fall on it), an Apache
// over the water beside it; the camera circles the carrier from the south-west.
ScenePlan deck(const reimpl::ModelArchive& models, const reimpl::Vec3& light) {
    const reimpl::Vec3 k{kCentre, 0, kCentre}, sail{0, 0, 150};
    Cast cast{models, {}};
    cast.add(kCarrier, k, sail, reimpl::kIdentityQ31);
    cast.add(kApacheA, over(add(k, {-3000, 0, 20000}), 20000, light), {0, 0, 270}, heading(0, 1));
    cast.add(kCh46, over(add(k, {2500, 0, -30000}), 17000, light), sail, heading(0, -1));
    cast.add(kHarrier, over(add(k, {0, 0, -50000}), 26000, light), {0, 0, 1750}, heading(0, 1));
    cast.add(kApacheD, over(add(k, {-45000, 0, 10000}), 8000, light), {0, 0, 400}, heading(0, 1));
    return {"deck", Surface::Deck, cast.actors, {add(k, {0, 8000, 0}), sail, 80000, 36000, 215, 80}};
}

// A low formation heading east over open water, far from any island; the camera chases it.
ScenePlan sea(const reimpl::ModelArchive& models) {
    const reimpl::Vec3 s{kCentre, 0, kCentre - 8 * kSector}, east{1400, 0, 0};
    const reimpl::Mat3 h = heading(1, 0);
    Cast cast{models, {}};
    cast.add(kApacheA, add(s, {0, 6000, 0}), east, h);
    cast.add(kApacheD, add(s, {-12000, 7000, 9000}), east, h);
    cast.add(kF16, add(s, {-25000, 12000, -6000}), east, h);
    cast.add(kMi24, add(s, {-8000, 5000, -14000}), east, h);
    cast.add(kUh60, add(s, {-20000, 4000, 15000}), east, h);
    cast.add(kA10, add(s, {-35000, 15000, 4000}), east, h);
    // scene.instance: a mobile whose instance is 0, in the formation's midst, where it would be
    // drawn and cast a shadow in view if it had one.
    cast.add(kA10, add(s, {-6000, 9000, 6000}), east, h, false);
    return {"sea", Surface::Water, cast.actors, {add(s, {-15000, 6000, 0}), east, 60000, 26000, -60, 40}};
}

// Aircraft crossing the island (their shadows on its slopes); the camera circles above it.
ScenePlan island(const reimpl::ModelArchive& models, const Island& isle, const reimpl::Vec3& light) {
    const reimpl::Vec3 i{isle.x, 0, isle.z};
    Cast cast{models, {}};
    cast.add(kKa50, over(add(i, {-5000, 0, 4000}), isle.height + 12000, light), {0, 0, 100}, heading(0, 1));
    cast.add(kOh58, add(i, {-60000, isle.height + 6000, -15000}), {2500, 0, 0}, heading(1, 0));
    cast.add(kSu25, add(i, {40000, isle.height + 16000, 50000}), {-1500, 0, -3000}, heading(-1, -2));
    cast.add(kApacheA, add(i, {-20000, isle.height + 6000, -70000}), {0, 0, 2000}, heading(0, 1));
    return {"island", Surface::Terrain, cast.actors, {add(i, {0, 6000, 0}), {}, 60000, 38000, 150, 100}};
}

// Above the cloud layer: aircraft above it cast onto it; one below it is not drawn (mobile.cloud).
ScenePlan clouds(const reimpl::ModelArchive& models, const Island& isle, std::int32_t cloud) {
    const reimpl::Vec3 c{isle.x, 0, isle.z - 80000}, cruise{1800, 0, 600};
    const reimpl::Mat3 h = heading(3, 1);
    Cast cast{models, {}};
    cast.add(kF15, add(c, {-10000, cloud + 12000, 0}), cruise, h);
    cast.add(kTornado, add(c, {10000, cloud + 18000, 15000}), cruise, h);
    cast.add(kMig29, add(c, {0, cloud + 6000, -15000}), cruise, h);
    cast.add(kApacheD, add(c, {-20000, cloud + 3000, 10000}), {800, 0, 200}, heading(4, 1));
    cast.add(kC130, add(c, {0, cloud / 2, 0}), {1500, 0, 0}, heading(1, 0));
    return {"clouds",
            Surface::Clouds,
            cast.actors,
            {add(c, {0, cloud + 2000, 0}), cruise, 55000, 26000, 200, 60}};
}

} // namespace

std::int32_t island_terrain(const std::vector<Island>& islands, std::int32_t x, std::int32_t z) {
    std::int32_t h = 0;
    for (const Island& i : islands) {
        const std::int64_t dx = std::int64_t{x} - i.x, dz = std::int64_t{z} - i.z;
        if (dx <= -i.radius || dx >= i.radius || dz <= -i.radius || dz >= i.radius) continue;
        const std::int64_t d2 = dx * dx + dz * dz, r2 = std::int64_t{i.radius} * i.radius;  // < 2^41
        if (d2 < r2) h = std::max(h, static_cast<std::int32_t>(i.height * (r2 - d2) / r2)); // < 2^61
    }
    return h;
}

reimpl::SectorTerrain sector_terrain_map(const std::vector<Island>& islands) {
    reimpl::SectorTerrain t;
    for (std::int32_t z = 0; z < 64; ++z)
        for (std::int32_t x = 0; x < 64; ++x) {
            const auto i = static_cast<std::size_t>(z * 64 + x);
            t.heights[i] = island_terrain(islands, x * 65536 + 32768, z * 65536 + 32768) + 1 +
                           static_cast<std::int32_t>(i % 97);
        }
    return t;
}

reimpl::Vec3 Actor::at(std::uint32_t frame) const {
    const auto f = static_cast<std::int32_t>(frame);
    return {start[0] + f * step[0], start[1] + f * step[1], start[2] + f * step[2]};
}

reimpl::Camera CameraPath::at(std::uint32_t frame, std::uint32_t frames) const {
    const auto f = static_cast<std::int32_t>(frame);
    const reimpl::Vec3 t{target[0] + f * target_step[0], target[1] + f * target_step[1],
                         target[2] + f * target_step[2]};
    const double a = (angle + sweep * frame / std::max(1u, frames - 1)) * kPi / 180;
    reimpl::Camera cam;
    cam.position = {static_cast<std::int32_t>(std::lround(t[0] + radius * std::sin(a))),
                    static_cast<std::int32_t>(std::lround(t[1] + height)),
                    static_cast<std::int32_t>(std::lround(t[2] + radius * std::cos(a)))};
    const double dx = t[0] - cam.position[0], dy = t[1] - cam.position[1], dz = t[2] - cam.position[2];
    cam.rotation =
        rotation(std::atan2(dx, dz) * 180 / kPi, std::atan2(dy, std::hypot(dx, dz)) * 180 / kPi, 0, 16384.0);
    return cam;
}

std::string_view surface_name(Surface s) {
    switch (s) {
        case Surface::Deck: return "deck";
        case Surface::Water: return "water";
        case Surface::Terrain: return "terrain";
        case Surface::Clouds: return "clouds";
    }
    return "?";
}

std::vector<std::string> scene_script_names() { return {"deck", "sea", "island", "clouds"}; }

ScenePlan scene_script(const Case& c, const reimpl::ModelArchive& models, const std::string& name,
                       const reimpl::Vec3& light) {
    if (name == "deck") return deck(models, light);
    if (name == "sea") return sea(models);
    if (name == "island") return island(models, first_island(c, name), light);
    if (name == "clouds") return clouds(models, first_island(c, name), c.scene.cloud_altitude);
    throw CaseError(c.file.string() + ": unknown scene script \"" + name + "\" (deck, sea, island, clouds)");
}

} // namespace refcheck::harness
