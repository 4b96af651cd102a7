#include "program_walk.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "refcheck/reimpl/interpreter.hpp"

namespace refcheck::reimpl {

namespace {

class Walk {
public:
    Walk(const Program& program, std::span<const ScreenPoint> screen, std::uint32_t state,
         ProgramVisitor& visitor)
        : program_(program), screen_(screen), state_(state), visitor_(visitor),
          stop_there_(program.invalid_data == InvalidData::StopThere) {}

    void run() {
        std::uint32_t steps = 0;
        while (!finished_) {
            const Instruction& in = program_.at(at_.offset);
            if (++steps > kMaxSteps) {
                invalid(in, fmt::format("more than {} instructions executed (op.steps)", kMaxSteps), false);
            } else if (in.invalid) {
                invalid(in, *in.invalid, true);
            } else {
                (this->*kHandlers[static_cast<std::size_t>(in.opcode)])(in);
            }
        }
    }

private:
    struct Position {
        std::uint32_t offset = 0;
        std::uint32_t nesting = 0;
    };
    using Handler = void (Walk::*)(const Instruction&);

    void primary(const Instruction& in);
    void secondary(const Instruction& in);
    void plane(const Instruction& in);
    void if_mask(const Instruction& in);
    void choose(const Instruction& in);
    void select(const Instruction& in);
    void attach(const Instruction& in);
    void return_(const Instruction& in); // NOLINT(readability-identifier-naming): `return` is a keyword
    static constexpr std::array<Handler, kOpcodeCount> kHandlers{
        &Walk::primary, &Walk::secondary, &Walk::plane,  &Walk::if_mask,
        &Walk::choose,  &Walk::select,    &Walk::attach, &Walk::return_};

    // Whether a vertex of `in` is behind the camera. A vertex index past the list only gets here
    // under InvalidData::StopThere, where it counts as behind (valid.index.behind), reported.
    bool any_behind(const Instruction& in, std::span<const std::uint8_t> vertices) {
        bool behind = false;
        for (const std::uint8_t i : vertices) {
            if (i >= screen_.size()) {
                visitor_.reached_invalid(
                    in,
                    fmt::format("vertex index {} is past the vertex list ({} vertices)", i, screen_.size()),
                    false);
                return true;
            }
            behind = behind || screen_[i].behind;
        }
        return behind;
    }
    bool too_deep() const { return at_.nesting + 1 > kMaxNesting; }
    static std::string nesting_message() {
        return fmt::format("branch nesting deeper than {} (op.nesting)", kMaxNesting);
    }
    // Invalid data at `in`: a FormatError, or under StopThere the end of the walk (a state switch
    // reached by the walk reports that it stops it, as the original's switch routine returns null).
    void invalid(const Instruction& in, const std::string& why, bool reached_in_walk);
    std::int32_t winding_of(std::span<const std::uint8_t> v) const {
        return winding(screen_[v[0]], screen_[v[1]], screen_[v[2]]);
    }
    // Runs `first` (and then `second`, if any) as branches, then continues at `continuation`.
    void run_branches(const Instruction& in, std::uint32_t first, std::optional<std::uint32_t> second,
                      std::uint32_t continuation);
    void continue_at(std::uint32_t offset) { at_.offset = offset; }

