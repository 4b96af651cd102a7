// The wall-clock limit of Machine::call: ONE watchdog thread per machine that calls uc_emu_stop
// when an armed deadline passes. Unicorn's own uc_emu_start timeout starts and joins a thread on
// every call (~120 us a call here). Arming this one costs a mutex and, usually, nothing more: the
// thread sleeps until the deadline it last saw and only then looks at what is armed, so it is woken
// early only when it waits for nothing or a new deadline comes before the one it waits for (a notify
// per call woke it on every call, a futex wake and a context switch each: 8% of a program run).
#pragma once

#include <unicorn/unicorn.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>

namespace refcheck::emu {

class Watchdog {
public:
    explicit Watchdog(uc_engine* uc) : uc_(uc) {}
    ~Watchdog();
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

    // Before uc_emu_start: stop the engine if it still runs `ms` from now.
    void arm(uint32_t ms);
    // After uc_emu_start returned: true if the deadline stopped it.
    bool disarm();

private:
    void run();

    using Clock = std::chrono::steady_clock;
    uc_engine* uc_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<Clock::time_point> deadline_;      // the armed call's
    std::optional<Clock::time_point> waiting_until_; // the thread's timed wait; none when idle
    bool idle_ = false;                              // the thread waits with no deadline in view
    bool fired_ = false;
    bool quit_ = false;
    std::thread thread_;
};

} // namespace refcheck::emu
