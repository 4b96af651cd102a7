// Turns the original's hooked calls during draw_3d_object_ into events of the shared event model:
// face routines (replaced by recorders, or tapped when they run for frames) become face_draw events,
// polygon_winding_ results (read at its return sites) winding_decision events, draw_attached_object_
// calls attached_draw events, with the instance path kept on a stack.
#pragma once

#include "family/event_stream.hpp"
#include "family/face_witness.hpp"
#include "refcheck/harness/original.hpp"
#include "refcheck/harness/record.hpp"
#include "refcheck/events.hpp"

#include <cstdint>
#include <optional>
#include <functional>
#include <string>
#include <vector>

namespace refcheck::harness {

// The face routines of the profile, whether each is the "partially visible" (clipped) one and
// whether it is a secondary one (abi.face.select: the entry point the draw calls says both).
struct FaceRoutine {
    const char* name;
    bool clipped;
    bool secondary;
};
inline constexpr FaceRoutine kFaceRoutines[] = {
    {"draw_completely_visible_primary_face_", false, false},
    {"draw_partially_visible_primary_face_", true, false},
    {"draw_completely_visible_secondary_face_", false, true},
    {"draw_partially_visible_secondary_face_", true, true},
};

// The face_vertex array a face routine is handed, read by the profile's layout (abi.structs).
struct FaceVertices {
    IntList u, v, levels, sx, sy, sz;
};
// The screen x, y, z of the reimplementation's vertices in the same shape (u, v, levels empty).
FaceVertices screen_vertices(const std::vector<events::ScreenVertex>& screen);
class FaceVertexLayout {
public:
    explicit FaceVertexLayout(const Profile& profile);
    FaceVertices read(const emu::Machine& m, std::uint32_t at, std::size_t count) const;

private:
    std::uint32_t u_ = 0, v_ = 0, level_ = 0, sx_ = 0, sy_ = 0, z_ = 0, size_ = 0;
    mutable std::vector<std::uint8_t> bytes_; // read() reuses it: no allocation per face
};

class Recorder {
public:
    // Face routines named in `run` are tapped so they rasterise (frames); the others are replaced.
    Recorder(Original& original, const std::vector<std::string>& run);
    // The original's evidence (excuses on face events; the per-pixel taint of frames).
    FaceWitness& witness() { return witness_; }
    // A draw_3d_object_ call's recording: begin() before it, end() after it. A hooked routine the
    // original calls outside one (a face routine or a state switch from construct_3d_object_) has no
    // draw to belong to: its hook stops the running call with a host_error fault saying so (it
    // dereferenced an empty frame stack, or recorded into the last draw's events, dropped unseen).
    void begin(std::uint32_t record, std::uint32_t instance);
    void end();
    // The events recorded since begin(); valid until the next begin() (their storage is reused).
    const std::vector<EventRecord>& events() const { return events_.events(); }
    // Called from the hook that records an event, just before event #index of the input is
    // appended (bisect's probe; empty on a default run).
    void observe(std::function<void(std::size_t index)> fn) { observer_ = std::move(fn); }

private:
    // Where a face routine finds what it draws (profile "args" packet, vertices, level, flags).
    struct FaceArgs {
        ArgSlot packet, vertices, level;
        // The flags word (abi.face: bit 0 repeats the entry point) where the profile's "args" name
        // one; without it, the entry point alone says primary or secondary.
        std::optional<ArgSlot> flags;
        bool clipped, secondary;
    };
    void face(emu::Machine& m, const FaceArgs& args);
    struct Frame {
        std::uint32_t record;
        std::uint32_t instance;
        bool pushed_slot;
    };
    void face(std::uint32_t packet, std::uint32_t vertices, std::int32_t face_level, std::uint32_t flags,
              bool clipped, bool secondary);
    void winding(std::int32_t w);
    void control(std::uint32_t next);
    void attach_enter(std::uint32_t parent, std::uint32_t slot);
    void attach_leave();
    IntList path() const;
    // The innermost instance being drawn; throws std::runtime_error outside a draw (`what` is the
    // hooked routine), which the hook turns into the running call's fault.
    const Frame& drawing(const char* what) const;
    // A blank event at the end of the input's stream, or null past the case's events_per_call (the
    // call is then being stopped).
    EventRecord* append();

    Original& o_;
    FaceWitness witness_;
    FaceVertexLayout face_vertices_;
    std::uint32_t off_inst_record_, off_inst_model_, off_inst_position_, off_inst_rotation_, off_inst_child_;
    std::vector<Frame> frames_;
    IntList slots_;
    std::vector<std::uint8_t> bytes_;     // guest bytes of a packet, reused: no allocation per face
    std::vector<std::uint32_t> switches_; // state-switch instructions in progress (op_ifmask...)
    EventStream events_;
    std::function<void(std::size_t)> observer_;
};

// The reimplementation's events in the same shape (fields the original cannot observe dropped:
// the program offset and opcode of winding and attach events), with the reimplementation's side of
// the evidence as excuses (missing normals per level, grid rounding). Control-flow events (ops 3,
// 4, 5) are compared as {record, path, offset, opcode, next}, what the original's state switches
// show; the full events are also returned separately.
void convert_reimpl(const std::vector<events::Event>& in, EventStream& out,
                    std::vector<const events::Event*>& control_flow);

} // namespace refcheck::harness
