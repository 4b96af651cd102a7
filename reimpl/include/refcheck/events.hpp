// The engine's observable behaviour as plain data: a closed set of event kinds, each with a
// signature (a name and its field names) and a field visitor over a closed set of value kinds.
// The reimplementation emits these to an EventSink; harness/ fills the same types from the
// original's hooked calls. Dependency-free on purpose (std only, no JSON here).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace refcheck::events {

// ---- face flags: the original's documented faults, flagged rather than reproduced ----------------

// Names are the spec's flag names (docs/formats/apache-3d.md, sections 16 and 17).
enum class FaceFlag : std::uint32_t {
    MissingNormal = 1u << 0,    // a used normal index not below the lit count (fault.normal.flag)
    TextureRightEdge = 1u << 1, // a vertex u >= the texture's row stride (fault.tex.right_edge.flag)
    TexturePastImage = 1u << 2, // a vertex v*stride + u >= stride*height, so v >= height too
                                // (fault.tex.past_alloc.flag)
    GridRounding = 1u << 3,     // every face of a grid model (div.grid_rounding)
};

inline constexpr std::array<std::pair<FaceFlag, std::string_view>, 4> kFaceFlagNames{{
    {FaceFlag::MissingNormal, "missing_normal"},
    {FaceFlag::TextureRightEdge, "tex_right_edge"},
    {FaceFlag::TexturePastImage, "tex_past_alloc"},
    {FaceFlag::GridRounding, "grid_rounding"},
}};

class FaceFlags {
public:
    constexpr FaceFlags() = default;
    constexpr FaceFlags(FaceFlag flag) : bits_(static_cast<std::uint32_t>(flag)) {} // NOLINT implicit
    static constexpr FaceFlags from_bits(std::uint32_t bits) {
        FaceFlags f;
        f.bits_ = bits;
        return f;
    }
    constexpr bool has(FaceFlag flag) const { return (bits_ & static_cast<std::uint32_t>(flag)) != 0; }
    constexpr FaceFlags& set(FaceFlag flag) {
        bits_ |= static_cast<std::uint32_t>(flag);
        return *this;
    }
    constexpr bool empty() const { return bits_ == 0; }
    constexpr std::uint32_t bits() const { return bits_; }
    friend constexpr FaceFlags operator|(FaceFlags a, FaceFlags b) { return from_bits(a.bits_ | b.bits_); }
    friend constexpr bool operator==(FaceFlags, FaceFlags) = default;

private:
    std::uint32_t bits_ = 0;
};

constexpr FaceFlags operator|(FaceFlag a, FaceFlag b) { return FaceFlags(a) | FaceFlags(b); }

// "missing_normal|texture_right_edge"; empty string when no flag is set.
inline std::string flag_names(FaceFlags flags) {
    std::string out;
    for (const auto& [flag, name] : kFaceFlagNames) {
        if (!flags.has(flag)) continue;
        if (!out.empty()) out += '|';
        out += name;
    }
    return out;
}

// ---- event kinds -----------------------------------------------------------------------------------

struct ScreenVertex {
    std::int32_t sx = 0;
    std::int32_t sy = 0;
    std::int32_t z = 0;
    friend bool operator==(const ScreenVertex&, const ScreenVertex&) = default;
};

// One face routine call. `path` is the instance path: attachment slots from the root instance.
// `offset` is the program offset of the opcode byte (from the start of the record's program).
struct FaceDraw {
    std::int32_t record = 0;
    std::vector<std::int32_t> path;
    std::uint32_t offset = 0;
    std::uint8_t opcode = 0; // 0 primary, 1 secondary
    bool secondary = false;
    bool clipped = false; // drawn by the partially visible routine
    std::uint8_t type = 0;
    std::vector<std::uint8_t> material;       // packet header bytes after type and count
    std::vector<std::uint8_t> vertices;       // vertex indices
    std::int32_t texture = -1;                // texture slot; -1 when the type is not textured
    std::vector<std::int32_t> u;              // per vertex face_vertex.u (0 for untextured types)
    std::vector<std::int32_t> v;              // per vertex face_vertex.v (0 for untextured types)
    std::int32_t face_normal = -1;            // face normal index n; -1 when the type has none
    std::vector<std::int32_t> vertex_normals; // per vertex g (Gouraud types); empty otherwise
    std::int32_t face_level = 31;             // intensity level passed with the face (EBX)
    std::vector<std::int32_t> vertex_levels;  // per vertex face_vertex.level
    std::vector<ScreenVertex> screen;         // per vertex face_vertex.sx, sy, z
    FaceFlags flags;
    // With the missing_normal flag: which levels come from a normal index not below the lit count
    // (and so hold kBrightestLevel): [0] the face level, [1 + k] vertex k's level. Empty otherwise.
    // Not a compared field: the harness turns it into the reimplementation's side of the evidence.
    std::vector<std::uint8_t> missing_levels;
    // With the grid_rounding flag: each vertex's camera-space point (x, y, z) as the
    // reimplementation computed it, for div.grid_tolerance's box. Not a compared field either.
    std::vector<std::array<std::int32_t, 3>> camera;
    friend bool operator==(const FaceDraw&, const FaceDraw&) = default;
};

