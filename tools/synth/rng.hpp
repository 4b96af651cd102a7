// Deterministic pseudo-random numbers for the generator (splitmix64). Never std:: distributions:
// their output differs between standard libraries, and the archives must be byte-identical everywhere.
#pragma once
#include <cstdint>
#include <string_view>

namespace refcheck::synth {

inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// FNV-1a, to derive per-model streams from names.
inline uint64_t hash_name(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
    return h;
}

class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}
    uint64_t next() { return mix64(state_ += 0x9e3779b97f4a7c15ULL); }
    // Uniform in [0, n) by multiply-shift (n > 0).
    uint32_t below(uint32_t n) { return static_cast<uint32_t>(((next() >> 32) * n) >> 32); }
    // Uniform in [lo, hi], inclusive.
    int32_t range(int32_t lo, int32_t hi) {
        return lo + static_cast<int32_t>(below(static_cast<uint32_t>(hi - lo + 1)));
    }
    bool chance(uint32_t percent) { return below(100) < percent; }
    Rng fork(uint64_t salt) const { return Rng(mix64(state_ ^ mix64(salt))); }

private:
    uint64_t state_;
};

} // namespace refcheck::synth
