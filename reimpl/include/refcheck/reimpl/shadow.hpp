// Shadows (spec section 15): the shadow renderer (draw_3d_object_shadow_), which walks a model's
// face program with every vertex projected along the sunlight onto a horizontal plane and paints
// the faces as black meshes (shadow.*), and the receiver query (shadow_plane_height_), which
// chooses that plane: the terrain, the cloud layer, or a receiver's deck (shadow.plane.rule,
// shadow.receiver.*).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "refcheck/events.hpp"
#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/mobile.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/program.hpp"
#include "refcheck/reimpl/rasteriser.hpp"
#include "refcheck/reimpl/types.hpp"

namespace refcheck::reimpl {

inline constexpr std::uint32_t kShadowCasterBit = 1u << 0;   // hdr.properties bit 0
inline constexpr std::uint32_t kShadowReceiverBit = 1u << 1; // hdr.properties bit 1
inline constexpr std::uint8_t kShadowColour = 0;             // shadow.colour
// shadow.substitute: these models take their shadow geometry from kShadowSubstitute.
inline constexpr std::uint32_t kShadowSubstituted[2] = {0x4ba, 0x4bb};
inline constexpr std::uint32_t kShadowSubstitute = 0x40a;

// abi.structs: struct shadow_params. `sun` travels from the sun (Q14, sun[1] < 0 to draw).
struct ShadowParams {
    Vec3 sun{0, -kQ14One, 0};
    std::int32_t terrain_height = 0;
    std::int32_t cloud_altitude = 0x00100000;
    std::int32_t plane_height = 0; // the plane the renderer projects onto
    friend bool operator==(const ShadowParams&, const ShadowParams&) = default;
};

// ---- receiver query ----------------------------------------------------------------------------------

// One shadow_plane_height_ query (shadow.receiver.raise): receiver 0 when none was hit.
struct ReceiverQuery {
    std::uint32_t caster = 0;
    std::uint32_t receiver = 0;
    std::int32_t height = 0;
    friend bool operator==(const ReceiverQuery&, const ReceiverQuery&) = default;
};

// shadow.plane.rule: the cloud altitude when the caster is at or above it; else the terrain
// height, or (terrain height 0 and sun[1] < 0 only) Pr.y + height of the first receiver in the
// 3 x 3 scan around the caster's projection onto y = 0 whose rotated bounds hold that projection.
// std::invalid_argument when `caster_id` is not in `mobiles` or a scanned mobile names no
// populated record.
ReceiverQuery shadow_plane_height(const ModelArchive& archive, const MobileMap& mobiles,
                                  std::uint32_t caster_id, const ShadowParams& params);
// shadow_plane_height_ as called (abi.shadow_plane, abi.null): a null caster or parameters finds
// no receiver and returns 0 (receiver 0, height 0); otherwise as above.
ReceiverQuery shadow_plane_height(const ModelArchive& archive, const MobileMap& mobiles, const Mobile* caster,
                                  const ShadowParams* params);

// shadow.receiver.test: a world point's local x and z in a receiver placed at `placement`.
std::array<std::int32_t, 2> receiver_local(const Mobile& placement, const Vec3& point);
// shadow.receiver.test: the receiver's local x and z of a world point, tested against its bounds.
bool receiver_holds(const ModelRecord& receiver, const Mobile& placement, const Vec3& point);

// ---- renderer ------------------------------------------------------------------------------------------

// shadow.project: p'.x = p.x - (int32)(((int64)d.x * ((int64)p.y - h)) / d.y), z likewise, p'.y = h.
// std::invalid_argument unless sun[1] < 0.
Vec3 project_to_plane(const Vec3& world, const Vec3& sun, std::int32_t plane_height);
// shadow.world: p[i] = pos[i] + (int32)((Σ_j (int64)Q[i][j] * v[j]) >> 31).
Vec3 world_point(const Transform& t, const Vec3& v);
// shadow.camera: cam[i] = (int32)((Σ_k (int64)R[i][k] * ((int64)p'[k] - C[k])) >> 14).
Vec3 camera_point(const Camera& camera, const Vec3& p);

enum class ShadowMesh : std::uint8_t { Fine = 0, Medium = 1 }; // abi.shadow_face

// shadow.mesh: each face vertex a shadow face is drawn with carries u = v = 0 and level 31 (the
// rasteriser's flat fill reads neither; the original's face_vertex entries must hold them).
inline constexpr std::int32_t kShadowVertexU = 0, kShadowVertexV = 0, kShadowVertexLevel = 31;

// One draw_shadow_face_ call (diagnostics): the face's program position and its screen vertices.
struct ShadowFace {
    std::uint32_t record = 0;       // the record whose program holds the face (after substitution)
    std::vector<std::int32_t> path; // instance path: attachment slots from the root
    std::uint32_t offset = 0;       // program offset of the opcode byte
    std::uint8_t opcode = 0;        // 0 primary, 1 secondary
    std::uint8_t type = 0;          // primitive type
    ShadowMesh mesh = ShadowMesh::Fine;
    std::vector<events::ScreenVertex> screen;
    friend bool operator==(const ShadowFace&, const ShadowFace&) = default;
};

// shadow.mesh: the mesh a primitive type's shadow is drawn with, or none (types 0, 1, 9, 10, 21).
std::optional<ShadowMesh> shadow_mesh(std::uint8_t type);

// draw_shadow_face_: a polygon by the rules of section 12 (polygon_rows), palette index 0 on the
// fine ((x + y) & 1 == 0) or medium ((x + y) & 3 == 0) pattern. Each write clears the pixel's taint.
void draw_shadow_face(std::span<const events::ScreenVertex> screen, ShadowMesh mesh, Frame& frame);

// shadow.substitute, shadow.geometry: the record whose vertices and program draw a model's shadow.
// FormatError (archive, record, byte offset) when the shadow data or the substitution names a
// record that is not populated, or holds a negative index other than -1.
std::uint32_t shadow_geometry(const ModelArchive& archive, std::uint32_t model);

class ShadowRenderer {
public:
    // `invalid`: as DrawOptions::invalid_data (StopThere for the hostile cases).
    explicit ShadowRenderer(const ModelArchive& archive, InvalidData invalid = InvalidData::Refuse)
        : archive_(archive), invalid_(invalid) {}

