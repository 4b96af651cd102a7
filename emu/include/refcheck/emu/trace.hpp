// The opt-in instruction trace: a ring buffer of executed instruction addresses.
#pragma once

#include <cstddef>
#include <vector>

#include "refcheck/emu/types.hpp"

namespace refcheck::emu {

class Trace {
public:
    void reset(size_t capacity);
    void record(Address a) {
        ring_[next_] = a;
        next_ = next_ + 1 == ring_.size() ? 0 : next_ + 1;
        ++total_;
    }
    // The last n addresses executed, oldest first (fewer if fewer were recorded).
    std::vector<Address> last(size_t n) const;
    size_t capacity() const { return ring_.size(); }
    uint64_t total() const { return total_; }

private:
    std::vector<Address> ring_;
    size_t next_ = 0;
    uint64_t total_ = 0;
};

} // namespace refcheck::emu
