// The model workbench's view of one record (spec section 20): what the reimplementation renders,
// exported as plain data for a viewer that knows nothing of the archive. Model-space vertices of
// every instance (both encodings decoded, attachments placed by their composed transforms), every
// face the program can draw with its program offset, packet and fan triangles, a canonical plane
// per triangle (wb.plane), and the program's control flow resolved for a few animation states,
// with what depends on the view (op 2 decision planes, op 1's last winding) left to the viewer.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/interpreter.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/texture_archive.hpp"
#include "refcheck/reimpl/types.hpp"

namespace refcheck::reimpl {

// wb.plane: a triangle's plane a*x + b*y + c*z = d in its instance's model space, from the
// integer cross product of its vertices reduced by the gcd of (a, b, c, d) and signed so that the
// first nonzero of a, b, c is positive. Triangles on one plane get the same key whatever their
// vertices or winding; `root` is the same plane in the root's model space, unit normal, computed
// from the key alone (so equal keys give bit-identical coefficients).
struct ExportedPlane {
    std::uint32_t instance = 0;
    std::array<std::int64_t, 4> key{};
    std::array<double, 4> root{};
};

struct ExportedInstance {
    std::vector<std::int32_t> path; // attachment slots from the root
    std::uint32_t model = 0;
    Transform transform;                             // composed world transform (the root at identity)
    std::vector<Vec3> local;                         // decode_vertex of every vertex
    std::vector<RawVertex> grid;                     // a grid model's raw vertex bytes (geo.grid), else empty
    std::vector<std::array<double, 3>> placed;       // in the root's model space: position + R * local
    std::vector<std::array<std::int8_t, 3>> normals; // the normal list (count_all entries)
};

struct ExportedFace {
    std::uint32_t instance = 0;
    std::uint32_t offset = 0;   // program offset of the opcode byte
    std::uint8_t opcode = 0;    // 0 primary, 1 secondary
    std::uint8_t type = 0;      // packet type
    std::uint8_t draw_type = 0; // the type the rasteriser draws (fault.normal.flag: unshaded counterpart)
    bool missing_normal = false;
    std::vector<std::uint8_t> vertices;
    std::vector<std::uint8_t> material;
    std::vector<std::uint8_t> u, v;
    std::int32_t texture = -1, mask = -1, colour = -1, colour_b = -1;
    std::int32_t face_normal = -1;                      // -1: none (or missing)
    std::vector<std::int32_t> vertex_normals;           // Gouraud types; -1 when missing
    std::vector<std::array<std::uint8_t, 3>> triangles; // wb.fan: positions in `vertices`
    std::vector<std::int32_t> planes; // per triangle (-1 when degenerate); for a polyline per segment,
                                      // for points per vertex: the plane holding it (wb.lines), or -1
};

// The program tree for one animation state: ops 3, 4, 5 resolved, ops 0/1 as faces, op 2 as a
// decision node, op 6 as the child's own tree (its own last winding, op.last_wind).
struct TreeNode;
using Tree = std::vector<TreeNode>;
struct PlaneNode {
    std::uint32_t instance = 0;
    std::uint32_t offset = 0;
    std::array<std::uint8_t, 3> vertices{};
    Tree front, back;
    friend bool operator==(const PlaneNode&, const PlaneNode&) = default;
};
struct AttachNode {
    std::uint32_t offset = 0;
    std::uint8_t slot = 0;
    std::uint32_t instance = 0; // the child
    Tree tree;
    friend bool operator==(const AttachNode&, const AttachNode&) = default;
};
struct TreeNode {
    std::variant<std::uint32_t, PlaneNode, AttachNode> node; // a face index, a plane, an attachment
    friend bool operator==(const TreeNode&, const TreeNode&) = default;
};

struct ExportedState {
    std::uint32_t state = 0;
    Tree tree;
};

struct ModelExport {
    std::uint32_t record = 0;
    std::vector<ExportedInstance> instances; // preorder (att.order), [0] the root
    std::vector<ExportedFace> faces;
    std::vector<ExportedPlane> planes;
    std::vector<ExportedState> states;   // distinct trees, state 0 first
    std::vector<std::uint32_t> textures; // texture slots the faces use, ascending
};

inline constexpr std::size_t kMaxExportedStates = 16;
inline constexpr std::size_t kMaxTreeNodes = 1u << 18;

// The states tried (wb.states): 0, each single bit of every op 3/4 mask, each authored op 5 case
// (k << shift), all the op 3/4 mask bits together, and `extra`; those giving the same tree as an
// earlier one are dropped, at most kMaxExportedStates kept. FormatError for invalid data.
ModelExport export_model(Interpreter& interpreter, std::uint32_t record,
                         const std::vector<std::uint32_t>& extra_states = {});

// wb.plane for one triangle of integer model-space vertices; nullopt when they are collinear.
std::optional<std::array<std::int64_t, 4>> canonical_plane(const Vec3& a, const Vec3& b, const Vec3& c);

} // namespace refcheck::reimpl