// One attached-model draw (op 6 with a filled slot). `path` is the parent's instance path; the
// child's events follow with the path extended by `slot`. The transform is the child's composed
// world transform: int32 position, Q31 rotation row-major.
struct AttachedDraw {
    std::int32_t record = 0; // parent record
    std::vector<std::int32_t> path;
    std::uint32_t offset = 0;
    std::int32_t slot = 0;
    std::int32_t model = 0; // child record
    std::array<std::int32_t, 3> position{};
    std::array<std::int32_t, 9> rotation{};
    friend bool operator==(const AttachedDraw&, const AttachedDraw&) = default;
};

// One winding evaluation (polygon_winding_ call) by op 0 or op 2.
struct WindingDecision {
    std::int32_t record = 0;
    std::vector<std::int32_t> path;
    std::uint32_t offset = 0;
    std::uint8_t opcode = 0;
    std::int32_t winding = 0;
    friend bool operator==(const WindingDecision&, const WindingDecision&) = default;
};

// Reimplementation-side diagnostic for ops 3, 4 and 5: the tested value and the branch taken.
// `taken`: op 3: 1 branch executed, 0 not; op 4: 1 the set branch, 0 the clear branch;
// op 5: the case index, or -1 when the value is past the authored table.
// `target`: program offset of the branch executed, -1 when none.
struct ControlFlow {
    std::int32_t record = 0;
    std::vector<std::int32_t> path;
    std::uint32_t offset = 0;
    std::uint8_t opcode = 0;
    std::uint32_t value = 0;
    std::int32_t taken = 0;
    std::int64_t target = -1;
    // The program offset the walk goes to next: the branch executed, else the continuation;
    // kStops when the switch ends the model's draw (invalid data, valid.program.stop).
    std::int64_t next = 0;
    static constexpr std::int64_t kStops = -1;
    friend bool operator==(const ControlFlow&, const ControlFlow&) = default;
};

using Event = std::variant<FaceDraw, AttachedDraw, WindingDecision, ControlFlow>;

// ---- sinks -------------------------------------------------------------------------------------------

class EventSink {
public:
    virtual ~EventSink() = default;
    virtual void emit(Event event) = 0;
};

class VectorSink final : public EventSink {
public:
    void emit(Event event) override { events_.push_back(std::move(event)); }
    const std::vector<Event>& events() const { return events_; }
    std::vector<Event> take() { return std::exchange(events_, {}); }

private:
    std::vector<Event> events_;
};

// ---- signatures: kind names, field names, field values -------------------------------------------

using FieldValue = std::variant<std::int64_t, bool, std::string, std::vector<std::int64_t>>;

struct Signature {
    std::string_view kind;
    std::span<const std::string_view> fields;
};

inline constexpr std::array<std::string_view, 20> kFaceDrawFields{
    "record",     "path",          "offset",   "opcode",   "secondary", "clipped",     "type",
    "material",   "vertices",      "texture",  "u",        "v",         "face_normal", "vertex_normals",
    "face_level", "vertex_levels", "screen_x", "screen_y", "screen_z",  "flags"};
inline constexpr std::array<std::string_view, 7> kAttachedDrawFields{"record", "path",     "offset",  "slot",
                                                                     "model",  "position", "rotation"};
inline constexpr std::array<std::string_view, 5> kWindingDecisionFields{"record", "path", "offset", "opcode",
                                                                        "winding"};
