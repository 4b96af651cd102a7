// Where a case's wall time goes, for `refcheck bench` only: inside the original's calls (emulation,
// less the harness's own hook callbacks run from inside them), inside the reimplementation, and the
// rest (the harness: events converted, aligned and compared, reports built). Off unless a PhaseClock
// is installed on the thread: then each ScopedPhase reads the steady clock twice; without one it
// costs a thread-local load, and no hook or callback is wrapped. Never written into a report.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <utility>

namespace refcheck::harness {

enum class Phase : std::uint8_t { harness, emulation, reimpl };
inline constexpr std::size_t kPhases = 3;

class PhaseClock {
public:
    // Installs this clock on the calling thread (the one it replaces comes back when it is destroyed)
    // and starts it in Phase::harness.
    PhaseClock();
    ~PhaseClock();
    PhaseClock(const PhaseClock&) = delete;
    PhaseClock& operator=(const PhaseClock&) = delete;

    // The clock installed on this thread, or nullptr.
    static PhaseClock* current();
    // Books the time since the last switch to the phase it was in; returns that phase.
    Phase switch_to(Phase p);
    // Seconds per phase so far (the running phase included), indexed by Phase.
    std::array<double, kPhases> seconds();

private:
    using Clock = std::chrono::steady_clock;
    std::array<Clock::duration, kPhases> spent_{};
    Phase phase_ = Phase::harness;
    Clock::time_point since_ = Clock::now();
    PhaseClock* outer_ = nullptr;
};

// Runs its scope in `p`, then returns to the phase it found. Nests (a hook callback inside an
// emulated call is harness time again).
class ScopedPhase {
public:
    explicit ScopedPhase(Phase p) : clock_(PhaseClock::current()) {
        if (clock_) previous_ = clock_->switch_to(p);
    }
    ~ScopedPhase() {
        if (clock_) clock_->switch_to(previous_);
    }
    ScopedPhase(const ScopedPhase&) = delete;
    ScopedPhase& operator=(const ScopedPhase&) = delete;

private:
    PhaseClock* clock_;
    Phase previous_ = Phase::harness;
};

} // namespace refcheck::harness

namespace refcheck::harness {

// f() run in phase `p`: `const auto x = in_phase(Phase::reimpl, [&] { return reimpl::construct(...); });`
template <class F>
decltype(auto) in_phase(Phase p, F&& f) {
    const ScopedPhase scope(p);
    return std::forward<F>(f)();
}

} // namespace refcheck::harness
