#include "refcheck/emu/trace.hpp"

#include <algorithm>

namespace refcheck::emu {

void Trace::reset(size_t capacity) {
    ring_.assign(std::max<size_t>(capacity, 1), 0);
    next_ = 0;
    total_ = 0;
}

std::vector<Address> Trace::last(size_t n) const {
    size_t have = static_cast<size_t>(std::min<uint64_t>(total_, ring_.size()));
    n = std::min(n, have);
    std::vector<Address> out;
    out.reserve(n);
    size_t start = (next_ + ring_.size() - n) % ring_.size();
    for (size_t i = 0; i < n; ++i) out.push_back(ring_[(start + i) % ring_.size()]);
    return out;
}

} // namespace refcheck::emu