inline constexpr std::array<std::string_view, 8> kControlFlowFields{"record", "path",  "offset", "opcode",
                                                                    "value",  "taken", "target", "next"};

// Indexed like Event's alternatives.
inline constexpr std::array<Signature, std::variant_size_v<Event>> kSignatures{{
    {"face_draw", kFaceDrawFields},
    {"attached_draw", kAttachedDrawFields},
    {"winding_decision", kWindingDecisionFields},
    {"control_flow", kControlFlowFields},
}};

inline const Signature& signature(const Event& event) { return kSignatures[event.index()]; }
inline std::string_view kind_name(const Event& event) { return signature(event).kind; }

namespace detail {

template <class Range>
std::vector<std::int64_t> to_values(const Range& range) {
    std::vector<std::int64_t> out;
    out.reserve(range.size());
    for (const auto& x : range) out.push_back(static_cast<std::int64_t>(x));
    return out;
}

template <class Member>
std::vector<std::int64_t> screen_column(const std::vector<ScreenVertex>& screen, Member member) {
    std::vector<std::int64_t> out;
    out.reserve(screen.size());
    for (const auto& s : screen) out.push_back(s.*member);
    return out;
}

// Calls visitor(name, FieldValue) for each value in order, names taken from the signature table.
template <std::size_t N, class Visitor>
class FieldEmitter {
public:
    FieldEmitter(const std::array<std::string_view, N>& names, Visitor& visitor)
        : names_(names), visitor_(visitor) {}
    void operator()(FieldValue value) { visitor_(names_[next_++], value); }

private:
    const std::array<std::string_view, N>& names_;
    Visitor& visitor_;
    std::size_t next_ = 0;
};

inline std::int64_t i64(std::int64_t x) { return x; }

} // namespace detail

template <class Visitor>
void visit_fields(const FaceDraw& e, Visitor&& visitor) {
    detail::FieldEmitter out(kFaceDrawFields, visitor);
    out(detail::i64(e.record));
    out(detail::to_values(e.path));
    out(detail::i64(e.offset));
    out(detail::i64(e.opcode));
    out(e.secondary);
    out(e.clipped);
    out(detail::i64(e.type));
    out(detail::to_values(e.material));
    out(detail::to_values(e.vertices));
    out(detail::i64(e.texture));
    out(detail::to_values(e.u));
    out(detail::to_values(e.v));
    out(detail::i64(e.face_normal));
    out(detail::to_values(e.vertex_normals));
    out(detail::i64(e.face_level));
    out(detail::to_values(e.vertex_levels));
    out(detail::screen_column(e.screen, &ScreenVertex::sx));
    out(detail::screen_column(e.screen, &ScreenVertex::sy));
    out(detail::screen_column(e.screen, &ScreenVertex::z));
    out(flag_names(e.flags));
}

template <class Visitor>
void visit_fields(const AttachedDraw& e, Visitor&& visitor) {
    detail::FieldEmitter out(kAttachedDrawFields, visitor);
    out(detail::i64(e.record));
    out(detail::to_values(e.path));
    out(detail::i64(e.offset));
    out(detail::i64(e.slot));
    out(detail::i64(e.model));
    out(detail::to_values(e.position));
    out(detail::to_values(e.rotation));
}

template <class Visitor>
void visit_fields(const WindingDecision& e, Visitor&& visitor) {
    detail::FieldEmitter out(kWindingDecisionFields, visitor);
    out(detail::i64(e.record));
    out(detail::to_values(e.path));
    out(detail::i64(e.offset));
    out(detail::i64(e.opcode));
    out(detail::i64(e.winding));
}

template <class Visitor>
void visit_fields(const ControlFlow& e, Visitor&& visitor) {
    detail::FieldEmitter out(kControlFlowFields, visitor);
    out(detail::i64(e.record));
    out(detail::to_values(e.path));
    out(detail::i64(e.offset));
    out(detail::i64(e.opcode));
    out(detail::i64(e.value));
    out(detail::i64(e.taken));
    out(detail::i64(e.target));
    out(detail::i64(e.next));
}

// visitor(std::string_view name, const FieldValue& value), once per field, in signature order.
template <class Visitor>
void visit_fields(const Event& event, Visitor&& visitor) {
    std::visit([&](const auto& e) { visit_fields(e, visitor); }, event);
}

} // namespace refcheck::events
