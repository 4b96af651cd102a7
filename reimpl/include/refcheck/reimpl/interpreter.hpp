// The draw-program interpreter (draw_3d_object_): walks a record's decoded program for a camera,
// a light and an animation state, dispatching through an opcode table, and emits typed events in
// the order of the spec (section 8; decisions "Event order and event content"). Attached models
// recurse with the instance path extended by the slot.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "refcheck/events.hpp"
#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/program.hpp"
#include "refcheck/reimpl/texture_archive.hpp"
#include "refcheck/reimpl/types.hpp"

namespace refcheck::reimpl {

inline constexpr std::uint32_t kMaxNesting = 32;  // op.nesting
inline constexpr std::uint32_t kMaxSteps = 65536; // op.steps

struct DrawOptions {
    bool gouraud = true; // light.gouraud (the stand-in's gouraud_enabled)
    // Refuse: invalid program data is a FormatError. StopThere: the stand-in's reaction, for the
    // hostile cases (see InvalidData); where each draw stopped is kept (take_stops).
    InvalidData invalid_data = InvalidData::Refuse;
};

struct DrawInput {
    Camera camera;
    Light light;
    std::uint32_t state = 0; // animation state
};

class Interpreter {
public:
    // The archives must outlive the interpreter.
    Interpreter(const ModelArchive& models, const TextureArchive& textures, DrawOptions options = {});

    // Draws the instance tree rooted at `root` (events for the root's path {}).
    // FormatError (archive, record, byte offset) for invalid data; events emitted before stay emitted.
    void draw(const Instance& root, const DrawInput& input, events::EventSink& sink);
    // draw_3d_object_ as called, with its pointer arguments (abi.draw, abi.null): a null instance,
    // camera or light draws nothing; otherwise as draw().
    void draw(const Instance* root, const Camera* camera, const Light* light, std::uint32_t state,
              events::EventSink& sink);

    // The decoded program of a record (decoded and checked on first use, then kept).
    const Program& program(std::uint32_t record);

    const ModelArchive& models() const { return models_; }
    const TextureArchive& textures() const { return textures_; }
    const DrawOptions& options() const { return options_; }
    // InvalidData::StopThere: where the draws since the last call stopped, in order.
    std::vector<ProgramStop> take_stops() { return std::exchange(stops_, {}); }

private:
    friend class ModelDraw;
    void draw_instance(const Instance& instance, const DrawInput& input, std::vector<std::int32_t>& path,
                       events::EventSink& sink);

    const ModelArchive& models_;
    const TextureArchive& textures_;
    DrawOptions options_;
    std::map<std::uint32_t, Program> programs_;
    std::vector<ProgramStop> stops_;
};

} // namespace refcheck::reimpl
