// The phase clock of refcheck bench (phase.hpp): time is booked to the phase its scope names, nested
// scopes return to the phase they found, and without a clock a scope does nothing.
#include "refcheck/harness/phase.hpp"

#include <gtest/gtest.h>

#include <chrono>

using namespace refcheck::harness;

namespace {

// Spins until the steady clock has moved by `d`: at least that much time passes inside the caller's
// scope, however loaded the machine is.
void spin(std::chrono::steady_clock::duration d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) {}
}

std::size_t at(Phase p) { return static_cast<std::size_t>(p); }

} // namespace

TEST(PhaseClock, WithoutAClockAScopeDoesNothing) {
    ASSERT_EQ(PhaseClock::current(), nullptr);
    const ScopedPhase scope(Phase::emulation);
    EXPECT_EQ(PhaseClock::current(), nullptr);
    EXPECT_EQ(in_phase(Phase::reimpl, [] { return 7; }), 7);
}

TEST(PhaseClock, NestedScopesReturnToThePhaseTheyFound) {
    PhaseClock clock;
    EXPECT_EQ(PhaseClock::current(), &clock);
    {
        const ScopedPhase emulation(Phase::emulation);
        {
            const ScopedPhase callback(Phase::harness);
            EXPECT_EQ(clock.switch_to(Phase::harness), Phase::harness);
        }
        EXPECT_EQ(clock.switch_to(Phase::emulation), Phase::emulation);
    }
    EXPECT_EQ(clock.switch_to(Phase::harness), Phase::harness);
    {
        PhaseClock inner; // a second clock replaces the first until it goes
        EXPECT_EQ(PhaseClock::current(), &inner);
    }
    EXPECT_EQ(PhaseClock::current(), &clock);
}

TEST(PhaseClock, TimeIsBookedToTheScopesPhaseOnly) {
    using std::chrono::milliseconds;
    const auto t0 = std::chrono::steady_clock::now();
    PhaseClock clock;
    {
        const ScopedPhase emulation(Phase::emulation);
        spin(milliseconds(20));
        // A callback from inside the emulated call: its time is the harness's, not the emulation's.
        in_phase(Phase::harness, [] { spin(milliseconds(10)); });
        in_phase(Phase::reimpl, [] { spin(milliseconds(5)); });
    }
    const auto s = clock.seconds();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GE(s[at(Phase::emulation)], 0.020);
    EXPECT_GE(s[at(Phase::harness)], 0.010);
    EXPECT_GE(s[at(Phase::reimpl)], 0.005);
    // Nothing is counted twice: the emulation's scope spans all 35 ms, but the three phases together
    // take no more than the wall time that passed (had the nested 15 ms been booked to the emulation
    // too, they would add up to 15 ms more than passed).
    EXPECT_LE(s[0] + s[1] + s[2], wall);
}