    const Program& program_;
    std::span<const ScreenPoint> screen_;
    std::uint32_t state_;
    ProgramVisitor& visitor_;
    std::int32_t last_winding_ = -1; // op.last_wind
    Position at_;
    std::vector<Position> pending_; // where to go when the current branch returns
    bool finished_ = false;
    bool stop_there_;
};

void Walk::invalid(const Instruction& in, const std::string& why, bool reached_in_walk) {
    if (!stop_there_) visitor_.fail(in.offset, why);
    const bool state_switch = !in.bytes.empty() && in.bytes[0] >= static_cast<std::uint8_t>(Opcode::IfMask) &&
                              in.bytes[0] <= static_cast<std::uint8_t>(Opcode::Select);
    if (reached_in_walk && state_switch) visitor_.control(in, 0, -1, -1, events::ControlFlow::kStops);
    visitor_.reached_invalid(in, why, true);
    finished_ = true;
}

// op 0: winding of the first three vertices (-1 with a vertex behind, 0 under three vertices),
// stored as the last winding; the face is drawn unless a vertex is behind (op.primary.order).
void Walk::primary(const Instruction& in) {
    const Packet& packet = std::get<FaceOperands>(in.operands).packet;
    continue_at(in.offset + in.size);
    if (any_behind(in, packet.vertices)) {
        last_winding_ = -1;
        return;
    }
    last_winding_ = 0;
    if (packet.vertices.size() >= 3) {
        last_winding_ = winding_of(packet.vertices);
        visitor_.winding(in, last_winding_);
    }
    visitor_.face(in, packet);
}

// op 1: drawn when the last winding is >= 0 and no vertex is behind.
void Walk::secondary(const Instruction& in) {
    const Packet& packet = std::get<FaceOperands>(in.operands).packet;
    continue_at(in.offset + in.size);
    if (last_winding_ >= 0 && !any_behind(in, packet.vertices)) visitor_.face(in, packet);
}

// op 2 (op.plane.order): w >= 0 runs back then front, else front then back; then the continuation.
void Walk::plane(const Instruction& in) {
    const auto& o = std::get<PlaneOperands>(in.operands);
    std::int32_t w = -1;
    if (!any_behind(in, o.vertices)) {
        w = winding_of(o.vertices);
        visitor_.winding(in, w);
    }
    if (w >= 0) {
        run_branches(in, o.back, o.front, o.continuation);
    } else {
        run_branches(in, o.front, o.back, o.continuation);
    }
}

void Walk::if_mask(const Instruction& in) {
    const auto& o = std::get<IfMaskOperands>(in.operands);
    const std::uint32_t value = state_ & o.mask;
    if (value != 0 && too_deep()) return invalid(in, nesting_message(), true);
    visitor_.control(in, value, value != 0 ? 1 : 0, value != 0 ? std::int64_t{o.branch} : -1,
                     value != 0 ? o.branch : o.continuation);
    if (value != 0) {
        run_branches(in, o.branch, std::nullopt, o.continuation);
    } else {
        continue_at(o.continuation);
    }
}

void Walk::choose(const Instruction& in) {
    const auto& o = std::get<ChooseOperands>(in.operands);
    const std::uint32_t value = state_ & o.mask;
    if (too_deep()) return invalid(in, nesting_message(), true);
    const std::uint32_t target = value != 0 ? o.set : o.clear;
    visitor_.control(in, value, value != 0 ? 1 : 0, target, target);
    run_branches(in, target, std::nullopt, o.continuation);
}

// op.select.value / op.select.bound: a value past the authored table runs no case.
void Walk::select(const Instruction& in) {
    const auto& o = std::get<SelectOperands>(in.operands);
    const std::uint32_t value = (state_ >> o.shift) & o.mask;
    if (value < o.cases.size()) {
        if (too_deep()) return invalid(in, nesting_message(), true);
        visitor_.control(in, value, static_cast<std::int32_t>(value), o.cases[value], o.cases[value]);
        run_branches(in, o.cases[value], std::nullopt, o.continuation);
    } else {
        visitor_.control(in, value, -1, -1, o.continuation);
        continue_at(o.continuation);
    }
}

void Walk::attach(const Instruction& in) {
    continue_at(in.offset + in.size);
    visitor_.attach(in, std::get<AttachOperands>(in.operands).slot);
}

void Walk::return_(const Instruction&) {
    if (pending_.empty()) {
        finished_ = true;
        return;
    }
    at_ = pending_.back();
    pending_.pop_back();
}

void Walk::run_branches(const Instruction& in, std::uint32_t first, std::optional<std::uint32_t> second,
                        std::uint32_t continuation) {
    const std::uint32_t nesting = at_.nesting + 1;
    if (nesting > kMaxNesting) return invalid(in, nesting_message(), false); // op 2 (a switch checked first)
    pending_.push_back({continuation, at_.nesting});
    if (second) pending_.push_back({*second, nesting});
    at_ = {first, nesting};
}

} // namespace

void walk_program(const Program& program, std::span<const ScreenPoint> screen, std::uint32_t state,
                  ProgramVisitor& visitor) {
    if (program.empty()) return; // hdr.absent.empty: an absent program draws nothing
    Walk(program, screen, state, visitor).run();
}

} // namespace refcheck::reimpl