    // draw_3d_object_shadow_: nothing unless the root's model casts (shadow.caster) and sun[1] < 0;
    // else every instance of the tree, onto the plane at params.plane_height. Returns the faces
    // drawn, in order. FormatError for invalid data (faces drawn before stay drawn).
    std::vector<ShadowFace> draw(const Instance& root, const Camera& camera, const ShadowParams& params,
                                 std::uint32_t state, Frame& frame);
    // draw_3d_object_shadow_ as called (abi.shadow_draw, abi.null): a null instance, camera or
    // parameters draws nothing; otherwise as draw().
    std::vector<ShadowFace> draw(const Instance* root, const Camera* camera, const ShadowParams* params,
                                 std::uint32_t state, Frame& frame);

    // The decoded program of a record (decoded on first use, then kept).
    const Program& program(std::uint32_t record);
    // The record drawing `model`'s shadow (shadow_geometry). Under InvalidData::StopThere, none
    // where the stand-in draws no shadow for the model (shadow data cut short by the record's end,
    // or naming no populated record: valid.shadow.none), noted as a stop that does not end the
    // parent's draw.
    std::optional<std::uint32_t> geometry(std::uint32_t model);
    const ModelArchive& archive() const { return archive_; }
    // InvalidData::StopThere: where the shadows drawn since the last call stopped, in order.
    std::vector<ProgramStop> take_stops() { return std::exchange(stops_, {}); }
    void note_stop(ProgramStop stop) { stops_.push_back(std::move(stop)); }

private:
    const ModelArchive& archive_;
    InvalidData invalid_;
    std::map<std::uint32_t, Program> programs_;
    std::vector<ProgramStop> stops_;
};

// The one-call form: a fresh renderer for one shadow.
std::vector<ShadowFace> draw_shadow(const ModelArchive& archive, const Instance& root, const Camera& camera,
                                    const ShadowParams& params, std::uint32_t state, Frame& frame);

} // namespace refcheck::reimpl
