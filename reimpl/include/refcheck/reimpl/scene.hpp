// Assembled scenes (spec section 15, "Assembled scenes", scene.*): one frame of a scene, the
// reimplementation's draw_scene_. A terrain grid around the camera (heights from a sampler the
// caller supplies, cells far to near, two flat triangles each, clipped to the near plane), then the
// drawing queue of the mobile sector map: each caster's shadow plane (terrain, water, cloud layer
// or a receiver's deck) and shadow, and the objects far to near with the shadows that fall on them.
// Built on the interpreter, the shadow renderer, the receiver query, the queue and the rasteriser.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <variant>
#include <vector>

#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/interpreter.hpp"
#include "refcheck/reimpl/mobile.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/palette.hpp"
#include "refcheck/reimpl/rasteriser.hpp"
#include "refcheck/reimpl/shadow.hpp"
#include "refcheck/reimpl/texture_archive.hpp"
#include "refcheck/reimpl/types.hpp"

namespace refcheck::reimpl {

inline constexpr std::uint32_t kMaxCellReach = 15;    // scene.params.valid
inline constexpr std::uint8_t kFirstLandColour = 240; // scene.terrain.colour
inline constexpr std::int32_t kLandBands = 8;

// scene.abi: struct scene_params. `limits` are the drawing queue's (a struct scene).
struct SceneParams {
    Scene limits;
    std::uint32_t cell_shift = 14; // terrain cells are 1 << cell_shift world units square
    std::uint32_t cell_reach = 7;  // cells drawn each side of the camera's cell
    std::uint32_t sea_colour = 252;
    std::uint32_t band_shift = 12; // land colour 240 + min(7, hmax >> band_shift)
    bool valid() const;            // scene.params.valid
    friend bool operator==(const SceneParams&, const SceneParams&) = default;
};

// One frame's input: camera, light (its reverse is the sun, scene.sun), animation state, parameters.
struct SceneInput {
    Camera camera;
    Light light;
    std::uint32_t state = 0;
    SceneParams params;
};

// draw_scene_'s result for its arguments as called (scene.abi, abi.null): 1, nothing drawn, for a
// null camera, parameters or light or for parameters outside scene.params.valid; else 0.
std::uint32_t scene_result(const Camera* camera, const SceneParams* params, const Light* light);

// scene.sampler.standin: the stand-in's own terrain, one ground height per mobile sector (64 x 64,
// row-major by z), no interpolation: heights[((z >> 16) & 63) * 64 + ((x >> 16) & 63)].
struct SectorTerrain {
    std::array<std::int32_t, 64 * 64> heights{};
    std::int32_t operator()(std::int32_t x, std::int32_t z) const;
};

// scene.sampler: the ground height at world (x, z), 0 at sea level.
using TerrainSampler = std::function<std::int32_t(std::int32_t x, std::int32_t z)>;
// scene.instance: the instance a mobile is drawn through, or null (neither drawn nor casting).
using InstanceOf = std::function<const Instance*(std::uint32_t mobile_id)>;

// ---- what a scene does, in order (scene.observed) ----------------------------------------------------

struct TerrainSample {
    std::int32_t x = 0, z = 0, height = 0;
    friend bool operator==(const TerrainSample&, const TerrainSample&) = default;
};
struct QueueBuilt {
    std::vector<std::uint32_t> ids; // farthest first
    friend bool operator==(const QueueBuilt&, const QueueBuilt&) = default;
};
struct PlaneQuery {
    std::uint32_t caster = 0;
    std::int32_t terrain_height = 0;
    std::int32_t height = 0;    // the plane (shadow.plane.rule)
    std::uint32_t receiver = 0; // 0: none
    friend bool operator==(const PlaneQuery&, const PlaneQuery&) = default;
};
struct ShadowDrawn {
    std::uint32_t caster = 0;
    std::int32_t plane_height = 0;
    std::uint32_t receiver = 0; // the deck it waited for, 0 when drawn at once
    std::int32_t terrain_height = 0;
    std::uint32_t pixels = 0; // the pixels this draw changed in the frame
    friend bool operator==(const ShadowDrawn&, const ShadowDrawn&) = default;
};
struct ObjectDrawn {
    std::uint32_t id = 0;
    friend bool operator==(const ObjectDrawn&, const ObjectDrawn&) = default;
};
// scene.terrain.face: one terrain triangle as the primary face routine is handed it, in drawing order
// (the rasteriser draws exactly this event).
struct TerrainDrawn {
    events::FaceDraw face;
    friend bool operator==(const TerrainDrawn&, const TerrainDrawn&) = default;
};
using SceneStep = std::variant<TerrainSample, QueueBuilt, PlaneQuery, ShadowDrawn, ObjectDrawn, TerrainDrawn>;

// ---- terrain -----------------------------------------------------------------------------------------

// One terrain triangle after the near clip (scene.terrain.near, scene.terrain.face): the face the
// primary face routine draws (type 2, 3 or 4 vertices).
struct TerrainFace {
    std::uint8_t colour = 0;
    std::vector<ScreenPoint> screen;
    bool clipped = false; // drawn by the partially visible routine (fb.visible)
};

// scene.terrain.near: a triangle of camera-space points clipped to z >= 64, projected; empty when
// fewer than three vertices remain.
std::vector<ScreenPoint> clip_and_project(const Vec3& a, const Vec3& b, const Vec3& c);

// scene.terrain.*: the terrain of one frame, in drawing order; every sampler call is appended to
// `steps`. std::invalid_argument for invalid parameters.
std::vector<TerrainFace> terrain_faces(const SceneInput& input, const TerrainSampler& sampler,
                                       std::vector<SceneStep>& steps);

// The face event a terrain face is drawn as (a type 2 packet, face level 31, vertex levels 31).
events::FaceDraw terrain_face_event(const TerrainFace& face);

// ---- the whole frame ---------------------------------------------------------------------------------

class SceneRenderer {
public:
    // The archives and tables must outlive the renderer.
    SceneRenderer(const ModelArchive& models, const TextureArchive& textures, const PaletteTables& palette);

