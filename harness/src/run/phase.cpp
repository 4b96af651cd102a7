#include "refcheck/harness/phase.hpp"

namespace refcheck::harness {

namespace {
thread_local PhaseClock* t_clock = nullptr;
}

PhaseClock::PhaseClock() : outer_(t_clock) { t_clock = this; }

PhaseClock::~PhaseClock() { t_clock = outer_; }

PhaseClock* PhaseClock::current() { return t_clock; }

Phase PhaseClock::switch_to(Phase p) {
    const Clock::time_point now = Clock::now();
    spent_[static_cast<std::size_t>(phase_)] += now - since_;
    since_ = now;
    const Phase was = phase_;
    phase_ = p;
    return was;
}

std::array<double, kPhases> PhaseClock::seconds() {
    switch_to(phase_);
    std::array<double, kPhases> out{};
    for (std::size_t i = 0; i < kPhases; ++i) out[i] = std::chrono::duration<double>(spent_[i]).count();
    return out;
}

} // namespace refcheck::harness
