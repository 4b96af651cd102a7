// The scene family's scripted sequences: named scripts of actors (mobile objects flying or
// steaming in straight lines, each with one heading) and a camera orbiting or chasing a target, and
// the case's terrain (its islands). Both sides receive the same integers from here.
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/scene.hpp"
#include "refcheck/reimpl/types.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace refcheck::harness {

// The case's terrain, the heights the hooked sampler returns to both sides: 0 (sea level)
// everywhere but on the islands, each a paraboloid dome h = height * (r² - d²) / r² over d² < r²
// (int64, truncating; d the horizontal distance to its centre); where islands overlap the
// greatest height wins.
std::int32_t island_terrain(const std::vector<Island>& islands, std::int32_t x, std::int32_t z);
// The terrain map a "terrain_map" case writes into the stand-in's terrain_map: per sector the
// islands' height at its centre plus 1 + (index mod 97), so that no two neighbouring sectors (and
// no row or column moved by one) read the same height and every sector is land.
reimpl::SectorTerrain sector_terrain_map(const std::vector<Island>& islands);

// One mobile object of a script: at frame f it is at start + f * step, turned by `rotation` (Q31).
// An unbuilt actor is on the map with no instance (its mobile's `instance` 0, scene.instance): it is
// queued, but neither drawn nor casting a shadow.
struct Actor {
    std::uint32_t id = 0;
    std::uint32_t model = 0;
    reimpl::Vec3 start{};
    reimpl::Vec3 step{};
    reimpl::Mat3 rotation{};
    bool built = true;
    reimpl::Vec3 at(std::uint32_t frame) const;
};

// The camera of a script: it looks at a target moving from `target` by `target_step` per frame,
// from `radius` away horizontally and `height` above it, at an angle (degrees about y, 0 = from +z)
// sweeping from `angle` by `sweep` over the script's frames.
struct CameraPath {
    reimpl::Vec3 target{};
    reimpl::Vec3 target_step{};
    double radius = 0, height = 0, angle = 0, sweep = 0;
    reimpl::Camera at(std::uint32_t frame, std::uint32_t frames) const;
};

// What a script shows, so that its metrics can prove it: shadows on a receiver's deck, on the water,
// on raised terrain, or on the cloud layer.
enum class Surface { Deck, Water, Terrain, Clouds };
std::string_view surface_name(Surface s);

struct ScenePlan {
    std::string name;
    Surface shows = Surface::Water;
    std::vector<Actor> actors;
    CameraPath camera;
};

// The scripts, their models found by short name in `models` (std::runtime_error when one is
// missing): "deck" (the carrier "tarawa", model 130, steaming with aircraft over its deck and an Apache
// over the water beside it), "sea" (a low formation over open water, both Apaches 0x4ba and 0x4bb
// among them, and an unbuilt A-10 in its midst), "island" (aircraft crossing the case's first
// island), "clouds" (aircraft above the cloud layer, one below it). Positions over a deck or the ground are aimed along the sun (the
// reversed light) so that the shadow lands where intended. CaseError for an unknown name, or for
// "island"/"clouds" without an island.
ScenePlan scene_script(const Case& c, const reimpl::ModelArchive& models, const std::string& name,
                       const reimpl::Vec3& light);
std::vector<std::string> scene_script_names();

} // namespace refcheck::harness