    // draw_scene_: the terrain, the queue, the shadows and the objects into `frame` (scene.clear: it
    // is not cleared). Returns what the scene did, in order. std::invalid_argument for invalid
    // parameters (nothing drawn); FormatError for invalid model data.
    std::vector<SceneStep> render(const SceneInput& input, const MobileMap& mobiles,
                                  const InstanceOf& instance_of, const TerrainSampler& sampler, Frame& frame);

    // draw_scene_ as called (scene.abi, abi.null): its result and what it did. A null camera,
    // parameters or light, or parameters outside scene.params.valid: result 1, no step, `frame`
    // untouched (scene_result); else render()'s steps and result 0.
    struct Call {
        std::uint32_t result = 0;
        std::vector<SceneStep> steps;
    };
    Call draw_scene(const Camera* camera, const SceneParams* params, const Light* light, std::uint32_t state,
                    const MobileMap& mobiles, const InstanceOf& instance_of, const TerrainSampler& sampler,
                    Frame& frame);

private:
    struct Planned {
        std::uint32_t caster = 0;
        std::uint32_t receiver = 0;
        ShadowParams params;
    };
    std::vector<Planned> plan_shadows(const SceneInput& input, const MobileMap& mobiles,
                                      const InstanceOf& instance_of, const TerrainSampler& sampler,
                                      const std::vector<std::uint32_t>& queue, std::vector<SceneStep>& steps,
                                      Frame& frame);
    void draw_shadow(const SceneInput& input, const Instance& caster, const Planned& planned,
                     std::vector<SceneStep>& steps, Frame& frame);

    const ModelArchive& models_;
    Interpreter interpreter_;
    ShadowRenderer shadows_;
    Rasteriser rasteriser_;
};

} // namespace refcheck::reimpl
