// The walk of one instance's draw program (spec section 8), shared by the draw (interpreter.cpp)
// and the shadow renderer (shadow.cpp): op.primary.order, op.secondary, op.plane.order, op 3/4/5
// on the animation state, op 6 handed to the visitor, branch nesting (op.nesting) and the step
// budget (op.steps). What a face, a winding or an attachment does is the visitor's.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "refcheck/reimpl/geometry.hpp"
#include "refcheck/reimpl/program.hpp"

namespace refcheck::reimpl {

class ProgramVisitor {
public:
    virtual ~ProgramVisitor() = default;
    // op 0 with three or more vertices in front, and op 2 with its three in front: the winding computed.
    virtual void winding(const Instruction&, std::int32_t) {}
    // op 0 with every vertex in front; op 1 when the last winding is >= 0 and every vertex is in front.
    virtual void face(const Instruction& in, const Packet& packet) = 0;
    // ops 3, 4, 5: the state value tested, the branch taken (-1: none) and its target (-1: none).
    // `next`: the program offset the walk goes to next (the branch executed, else the continuation;
    // events::ControlFlow::kStops when the switch ends the draw, InvalidData::StopThere only).
    virtual void control(const Instruction&, std::uint32_t /*value*/, std::int32_t /*taken*/,
                         std::int64_t /*target*/, std::int64_t /*next*/) {}
    // op 6 (the walk continues after it when this returns).
    virtual void attach(const Instruction& in, std::uint8_t slot) = 0;
    // A program the walk cannot finish (nesting or step budget exceeded); must throw.
    [[noreturn]] virtual void fail(std::uint32_t offset, std::string_view detail) = 0;
    // InvalidData::StopThere: the walk reached invalid data at `in`, described by `why`: when
    // `ends_draw`, the instruction's own, nesting past 32 or the step budget, and nothing after it
    // runs; otherwise a vertex index past the list, taken as behind.
    virtual void reached_invalid(const Instruction& /*in*/, std::string_view /*why*/, bool /*ends_draw*/) {}
};

// Runs `program` over the projected vertices `screen` (indices already checked by the decoder).
void walk_program(const Program& program, std::span<const ScreenPoint> screen, std::uint32_t state,
                  ProgramVisitor& visitor);

} // namespace refcheck::reimpl
