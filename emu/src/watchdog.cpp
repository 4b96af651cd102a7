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
    {
        std::lock_guard lock(mutex_);
        deadline_ = Clock::now() + std::chrono::milliseconds(ms);
        fired_ = false;
        if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    }
    wake_.notify_one();
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
            wake_.wait(lock);
            continue;
        }
        Clock::time_point when = *deadline_;
        wake_.wait_until(lock, when);
        if (deadline_ && *deadline_ == when && Clock::now() >= when) {
            // Still armed for the same call: stop it. (Harmless if it has just finished: the
            // next uc_emu_start clears Unicorn's stop request.)
            uc_emu_stop(uc_);
            fired_ = true;
            deadline_.reset();
        }
    }
}

} // namespace refcheck::emu
