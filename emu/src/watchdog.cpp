#include "watchdog.hpp"

namespace refcheck::emu {

Watchdog::~Watchdog() {
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
}

void Watchdog::arm(uint32_t ms) {
    bool wake = false;
    {
        std::lock_guard lock(mutex_);
        const Clock::time_point when = Clock::now() + std::chrono::milliseconds(ms);
        deadline_ = when;
        fired_ = false;
        if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
        wake = idle_ || (waiting_until_ && when < *waiting_until_);
    }
    if (wake) wake_.notify_one();
}

bool Watchdog::disarm() {
    std::lock_guard lock(mutex_);
    deadline_.reset();
    return fired_;
}

void Watchdog::run() {
    std::unique_lock lock(mutex_);
    while (!quit_) {
        if (!deadline_) {
            idle_ = true;
            wake_.wait(lock);
            idle_ = false;
            continue;
        }
        // Sleep until the armed deadline. Calls that begin and end meanwhile arm later deadlines
        // without waking this thread; on waking it looks again at whatever is armed now.
        waiting_until_ = *deadline_;
        wake_.wait_until(lock, *waiting_until_);
        waiting_until_.reset();
        if (deadline_ && Clock::now() >= *deadline_) {
            // The call armed now has run past its deadline: stop it. (Harmless if it has just
            // finished: the next uc_emu_start clears Unicorn's stop request.)
            uc_emu_stop(uc_);
            fired_ = true;
            deadline_.reset();
        }
    }
}

} // namespace refcheck::emu
